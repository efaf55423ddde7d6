// @ts-check
// The start form's target languages: the language field, and more with "+ Add language" (each its own
// field with the same list and a remove button), or several typed into one field with commas. One
// language starts a session as before; more start a job (web/js/jobs.js).

import { $, h } from "./dom.js";
import { splitLanguages } from "./jobmodel.js";

export const LANGUAGES = [
  ["Arabic", "ar"], ["Bengali", "bn"], ["Bulgarian", "bg"], ["Catalan", "ca"], ["Chinese (Simplified)", "zh-Hans"],
  ["Chinese (Traditional)", "zh-Hant"], ["Croatian", "hr"], ["Czech", "cs"], ["Danish", "da"], ["Dutch", "nl"],
  ["English", "en"], ["Estonian", "et"], ["Finnish", "fi"], ["French", "fr"], ["German", "de"], ["Greek", "el"],
  ["Hebrew", "he"], ["Hindi", "hi"], ["Hungarian", "hu"], ["Indonesian", "id"], ["Italian", "it"], ["Japanese", "ja"],
  ["Korean", "ko"], ["Latvian", "lv"], ["Lithuanian", "lt"], ["Malay", "ms"], ["Norwegian", "no"], ["Persian", "fa"],
  ["Polish", "pl"], ["Portuguese (Brazil)", "pt-BR"], ["Portuguese (Portugal)", "pt-PT"], ["Romanian", "ro"],
  ["Russian", "ru"], ["Serbian", "sr"], ["Slovak", "sk"], ["Slovenian", "sl"], ["Spanish", "es"],
  ["Spanish (Latin America)", "es-419"], ["Swahili", "sw"], ["Swedish", "sv"], ["Tagalog", "tl"], ["Thai", "th"],
  ["Turkish", "tr"], ["Ukrainian", "uk"], ["Urdu", "ur"], ["Vietnamese", "vi"],
];

/** The BCP 47 tag of a language name, when known. @param {string | null} name */
export function langTag(name) {
  if (!name) return null;
  const found = LANGUAGES.find(([n]) => n.toLowerCase() === name.trim().toLowerCase());
  return found ? found[1] : null;
}

/** The languages the form names, each once, the first field's first. */
export function formLanguages() {
  const fields = [$("target-lang"), ...document.querySelectorAll("#more-langs input")];
  return splitLanguages(fields.map((f) => /** @type {HTMLInputElement} */ (f).value));
}

/** Another language field, focused. @param {() => void} onInput @param {string} [value] */
function addLanguage(onInput, value = "") {
  const list = $("more-langs");
  const n = list.children.length + 2;
  const input = /** @type {HTMLInputElement} */ (
    h("input", { type: "text", list: "languages", autocomplete: "off", "aria-label": `Target language ${n}`, placeholder: "e.g. German" })
  );
  input.value = value;
  const item = h(
    "li",
    { class: "more-lang" },
    input,
    h("button", {
      type: "button",
      class: "button button-quiet button-small",
      "aria-label": `Remove target language ${n}`,
      title: "Remove this language",
      text: "×",
      onclick: () => {
        item.remove();
        renumber();
        onInput();
        $("add-lang").focus();
      },
    }),
  );
  list.append(item);
  input.focus();
}

function renumber() {
  [...$("more-langs").querySelectorAll("li")].forEach((li, i) => {
    li.querySelector("input")?.setAttribute("aria-label", `Target language ${i + 2}`);
    li.querySelector("button")?.setAttribute("aria-label", `Remove target language ${i + 2}`);
  });
}

/** Wire "+ Add language". @param {() => void} onInput called when the languages change */
export function setupLanguages(onInput) {
  $("languages").replaceChildren(...LANGUAGES.map(([name]) => h("option", { value: name })));
  $("add-lang").addEventListener("click", () => {
    addLanguage(onInput);
    onInput();
  });
}
