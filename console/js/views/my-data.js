// Mis datos (docs/api.md#personal-data), customers only: what the platform holds of the
// signed-in person (their account, every order and shipment), a file of it to take
// elsewhere, their name and email corrected, and their account erased once they type
// the confirmation. Each is a request of theirs the platform records.
import {
  append, clear, clearFieldErrors, facts, field, h, input, row, showFieldErrors, table,
  timestamp, when,
} from "../dom.js";

const ORDER_COLUMNS = ["Order", "Status", "Total", "Destination", "Placed"];
const SHIPMENT_COLUMNS = ["Shipment", "Order", "Status", "Destination", "Guide"];
export const CONFIRMATION = "ELIMINAR_MI_CUENTA";

/** A file the browser saves: `text` as `name`. */
export function download(text, name) {
  const url = URL.createObjectURL(new Blob([text], {type: "application/json"}));
  const link = h("a", {href: url, download: name, hidden: true});
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The fields of `cuenta` (null: the userId has no account). */
export function accountFacts(cuenta, userId) {
  if (!cuenta) {
    return h("p", {}, `userId ${userId} has no account: only orders placed for it.`);
  }
  return facts([
    ["userId", String(cuenta.userId)],
    ["Email", cuenta.email],
    ["Name", cuenta.nombre ?? "(none given)"],
    ["Account", cuenta.estado],
    ["Created", when(cuenta.creadoEn)],
  ]);
}

/** Orders and shipments tables of a person's data; an erased field reads "(erased)". */
export function itemsOf(data, who) {
  const erased = (value) => value ?? h("span", {class: "muted"}, "(erased)");
  const orders = h("tbody", {}, data.pedidos.map((o) => row(ORDER_COLUMNS, [
    h("a", {href: `#orders?id=${o.id}`}, String(o.id)),
    h("span", {class: `pill pill-${o.status.toLowerCase()}`}, o.status),
    String(o.total), erased(o.destino), timestamp(o.creadoEn),
  ])));
  const shipments = h("tbody", {}, data.envios.map((s) => row(SHIPMENT_COLUMNS, [
    h("a", {href: `#shipments?id=${s.id}`}, String(s.id)), String(s.pedidoId),
    h("span", {class: `pill pill-${s.status.toLowerCase()}`}, s.status),
    erased(s.destino), s.guiaDespecho,
  ])));
  return [
    table(`${who} orders (${data.pedidos.length}), oldest first`, ORDER_COLUMNS, orders),
    table(`${who} shipments (${data.envios.length}), oldest first`, SHIPMENT_COLUMNS, shipments),
  ];
}

/** What keeps an erasure waiting (OPEN_ORDERS' details), in words. */
export function inFlight(error) {
  const named = (error.details ?? []).map((detail) => detail.message).join(", ");
  return `orders or shipments are still in flight (${named}), so nothing was erased. ` +
    "Cancel them, or wait until they are delivered, then try again.";
}

export function render(main, ctx) {
  const account = h("section", {class: "card", "aria-labelledby": "my-account-heading"});
  const items = h("section", {"aria-labelledby": "my-items-heading"});
  const nameForm = correctName();
  const emailForm = correctEmail();
  const eraseForm = eraseAccount();

  async function load() {
    try {
      const data = (await ctx.api.request("GET", "/api/usuarios/me/datos")).data;
      append(clear(account), h("h3", {id: "my-account-heading"}, "Your account"),
        accountFacts(data.cuenta, ctx.session.userId));
      append(clear(items), h("h3", {id: "my-items-heading"}, "Your orders and shipments"),
        itemsOf(data, "Your"));
      nameForm.elements.namedItem("nombre").value = data.cuenta?.nombre ?? "";
    } catch (error) {
      ctx.fail(error, "Loading your data");
    }
  }

  async function exportData() {
    try {
      const answer = await ctx.api.request("GET", "/api/usuarios/me/datos/exportar");
      download(answer.text, `datos-${ctx.session.userId}.json`);
      ctx.say("Your data was downloaded, as a JSON file with every order, shipment and " +
        "their history.");
    } catch (error) {
      ctx.fail(error, "Downloading your data");
    }
  }

  /** A form whose submission is `send(values)`; its 400 and 401 told under its fields. */
  function formOf(id, heading, controls, button, send, attributes = {}) {
    const form = h("form", {class: "card", novalidate: true, "aria-labelledby": `${id}-heading`,
      ...attributes},
    h("h3", {id: `${id}-heading`}, heading), controls, button);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearFieldErrors(form);
      try {
        await send(form);
      } catch (error) {
        if (error.status === 400 && error.details.length) {
          const rest = showFieldErrors(form, error.details);
          ctx.say(`${heading} failed: check the fields marked.` +
            (rest.length ? ` ${rest.join("; ")}.` : ""), "error");
        } else if (error.code === "INVALID_CREDENTIALS") {
          showFieldErrors(form, [{field: "password", message: "is not your password"}]);
          ctx.say(`${heading} failed: the password is wrong. Nothing was changed.`, "error");
        } else if (error.code === "EMAIL_TAKEN") {
          showFieldErrors(form, [{field: "email", message: "another account has it"}]);
          ctx.say(`${heading} failed: another account has this email.`, "error");
        } else if (error.code === "OPEN_ORDERS") {
          ctx.say(`${heading} failed: ${inFlight(error)}`, "error");
        } else {
          ctx.fail(error, heading);
        }
      }
    });
    return form;
  }

  function correctName() {
    return formOf("my-name", "Correct your name",
      field("my-name-nombre", "Name", input("nombre", {autocomplete: "name"})),
      h("button", {type: "submit"}, "Save the name"),
      async (form) => {
        const nombre = form.elements.namedItem("nombre").value;
        await ctx.api.request("PUT", "/api/usuarios/me", {body: {nombre}});
        ctx.say("Your name was saved.");
        load();
      });
  }

  function correctEmail() {
    return formOf("my-email", "Change your email", [
      field("my-email-email", "New email", input("email", {type: "email", autocomplete: "email"})),
      field("my-email-password", "Your password",
        input("password", {type: "password", autocomplete: "current-password"}),
        "To prove it is you. From now on you sign in with the new email."),
    ], h("button", {type: "submit"}, "Change the email"),
    async (form) => {
      const email = form.elements.namedItem("email").value.trim();
      const password = form.elements.namedItem("password").value;
      const cuenta = (await ctx.api.request("PUT", "/api/usuarios/me/email",
        {body: {email, password}})).data;
      form.reset();
      ctx.say(`Your email is now ${cuenta.email}: sign in with it from now on. Your orders ` +
        "not yet delivered carry it too.");
      load();
    });
  }

  function eraseAccount() {
    return formOf("my-erase", "Delete your account and your data", [
      h("p", {}, "Your account is closed at once and everything that is yours here is " +
        "erased: your email, your name, and the names and addresses on your orders and " +
        "shipments. What you bought stays as a fact of the business, without your data. " +
        "This cannot be undone. Orders not yet delivered or cancelled keep it waiting."),
      field("my-erase-password", "Your password",
        input("password", {type: "password", autocomplete: "current-password"})),
      field("my-erase-confirmacion", `Type ${CONFIRMATION} to confirm`,
        input("confirmacion", {autocomplete: "off", spellcheck: "false"})),
    ], h("button", {type: "submit", class: "danger"}, "Delete my account"),
    async (form) => {
      const password = form.elements.namedItem("password").value;
      const confirmacion = form.elements.namedItem("confirmacion").value.trim();
      await ctx.api.request("POST", "/api/usuarios/me/cancelacion",
        {body: {password, confirmacion}});
      ctx.signOut("Your account was deleted and your data is being erased. Goodbye.");
    }, {id: "my-erase"});
  }

  append(main,
    h("h2", {tabindex: "-1"}, "Mis datos"),
    h("p", {}, "What the platform holds of you: see it, download it, correct it, or " +
      "delete your account."),
    account,
    h("p", {}, h("button", {type: "button", class: "primary", onclick: exportData},
      "Download my data")),
    items,
    nameForm,
    emailForm,
    eraseForm);
  load();
}
