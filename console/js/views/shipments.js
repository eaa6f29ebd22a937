// Shipments (docs/api.md#shipping): filtered by order and status, with their estimated
// delivery; operators create them and set their status (any of the four, in any order);
// customers follow the shipments of their own orders (the API lists only those). A
// shipment's own screen (#shipments?id=N) shows all of it and its history.
import {newIdempotencyKey} from "../api.js";
import {
  asNumber, clear, clearFieldErrors, facts, field, formValues, h, input, row, select,
  showFieldErrors, table, timestamp, when,
  append,
} from "../dom.js";
import {historySection} from "../history.js";
import {SHIPMENT_STATUSES, shipmentMoves} from "../lifecycle.js";
import {PagedList} from "../paged.js";

const COLUMNS = ["ID", "Order", "Type", "Carrier", "Destination", "Status",
  "Estimated delivery", "Dispatch guide", "Route", "Actions"];
const STATUS_LABELS = {CREADO: "Created", ASIGNADO: "Assigned", EN_RUTA: "On the way",
  ENTREGADO: "Delivered"};

export function render(main, ctx, params) {
  if (params.has("id")) {
    renderShipment(main, ctx, params.get("id"));
    return;
  }
  const {session} = ctx;
  const operator = session.role === "operator";
  const list = new PagedList(ctx.api);
  let key = newIdempotencyKey();

  const orderFilter = input("pedidoId", {inputmode: "numeric", value: params.get("pedidoId")});
  const statusFilter = select("status", [["", "Any status"],
    ...SHIPMENT_STATUSES.map((s) => [s, `${s} (${STATUS_LABELS[s]})`])]);
  statusFilter.value = SHIPMENT_STATUSES.includes(params.get("status")) ? params.get("status") : "";
  const filters = h("form", {class: "toolbar", novalidate: true, role: "search",
    "aria-label": "Filter shipments"},
    field("shipments-pedidoId", "Order ID", orderFilter),
    field("shipments-status", "Status", statusFilter),
    h("button", {type: "submit"}, "Show"));
  const rows = h("tbody");
  const shown = h("p", {class: "count"});
  const more = h("button", {type: "button", hidden: true}, "Load more shipments");
  const form = operator ? shipmentForm() : null;

  function actions(shipment) {
    return h("span", {class: "actions"}, moveButtons(shipment, session.role, move),
      h("a", {class: "button", href: `#shipments?id=${shipment.id}`,
        "aria-label": `Details of shipment ${shipment.id}`}, "Details"));
  }

  function draw() {
    clear(rows).append(...list.items.map((s) => row(COLUMNS, [
      String(s.id), String(s.pedidoId), s.tipoEnvio, s.transportista, s.destino,
      h("span", {class: `pill pill-${s.status.toLowerCase()}`}, s.status),
      timestamp(s.fechaEstimadaEntrega), s.guiaDespecho, s.rutaDescripcion, actions(s),
    ], {"data-id": s.id})));
    const which = orderFilter.value.trim() ? ` of order ${orderFilter.value.trim()}` : "";
    shown.textContent = `${list.items.length} shipments${which} loaded` +
      (list.next ? " (more to load)." : ".");
    more.hidden = !list.next;
  }

  async function load() {
    clearFieldErrors(filters);
    try {
      await list.load("/api/envios",
        {pedidoId: orderFilter.value.trim(), status: statusFilter.value});
      draw();
    } catch (error) {
      if (error.status === 400 && error.details.length) {
        const rest = showFieldErrors(filters, error.details);
        ctx.say("Check the filter." + (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
        return;
      }
      ctx.fail(error, "Loading the shipments");
    }
  }

  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    if (orderFilter.value.trim()) query.set("pedidoId", orderFilter.value.trim());
    if (statusFilter.value) query.set("status", statusFilter.value);
    history.replaceState(null, "", `#shipments${query.size ? `?${query}` : ""}`);
    load();
  });

  async function move(shipment, to) {
    try {
      const answer = await ctx.api.request("PATCH", `/api/envios/${shipment.id}/status`,
        {query: {status: to}});
      list.replace(answer.data);
      draw();
      ctx.say(`Shipment ${shipment.id} is now ${answer.data.status}.`);
      rows.querySelector(`tr[data-id="${shipment.id}"] button`)?.focus();
    } catch (error) {
      ctx.fail(error, `Setting shipment ${shipment.id} to ${to}`);
      if (error.status === 404) load();
    }
  }

  more.addEventListener("click", async () => {
    try {
      if (!(await list.more())) return;
      draw();
      ctx.say(`${list.items.length} shipments loaded.`);
    } catch (error) {
      ctx.fail(error, "Loading more shipments");
    }
  });

  async function create(event) {
    event.preventDefault();
    const values = formValues(form);
    const body = {pedidoId: asNumber(values.pedidoId), tipoEnvio: values.tipoEnvio,
      transportista: values.transportista, destino: values.destino};
    try {
      const shipment = (await ctx.api.request("POST", "/api/envios",
        {body, idempotencyKey: key})).data;
      key = newIdempotencyKey();
      const filtered = orderFilter.value.trim();
      if ((!filtered || filtered === String(shipment.pedidoId)) &&
        (!statusFilter.value || statusFilter.value === shipment.status)) list.added(shipment);
      draw();
      form.reset();
      clearFieldErrors(form);
      ctx.say(`Shipment ${shipment.id} created for order ${shipment.pedidoId}: guide ` +
        `${shipment.guiaDespecho}, estimated delivery ${timestamp(shipment.fechaEstimadaEntrega)}.`);
    } catch (error) {
      if (error.status === 400 && error.details.length) {
        const rest = showFieldErrors(form, error.details);
        ctx.say("Creating the shipment failed: check the fields marked." +
          (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
        return;
      }
      ctx.fail(error, "Creating the shipment");
    }
  }

  function shipmentForm() {
    const built = h("form", {class: "card", novalidate: true,
      "aria-labelledby": "shipment-form-heading"},
    h("h3", {id: "shipment-form-heading"}, "New shipment"),
    h("div", {class: "grid"},
      field("shipment-pedidoId", "Order ID", input("pedidoId",
        {inputmode: "numeric", required: true, value: params.get("pedidoId")})),
      field("shipment-tipoEnvio", "Type", select("tipoEnvio",
        [["TERRESTRE", "TERRESTRE (road, 5 days)"], ["EXPRESS", "EXPRESS (1 day)"]])),
      field("shipment-transportista", "Carrier", input("transportista", {required: true})),
      field("shipment-destino", "Destination", input("destino", {required: true}))),
    h("button", {type: "submit", class: "primary"}, "Create shipment"));
    built.addEventListener("submit", create);
    return built;
  }

  append(main,
    h("h2", {tabindex: "-1"}, operator ? "Shipments" : "My shipments"),
    filters,
    shown,
    table(operator ? "Shipments, oldest first" : "Shipments of your orders", COLUMNS, rows),
    more,
    form);
  load();
}

function moveButtons(shipment, role, move) {
  return shipmentMoves(shipment.status, role).map((to) =>
    // The visible words first in the name (WCAG's label in name), then which shipment.
    h("button", {type: "button",
      "aria-label": `Set ${STATUS_LABELS[to]}: shipment ${shipment.id} to ${to}`,
      onclick: () => move(shipment, to)}, `Set ${STATUS_LABELS[to]}`));
}

/** One shipment (#shipments?id=N): its fields, its order, the statuses an operator may
 * set, and its history, asked again after each change. */
function renderShipment(main, ctx, id) {
  const {session} = ctx;
  const operator = session.role === "operator";
  const heading = h("h2", {tabindex: "-1"}, `Shipment ${id}`);
  const body = h("div", {class: "detail"});
  const history = historySection(ctx, `/api/envios/${id}/historial`, `shipment ${id}`);
  let shipment = null;

  async function load() {
    try {
      shipment = (await ctx.api.request("GET", `/api/envios/${id}`)).data;
    } catch (error) {
      clear(body).append(h("p", {}, error.status === 404
        ? `Shipment ${id} does not exist, or it is not yours to see.`
        : "The shipment could not be loaded."));
      history.section.hidden = true;
      ctx.fail(error, `Loading shipment ${id}`);
      return;
    }
    draw();
    history.section.hidden = false;
    await history.load();
  }

  function draw() {
    heading.textContent = `Shipment ${shipment.id}`;
    const moves = moveButtons(shipment, session.role, move);
    append(clear(body),
      facts([
        ["Status", h("span", {},
          h("span", {class: `pill pill-${shipment.status.toLowerCase()}`}, shipment.status),
          ` ${STATUS_LABELS[shipment.status] ?? ""}`)],
        ["Order", h("a", {href: `#orders?id=${shipment.pedidoId}`}, `Order ${shipment.pedidoId}`)],
        ["Type", shipment.tipoEnvio],
        ["Carrier", shipment.transportista],
        ["Destination", shipment.destino],
        ["Estimated delivery", when(shipment.fechaEstimadaEntrega)],
        ["Dispatch guide", shipment.guiaDespecho],
        ["Route", shipment.rutaDescripcion],
        ["Created", when(shipment.creadoEn)],
      ]),
      operator && moves.length ? h("div", {class: "actions", id: "shipment-actions"}, moves) : null);
  }

  async function move(current, to) {
    try {
      shipment = (await ctx.api.request("PATCH", `/api/envios/${current.id}/status`,
        {query: {status: to}})).data;
      draw();
      ctx.say(`Shipment ${shipment.id} is now ${shipment.status}.`);
      body.querySelector("#shipment-actions button")?.focus();
      await history.load();
    } catch (error) {
      ctx.fail(error, `Setting shipment ${current.id} to ${to}`);
      if (error.status === 404) load();
    }
  }

  append(main,
    heading,
    h("div", {class: "toolbar"},
      h("a", {class: "button", href: "#shipments"}, operator ? "Back to the shipments" : "Back to my shipments"),
      h("button", {type: "button", onclick: load}, "Reload")),
    body,
    history.section);
  history.section.hidden = true;
  load();
}
