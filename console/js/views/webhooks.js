// Webhooks (docs/api.md#webhooks), operators only: the endpoints subscribed to the
// platform's events, a new one (its secret shown once, here), a secret rotated, an
// endpoint deleted; and one endpoint's delivery attempts, newest first, with a re-send
// of an event whose delivery is over.
import {
  append, clear, clearFieldErrors, field, h, input, row, showFieldErrors, table, timestamp,
} from "../dom.js";
import {PagedList} from "../paged.js";

export const EVENT_TYPES = ["pedido.creado", "pedido.estado", "envio.creado", "envio.estado",
  "inventario.stock_bajo"];
const EVENT_LABELS = {"pedido.creado": "Order placed", "pedido.estado": "Order status changed",
  "envio.creado": "Shipment created", "envio.estado": "Shipment status changed",
  "inventario.stock_bajo": "Stock below its threshold"};
const COLUMNS = ["ID", "URL", "Events", "Active", "Created", "Actions"];
const ATTEMPT_COLUMNS = ["Time", "Event", "Type", "Try", "Answer", "State", "Actions"];

export function render(main, ctx, params) {
  const list = new PagedList(ctx.api);
  const rows = h("tbody");
  const shown = h("p", {class: "count", id: "webhooks-count"});
  const more = h("button", {type: "button", hidden: true}, "Load more webhooks");
  const secret = h("div", {id: "webhook-secret"});
  const attempts = h("section", {id: "webhook-attempts", "aria-live": "polite"});
  const form = webhookForm();

  function actions(hook) {
    return h("span", {class: "actions"},
      h("a", {href: `#webhooks?id=${hook.id}`, "aria-label": `Deliveries of webhook ${hook.id}`},
        "Deliveries"),
      h("button", {type: "button", "aria-label": `Rotate secret of webhook ${hook.id}`,
        onclick: () => rotate(hook)}, "Rotate secret"),
      h("button", {type: "button", "aria-label": `Delete webhook ${hook.id}`,
        onclick: () => remove(hook)}, "Delete"));
  }

  function draw() {
    clear(rows).append(...list.items.map((w) => row(COLUMNS, [
      String(w.id), h("code", {}, w.url), w.eventos.join(", "),
      h("span", {class: `pill pill-${w.activo ? "active" : "inactive"}`},
        w.activo ? "Active" : "Off (410)"),
      timestamp(w.creadoEn), actions(w),
    ], {"data-id": w.id})));
    shown.textContent = `${list.items.length} webhooks loaded` + (list.next ? " (more to load)." : ".");
    more.hidden = !list.next;
  }

  async function load() {
    try {
      await list.load("/api/webhooks");
      draw();
    } catch (error) {
      ctx.fail(error, "Loading the webhooks");
    }
  }

  function showSecret(hook, what) {
    const id = "webhook-secret-value";
    clear(secret).append(h("div", {class: "card", role: "region",
      "aria-labelledby": "webhook-secret-heading"},
    h("h3", {id: "webhook-secret-heading"}, `Secret of webhook ${hook.id}`),
    h("p", {}, `${what} Copy it now: it is shown only this once. Verify each delivery's ` +
      "webhook-signature with it (docs/api.md, Verifying a delivery)."),
    field(id, "Signing secret", input("secreto", {value: hook.secreto, readonly: true}))));
    document.getElementById(id).focus();
  }

  async function create(event) {
    event.preventDefault();
    const url = form.elements.namedItem("url").value.trim();
    const eventos = [...form.querySelectorAll("input[name=evento]:checked")].map((c) => c.value);
    try {
      const hook = (await ctx.api.request("POST", "/api/webhooks", {body: {url, eventos}})).data;
      list.added(hook);
      draw();
      form.reset();
      clearFieldErrors(form);
      showSecret(hook, `Webhook ${hook.id} created for ${hook.eventos.join(", ")}.`);
      ctx.say(`Webhook ${hook.id} created: copy its secret now, it is shown only once.`);
    } catch (error) {
      if (error.status === 400 && error.details.length) {
        const rest = showFieldErrors(form, error.details);
        ctx.say("Creating the webhook failed: check the fields marked." +
          (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
        return;
      }
      ctx.fail(error, "Creating the webhook");
    }
  }

  async function rotate(hook) {
    if (!window.confirm(`Rotate the secret of webhook ${hook.id}? For 24 hours deliveries ` +
      "carry both signatures, the old secret's and the new one's.")) return;
    try {
      const rotated = (await ctx.api.request("POST", `/api/webhooks/${hook.id}/secreto`)).data;
      showSecret(rotated, "A new secret; the old one still signs for 24 hours.");
      ctx.say(`Webhook ${hook.id} has a new secret: copy it now, it is shown only once.`);
    } catch (error) {
      ctx.fail(error, `Rotating the secret of webhook ${hook.id}`);
    }
  }

  async function remove(hook) {
    if (!window.confirm(`Delete webhook ${hook.id} (${hook.url})? Nothing more is sent to it.`)) {
      return;
    }
    try {
      await ctx.api.request("DELETE", `/api/webhooks/${hook.id}`);
      list.remove(hook.id);
      draw();
      if (params.get("id") === String(hook.id)) clear(attempts);
      ctx.say(`Webhook ${hook.id} deleted.`);
    } catch (error) {
      ctx.fail(error, `Deleting webhook ${hook.id}`);
      if (error.status === 404) load();
    }
  }

  more.addEventListener("click", async () => {
    try {
      if (!(await list.more())) return;
      draw();
      ctx.say(`${list.items.length} webhooks loaded.`);
    } catch (error) {
      ctx.fail(error, "Loading more webhooks");
    }
  });

  function webhookForm() {
    const boxes = EVENT_TYPES.map((type) => {
      const id = `webhook-evento-${type.replace(".", "-")}`;
      return h("div", {class: "check"},
        h("input", {type: "checkbox", name: "evento", value: type, id}),
        h("label", {for: id}, `${EVENT_LABELS[type]} (${type})`));
    });
    const events = h("fieldset", {name: "eventos", id: "webhook-eventos",
      "aria-describedby": "webhook-eventos-error"},
    h("legend", {}, "Events"), boxes,
    h("p", {class: "field-error", id: "webhook-eventos-error"}));
    const built = h("form", {class: "card", novalidate: true,
      "aria-labelledby": "webhook-form-heading"},
    h("h3", {id: "webhook-form-heading"}, "New webhook"),
    field("webhook-url", "URL", input("url", {inputmode: "url", required: true}),
      "https:// (locally http:// too); its host must be public (locally, 127.0.0.1 too)."),
    events,
    h("button", {type: "submit", class: "primary"}, "Create webhook"));
    built.addEventListener("submit", create);
    return built;
  }

  append(main,
    h("h2", {tabindex: "-1"}, "Webhooks"),
    shown,
    table("Webhooks, oldest first", COLUMNS, rows),
    more,
    secret,
    form,
    attempts);
  load();
  const chosen = params.get("id");
  if (chosen && /^[0-9]+$/.test(chosen)) renderAttempts(attempts, ctx, chosen);
}

/** One endpoint's attempts, newest first, paged; a re-send of an event that is over. */
function renderAttempts(section, ctx, webhookId) {
  const list = new PagedList(ctx.api);
  const rows = h("tbody");
  const shown = h("p", {class: "count", id: "attempts-count"});
  const more = h("button", {type: "button", hidden: true}, "Load more attempts");

  async function resend(attempt) {
    try {
      await ctx.api.request("POST",
        `/api/webhooks/${webhookId}/entregas/${attempt.eventId}/reenviar`);
      ctx.say(`Event ${attempt.eventId} queued to be sent again to webhook ${webhookId}.`);
    } catch (error) {
      ctx.fail(error, `Sending event ${attempt.eventId} again`);
    }
  }

  function draw() {
    clear(rows).append(...list.items.map((a) => row(ATTEMPT_COLUMNS, [
      timestamp(a.timestamp), h("code", {}, a.eventId), a.type, String(a.intento),
      a.statusCode === null ? (a.error ?? "no answer") : `HTTP ${a.statusCode}`,
      h("span", {class: `pill pill-${a.estado.toLowerCase()}`}, a.estado),
      // A failed attempt with its next try due: its delivery is not over, nothing to send.
      a.estado === "REINTENTO" ? "" : h("button", {type: "button",
        "aria-label": `Send again: event ${a.eventId}`, onclick: () => resend(a)}, "Send again"),
    ])));
    shown.textContent = `${list.items.length} attempts loaded, newest first` +
      (list.next ? " (more to load)." : ".");
    more.hidden = !list.next;
  }

  more.addEventListener("click", async () => {
    try {
      if (!(await list.more())) return;
      draw();
    } catch (error) {
      ctx.fail(error, "Loading more attempts");
    }
  });

  append(clear(section),
    h("h3", {}, `Deliveries of webhook ${webhookId}`),
    shown,
    table(`Delivery attempts of webhook ${webhookId}, newest first`, ATTEMPT_COLUMNS, rows),
    more);
  list.load(`/api/webhooks/${webhookId}/entregas`).then(draw,
    (error) => ctx.fail(error, `Loading the deliveries of webhook ${webhookId}`));
}
