// Orders (docs/api.md#orders): operators see every order, filter by status and move
// each along its lifecycle; customers see their own (the API lists only those), place
// orders and cancel them. Both may place an order, of one product or of several lines
// picked from the catalog (docs/api.md#orders-of-several-lines). Each order names its
// product (looked up by id), or its lines; an order's own screen (#orders?id=N) shows all
// of it, its lines and where each is held, its product's units and its history.
import {newIdempotencyKey} from "../api.js";
import {
  asNumber, clear, clearFieldErrors, facts, field, formValues, h, input, row, select,
  showFieldErrors, table, timestamp, when,
  append,
} from "../dom.js";
import {historySection} from "../history.js";
import {ORDER_MOVE_LABELS, ORDER_STATUSES, orderMoves} from "../lifecycle.js";
import {PagedList} from "../paged.js";
import {ProductLookup, available, unitsLine} from "../products.js";
import {heldWords, warehousesById} from "./warehouses.js";

const COLUMNS = ["ID", "Customer", "Product", "Quantity", "Total", "Type", "Destination",
  "Status", "Placed", "Actions"];
// Where the API's refusals of an order belong (docs/api.md#placing-an-order-the-stock-check).
const REFUSAL_FIELDS = {INSUFFICIENT_STOCK: "cantidad", PRODUCT_NOT_FOUND: "productoId"};

export function render(main, ctx, params) {
  if (params.has("id")) {
    renderOrder(main, ctx, params.get("id"));
    return;
  }
  const {session} = ctx;
  const customer = session.role === "customer";
  const list = new PagedList(ctx.api);
  // The products of the orders shown, each asked once per load (Reload asks again).
  let products = new ProductLookup(ctx.api);
  let key = newIdempotencyKey();
  let totalTyped = false;

  const statusFilter = select("status", [["", "Any status"],
    ...ORDER_STATUSES.map((s) => [s, s])], {id: "orders-status"});
  statusFilter.value = ORDER_STATUSES.includes(params.get("status")) ? params.get("status") : "";
  const rows = h("tbody");
  const shown = h("p", {class: "count"});
  const more = h("button", {type: "button", hidden: true}, "Load more orders");
  const form = orderForm();
  // The order of several lines: its own form, made when asked for (its fields would
  // otherwise stand beside the one-product form's of the same names).
  const severalSlot = h("div", {id: "order-lines"});
  const openSeveral = h("button", {type: "button", onclick: () => {
    openSeveral.hidden = true;
    const several = linesForm(ctx, customer, (order) => {
      if (!statusFilter.value || statusFilter.value === order.status) list.added(order);
      draw();
    });
    severalSlot.append(several.form);
    several.form.querySelector("select, input")?.focus();
  }}, "Order several products");

  function actions(order) {
    return h("span", {class: "actions"}, ...moveButtons(order, session.role, move),
      h("a", {class: "button", href: `#orders?id=${order.id}`,
        "aria-label": `Details of order ${order.id}`}, "Details"),
      shipmentsLink(order));
  }

  function draw() {
    clear(rows).append(...list.items.map((o) => row(COLUMNS, [
      String(o.id), h("span", {}, o.clienteNombre, h("br"), h("small", {}, `${o.userEmail} · user ${o.userId}`)),
      o.productoId === null
        ? h("span", {class: "product"}, linesWords(o))
        : h("span", {class: "product", "data-product": o.productoId}, productWords(o.productoId)),
      String(o.cantidad ?? o.lineas.reduce((sum, line) => sum + line.cantidad, 0)),
      String(o.total), o.tipoPedido, o.destino,
      h("span", {class: `pill pill-${o.status.toLowerCase()}`}, o.status),
      timestamp(o.creadoEn), actions(o),
    ], {"data-id": o.id})));
    shown.textContent = `${list.items.length} ${customer ? "of your orders" : "orders"} loaded` +
      (list.next ? " (more to load)." : ".");
    more.hidden = !list.next;
    nameProducts();
  }

  /** The product of an order's row: its name, and to operators its available units. */
  function productWords(id) {
    const entry = products.get(id);
    const below = (text) => [h("br"), h("small", {}, text)];
    if (entry?.state === "found") {
      const product = entry.product;
      return [product.nombre, ...below(`product ${id}` +
        (customer ? "" : `, ${available(product)} available`))];
    }
    if (entry?.state === "deleted") {
      return [`Product ${id}`, " ", h("strong", {class: "badge badge-muted"}, "Deleted")];
    }
    return [`Product ${id}`, ...below(entry ? "name unavailable" : "looking up its name")];
  }

  /** Looks up the products of the orders shown that are not known yet, a few at a time,
   * and names each in its rows as its answer comes (in place: the focus stays). */
  function nameProducts() {
    const lookup = products;
    lookup.lookUp(list.items.filter((o) => o.productoId !== null).map((o) => o.productoId), (id) => {
      if (lookup === products) showProduct(id);
    });
  }

  function showProduct(id) {
    for (const cell of rows.querySelectorAll(`[data-product="${id}"]`)) {
      append(clear(cell), productWords(id));
    }
  }

  /** A move may have moved the product's units: its figures asked again. */
  function renewProduct(id) {
    if (id === null) return;  // an order of several lines: each line's product has its screen
    const lookup = products;
    lookup.renew(id).then(() => {
      if (lookup === products) showProduct(id);
    });
  }

  async function load() {
    products = new ProductLookup(ctx.api);
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
      renewProduct(order.productoId);
      ctx.say(`Order ${order.id} is now ${answer.data.status}.`);
      rows.querySelector(`tr[data-id="${order.id}"] button, tr[data-id="${order.id}"] a`)?.focus();
    } catch (error) {
      ctx.fail(error, doing, {cantidad: order.cantidad});
      if (error.status === 409 || error.status === 404) {
        refresh(order).catch((again) => ctx.fail(again, "Reloading the order"));
        renewProduct(order.productoId);
      }
    }
  }

  more.addEventListener("click", async () => {
    try {
      if (!(await list.more())) return;
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
    // Sent before the product's price came back, the total would be missing (a 400).
    if (!totalTyped && !formValues(form).total) await fillTotal();
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
      if (error.code === "USER_EMAIL_MISMATCH") showFieldErrors(form, error.details);
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
    form,
    openSeveral,
    severalSlot);
  resetForm();
  if (params.get("productoId")) {
    form.elements.namedItem("productoId").value = params.get("productoId");
    fillTotal();
  }
  load();
}

/** An order of several lines as a cell: how many, and their products. */
function linesWords(order) {
  return [`${order.lineas.length} lines`, h("br"),
    h("small", {}, order.lineas.map((line) => line.sku ?? `product ${line.productoId}`).join(", "))];
}

/** "Place an order of several lines": each line a product picked from the catalog, its
 * units and, to operators, the warehouse it must come from; the strategy the approval
 * takes the rest by. `placed(order)` once the API made it. */
function linesForm(ctx, customer, placed) {
  const lines = [];
  const picked = h("tbody");
  const products = new Map();
  let warehouses = new Map();
  let key = newIdempotencyKey();
  const form = h("form", {class: "card", novalidate: true, "aria-labelledby": "lines-form-heading"},
    h("h3", {id: "lines-form-heading"}, "Place an order of several lines"),
    h("div", {class: "grid"},
      field("lines-userId", "User ID", input("userId", {inputmode: "numeric", required: true,
        readonly: customer || null, value: customer ? ctx.session.userId ?? "" : null})),
      field("lines-userEmail", "Email", input("userEmail", {type: "email", required: true,
        autocomplete: "email", value: customer && ctx.session.sub.includes("@") ? ctx.session.sub : null})),
      field("lines-clienteNombre", "Customer's full name", input("clienteNombre",
        {required: true, autocomplete: "name"})),
      field("lines-tipoPedido", "Type", select("tipoPedido",
        [["NACIONAL", "NACIONAL (national)"], ["INTERNACIONAL", "INTERNACIONAL (international)"]])),
      field("lines-destino", "Destination", input("destino", {required: true})),
      field("lines-estrategia", "Warehouses", select("estrategia",
        [["PRIORIDAD", "By priority (PRIORIDAD)"], ["MENOS_BODEGAS", "The fewest (MENOS_BODEGAS)"]]),
      "How an approval takes each line's units from the warehouses.")),
    h("fieldset", {},
      h("legend", {}, "Lines"),
      h("div", {class: "grid"},
        field("line-product", "Product", select("lineProduct", [["", "Loading the catalog…"]])),
        field("line-cantidad", "Units", input("lineCantidad", {inputmode: "numeric", value: "1"})),
        customer ? null : field("line-bodegaId", "From warehouse", select("lineBodega",
          [["", "Any (by the strategy)"]]))),
      h("button", {type: "button", onclick: addLine}, "Add line"),
      table("The order's lines", LINE_COLUMNS, picked)),
    h("button", {type: "submit", class: "primary"}, "Order these lines"));

  function addLine() {
    const values = formValues(form);
    const productoId = Number(values.lineProduct);
    if (!productoId) {
      ctx.say("Pick a product for the line first.", "error");
      return;
    }
    const line = {productoId, cantidad: asNumber(values.lineCantidad)};
    if (values.lineBodega) line.bodegaId = Number(values.lineBodega);
    lines.push(line);
    drawLines();
    ctx.say(`Line ${lines.length} added: ${products.get(productoId)?.nombre ?? productoId}.`);
  }

  function drawLines() {
    clear(picked).append(...lines.map((line, index) => row(LINE_COLUMNS, [
      String(index + 1), products.get(line.productoId)?.nombre ?? `Product ${line.productoId}`,
      String(line.cantidad),
      line.bodegaId ? warehouses.get(line.bodegaId)?.codigo ?? String(line.bodegaId) : "any",
      h("button", {type: "button", "aria-label": `Remove line ${index + 1}`,
        onclick: () => { lines.splice(index, 1); drawLines(); }}, "Remove"),
    ])));
  }

  async function choices() {
    try {
      const page = await ctx.api.list("/api/inventario", {limit: 1000});
      for (const product of page.items) products.set(product.id, product);
      const choice = form.elements.namedItem("lineProduct");
      clear(choice).append(h("option", {value: ""}, "Pick a product"),
        ...page.items.map((p) => h("option", {value: p.id},
          `${p.nombre} (${p.sku}), ${available(p)} available`)));
    } catch (error) {
      ctx.fail(error, "Loading the catalog for the lines");
    }
    if (customer) return;
    warehouses = await warehousesById(ctx.api);
    const where = form.elements.namedItem("lineBodega");
    for (const [id, w] of warehouses) where.append(h("option", {value: id}, w.codigo));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = formValues(form);
    const body = {
      userId: asNumber(values.userId), userEmail: values.userEmail,
      clienteNombre: values.clienteNombre, tipoPedido: values.tipoPedido,
      destino: values.destino, estrategia: values.estrategia, lineas: lines,
    };
    try {
      const order = (await ctx.api.request("POST", "/api/pedidos",
        {body, idempotencyKey: key})).data;
      key = newIdempotencyKey();
      lines.length = 0;
      drawLines();
      clearFieldErrors(form);
      placed(order);
      ctx.say(`Order ${order.id} of ${order.lineas.length} lines placed: ${order.status}, ` +
        `total ${order.total}.`);
    } catch (error) {
      if (error.status === 400 && error.details.length) {
        const rest = showFieldErrors(form, error.details);
        ctx.say("Placing the order failed: " + (rest.length ? `${rest.join("; ")}.` :
          "check the fields marked."), "error");
        return;
      }
      ctx.fail(error, "Placing the order");
    }
  });
  choices();
  return {form};
}

const LINE_COLUMNS = ["Line", "Product", "Units", "Warehouse", "Actions"];
const HELD_COLUMNS = ["Line", "Product", "Units", "Unit price", "Held in", "On its way",
  "Delivered", "Returned"];

function moveButtons(order, role, move) {
  return orderMoves(order.status, role).map((to) =>
    h("button", {type: "button", class: to === "CANCELADO" ? "danger" : null,
      "aria-label": `${ORDER_MOVE_LABELS[to]} order ${order.id}`,
      onclick: () => move(order, to)}, ORDER_MOVE_LABELS[to]));
}

function shipmentsLink(order) {
  return h("a", {class: "button", href: `#shipments?pedidoId=${order.id}`,
    "aria-label": `Shipments of order ${order.id}`}, "Shipments");
}

/** Delivered units may come back (docs/api.md#returns): the return's form for this order. */
function returnLink(order) {
  if (!order.lineas.some((line) => line.cantidadEntregada > 0)) return null;
  return h("a", {class: "button", href: `#devoluciones?pedido=${order.id}`,
    "aria-label": `Request a return of order ${order.id}`}, "Request a return");
}

/** One order (#orders?id=N): its fields, its product with its units, the moves its status
 * allows, and its history. After a move all three are asked again. */
function renderOrder(main, ctx, id) {
  const {session} = ctx;
  const customer = session.role === "customer";
  const heading = h("h2", {tabindex: "-1"}, `Order ${id}`);
  const body = h("div", {class: "detail"});
  const history = historySection(ctx, `/api/pedidos/${id}/historial`, `order ${id}`);
  const productSlot = h("span", {class: "product"});
  const unitsSlot = h("span", {});
  const lineRows = h("tbody");
  const linesSection = h("section", {"aria-labelledby": "order-lines-heading"},
    h("h3", {id: "order-lines-heading"}, "Lines"),
    table("Its lines, and where each is held", HELD_COLUMNS, lineRows));
  let warehouses = new Map();
  let order = null;

  async function load() {
    try {
      order = (await ctx.api.request("GET", `/api/pedidos/${id}`)).data;
    } catch (error) {
      clear(body).append(h("p", {}, error.status === 404
        ? `Order ${id} does not exist, or it is not yours to see.`
        : "The order could not be loaded."));
      history.section.hidden = true;
      ctx.fail(error, `Loading order ${id}`);
      return;
    }
    draw();
    history.section.hidden = false;
    await Promise.all([showProduct(), history.load(), showLines()]);
  }

  /** Each line as it was sold and where its units are held (the warehouses named to
   * operators, who may list them). */
  async function showLines() {
    if (!customer && !warehouses.size) warehouses = await warehousesById(ctx.api);
    clear(lineRows).append(...order.lineas.map((line) => row(HELD_COLUMNS, [
      String(line.linea),
      h("a", {href: `#catalog?id=${line.productoId}`},
        line.nombre ? `${line.nombre} (${line.sku})` : `Product ${line.productoId}`),
      String(line.cantidad), line.precioUnitario === null ? "" : String(line.precioUnitario),
      heldWords(line.asignaciones, warehouses), String(line.cantidadEnviada),
      String(line.cantidadEntregada), String(line.cantidadDevuelta),
    ], {"data-linea": line.linea})));
  }

  function draw() {
    heading.textContent = `Order ${order.id}`;
    if (!productSlot.firstChild && order.productoId !== null) {
      append(productSlot, `Product ${order.productoId}`, h("br"), h("small", {}, "looking up its name"));
    }
    clear(body).append(
      facts([
        ["Status", h("span", {class: `pill pill-${order.status.toLowerCase()}`}, order.status)],
        ["Customer", h("span", {}, order.clienteNombre, h("br"),
          h("small", {}, `${order.userEmail} · user ${order.userId}`))],
        ...(order.productoId === null
          ? [["Lines", `${order.lineas.length} (below)`]]
          : [["Product", productSlot], ["Its units", unitsSlot], ["Quantity", String(order.cantidad)]]),
        ["Total", String(order.total)],
        ["Type", order.tipoPedido],
        ["Destination", order.destino],
        order.observaciones && ["Notes", order.observaciones],
        ["Placed", when(order.creadoEn)],
      ]),
      h("div", {class: "actions", id: "order-actions"},
        ...moveButtons(order, session.role, move), shipmentsLink(order), returnLink(order)));
  }

  /** The order's product, asked afresh: named, linked to its screen, with its units. */
  async function showProduct() {
    const productId = order.productoId;
    if (productId === null) return;  // its lines name their products
    const entry = await new ProductLookup(ctx.api).one(productId);
    if (entry.state === "found") {
      const product = entry.product;
      append(clear(productSlot), h("a", {href: `#catalog?id=${productId}`}, product.nombre),
        h("br"), h("small", {}, `product ${productId}`));
      append(clear(unitsSlot), unitsLine(product));
    } else {
      append(clear(productSlot), `Product ${productId}`, " ", entry.state === "deleted"
        ? h("strong", {class: "badge badge-muted"}, "Deleted") : h("small", {}, "(name unavailable)"));
      append(clear(unitsSlot), entry.state === "deleted"
        ? "none: it is no longer in the catalog" : "unknown at the moment");
    }
  }

  async function move(current, to) {
    const doing = `${ORDER_MOVE_LABELS[to]} order ${current.id}`;
    try {
      order = (await ctx.api.request("PATCH", `/api/pedidos/${current.id}/status`,
        {query: {status: to}})).data;
      draw();
      ctx.say(`Order ${order.id} is now ${order.status}.`);
      body.querySelector("#order-actions button, #order-actions a")?.focus();
      await Promise.all([showProduct(), history.load(), showLines()]);
    } catch (error) {
      ctx.fail(error, doing, {cantidad: current.cantidad});
      if (error.status === 409 || error.status === 404) {
        await load();
        body.querySelector("#order-actions button, #order-actions a")?.focus();
      }
    }
  }

  append(main,
    heading,
    h("div", {class: "toolbar"},
      h("a", {class: "button", href: "#orders"}, customer ? "Back to my orders" : "Back to the orders"),
      h("button", {type: "button", onclick: load}, "Reload")),
    body,
    linesSection,
    history.section);
  history.section.hidden = true;
  load();
}
