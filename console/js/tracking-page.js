// The public tracking page (docs/console.md#tracking): a customer opens it from a link
// with the code (/console/seguimiento.html?codigo=...), or types the code. It asks the
// API's public look-up (docs/api.md#public-tracking), with no token, and shows what it
// answers: the parcel's state, its carrier and estimate, and its events. Nothing else is
// fetched (the page's Content-Security-Policy allows this API alone).

const STATES = {
  CREADO: "Preparando el envío",
  ASIGNADO: "Asignado al transportista",
  EN_RUTA: "En camino",
  EN_REPARTO: "En reparto",
  INTENTO_FALLIDO: "Intento de entrega fallido",
  ENTREGADO: "Entregado",
  DEVUELTO: "Devuelto al remitente",
  INCIDENCIA: "Incidencia",
};
const KINDS = {TERRESTRE: "Terrestre", EXPRESS: "Express"};

const $ = (id) => document.getElementById(id);

function say(text, error = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("status-error", error);
}

/** A timestamp of the API (UTC, no offset) in the reader's own time zone. */
function when(stamp) {
  const moment = new Date(`${stamp.slice(0, 23)}Z`);
  return Number.isNaN(moment.getTime())
    ? stamp
    : moment.toLocaleString("es", {dateStyle: "medium", timeStyle: "short"});
}

async function apiBase() {
  try {
    const response = await fetch("/console/config.json", {cache: "no-store"});
    if (response.ok) return ((await response.json()).apiBaseUrl ?? "").replace(/\/+$/, "");
  } catch {
    // No configuration: the API is this page's own origin (the local gateway).
  }
  return "";
}

function show(parcel) {
  $("estado").textContent = STATES[parcel.estadoSeguimiento] ?? parcel.estadoSeguimiento;
  $("late").hidden = !parcel.atrasado;
  $("code").textContent = parcel.codigoSeguimiento;
  $("carrier").textContent = parcel.transportista;
  $("kind").textContent = KINDS[parcel.tipoEnvio] ?? parcel.tipoEnvio;
  $("estimate").textContent = when(parcel.fechaEstimadaEntrega);
  const list = $("events");
  list.replaceChildren();
  // Newest first: what a person looks for first.
  for (const event of [...parcel.eventos].reverse()) {
    const item = document.createElement("li");
    const title = document.createElement("strong");
    title.textContent = STATES[event.estado] ?? event.estado;
    const detail = document.createElement("span");
    detail.className = "muted";
    detail.textContent = [when(event.fecha), event.ubicacion].filter(Boolean).join(" · ");
    item.append(title, document.createElement("br"), detail);
    list.append(item);
  }
  if (!parcel.eventos.length) {
    const item = document.createElement("li");
    item.textContent = "Aún no hay movimientos.";
    list.append(item);
  }
  $("parcel").hidden = false;
}

async function look(base, code) {
  $("parcel").hidden = true;
  say("Buscando…");
  let response;
  try {
    response = await fetch(`${base}/api/seguimiento/${encodeURIComponent(code)}`, {
      headers: {Accept: "application/json"}, cache: "no-store", credentials: "omit",
    });
  } catch {
    say("No se pudo consultar el envío. Revisa tu conexión e inténtalo de nuevo.", true);
    return;
  }
  if (response.ok) {
    show(await response.json());
    say("");
  } else if (response.status === 404) {
    say("No encontramos un envío con ese código. Revisa que esté completo.", true);
  } else if (response.status === 429) {
    const wait = response.headers.get("Retry-After") ?? "unos";
    say(`Demasiadas consultas seguidas: inténtalo de nuevo en ${wait} segundos.`, true);
  } else {
    say("No se pudo consultar el envío ahora. Inténtalo más tarde.", true);
  }
}

async function start() {
  const base = await apiBase();
  const input = $("codigo");
  const code = new URLSearchParams(window.location.search).get("codigo");
  $("lookup").addEventListener("submit", (event) => {
    event.preventDefault();
    const typed = input.value.trim().toUpperCase();
    const url = new URL(window.location.href);
    url.searchParams.set("codigo", typed);
    window.history.replaceState(null, "", url.href);
    look(base, typed);
  });
  if (code) {
    input.value = code;
    await look(base, code.trim());
  } else {
    input.focus();
  }
}

start();
