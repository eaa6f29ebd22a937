// Data requests (docs/api.md#personal-data), operators only: a person's request that came
// by mail or phone answered for them (their data seen, downloaded, or erased), and the
// record of every rights request, newest first: how the business shows it answered each.
import {append, clear, clearFieldErrors, field, h, input, row, showFieldErrors, table, timestamp}
  from "../dom.js";
import {PagedList} from "../paged.js";
import {accountFacts, download, inFlight, itemsOf} from "./my-data.js";

const COLUMNS = ["ID", "userId", "Request", "From", "When", "Answer", "Done"];
const KINDS = {ACCESO: "Access", PORTABILIDAD: "Portability", RECTIFICACION: "Rectification",
  SUPRESION: "Erasure"};
const FROM = {customer: "the person", operator: "an operator"};

export function render(main, ctx) {
  const list = new PagedList(ctx.api);
  const rows = h("tbody");
  const shown = h("p", {class: "count", id: "requests-count"});
  const more = h("button", {type: "button", hidden: true}, "Load more requests");
  const person = h("section", {id: "person", "aria-live": "polite"});
  const form = personForm();

  function draw() {
    clear(rows).append(...list.items.map((r) => row(COLUMNS, [
      String(r.id), String(r.userId), `${KINDS[r.tipo] ?? r.tipo} (${r.tipo})`,
      FROM[r.origen] ?? r.origen, timestamp(r.fecha),
      h("span", {class: `pill ${r.resultado < 300 ? "pill-active" : "pill-inactive"}`},
        `HTTP ${r.resultado}`),
      r.completadaEn ? timestamp(r.completadaEn) : "",
    ], {"data-id": r.id})));
    const count = list.items.length;
    shown.textContent = `${count} request${count === 1 ? "" : "s"} loaded, newest first` +
      (list.next ? " (more to load)." : ".");
    more.hidden = !list.next;
  }

  async function load() {
    try {
      await list.load("/api/usuarios/solicitudes");
      draw();
    } catch (error) {
      ctx.fail(error, "Loading the requests");
    }
  }

  /** The form's userId, or null (said under the field) when it is not a number: a path
   * cannot be built of it. Anything else the API judges. */
  function userId() {
    clearFieldErrors(form);
    const value = form.elements.namedItem("userId").value.trim();
    if (/^[0-9]+$/.test(value)) return value;
    showFieldErrors(form, [{field: "userId", message: "must be a userId (a number)"}]);
    ctx.say("Give the person's userId first.", "error");
    return null;
  }

  async function see() {
    const id = userId();
    if (id === null) return;
    try {
      const data = (await ctx.api.request("GET", `/api/usuarios/${encodeURIComponent(id)}/datos`))
        .data;
      append(clear(person), h("h3", {}, `The data of userId ${id}`),
        accountFacts(data.cuenta, id), itemsOf(data, `userId ${id}'s`));
      ctx.say(`The data of userId ${id}: ${data.pedidos.length} orders, ` +
        `${data.envios.length} shipments.`);
      load();
    } catch (error) {
      refused(error, `Reading the data of userId ${id}`);
    }
  }

  async function take() {
    const id = userId();
    if (id === null) return;
    try {
      const answer = await ctx.api.request("GET",
        `/api/usuarios/${encodeURIComponent(id)}/datos/exportar`);
      download(answer.text, `datos-${id}.json`);
      ctx.say(`The data of userId ${id} was downloaded: send the file to the person.`);
      load();
    } catch (error) {
      refused(error, `Downloading the data of userId ${id}`);
    }
  }

  async function erase() {
    const id = userId();
    if (id === null) return;
    const motivo = form.elements.namedItem("motivo").value.trim();
    if (!window.confirm(`Erase every personal field of userId ${id}, and their account? ` +
      "This cannot be undone.")) return;
    try {
      await ctx.api.request("POST", `/api/usuarios/${encodeURIComponent(id)}/cancelacion`,
        {body: {motivo}});
      clear(person);
      ctx.say(`userId ${id} is being erased: within a minute nothing of theirs is left. ` +
        "The request is in the record below.");
      load();
    } catch (error) {
      refused(error, `Erasing userId ${id}`);
    }
  }

  function refused(error, doing) {
    if (error.status === 400 && error.details.length) {
      const rest = showFieldErrors(form, error.details);
      ctx.say(`${doing} failed: check the fields marked.` +
        (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
    } else if (error.code === "INVALID_ID" || error.code === "USER_NOT_FOUND") {
      showFieldErrors(form, [{field: "userId", message: "is not a userId"}]);
      ctx.say(`${doing} failed: that is not a userId.`, "error");
    } else if (error.code === "OPEN_ORDERS") {
      ctx.say(`${doing} failed: ${inFlight(error)}`, "error");
    } else {
      ctx.fail(error, doing);
    }
    load();
  }

  function personForm() {
    const built = h("form", {class: "card", novalidate: true,
      "aria-labelledby": "person-form-heading"},
    h("h3", {id: "person-form-heading"}, "A person's request, by mail or phone"),
    field("person-userId", "userId", input("userId", {inputmode: "numeric", required: true}),
      "Theirs, with an account or not."),
    field("person-motivo", "Reason (to erase)", input("motivo"),
      "What they asked, and how (a ticket's number): checked, not kept, since it may " +
      "name them."),
    h("span", {class: "actions"},
      h("button", {type: "button", onclick: see}, "See their data"),
      h("button", {type: "button", onclick: take}, "Download their data"),
      h("button", {type: "button", class: "danger", onclick: erase}, "Erase their data")));
    built.addEventListener("submit", (event) => {
      event.preventDefault();
      see();
    });
    return built;
  }

  more.addEventListener("click", async () => {
    try {
      if (!(await list.more())) return;
      draw();
    } catch (error) {
      ctx.fail(error, "Loading more requests");
    }
  });

  append(main,
    h("h2", {tabindex: "-1"}, "Data requests"),
    form,
    person,
    h("h3", {}, "The record of requests"),
    shown,
    table("Rights requests, newest first", COLUMNS, rows),
    more);
  load();
}
