// The dashboard (docs/api.md#dashboard), operators only, where they land: the figures of
// the operation, the orders and sales of the last 14 days and the shipments by status as
// charts (Chart.js, drawn from the same figures, which are also in tables for screen
// readers), the newest orders and shipments, and which services are up. Read again every
// REFRESH_SECONDS while shown, when the tab comes back, on *Refresh*, and a few seconds
// after this page changed something (the figures follow a write within 5 s).
import {lastWriteAt} from "../api.js";
import {chartLibrary, colour} from "../charts.js";
import {append, clear, h, row, table, when} from "../dom.js";
import {ORDER_STATUSES, SHIPMENT_STATUSES} from "../lifecycle.js";

const REFRESH_SECONDS = 15;
// After a write of this page's: read again at these delays (ms).
const AFTER_A_WRITE = [1500, 4000, 8000];
const ORDER_LABELS = {PENDIENTE: "Pending", APROBADO: "Approved", EN_ENVIO: "Shipping",
  ENTREGADO: "Delivered", CANCELADO: "Cancelled"};
const SHIPMENT_LABELS = {CREADO: "Created", ASIGNADO: "Assigned", EN_RUTA: "On the way",
  ENTREGADO: "Delivered"};
const SERVICE_LABELS = {inventario: "Inventory", pedidos: "Orders", envios: "Shipping",
  notificaciones: "Notifications"};
const ORDER_COLUMNS = ["ID", "Customer", "Total", "Status", "Placed"];
const SHIPMENT_COLUMNS = ["ID", "Order", "Carrier", "Status", "Estimated delivery"];
const DAY_COLUMNS = ["Day", "Orders", "Sales"];

const money = new Intl.NumberFormat(undefined, {minimumFractionDigits: 2, maximumFractionDigits: 2});
const share = new Intl.NumberFormat(undefined, {style: "percent", maximumFractionDigits: 1});

export function render(main, ctx) {
  const root = h("div", {class: "dashboard", id: "dashboard"});
  const updated = h("p", {class: "count", id: "dashboard-updated"}, "Loading the figures…");
  const refresh = h("button", {type: "button", id: "dashboard-refresh"}, "Refresh");
  const tiles = h("div", {class: "tiles", id: "dashboard-figures"});
  const salesChart = chartFigure("dashboard-sales", "Orders and sales per day, last 14 days");
  const shipmentsChart = chartFigure("dashboard-shipments", "Shipments by status");
  const tables = h("div", {id: "dashboard-tables"});
  const charts = {};
  let timer = null;
  let reading = null;

  append(main, h("h2", {tabindex: "-1"}, "Dashboard"),
    append(root, h("div", {class: "toolbar"}, updated, refresh), tiles,
      h("div", {class: "charts"}, salesChart.figure, shipmentsChart.figure), tables));

  /** One read at a time (a tick, a refresh, a write's follow-up may meet): a second
   * asker shares the read under way. */
  function load() {
    reading ??= read().finally(() => { reading = null; });
    return reading;
  }

  async function read() {
    if (!root.isConnected) return stop();
    let figures;
    try {
      figures = (await ctx.api.request("GET", "/api/dashboard")).data;
    } catch (error) {
      updated.textContent = "The figures could not be read.";
      ctx.fail(error, "Reading the dashboard");
      return;
    }
    if (!root.isConnected) return stop();
    updated.textContent = "";
    append(updated, "Figures of ", when(figures.generadoEn),
      ` (read again every ${REFRESH_SECONDS} s).`);
    clear(tiles).append(...figureTiles(figures));
    clear(tables).append(...figureTables(figures));
    salesChart.data(dayTable(figures.ventasPorDia));
    shipmentsChart.data(statusTable("Shipments by status", "dashboard-shipments-table",
      SHIPMENT_STATUSES, SHIPMENT_LABELS, figures.envios.porEstado));
    await draw(figures);
  }

  async function draw(figures) {
    let Chart;
    try {
      Chart = await chartLibrary();
    } catch (error) {
      ctx.say(`${error.message}: the figures are in the tables.`, "error");
      return;
    }
    if (!root.isConnected) return;
    const days = figures.ventasPorDia;
    upsert(Chart, "sales", salesChart.canvas, salesConfig(days));
    upsert(Chart, "shipments", shipmentsChart.canvas, shipmentsConfig(figures.envios.porEstado));
  }

  function upsert(Chart, name, canvas, config) {
    if (charts[name]) {
      charts[name].data = config.data;
      charts[name].update("none");
    } else {
      charts[name] = new Chart(canvas, config);
    }
  }

  function stop() {
    window.clearInterval(timer);
    document.removeEventListener("visibilitychange", onVisible);
    for (const chart of Object.values(charts)) chart.destroy();
  }

  function onVisible() {
    if (document.visibilityState === "visible") load();
  }

  refresh.addEventListener("click", async () => {
    await load();
    ctx.say("Dashboard read again.");
  });
  document.addEventListener("visibilitychange", onVisible);
  timer = window.setInterval(load, REFRESH_SECONDS * 1000);
  const since = Date.now() - lastWriteAt();
  for (const delay of AFTER_A_WRITE) {
    if (since < delay + 1000) window.setTimeout(load, delay - Math.min(since, delay));
  }
  load();
}

/** A chart and the table of its figures, for whoever cannot see the chart. */
function chartFigure(id, caption) {
  const canvas = h("canvas", {id: `${id}-chart`, role: "img", "aria-label": caption});
  const details = h("details", {},
    h("summary", {}, `${caption}: the figures`));
  const figure = h("figure", {class: "chart", id},
    h("figcaption", {}, caption), h("div", {class: "chart-area"}, canvas), details);
  return {
    figure, canvas,
    data(tableElement) {
      const summary = details.querySelector("summary");
      clear(details).append(summary, tableElement);
    },
  };
}

function tile(id, title, main, ...lines) {
  return h("section", {class: "tile", id, "aria-labelledby": `${id}-title`},
    h("h3", {id: `${id}-title`}, title),
    h("p", {class: "tile-figure"}, main),
    ...lines.filter(Boolean).map((line) => h("p", {class: "tile-line"}, line)));
}

function figureTiles(figures) {
  const {productos, pedidos, envios, servicios} = figures;
  const onTime = envios.entregadosATiempo;
  return [
    tile("tile-products", "Products", String(productos.total),
      append(h("span"), h("a", {href: "#catalog?show=alerts"}, `${productos.enAlerta} in alert`)),
      `Stock value ${money.format(productos.valorStock)}`),
    tile("tile-orders", "Orders", String(pedidos.total),
      `${pedidos.porEstado.PENDIENTE} pending, ${pedidos.porEstado.APROBADO} approved`,
      `${pedidos.porEstado.EN_ENVIO} shipping, ${pedidos.porEstado.CANCELADO} cancelled`),
    tile("tile-shipments", "Shipments", String(envios.total),
      h("span", {class: envios.atrasados ? "late" : ""}, `${envios.atrasados} late`),
      onTime === null ? "None delivered yet" : `${share.format(onTime)} delivered on time`),
    h("section", {class: "tile", id: "tile-services", "aria-labelledby": "tile-services-title"},
      h("h3", {id: "tile-services-title"}, "Services"),
      h("ul", {class: "services"}, Object.entries(SERVICE_LABELS).map(([name, label]) =>
        h("li", {}, label, " ", h("span", {class: `pill pill-${servicios[name] === "UP" ? "up" : "down"}`},
          servicios[name] === "UP" ? "Up" : "Down"))))),
  ];
}

function figureTables(figures) {
  const {pedidos, envios} = figures;
  return [
    h("div", {class: "side-by-side"},
      statusTable("Orders by status", "dashboard-orders-table", ORDER_STATUSES, ORDER_LABELS,
        pedidos.porEstado),
      statusTable("Shipments by status", "dashboard-shipment-status-table", SHIPMENT_STATUSES,
        SHIPMENT_LABELS, envios.porEstado)),
    table("The newest orders", ORDER_COLUMNS, h("tbody", {id: "dashboard-newest-orders"},
      pedidos.ultimos.map((o) => row(ORDER_COLUMNS, [
        h("a", {href: `#orders?id=${o.id}`, "aria-label": `Order ${o.id}`}, String(o.id)),
        o.clienteNombre ?? "", money.format(o.total),
        h("span", {class: `pill pill-${o.status.toLowerCase()}`}, o.status), when(o.creadoEn),
      ], {"data-id": o.id})))),
    table("The newest shipments", SHIPMENT_COLUMNS, h("tbody", {id: "dashboard-newest-shipments"},
      envios.ultimos.map((s) => row(SHIPMENT_COLUMNS, [
        h("a", {href: `#shipments?id=${s.id}`, "aria-label": `Shipment ${s.id}`}, String(s.id)),
        String(s.pedidoId), s.transportista,
        h("span", {class: `pill pill-${s.status.toLowerCase()}`}, s.status),
        when(s.fechaEstimadaEntrega),
      ], {"data-id": s.id})))),
  ];
}

function statusTable(caption, id, statuses, labels, counts) {
  const columns = ["Status", "Count"];
  return table(caption, columns, h("tbody", {id},
    statuses.map((status) => row(columns, [`${labels[status]} (${status})`,
      String(counts[status])], {"data-status": status}))));
}

function dayTable(days) {
  return table("Orders and sales per day", DAY_COLUMNS, h("tbody", {id: "dashboard-days"},
    days.map((day) => row(DAY_COLUMNS, [day.fecha, String(day.pedidos), money.format(day.total)],
      {"data-day": day.fecha}))));
}

function salesConfig(days) {
  const primary = colour("--primary");
  const accent = colour("--ok");
  return {
    type: "bar",
    data: {
      labels: days.map((day) => day.fecha.slice(5)),
      datasets: [
        {type: "bar", label: "Orders", data: days.map((day) => day.pedidos),
          backgroundColor: primary, yAxisID: "orders", order: 2},
        {type: "line", label: "Sales", data: days.map((day) => Number(day.total)),
          borderColor: accent, backgroundColor: accent, yAxisID: "sales", order: 1,
          tension: 0.2},
      ],
    },
    options: chartOptions({
      orders: {type: "linear", position: "left", beginAtZero: true,
        title: {display: true, text: "Orders"}, ticks: {precision: 0}},
      sales: {type: "linear", position: "right", beginAtZero: true,
        title: {display: true, text: "Sales"}, grid: {drawOnChartArea: false}},
    }),
  };
}

function shipmentsConfig(counts) {
  return {
    type: "bar",
    data: {
      labels: SHIPMENT_STATUSES.map((status) => SHIPMENT_LABELS[status]),
      datasets: [{label: "Shipments", data: SHIPMENT_STATUSES.map((status) => counts[status]),
        backgroundColor: colour("--primary")}],
    },
    options: chartOptions({y: {beginAtZero: true, ticks: {precision: 0}}},
      {legend: {display: false}}),
  };
}

function chartOptions(scales, plugins = {}) {
  // No animation: a refresh redraws at once (and tests and screenshots see the figures).
  return {animation: false, responsive: true, maintainAspectRatio: false, scales,
    plugins: {legend: {position: "bottom"}, ...plugins}};
}
