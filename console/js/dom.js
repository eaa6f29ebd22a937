// Building the page with DOM calls only, never innerHTML: the API's text (a product's
// name, a destination) is shown as text whatever it holds, and the page's
// Content-Security-Policy needs no inline script or style.

/** An element: h("button", {class: "x", onclick: fn, "aria-label": "..."}, "text", child). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      element.className = value;
    } else if (name === "value") {
      // The default too, so that form.reset() goes back to it.
      if ("defaultValue" in element) element.defaultValue = value;
      element.value = value;
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  appendAll(element, children);
  return element;
}

/** element.append without the nulls of optional parts (DOM's would write "null"). */
export function append(element, ...children) {
  appendAll(element, children);
  return element;
}

function appendAll(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(element) {
  while (element.firstChild) element.firstChild.remove();
  return element;
}

/** A labelled field with a place for its own error message (filled by showFieldErrors). */
export function field(id, label, control, hint) {
  control.id = id;
  const describedBy = [`${id}-error`, hint ? `${id}-hint` : null].filter(Boolean).join(" ");
  control.setAttribute("aria-describedby", describedBy);
  return h("div", {class: "field"},
    h("label", {for: id}, label),
    hint ? h("p", {class: "hint", id: `${id}-hint`}, hint) : null,
    control,
    h("p", {class: "field-error", id: `${id}-error`}));
}

export function input(name, attributes = {}) {
  return h("input", {name, type: "text", autocomplete: "off", ...attributes});
}

export function select(name, options, attributes = {}) {
  return h("select", {name, ...attributes},
    options.map(([value, text]) => h("option", {value}, text)));
}

/** Clears every field error of a form. */
export function clearFieldErrors(form) {
  for (const control of form.querySelectorAll("[aria-invalid]")) {
    control.removeAttribute("aria-invalid");
  }
  for (const message of form.querySelectorAll(".field-error")) message.textContent = "";
}

/** Shows each {field, message} next to the form's control of that name; returns the
 * problems no control of the form could show (to be told in the status line instead). */
export function showFieldErrors(form, details) {
  clearFieldErrors(form);
  const unplaced = [];
  let first = null;
  for (const {field: name, message} of details) {
    const control = name ? form.elements.namedItem(name) : null;
    if (!control || !control.id) {
      unplaced.push(name ? `${name} ${message}` : message);
      continue;
    }
    control.setAttribute("aria-invalid", "true");
    const slot = document.getElementById(`${control.id}-error`);
    slot.textContent = slot.textContent ? `${slot.textContent}; ${message}` : message;
    first ??= control;
  }
  first?.focus();
  return unplaced;
}

/** The form's values by control name, as strings (empty ones left out). */
export function formValues(form) {
  const values = {};
  for (const control of form.elements) {
    if (!control.name || control.disabled) continue;
    const value = control.value.trim();
    if (value !== "") values[control.name] = value;
  }
  return values;
}

/** A number for the API: the text as typed if it is not a number, so that the API's own
 * validation message (which names the field) is the one shown. */
export function asNumber(text) {
  if (text === undefined) return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? number : text;
}

/** "2026-11-22T14:03:07.123456" (UTC, docs/api.md#conventions) as "2026-11-22 14:03 UTC". */
export function timestamp(text) {
  if (!text) return "";
  return `${text.slice(0, 10)} ${text.slice(11, 16)} UTC`;
}

const API_TIME = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,3})?\d*$/;

/** An API timestamp (UTC without an offset, docs/api.md#conventions) as a <time>: shown
 * in the browser's own time zone, named ("2026-11-22 09:03:07 GMT-5"), with the instant
 * in ISO form in its `datetime` (at most milliseconds, as HTML allows) and the API's own
 * value in its title. Text that is not such a timestamp is shown as it is. */
export function when(text) {
  const match = API_TIME.exec(text ?? "");
  if (!match) return text ?? "";
  const iso = `${match[1]}${match[2] ?? ""}Z`;
  return h("time", {datetime: iso, title: `${text} UTC`}, localTime(new Date(iso)));
}

/** "2026-11-22 09:03:07 GMT-5": the date and time where the browser is, and its zone. */
export function localTime(date) {
  const two = (number) => String(number).padStart(2, "0");
  const zone = new Intl.DateTimeFormat(undefined, {timeZoneName: "short"})
    .formatToParts(date).find((part) => part.type === "timeZoneName")?.value;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}` +
    (zone ? ` ${zone}` : "");
}

/** An item's fields as a description list: [[term, value], ...] (falsy pairs left out). */
export function facts(pairs) {
  return h("dl", {class: "facts"}, pairs.filter(Boolean).map(([term, value]) =>
    h("div", {}, h("dt", {}, term), h("dd", {}, value))));
}

/** A table around `body` (its tbody, filled with row()), whose rows read as labelled
 * cards on a narrow screen (console.css). */
export function table(caption, columns, body) {
  return h("div", {class: "table-wrap"},
    h("table", {},
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, columns.map((column) => h("th", {scope: "col"}, column)))),
      body));
}

export function row(columns, cells, attributes = {}) {
  return h("tr", attributes, cells.map((cell, index) =>
    h("td", {"data-label": columns[index]}, cell)));
}
