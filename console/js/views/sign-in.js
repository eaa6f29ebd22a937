// Signing in: the hosted page of the stack's user pool when there is one, else (and
// always locally) a bearer token pasted in.
import {append, field, h} from "../dom.js";
import {startSignIn} from "../hosted-sign-in.js";
import {NotAToken} from "../session.js";

export function render(main, {config, say, signedIn}) {
  const token = h("textarea", {name: "token", rows: 4, required: true, spellcheck: "false",
    autocomplete: "off"});
  const form = h("form", {class: "card", novalidate: true, "aria-labelledby": "token-heading"},
    h("h3", {id: "token-heading"}, config.cognito ? "Or paste a token" : "Paste a token"),
    field("sign-in-token", "Bearer token", token,
      ["Locally, ", h("code", {}, "make -s token"), " prints an operator's token and ",
        h("code", {}, "make -s token ROLE=customer USER_ID=42"), " a customer's."]),
    h("button", {type: "submit", class: "primary"}, "Sign in"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const slot = document.getElementById("sign-in-token-error");
    try {
      signedIn(token.value);
    } catch (error) {
      if (!(error instanceof NotAToken)) throw error;
      token.setAttribute("aria-invalid", "true");
      slot.textContent = error.message;
      say(error.message, "error");
      token.focus();
    }
  });
  append(main,
    h("h2", {tabindex: "-1"}, "Sign in"),
    h("p", {}, "The console works with your own access: operators see and change the " +
      "catalog, orders and shipments; customers see the catalog and their own orders " +
      "and shipments."),
    config.cognito
      ? h("div", {class: "card"},
        h("button", {type: "button", class: "primary",
          onclick: () => startSignIn(config.cognito)}, "Sign in with your account"))
      : null,
    form);
}
