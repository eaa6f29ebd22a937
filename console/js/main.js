// The console: signs the user in, then shows the views the token's role is offered.
import {Api} from "./api.js";
import {clear} from "./dom.js";
import {finishSignIn, signOutUrl} from "./hosted-sign-in.js";
import {explain} from "./messages.js";
import {forget, keep, restore, sessionFor} from "./session.js";
import * as catalog from "./views/catalog.js";
import * as dashboard from "./views/dashboard.js";
import * as myData from "./views/my-data.js";
import * as orders from "./views/orders.js";
import * as requests from "./views/requests.js";
import * as returns from "./views/returns.js";
import * as shipments from "./views/shipments.js";
import * as signIn from "./views/sign-in.js";
import * as warehouses from "./views/warehouses.js";
import * as webhooks from "./views/webhooks.js";

const VIEWS = {
  dashboard, catalog, bodegas: warehouses, orders, shipments, devoluciones: returns, webhooks,
  "mis-datos": myData, solicitudes: requests,
};
// Sections only a role may see: the rest see no link to them, and are sent where they land.
const ONLY = {
  dashboard: "operator", bodegas: "operator", webhooks: "operator", solicitudes: "operator",
  "mis-datos": "customer",
};
const main = document.getElementById("main");
const status = document.getElementById("status");
const nav = document.getElementById("nav");
const who = document.getElementById("who");

let config = {apiBaseUrl: "", cognito: null};
let session = null;

/** A message in the live region (read out by screen readers). */
function say(text, kind = "info") {
  status.className = `status status-${kind}`;
  // Emptied first, so the same message said twice is announced twice.
  status.textContent = "";
  window.setTimeout(() => { status.textContent = text; }, 30);
}

/** A failed request told in words (messages.js); `facts`: what the screen knows. */
function fail(error, doing, facts) {
  if (error.status === 401) {
    signOut(explain(error, doing));
    return;
  }
  say(explain(error, doing, facts), "error");
}

function context() {
  return {
    api: new Api(config.apiBaseUrl ?? "", session.token), session, say, fail, signOut,
    go: (route) => { window.location.hash = route; },
  };
}

/** Where a role lands: operators on the dashboard, customers on the catalog. */
function landing() {
  return session?.role === "operator" ? "dashboard" : "catalog";
}

function parseRoute() {
  const [name, query] = window.location.hash.replace(/^#\/?/, "").split("?");
  const allowed = VIEWS[name] && (!ONLY[name] || ONLY[name] === session?.role);
  return {name: allowed ? name : landing(), params: new URLSearchParams(query ?? "")};
}

function render() {
  clear(main);
  if (!session) {
    nav.hidden = true;
    who.hidden = true;
    signIn.render(main, {config, say, signedIn});
    return;
  }
  const {name, params} = parseRoute();
  nav.hidden = false;
  for (const link of nav.querySelectorAll("a")) {
    if (link.getAttribute("href") === `#${name}`) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  VIEWS[name].render(main, context(), params);
  main.querySelector("h2")?.focus({preventScroll: false});
}

function showWho() {
  who.hidden = false;
  document.getElementById("who-name").textContent = session.sub;
  document.getElementById("who-role").textContent =
    session.role === "customer" ? `customer ${session.userId ?? "(no user id)"}` : "operator";
  for (const link of nav.querySelectorAll("[data-label-customer]")) {
    link.textContent = session.role === "customer"
      ? link.dataset.labelCustomer : link.dataset.labelOperator;
  }
  for (const link of nav.querySelectorAll("[data-role]")) {
    link.closest("li").hidden = link.dataset.role !== session.role;
  }
}

function signedIn(token, name = null) {
  session = sessionFor(token, name);
  keep(session, name);
  showWho();
  const welcome = `Signed in as ${session.sub} (${session.role}).`;
  // Without firing hashchange, which would render (and load) the section twice.
  if (!window.location.hash) window.history.replaceState(null, "", `#${landing()}`);
  render();
  say(welcome);
}

function signOut(message) {
  session = null;
  forget();
  render();
  if (message) say(message, "error");
}

async function start() {
  try {
    const response = await fetch("/console/config.json", {cache: "no-store"});
    if (response.ok) config = {...config, ...(await response.json())};
  } catch {
    // No configuration: the API on this page's own origin, tokens pasted.
  }
  document.getElementById("sign-out").addEventListener("click", () => {
    const hosted = Boolean(config.cognito);
    signOut();
    say("Signed out.");
    if (hosted) window.location.assign(signOutUrl(config.cognito));
  });
  window.addEventListener("hashchange", render);
  if (config.cognito) {
    try {
      const token = await finishSignIn(config.cognito);
      if (token) {
        signedIn(token);
        return;
      }
    } catch (error) {
      render();
      say(error.message, "error");
      return;
    }
  }
  session = restore();
  if (session) showWho();
  render();
}

start();

