// Orders (docs/api.md#orders): operators see every order, filter by status and move
// each along its lifecycle; customers see their own (the API lists only those), place
// orders and cancel them. Both may place an order.
import {newIdempotencyKey} from "../api.js";
import {
  asNumber, clear, clearFieldErrors, field, formValues, h, input, row, select,
  showFieldErrors, table, timestamp,
  append,
} from "../dom.js";
import {ORDER_MOVE_LABELS, ORDER_STATUSES, orderMoves} from "../lifecycle.js";
import {PagedList} from "../paged.js";

const COLUMNS = ["ID", "Customer", "Product", "Quantity", "Total", "Type", "Destination",
  "Status", "Placed", "Actions"];
// Where the API's refusals of an order belong (docs/api.md#placing-an-order-the-stock-check).
const REFUSAL_FIELDS = {INSUFFICIENT_STOCK: "cantidad", PRODUCT_NOT_FOUND: "productoId"};

export function render(main, ctx, params) {
  const {session} = ctx;
  const customer = session.role === "customer";
  const list = new PagedList(ctx.api);
  let key = newIdempotencyKey();
  let totalTyped = false;

  const statusFilter = select("status", [["", "Any status"],
    ...ORDER_STATUSES.map((s) => [s, s])], {id: "orders-status"});
  statusFilter.value = ORDER_STATUSES.includes(params.get("status")) ? params.get("status") : "";
  const rows = h("tbody");
  const shown = h("p", {class: "count"});
  const more = h("button", {type: "button", hidden: true}, "Load more orders");
  const form = orderForm();

  function actions(order) {
    const moves = orderMoves(order.status, session.role).map((to) =>
      h("button", {type: "button", class: to === "CANCELADO" ? "danger" : null,
        "aria-label": `${ORDER_MOVE_LABELS[to]} order ${order.id}`,
        onclick: () => move(order, to)}, ORDER_MOVE_LABELS[to]));
    return h("span", {class: "actions"}, ...moves,
      h("a", {class: "button", href: `#shipments?pedidoId=${order.id}`,
        "aria-label": `Shipments of order ${order.id}`}, "Shipments"));
  }

  function draw() {
    clear(rows).append(...list.items.map((o) => row(COLUMNS, [
      String(o.id), h("span", {}, o.clienteNombre, h("br"), h("small", {}, `${o.userEmail} · user ${o.userId}`)),
      String(o.productoId), String(o.cantidad), String(o.total), o.tipoPedido, o.destino,
      h("span", {class: `pill pill-${o.status.toLowerCase()}`}, o.status),
      timestamp(o.creadoEn), actions(o),
    ], {"data-id": o.id})));
    shown.textContent = `${list.items.length} ${customer ? "of your orders" : "orders"} loaded` +
      (list.next ? " (more to load)." : ".");
    more.hidden = !list.next;
  }

  async function load() {
    try {
      await list.load("/api/pedidos", {status: statusFilter.value});
      draw();
    } catch (error) {
      ctx.fail(error, "Loading the orders");
    }
  }

  async function refresh(order) {
    try {
      list.replace((await ctx.api.request("GET", `/api/pedidos/${order.id}`)).data);
    } catch (error) {
      if (error.status !== 404) throw error;
      list.remove(order.id);
    }
    draw();
  }

  async function move(order, to) {
    const doing = `${ORDER_MOVE_LABELS[to]} order ${order.id}`;
    try {
      const answer = await ctx.api.request("PATCH", `/api/pedidos/${order.id}/status`,
        {query: {status: to}});
      list.replace(answer.data);
      draw();
      ctx.say(`Order ${order.id} is now ${answer.data.status}.`);
      rows.querySelector(`tr[data-id="${order.id}"] button, tr[data-id="${order.id}"] a`)?.focus();
    } catch (error) {
      ctx.fail(error, doing);
      if (error.status === 409 || error.status === 404) {
        refresh(order).catch((again) => ctx.fail(again, "Reloading the order"));
      }
    }
  }

  more.addEventListener("click", async () => {
    try {
      await list.more();
      draw();
      ctx.say(`${list.items.length} orders loaded.`);
    } catch (error) {
      ctx.fail(error, "Loading more orders");
    }
  });
  statusFilter.addEventListener("change", load);

  // The price of each product asked for, so the total follows the latest quantity
  // whatever order the answers come back in.
  const prices = new Map();

  async function fillTotal() {
    const id = Number(formValues(form).productoId);
    if (totalTyped || !Number.isInteger(id) || id < 1) return;
    if (!prices.has(id)) {
      try {
        prices.set(id, (await ctx.api.request("GET", `/api/inventario/${id}`)).data.precioUnitario);
      } catch {
        return;  // no price to suggest: the total is typed in
      }
    }
    const values = formValues(form);
    const quantity = Number(values.cantidad);
    if (totalTyped || Number(values.productoId) !== id || !Number.isInteger(quantity)) return;
    form.elements.namedItem("total").value =
      String(Math.round(prices.get(id) * quantity * 100) / 100);
  }

  async function place(event) {
    event.preventDefault();
    const values = formValues(form);
    const body = {
      userId: asNumber(values.userId), userEmail: values.userEmail,
      clienteNombre: values.clienteNombre, total: asNumber(values.total),
      tipoPedido: values.tipoPedido, destino: values.destino,
      productoId: asNumber(values.productoId), cantidad: asNumber(values.cantidad),
    };
    try {
      const order = (await ctx.api.request("POST", "/api/pedidos",
        {body, idempotencyKey: key})).data;
      key = newIdempotencyKey();
      if (!statusFilter.value || statusFilter.value === order.status) list.added(order);
      draw();
      resetForm();
      ctx.say(`Order ${order.id} placed: ${order.status}.` +
        (order.observaciones ? ` ${order.observaciones}.` : ""));
    } catch (error) {
      const place = REFUSAL_FIELDS[error.code];
      if (error.status === 400 && (error.details.length || place)) {
        const rest = showFieldErrors(form,
          error.details.length ? error.details : [{field: place, message: error.message}]);
        ctx.say("Placing the order failed: check the fields marked." +
          (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
        return;
      }
      ctx.fail(error, "Placing the order");
    }
  }

  function resetForm() {
    form.reset();
    clearFieldErrors(form);
    totalTyped = false;
    // A customer orders for themselves; an operator for whichever customer is calling.
    if (customer) {
      form.elements.namedItem("userId").value = session.userId ?? "";
      if (session.sub.includes("@")) form.elements.namedItem("userEmail").value = session.sub;
    }
  }

  function orderForm() {
    const userId = input("userId", {inputmode: "numeric", required: true,
      readonly: customer || null});
    const built = h("form", {class: "card", novalidate: true, "aria-labelledby": "order-form-heading"},
      h("h3", {id: "order-form-heading"}, "Place an order"),
      h("div", {class: "grid"},
        field("order-userId", "User ID", userId,
          customer ? "Your own: orders are placed for the signed-in customer." : null),
        field("order-userEmail", "Email", input("userEmail", {type: "email", required: true,
          autocomplete: "email"})),
        field("order-clienteNombre", "Customer's full name", input("clienteNombre",
          {required: true, autocomplete: "name"})),
        field("order-tipoPedido", "Type", select("tipoPedido",
          [["NACIONAL", "NACIONAL (national)"], ["INTERNACIONAL", "INTERNACIONAL (international)"]])),
        field("order-destino", "Destination", input("destino", {required: true})),
        field("order-productoId", "Product ID", input("productoId",
          {inputmode: "numeric", required: true, value: params.get("productoId")})),
        field("order-cantidad", "Quantity", input("cantidad",
          {inputmode: "numeric", required: true, value: "1"})),
        field("order-total", "Total", input("total", {inputmode: "decimal", required: true}),
          "Filled in from the product's price; you may change it.")),
      h("button", {type: "submit", class: "primary"}, "Place order"));
    built.addEventListener("submit", place);
    for (const name of ["productoId", "cantidad"]) {
      built.elements.namedItem(name).addEventListener("change", fillTotal);
    }
    built.elements.namedItem("total").addEventListener("input", () => { totalTyped = true; });
    return built;
  }

  append(main,
    h("h2", {tabindex: "-1"}, customer ? "My orders" : "Orders"),
    h("div", {class: "toolbar"},
      h("div", {class: "field"}, h("label", {for: "orders-status"}, "Status"), statusFilter),
      h("button", {type: "button", onclick: load}, "Reload")),
    shown,
    table(customer ? "Your orders" : "Orders, oldest first", COLUMNS, rows),
    more,
    form);
  resetForm();
  if (params.get("productoId")) {
    form.elements.namedItem("productoId").value = params.get("productoId");
    fillTotal();
  }
  load();
}
