// @ts-check
// The start form's target languages: the language field, and more with "+ Add language" (each its own
// field with the same list and a remove button), or several typed into one field with commas. One
// language starts a session as before; more start a job (web/js/jobs.js).

import { $, h } from "./dom.js";
import { splitLanguages } from "./jobmodel.js";

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
  $("add-lang").addEventListener("click", () => {
    addLanguage(onInput);
    onInput();
  });
}
