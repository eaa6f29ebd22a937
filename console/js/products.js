// Products as orders and screens show them: looked up by id (GET /api/inventario/{id},
// which customers may read too: docs/api.md#who-may-do-what), and their units, on hand,
// reserved by approved orders and available (docs/api.md#stock-follows-orders).
import {h} from "./dom.js";

// Requests in flight at once: a page of 50 orders may name 50 products; asking them all
// at the same moment would compete with the page's own requests for the connections.
const AT_ONCE = 6;

/** Products by id, each asked once and kept for the screen that made this lookup (a
 * reload makes a new one). An entry is {state: "found", product}, {state: "deleted"}
 * (404: ids are never reused, so it was deleted) or {state: "unknown"} (it could not be
 * asked now); undefined while not asked yet. */
export class ProductLookup {
  constructor(api) {
    this.api = api;
    this.known = new Map();
    this.pending = new Map();
    this.running = 0;
    this.waiting = [];
  }

  get(id) {
    return this.known.get(id);
  }

  /** Asks again (its units moved); what was known stays known until the answer. */
  renew(id) {
    // After any answer still on its way, which may be from before the move.
    return (this.pending.get(id) ?? Promise.resolve()).then(() => this.one(id, true));
  }

  /** Looks up every id not known yet, at most AT_ONCE at a time; `each(id, entry)` as
   * each answer comes; resolves once all are known. */
  async lookUp(ids, each = () => {}) {
    await Promise.all([...new Set(ids)].map(async (id) => {
      if (this.known.has(id)) return;
      // An id past 2^53 is not the product's once read by JavaScript: not asked.
      if (!Number.isSafeInteger(id) || id < 1) this.known.set(id, {state: "unknown"});
      each(id, await this.one(id));
    }));
  }

  /** The entry of one id, asked if it is not known (or `again`). */
  one(id, again = false) {
    if (!this.pending.has(id) && (again || !this.known.has(id))) {
      const asked = this.slot(() => this.api.request("GET", `/api/inventario/${id}`))
        .then((answer) => ({state: "found", product: answer.data}),
          (error) => ({state: error.status === 404 ? "deleted" : "unknown"}))
        .then((entry) => {
          this.pending.delete(id);
          this.known.set(id, entry);
          return entry;
        });
      this.pending.set(id, asked);
    }
    return this.pending.get(id) ?? Promise.resolve(this.known.get(id));
  }

  async slot(task) {
    while (this.running >= AT_ONCE) await new Promise((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

/** stockDisponible, computed as the API does for an answer that lacks it. */
export function available(product) {
  return product.stockDisponible ?? product.stockActual - (product.stockReservado ?? 0);
}

export function reserved(product) {
  return product.stockReservado ?? 0;
}

/** The available units as a table cell or a fact: a negative figure (approved orders
 * hold more than is on hand, after a recount) says so in words, not only as a sign. */
export function availableFigure(product) {
  const units = available(product);
  if (units >= 0) return String(units);
  return h("span", {}, String(units), " ", h("strong", {class: "badge"}, "Over-reserved"));
}

/** One line of a product's units: "10 in stock, 2 reserved, 8 available". */
export function unitsLine(product) {
  const units = available(product);
  return h("span", {}, `${product.stockActual} in stock, ${reserved(product)} reserved, ` +
    `${units} available`, units < 0 ? [" ", h("strong", {class: "badge"}, "Over-reserved")] : null);
}
