// Warehouses (docs/api.md#warehouses), operators only: PRINCIPAL and those operators
// make, each with the priority an approval takes its units by (lower first); a new one,
// one edited (its code never changes), one deleted once it holds no units.
import {
  append, asNumber, clear, clearFieldErrors, field, formValues, h, input, row, showFieldErrors,
  table, when,
} from "../dom.js";
import {PagedList} from "../paged.js";

const COLUMNS = ["ID", "Code", "Name", "Region", "Priority", "Created", "Actions"];

export function render(main, ctx) {
  const list = new PagedList(ctx.api);
  const rows = h("tbody");
  const shown = h("p", {class: "count", id: "warehouses-count"});
  const more = h("button", {type: "button", hidden: true}, "Load more warehouses");
  let editing = null;
  const form = warehouseForm();

  function actions(warehouse) {
    return h("span", {class: "actions"},
      h("button", {type: "button", "aria-label": `Edit warehouse ${warehouse.codigo}`,
        onclick: () => edit(warehouse)}, "Edit"),
      warehouse.id === 1 ? null : h("button", {type: "button", class: "danger",
        "aria-label": `Delete warehouse ${warehouse.codigo}`,
        onclick: () => remove(warehouse)}, "Delete"));
  }

  function draw() {
    clear(rows).append(...list.items.map((w) => row(COLUMNS, [
      String(w.id), h("code", {}, w.codigo), w.nombre, w.region ?? "", String(w.prioridad),
      when(w.creadoEn), actions(w),
    ], {"data-id": w.id})));
    shown.textContent = `${list.items.length} warehouses loaded` +
      (list.next ? " (more to load)." : ". An approval takes units by priority, lowest first.");
    more.hidden = !list.next;
  }

  async function load() {
    try {
      await list.load("/api/bodegas");
      draw();
    } catch (error) {
      ctx.fail(error, "Loading the warehouses");
    }
  }

  function edit(warehouse) {
    editing = warehouse;
    clearFieldErrors(form);
    for (const name of ["codigo", "nombre", "region", "prioridad"]) {
      form.elements.namedItem(name).value = warehouse[name] ?? "";
    }
    form.elements.namedItem("codigo").disabled = true;  // a code never changes
    form.querySelector("h3").textContent = `Edit warehouse ${warehouse.codigo}`;
    form.querySelector("[type=submit]").textContent = "Save changes";
    form.querySelector(".cancel").hidden = false;
    form.elements.namedItem("nombre").focus();
  }

  function stopEditing() {
    editing = null;
    form.reset();
    clearFieldErrors(form);
    form.elements.namedItem("codigo").disabled = false;
    form.querySelector("h3").textContent = "New warehouse";
    form.querySelector("[type=submit]").textContent = "Create warehouse";
    form.querySelector(".cancel").hidden = true;
  }

  async function save(event) {
    event.preventDefault();
    const target = editing;
    const values = formValues(form);
    const body = {nombre: values.nombre, region: values.region ?? null,
      prioridad: asNumber(values.prioridad)};
    if (!target) body.codigo = values.codigo;
    const doing = target ? `Saving warehouse ${target.codigo}` : "Creating the warehouse";
    try {
      const made = (target
        ? await ctx.api.request("PUT", `/api/bodegas/${target.id}`, {body})
        : await ctx.api.request("POST", "/api/bodegas", {body})).data;
      if (target) list.replace(made); else list.added(made);
      stopEditing();
      draw();
      ctx.say(`Warehouse ${made.codigo} ${target ? "saved" : `created with id ${made.id}`}.`);
    } catch (error) {
      if (error.status === 400 && error.details.length) {
        const rest = showFieldErrors(form, error.details);
        ctx.say(`${doing} failed: check the fields marked.` +
          (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
        return;
      }
      if (error.code === "DUPLICATE_CODE") {
        showFieldErrors(form, [{field: "codigo", message: "another warehouse has this code"}]);
      }
      ctx.fail(error, doing);
    }
  }

  async function remove(warehouse) {
    if (!window.confirm(`Delete warehouse ${warehouse.codigo} (${warehouse.nombre})?`)) return;
    try {
      await ctx.api.request("DELETE", `/api/bodegas/${warehouse.id}`);
      list.remove(warehouse.id);
      draw();
      ctx.say(`Warehouse ${warehouse.codigo} deleted.`);
    } catch (error) {
      ctx.fail(error, `Deleting warehouse ${warehouse.codigo}`);
      if (error.status === 404) load();
    }
  }

  function warehouseForm() {
    const built = h("form", {class: "card", novalidate: true,
      "aria-labelledby": "warehouse-form-heading"},
      h("h3", {id: "warehouse-form-heading"}, "New warehouse"),
      h("div", {class: "grid"},
        field("warehouse-codigo", "Code", input("codigo", {required: true, maxlength: 32}),
          "1 to 32 of A-Z, 0-9 and -; it never changes."),
        field("warehouse-nombre", "Name", input("nombre", {required: true})),
        field("warehouse-region", "Region (optional)", input("region")),
        field("warehouse-prioridad", "Priority (optional)", input("prioridad",
          {inputmode: "numeric"}), "0 to 1000, 100 when left empty; lower is taken first.")),
      h("div", {class: "buttons"},
        h("button", {type: "submit", class: "primary"}, "Create warehouse"),
        h("button", {type: "button", class: "cancel", hidden: true, onclick: stopEditing},
          "Cancel editing")));
    built.addEventListener("submit", save);
    return built;
  }

  more.addEventListener("click", async () => {
    try {
      if (!(await list.more())) return;
      draw();
    } catch (error) {
      ctx.fail(error, "Loading more warehouses");
    }
  });

  append(main,
    h("h2", {tabindex: "-1"}, "Warehouses"),
    h("div", {class: "toolbar"}, h("button", {type: "button", onclick: load}, "Reload")),
    shown,
    table("Warehouses", COLUMNS, rows),
    more,
    form);
  load();
}

/** Every warehouse (a few), by id, for the screens that name or choose one; {} to a role
 * that may not list them. */
export async function warehousesById(api) {
  const byId = new Map();
  try {
    let page = await api.list("/api/bodegas", {limit: 1000});
    for (;;) {
      for (const warehouse of page.items) byId.set(warehouse.id, warehouse);
      if (!page.next) break;
      page = await api.page(page.next);
    }
  } catch {
    // a customer's, or the list out of reach: the screens name warehouses by id
  }
  return byId;
}

/** "PRINCIPAL 2, NORTE 1": where a line's units are held. */
export function heldWords(asignaciones, byId) {
  if (!asignaciones.length) return "not held";
  return asignaciones.map((each) =>
    `${byId.get(each.bodegaId)?.codigo ?? `warehouse ${each.bodegaId}`} ${each.cantidad}`)
    .join(", ");
}
