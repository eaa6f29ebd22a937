// Returns (docs/api.md#returns): a customer asks to return delivered units of their own
// order (#devoluciones?pedido=N, linked from the order's screen) and may cancel a return
// still asked for; operators approve or reject each, and receive an approved one, saying
// per line how many units go back into which warehouse and how many are discarded. The
// form controls are named as the API names the fields (`lineas[0].cantidad`), so each
// refusal is shown next to its field.
import {
  append, clear, clearFieldErrors, field, h, input, row, select, showFieldErrors, table,
  timestamp,
} from "../dom.js";
import {PagedList} from "../paged.js";
import {warehousesById} from "./warehouses.js";

const COLUMNS = ["ID", "Order", "State", "From", "Reason", "Lines", "Opened", "Actions"];
const STATES = ["SOLICITADA", "APROBADA", "RECHAZADA", "RECIBIDA", "CANCELADA"];
const REASONS = [["DANADO", "Damaged (DANADO)"], ["ERRONEO", "Wrong item (ERRONEO)"],
  ["NO_CORRESPONDE", "Not what was ordered (NO_CORRESPONDE)"],
  ["ARREPENTIMIENTO", "Changed my mind (ARREPENTIMIENTO)"], ["OTRO", "Other (OTRO)"]];
const FROM = {customer: "the customer", operator: "an operator", transportista: "the carrier"};
// The moves offered from each state, to each role (the reception has its own form).
const MOVES = {
  operator: {SOLICITADA: ["APROBADA", "RECHAZADA", "CANCELADA"], APROBADA: ["CANCELADA"]},
  customer: {SOLICITADA: ["CANCELADA"]},
};
const MOVE_LABELS = {APROBADA: "Approve", RECHAZADA: "Reject", CANCELADA: "Cancel"};

export function render(main, ctx, params) {
  const operator = ctx.session.role === "operator";
  const list = new PagedList(ctx.api);
  const rows = h("tbody");
  const shown = h("p", {class: "count", id: "returns-count"});
  const more = h("button", {type: "button", hidden: true}, "Load more returns");
  const asking = h("section", {id: "return-request"});
  const receiving = h("section", {id: "return-reception"});
  const stateFilter = select("estado", [["", "Any state"], ...STATES.map((s) => [s, s])],
    {id: "returns-state"});

  function linesWords(ret) {
    return ret.lineas.map((line) => `line ${line.linea}: ${line.cantidad}` +
      (ret.estado === "RECIBIDA" ? ` (${line.reingresada} back, ${line.descartada} discarded)` : ""))
      .join("; ");
  }

  function actions(ret) {
    const offered = (MOVES[ctx.session.role] ?? {})[ret.estado] ?? [];
    return h("span", {class: "actions"},
      ...offered.map((to) => h("button", {type: "button", class: to === "APROBADA" ? null : "danger",
        "aria-label": `${MOVE_LABELS[to]} return ${ret.id}`, onclick: () => move(ret, to)},
      MOVE_LABELS[to])),
      operator && ret.estado === "APROBADA"
        ? h("button", {type: "button", "aria-label": `Receive return ${ret.id}`,
          onclick: () => receive(ret)}, "Receive")
        : null);
  }

  function draw() {
    clear(rows).append(...list.items.map((r) => row(COLUMNS, [
      String(r.id), h("a", {href: `#orders?id=${r.pedidoId}`}, `Order ${r.pedidoId}`),
      h("span", {class: `pill pill-${r.estado.toLowerCase()}`}, r.estado),
      FROM[r.origen] ?? r.origen, r.motivo, linesWords(r), timestamp(r.creadoEn), actions(r),
    ], {"data-id": r.id})));
    const count = list.items.length;
    shown.textContent = `${count} return${count === 1 ? "" : "s"} loaded` +
      (list.next ? " (more to load)." : ".");
    more.hidden = !list.next;
  }

  async function load() {
    try {
      await list.load("/api/devoluciones", {estado: stateFilter.value});
      draw();
    } catch (error) {
      ctx.fail(error, "Loading the returns");
    }
  }

  async function move(ret, to) {
    try {
      const moved = (await ctx.api.request("PATCH", `/api/devoluciones/${ret.id}/status`,
        {query: {status: to}})).data;
      list.replace(moved);
      draw();
      ctx.say(`Return ${ret.id} is now ${moved.estado}.`);
    } catch (error) {
      ctx.fail(error, `${MOVE_LABELS[to]} return ${ret.id}`);
      load();
    }
  }

  /** The reception's form of an approved return: each line's units back into a warehouse
   * (all of them, into PRINCIPAL, to begin with) or discarded. */
  async function receive(ret) {
    const warehouses = await warehousesById(ctx.api);
    const choices = [...warehouses.values()].map((w) => [String(w.id), `${w.codigo} (${w.nombre})`]);
    if (!choices.length) choices.push(["1", "PRINCIPAL"]);
    const form = h("form", {class: "card", novalidate: true, "aria-labelledby": "reception-heading"},
      h("h3", {id: "reception-heading"}, `Receive return ${ret.id}`),
      ...ret.lineas.map((line, index) => h("fieldset", {},
        h("legend", {}, `Line ${line.linea}: ${line.cantidad} units of product ${line.productoId}`),
        h("div", {class: "grid"},
          field(`reception-${index}-reingresar`, `Back into stock, line ${line.linea}`,
            input(`lineas[${index}].reingresar`, {inputmode: "numeric", value: String(line.cantidad)})),
          field(`reception-${index}-descartar`, `Discarded, line ${line.linea}`,
            input(`lineas[${index}].descartar`, {inputmode: "numeric", value: "0"})),
          field(`reception-${index}-bodegaId`, `Into warehouse, line ${line.linea}`,
            select(`lineas[${index}].bodegaId`, choices))))),
      h("span", {class: "actions"}, h("button", {type: "submit"}, "Receive the return")));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearFieldErrors(form);
      const value = (name) => form.elements.namedItem(name).value.trim();
      const number = (text) => (/^[0-9]+$/.test(text) ? Number(text) : text);
      const lineas = ret.lineas.map((line, index) => {
        const back = number(value(`lineas[${index}].reingresar`));
        return {
          linea: line.linea, reingresar: back, descartar: number(value(`lineas[${index}].descartar`)),
          ...(back === 0 ? {} : {bodegaId: Number(value(`lineas[${index}].bodegaId`))}),
        };
      });
      try {
        const received = (await ctx.api.request("POST", `/api/devoluciones/${ret.id}/recepcion`,
          {body: {lineas}})).data;
        list.replace(received);
        draw();
        clear(receiving);
        ctx.say(`Return ${ret.id} is now RECIBIDA.`);
      } catch (error) {
        if (error.status === 400 && error.details.length) {
          const rest = showFieldErrors(form, error.details);
          ctx.say("Receiving the return failed: check the fields marked." +
            (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
          return;
        }
        ctx.fail(error, `Receiving return ${ret.id}`);
        load();
      }
    });
    append(clear(receiving), form);
    form.querySelector("input")?.focus();
  }

  /** The request's form for one order: each delivered line, how many of its units to
   * return (none, to begin with), why, and the customer's own words. */
  async function askFor(orderId) {
    let order;
    try {
      order = (await ctx.api.request("GET", `/api/pedidos/${orderId}`)).data;
    } catch (error) {
      ctx.fail(error, `Loading order ${orderId}`);
      return;
    }
    const lines = order.lineas.filter((line) => line.cantidadEntregada > 0);
    if (!lines.length) {
      append(clear(asking), h("p", {}, `Order ${order.id} has no delivered units to return.`));
      return;
    }
    const form = h("form", {class: "card", novalidate: true, "aria-labelledby": "request-heading"},
      h("h3", {id: "request-heading"}, `Return units of order ${order.id}`),
      h("div", {class: "grid"},
        ...lines.map((line, index) => field(`request-${index}-cantidad`,
          `Units to return of line ${line.linea} (${line.nombre ?? `product ${line.productoId}`})`,
          input(`lineas[${index}].cantidad`, {inputmode: "numeric", value: "0"}),
          `${line.cantidadEntregada} delivered, ${line.cantidadDevuelta} returned.`)),
        field("request-motivo", "Reason", select("motivo", REASONS)),
        field("request-comentario", "Comment",
          h("textarea", {name: "comentario", maxlength: "500", rows: "3"}),
          "Optional, at most 500 characters.")),
      h("span", {class: "actions"}, h("button", {type: "submit"}, "Request the return")));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearFieldErrors(form);
      const asked = lines.map((line, index) => [line.linea,
        form.elements.namedItem(`lineas[${index}].cantidad`).value.trim()])
        .filter(([, units]) => units !== "" && units !== "0");
      const body = {
        lineas: asked.map(([linea, units]) => ({linea, cantidad: /^[0-9]+$/.test(units) ? Number(units) : units})),
        motivo: form.elements.namedItem("motivo").value,
      };
      const comentario = form.elements.namedItem("comentario").value.trim();
      if (comentario) body.comentario = comentario;
      try {
        const made = (await ctx.api.request("POST", `/api/pedidos/${order.id}/devoluciones`,
          {body})).data;
        list.added(made);
        draw();
        clear(asking);
        ctx.say(`Return ${made.id} requested: SOLICITADA.`);
      } catch (error) {
        if ((error.status === 400 || error.code === "NOT_RETURNABLE") && error.details.length) {
          // The API names the asked lines by their place in what was sent.
          const placed = error.details.map((detail) => {
            const at = /^lineas\[(\d+)\]\.(.*)$/.exec(detail.field ?? "");
            if (!at) return detail;
            const index = lines.findIndex((line) => line.linea === asked[Number(at[1])]?.[0]);
            return {...detail, field: `lineas[${index}].cantidad`};
          });
          const rest = showFieldErrors(form, placed);
          ctx.say(`Requesting the return failed: ${error.message}.` +
            (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
          return;
        }
        ctx.fail(error, "Requesting the return");
      }
    });
    append(clear(asking), form);
  }

  more.addEventListener("click", async () => {
    try {
      if (!(await list.more())) return;
      draw();
    } catch (error) {
      ctx.fail(error, "Loading more returns");
    }
  });
  stateFilter.addEventListener("change", load);

  append(main,
    h("h2", {tabindex: "-1"}, "Returns"),
    asking,
    receiving,
    field("returns-state", "State", stateFilter),
    shown,
    table(operator ? "Returns, ascending id" : "Your returns, ascending id", COLUMNS, rows),
    more);
  if (params.has("pedido")) askFor(params.get("pedido"));
  load();
}
