// What happened to an order or a shipment (GET .../historial, docs/api.md#history): its
// creation, then each status change, oldest first, each with when and who made it. A
// customer reads their own; the API answers 404 for anything else.
import {clear, h, when} from "./dom.js";

// `rol` of an entry: the role of whoever made it; null for an order placed before the
// history was kept (who placed it was not recorded).
const WHO = {operator: "by an operator", customer: "by the customer"};
// The API keeps the first entry and the 99 newest changes (docs/api.md#limits).
const KEPT = 100;

/** The section of a screen that shows `path`'s history; `load()` (again after a move)
 * fetches and shows it. `what` names the item for messages ("order 12"). */
export function historySection(ctx, path, what) {
  const heading = h("h3", {id: "history-heading"}, "History");
  const count = h("p", {class: "count", id: "history-count"});
  // role="list": a list styled without bullets is still announced as a list (Safari
  // drops the role of such a list otherwise).
  const entries = h("ol", {class: "timeline", role: "list", "aria-labelledby": "history-heading",
    "aria-describedby": "history-count"});
  const section = h("section", {class: "history", "aria-labelledby": "history-heading"},
    heading, count, entries);

  async function load() {
    entries.setAttribute("aria-busy", "true");
    try {
      const answer = await ctx.api.request("GET", path);
      const items = Array.isArray(answer.data) ? answer.data : [];
      clear(entries).append(...items.map(entry));
      count.textContent = `${items.length} ${items.length === 1 ? "entry" : "entries"}, ` +
        "oldest first." + (items.length >= KEPT
        ? " The platform keeps the first entry and the 99 newest changes." : "");
    } catch (error) {
      clear(entries);
      count.textContent = "The history could not be loaded.";
      ctx.fail(error, `Loading the history of ${what}`);
    } finally {
      entries.removeAttribute("aria-busy");
    }
  }

  return {section, load};
}

function entry({status, fecha, rol}) {
  return h("li", {class: "timeline-entry", "data-status": status},
    h("span", {class: `pill pill-${String(status).toLowerCase()}`}, status), " ",
    when(fecha), " ",
    h("span", {class: "who"}, WHO[rol] ?? "by someone unknown (not recorded)"));
}
