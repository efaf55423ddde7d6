// @ts-check
// Small DOM helpers shared by the view modules.

/** The element with `id` (the page always has it). @param {string} id @returns {any} */
export const $ = (id) => /** @type {any} */ (document.getElementById(id));

export const num = new Intl.NumberFormat();

/**
 * An element with attributes (`class`, `text`, `on…` handlers) and children.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c != null && c !== false) el.append(c);
  return el;
}

/** Key caps for a button label. @param {...string} keys */
export function kbd(...keys) {
  /** @type {(string | HTMLElement)[]} */
  const out = [];
  keys.forEach((k, i) => {
    if (i) out.push("+");
    out.push(h("kbd", { text: k }));
  });
  return h("span", { class: "keys", "aria-hidden": "true" }, out);
}

/** Grow a textarea with its text, up to 60% of the window. @param {HTMLTextAreaElement} textarea */
export function autosize(textarea) {
  textarea.style.height = "auto";
  textarea.style.height = `${Math.min(textarea.scrollHeight + 2, window.innerHeight * 0.6)}px`;
}

/** localStorage that never throws (full or disabled storage: the UI works without it). */
export const store = {
  /** @param {string} key @param {any} [fallback] */
  get(key, fallback = null) {
    try {
      const v = localStorage.getItem(key);
      return v == null ? fallback : JSON.parse(v);
    } catch {
      return fallback;
    }
  },
  /** @param {string} key @param {any} value */
  set(key, value) {
    try {
      if (value == null) localStorage.removeItem(key);
      else localStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* storage full or disabled */
    }
  },
};

/**
 * Ask in the confirmation dialog; resolves true for OK.
 * @param {string} text
 * @param {{title?: string, ok?: string, danger?: boolean}} [opts]
 * @returns {Promise<boolean>}
 */
export function confirmDialog(text, { title = "Delete session?", ok = "Delete", danger = true } = {}) {
  const dialog = $("confirm");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  const button = $("confirm-ok");
  button.textContent = ok;
  button.className = `button ${danger ? "button-danger" : "button-primary"}`;
  return new Promise((resolve) => {
    dialog.returnValue = "";
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}

/** Save a blob under `name` through a temporary link. @param {Blob} blob @param {string} name */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Scroll `el` into the visible part of the scrolling `pane` when it is outside. @param {HTMLElement} pane @param {HTMLElement} el */
export function scrollPaneTo(pane, el) {
  const top = el.offsetTop - pane.offsetTop;
  if (top < pane.scrollTop + 24 || top + el.offsetHeight > pane.scrollTop + pane.clientHeight - 24) {
    pane.scrollTo({ top: Math.max(0, top - pane.clientHeight / 3), behavior: "smooth" });
  }
}

/**
 * Keep the CSS variable `name` on the root equal to `el`'s height in pixels, as it changes (the sticky
 * status bar's, which the review head sticks below on a narrow window).
 * @param {HTMLElement} el @param {string} name
 */
export function trackHeight(el, name) {
  const set = () => document.documentElement.style.setProperty(name, `${Math.ceil(el.getBoundingClientRect().height)}px`);
  set();
  new ResizeObserver(set).observe(el);
}
