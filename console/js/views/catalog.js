// The catalog (docs/api.md#inventory): products page by page, searched among those
// loaded, the ones in alert (stockActual < umbralMinimo) marked, each with its units on
// hand, reserved by approved orders and available; operators create, edit and delete,
// customers start an order from a product. A product's own screen (#catalog?id=N) shows
// all of it and, to operators, its stock in each warehouse (counted, transferred) and the
// approved orders' lines holding its units.
import {newIdempotencyKey} from "../api.js";
import {
  asNumber, clear, clearFieldErrors, facts, field, formValues, h, input, row, select,
  showFieldErrors, table, when,
  append,
} from "../dom.js";
import {PagedList} from "../paged.js";
import {available, availableFigure, reserved} from "../products.js";
import {warehousesById} from "./warehouses.js";

const OPERATOR_COLUMNS = ["ID", "SKU", "Name", "Unit price", "Stock", "Reserved", "Available",
  "Alert threshold", "Warehouse", "Actions"];
// Customers order from the catalog; thresholds and warehouses are the operators' concern.
const CUSTOMER_COLUMNS = ["ID", "SKU", "Name", "Unit price", "Stock", "Reserved", "Available",
  "Actions"];
const STOCK_HINT = "Units on hand, those reserved by approved orders included.";

export function inAlert(product) {
  return product.stockActual < product.umbralMinimo;
}

export function render(main, ctx, params) {
  if (params.has("id")) {
    renderProduct(main, ctx, params.get("id"));
    return;
  }
  const operator = ctx.session.role === "operator";
  const columns = operator ? OPERATOR_COLUMNS : CUSTOMER_COLUMNS;
  const list = new PagedList(ctx.api);
  let onlyAlerts = operator && params.get("show") === "alerts";
  let editing = null;
  let key = newIdempotencyKey();

  const search = h("input", {type: "search", id: "catalog-search", name: "search",
    autocomplete: "off", "aria-describedby": "catalog-search-hint"});
  const rows = h("tbody");
  const shown = h("p", {class: "count", id: "catalog-count"});
  const more = h("button", {type: "button", hidden: true}, "Load more products");
  const form = operator ? productForm() : null;

  function matches(product) {
    const words = search.value.trim().toLowerCase();
    if (!words) return true;
    return [product.sku, product.nombre, product.bodega, product.descripcion]
      .some((text) => (text ?? "").toLowerCase().includes(words));
  }

  function actions(product) {
    const details = detailsLink(product);
    if (!operator) {
      return h("span", {class: "actions"}, details,
        h("a", {class: "button", href: `#orders?productoId=${product.id}`,
          "aria-label": `Order ${product.nombre}`}, "Order"));
    }
    return h("span", {class: "actions"}, details,
      h("button", {type: "button", "aria-label": `Edit ${product.sku}`,
        onclick: () => edit(product)}, "Edit"),
      h("button", {type: "button", class: "danger", "aria-label": `Delete ${product.sku}`,
        onclick: () => remove(product)}, "Delete"));
  }

  function draw() {
    const visible = list.items.filter(matches);
    clear(rows).append(...visible.map((p) => {
      const alert = operator && inAlert(p);
      const stock = alert ? h("span", {}, String(p.stockActual), " ",
        h("strong", {class: "badge"}, "Low stock")) : String(p.stockActual);
      const units = [stock, String(reserved(p)), availableFigure(p)];
      const cells = operator
        ? [String(p.id), p.sku, p.nombre, String(p.precioUnitario), ...units,
          String(p.umbralMinimo), p.bodega ?? "", actions(p)]
        : [String(p.id), p.sku, p.nombre, String(p.precioUnitario), ...units, actions(p)];
      return row(columns, cells, {class: alert ? "in-alert" : null, "data-id": p.id});
    }));
    const what = onlyAlerts ? "products in alert" : "products";
    shown.textContent = `Showing ${visible.length} of ${list.items.length} loaded ${what}` +
      (list.next ? " (more to load)." : ".");
    more.hidden = !list.next;
  }

  async function load() {
    try {
      await list.load(onlyAlerts ? "/api/inventario/alertas" : "/api/inventario");
      draw();
    } catch (error) {
      ctx.fail(error, "Loading the catalog");
    }
  }

  /** #catalog?edit=N (the product screen's Edit): that product in the form. */
  async function editRequested(id) {
    try {
      edit((await ctx.api.request("GET", `/api/inventario/${id}`)).data);
    } catch (error) {
      ctx.fail(error, `Opening product ${id}`);
    }
  }

  more.addEventListener("click", async () => {
    try {
      if (!(await list.more())) return;
      draw();
      ctx.say(`${list.items.length} products loaded.`);
    } catch (error) {
      ctx.fail(error, "Loading more products");
    }
  });
  search.addEventListener("input", draw);

  function edit(product) {
    editing = product;
    clearFieldErrors(form);
    for (const name of ["sku", "nombre", "precioUnitario", "stockActual", "umbralMinimo",
      "bodega", "descripcion"]) {
      form.elements.namedItem(name).value = product[name] ?? "";
    }
    form.querySelector("h3").textContent = `Edit product ${product.id} (${product.sku})`;
    // Not fields of the form (the API sets them): said beside the stock they are part of.
    form.querySelector("#product-stockActual-hint").textContent =
      `Units on hand: ${reserved(product)} of them reserved by approved orders, ` +
      `${available(product)} available. A stock below ${reserved(product)} leaves a negative ` +
      "available (no approval passes until stock comes in).";
    form.querySelector("[type=submit]").textContent = "Save changes";
    form.querySelector(".cancel").hidden = false;
    form.elements.namedItem("bodegaId").closest(".field").hidden = true;  // a create's alone
    form.elements.namedItem("sku").focus();
  }

  function stopEditing() {
    editing = null;
    form.reset();
    clearFieldErrors(form);
    form.querySelector("h3").textContent = "New product";
    form.querySelector("#product-stockActual-hint").textContent = STOCK_HINT;
    form.querySelector("[type=submit]").textContent = "Create product";
    form.querySelector(".cancel").hidden = true;
    form.elements.namedItem("bodegaId").closest(".field").hidden = false;
  }

  async function remove(product) {
    if (!window.confirm(`Delete product ${product.sku} (${product.nombre})?`)) return;
    try {
      await ctx.api.request("DELETE", `/api/inventario/${product.id}`);
      list.remove(product.id);
      if (editing?.id === product.id) stopEditing();
      draw();
      ctx.say(`Product ${product.sku} deleted.`);
    } catch (error) {
      if (error.code === "PRODUCT_RESERVED") {
        // Nothing deleted: its units as they are now, and how many orders hold.
        const now = await fresh(product);
        ctx.fail(error, `Deleting ${product.sku}`, {reserved: now && reserved(now)});
        return;
      }
      ctx.fail(error, `Deleting ${product.sku}`);
      if (error.status === 404 || error.status === 409) load();
    }
  }

  /** The product as the API has it now, shown in its row; null if it cannot be read. */
  async function fresh(product) {
    try {
      const now = (await ctx.api.request("GET", `/api/inventario/${product.id}`)).data;
      list.replace(now);
      draw();
      return now;
    } catch {
      return null;
    }
  }

  async function save(event) {
    event.preventDefault();
    const target = editing;
    const values = formValues(form);
    const body = {
      sku: values.sku, nombre: values.nombre, precioUnitario: asNumber(values.precioUnitario),
      stockActual: asNumber(values.stockActual), umbralMinimo: asNumber(values.umbralMinimo),
      bodega: values.bodega ?? null, descripcion: values.descripcion ?? null,
    };
    if (!target && values.bodegaId) body.bodegaId = asNumber(values.bodegaId);
    const doing = target ? `Saving ${target.sku}` : "Creating the product";
    try {
      const answer = target
        ? await ctx.api.request("PUT", `/api/inventario/${target.id}`, {body})
        : await ctx.api.request("POST", "/api/inventario", {body, idempotencyKey: key});
      const product = answer.data;
      if (target) {
        list.replace(product);
        if (onlyAlerts && !inAlert(product)) list.remove(product.id);
      } else if (!onlyAlerts || inAlert(product)) {
        list.added(product);
      }
      key = newIdempotencyKey();
      stopEditing();
      draw();
      ctx.say(`Product ${product.sku} ${target ? "saved" : `created with id ${product.id}`}` +
        (inAlert(product) ? ": it is in alert (stock below its threshold)." : "."));
    } catch (error) {
      if (error.status === 400 && (error.details.length || error.code === "DUPLICATE_SKU")) {
        const details = error.details.length ? error.details
          : [{field: "sku", message: error.message}];
        const rest = showFieldErrors(form, details);
        ctx.say(`${doing} failed: check the fields marked.` +
          (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
        return;
      }
      ctx.fail(error, doing);
      if (error.status === 404 || error.status === 409) load();
    }
  }

  function productForm() {
    const built = h("form", {class: "card", novalidate: true, "aria-labelledby": "product-form-heading"},
      h("h3", {id: "product-form-heading"}, "New product"),
      h("div", {class: "grid"},
        field("product-sku", "SKU", input("sku", {required: true, maxlength: 100})),
        field("product-nombre", "Name", input("nombre", {required: true})),
        field("product-precioUnitario", "Unit price", input("precioUnitario",
          {inputmode: "decimal", required: true})),
        field("product-stockActual", "Stock", input("stockActual",
          {inputmode: "numeric", required: true}), STOCK_HINT),
        field("product-umbralMinimo", "Alert threshold", input("umbralMinimo",
          {inputmode: "numeric", required: true}),
        "In alert while the stock is below it."),
        field("product-bodega", "Location label (optional)", input("bodega")),
        field("product-bodegaId", "Put its stock in", select("bodegaId", [["", "PRINCIPAL"]]),
          "The warehouse a new product's stock goes into.")),
      field("product-descripcion", "Description (optional)",
        h("textarea", {name: "descripcion", rows: 2})),
      h("div", {class: "buttons"},
        h("button", {type: "submit", class: "primary"}, "Create product"),
        h("button", {type: "button", class: "cancel", hidden: true, onclick: stopEditing},
          "Cancel editing")));
    built.addEventListener("submit", save);
    return built;
  }

  const show = operator ? h("fieldset", {class: "inline"},
    h("legend", {}, "Show"),
    radio("catalog-show", "all", "All products", !onlyAlerts),
    radio("catalog-show", "alerts", "Only products in alert", onlyAlerts)) : null;
  show?.addEventListener("change", (event) => {
    onlyAlerts = event.target.value === "alerts";
    load();
  });

  append(main,
    h("h2", {tabindex: "-1"}, "Catalog"),
    h("div", {class: "toolbar"},
      h("div", {class: "field"},
        h("label", {for: "catalog-search"}, "Search the loaded products"),
        search,
        h("p", {class: "hint", id: "catalog-search-hint"},
          "Searches SKU, name, warehouse and description of the products loaded so far.")),
      show,
      h("button", {type: "button", onclick: load}, "Reload")),
    shown,
    table(operator
      ? "Products (those in alert are marked Low stock; more reserved than on hand, Over-reserved)"
      : "Products", columns, rows),
    more,
    form);
  load();
  if (operator && params.get("edit")) editRequested(params.get("edit"));
  if (operator) {
    warehousesById(ctx.api).then((byId) => {
      const choice = form.elements.namedItem("bodegaId");
      for (const [id, warehouse] of byId) {
        if (id !== 1) choice.append(h("option", {value: id}, `${warehouse.codigo} (${warehouse.nombre})`));
      }
    });
  }

  function radio(name, value, label, checked) {
    const id = `${name}-${value}`;
    return h("span", {class: "choice"},
      h("input", {type: "radio", name, id, value, checked}),
      h("label", {for: id}, label));
  }
}

function detailsLink(product) {
  return h("a", {class: "button", href: `#catalog?id=${product.id}`,
    "aria-label": `Details of ${product.sku}`}, "Details");
}

/** One product (#catalog?id=N): its fields and units; to operators, the approved orders
 * holding them (GET /api/inventario/{id}/reservas) and a way to edit it. */
function renderProduct(main, ctx, id) {
  const operator = ctx.session.role === "operator";
  const heading = h("h2", {tabindex: "-1"}, `Product ${id}`);
  const body = h("div", {class: "detail"});
  const reservations = h("tbody");
  const held = h("p", {class: "count", id: "reservations-count"});
  const reservationsSection = operator ? h("section", {"aria-labelledby": "reservations-heading"},
    h("h3", {id: "reservations-heading"}, "Reservations"),
    held,
    table("Approved orders holding its units", RESERVATION_COLUMNS, reservations)) : null;
  const stock = operator ? stockSection(ctx, id, () => load()) : null;

  async function load() {
    let product;
    try {
      product = (await ctx.api.request("GET", `/api/inventario/${id}`)).data;
    } catch (error) {
      clear(body).append(h("p", {}, error.status === 404
        ? `Product ${id} is not in the catalog: it was deleted, or never existed.`
        : "The product could not be loaded."));
      if (reservationsSection) reservationsSection.hidden = true;
      ctx.fail(error, `Loading product ${id}`);
      return;
    }
    heading.textContent = `Product ${product.id}: ${product.nombre}`;
    clear(body).append(productFacts(product, operator), h("div", {class: "actions"}, operator
      ? h("a", {class: "button", href: `#catalog?edit=${product.id}`,
        "aria-label": `Edit ${product.sku}`}, "Edit")
      : h("a", {class: "button", href: `#orders?productoId=${product.id}`,
        "aria-label": `Order ${product.nombre}`}, "Order")));
    if (operator) {
      await stock.load();  // the warehouses' codes first: the reservations name them
      await loadReservations(product);
    }
  }

  async function loadReservations(product) {
    reservationsSection.hidden = false;
    try {
      const items = (await ctx.api.request("GET", `/api/inventario/${id}/reservas`)).data ?? [];
      const byId = stock.warehouses();
      clear(reservations).append(...items.map((each) => row(RESERVATION_COLUMNS, [
        h("a", {href: `#orders?id=${each.pedidoId}`}, `Order ${each.pedidoId}`),
        String(each.cantidad), byId.get(each.bodegaId)?.codigo ?? `warehouse ${each.bodegaId}`,
        String(each.linea ?? 1), when(each.desde),
      ], {"data-id": each.pedidoId})));
      const units = items.reduce((sum, each) => sum + each.cantidad, 0);
      held.textContent = items.length
        ? `${units} unit${units === 1 ? "" : "s"} held by ${items.length} approved ` +
          `order${items.length === 1 ? "" : "s"}, oldest order first.` +
          (units === reserved(product) ? "" : ` The product says ${reserved(product)}: ` +
            "the platform puts such a difference right within minutes.")
        : "No approved order holds units of this product.";
    } catch (error) {
      clear(reservations);
      held.textContent = "The reservations could not be loaded.";
      ctx.fail(error, `Loading the reservations of product ${id}`);
    }
  }

  append(main,
    heading,
    h("div", {class: "toolbar"},
      h("a", {class: "button", href: "#catalog"}, "Back to the catalog"),
      h("button", {type: "button", onclick: load}, "Reload")),
    body,
    stock?.section,
    reservationsSection);
  load();
}

const RESERVATION_COLUMNS = ["Order", "Units", "Warehouse", "Line", "Since"];
const ROW_COLUMNS = ["Warehouse", "On hand", "Reserved", "Available"];

/** A product's stock in each warehouse (GET /api/inventario/{id}/existencias), a
 * warehouse's count set, and units moved between two: docs/api.md#stock-per-warehouse.
 * `changed()` once a write moved the product's units. */
function stockSection(ctx, id, changed) {
  const rows = h("tbody");
  let byId = new Map();
  const choices = () => [...byId.values()].map((w) => [String(w.id), `${w.codigo} (${w.nombre})`]);
  const count = h("form", {class: "card", novalidate: true, "aria-labelledby": "count-heading"},
    h("h4", {id: "count-heading"}, "Count a warehouse"),
    h("div", {class: "grid"},
      field("count-bodegaId", "Warehouse", select("bodegaId", [])),
      field("count-stockActual", "Units on hand there", input("stockActual",
        {inputmode: "numeric", required: true}))),
    h("button", {type: "submit"}, "Set the count"));
  const transfer = h("form", {class: "card", novalidate: true, "aria-labelledby": "transfer-heading"},
    h("h4", {id: "transfer-heading"}, "Transfer units"),
    h("div", {class: "grid"},
      field("transfer-desde", "From", select("desde", [])),
      field("transfer-hacia", "To", select("hacia", [])),
      field("transfer-cantidad", "Units", input("cantidad", {inputmode: "numeric", required: true}),
        "Available units only: those approved orders hold stay.")),
    h("button", {type: "submit"}, "Transfer"));

  async function load() {
    try {
      byId = await warehousesById(ctx.api);
      const found = (await ctx.api.request("GET", `/api/inventario/${id}/existencias`)).data ?? [];
      clear(rows).append(...found.map((r) => row(ROW_COLUMNS, [
        h("span", {}, r.codigo, h("br"), h("small", {}, byId.get(r.bodegaId)?.nombre ?? "")),
        String(r.stockActual), String(r.stockReservado), availableFigure(r),
      ], {"data-bodega": r.bodegaId})));
      for (const [form, names] of [[count, ["bodegaId"]], [transfer, ["desde", "hacia"]]]) {
        for (const name of names) {
          const control = form.elements.namedItem(name);
          const chosen = control.value;
          clear(control).append(...choices().map(([value, text]) => h("option", {value}, text)));
          if (chosen) control.value = chosen;
        }
      }
    } catch (error) {
      clear(rows);
      ctx.fail(error, `Loading the stock of product ${id} per warehouse`);
    }
  }

  async function send(form, method, path, body, doing, said) {
    try {
      await ctx.api.request(method, path, {body});
      form.reset();
      clearFieldErrors(form);
      ctx.say(said);
      changed();
    } catch (error) {
      if (error.status === 400 && error.details.length) {
        const rest = showFieldErrors(form, error.details);
        ctx.say(`${doing} failed: check the fields marked.` +
          (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
        return;
      }
      ctx.fail(error, doing);
    }
  }

  count.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = formValues(count);
    const code = byId.get(Number(values.bodegaId))?.codigo;
    send(count, "PUT", `/api/inventario/${id}/existencias/${values.bodegaId}`,
      {stockActual: asNumber(values.stockActual)}, `Counting ${code}`,
      `${code} now counts ${values.stockActual} units of product ${id}.`);
  });
  transfer.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = formValues(transfer);
    const [from, to] = [values.desde, values.hacia].map((each) => byId.get(Number(each))?.codigo);
    send(transfer, "POST", `/api/inventario/${id}/transferencias`,
      {desde: asNumber(values.desde), hacia: asNumber(values.hacia),
        cantidad: asNumber(values.cantidad)}, "Transferring the units",
      `${values.cantidad} units moved from ${from} to ${to}.`);
  });

  const section = h("section", {"aria-labelledby": "stock-heading"},
    h("h3", {id: "stock-heading"}, "Stock per warehouse"),
    table("Its units in each warehouse", ROW_COLUMNS, rows),
    h("div", {class: "grid"}, count, transfer));
  return {section, load, warehouses: () => byId};
}

function productFacts(product, operator) {
  const units = available(product);
  return facts([
    ["SKU", product.sku],
    ["Name", product.nombre],
    ["Unit price", String(product.precioUnitario)],
    ["Stock", operator && inAlert(product)
      ? h("span", {}, String(product.stockActual), " ", h("strong", {class: "badge"}, "Low stock"))
      : String(product.stockActual)],
    ["Reserved", `${reserved(product)} (held by approved orders)`],
    ["Available", units < 0
      ? h("span", {}, availableFigure(product), h("br"), `Approved orders hold ${-units} more ` +
        "than are on hand: no approval passes until stock comes in.")
      : String(units)],
    operator && ["Alert threshold", `${product.umbralMinimo} (in alert while the stock is below it)`],
    operator && ["Warehouse", product.bodega || "none"],
    ["Description", product.descripcion || "none"],
  ]);
}
