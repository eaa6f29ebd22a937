// Signing in with an email and a password (POST /api/auth/login, locally and on AWS),
// creating a customer's account (POST /api/auth/register, then signing in), the pool's
// hosted page where the stack has one, and a pasted token for scripts and tests. The
// password goes to the API and nowhere else: it is never stored, and the forms are
// cleared once used.
import {Api} from "../api.js";
import {append, field, h, input} from "../dom.js";
import {startSignIn} from "../hosted-sign-in.js";
import {explain} from "../messages.js";
import {NotAToken} from "../session.js";

const POLICY = "At least 12 characters, with a lowercase letter, an uppercase letter and a number.";

export function render(main, {config, say, signedIn}) {
  const api = new Api(config.apiBaseUrl ?? "", null);
  append(main,
    h("h2", {tabindex: "-1"}, "Sign in"),
    h("p", {}, "The console works with your own access: operators see and change the " +
      "catalog, orders and shipments; customers see the catalog and their own orders " +
      "and shipments."),
    passwordForm(api, say, signedIn),
    config.cognito
      ? h("div", {class: "card"},
        h("button", {type: "button", class: "primary",
          onclick: () => startSignIn(config.cognito)}, "Sign in with your account"))
      : null,
    registerForm(api, say, signedIn),
    tokenForm(say, signedIn));
}

function passwordForm(api, say, signedIn) {
  const email = input("email", {type: "email", autocomplete: "username", required: true});
  const password = input("password", {type: "password", autocomplete: "current-password",
    required: true});
  const form = h("form", {class: "card", novalidate: true, "aria-labelledby": "login-heading"},
    h("h3", {id: "login-heading"}, "Sign in with your email"),
    field("login-email", "Email", email),
    field("login-password", "Password", password),
    h("button", {type: "submit", class: "primary"}, "Sign in"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = {email: ["login-email", email], password: ["login-password", password]};
    clearErrors(fields);
    try {
      const who = email.value.trim().toLowerCase();
      const token = await logIn(api, email.value, password.value);
      form.reset();
      signedIn(token, who);
    } catch (error) {
      password.value = "";
      refused(error, fields, say, "Signing in");
    }
  });
  return form;
}

function registerForm(api, say, signedIn) {
  const email = input("email", {type: "email", autocomplete: "email", required: true});
  const password = input("password", {type: "password", autocomplete: "new-password",
    required: true});
  const nombre = input("nombre", {autocomplete: "name"});
  const form = h("form", {class: "card", novalidate: true,
    "aria-labelledby": "register-heading"},
    h("h3", {id: "register-heading"}, "New customer? Create your account"),
    field("register-email", "Email", email),
    field("register-password", "Password", password, POLICY),
    field("register-nombre", "Name (optional)", nombre),
    h("button", {type: "submit"}, "Create account"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const fields = {email: ["register-email", email], password: ["register-password", password],
      nombre: ["register-nombre", nombre]};
    clearErrors(fields);
    const body = {email: email.value, password: password.value};
    if (nombre.value.trim()) body.nombre = nombre.value;
    try {
      const who = email.value.trim().toLowerCase();
      await api.request("POST", "/api/auth/register", {body});
      const token = await logIn(api, email.value, password.value);
      form.reset();
      signedIn(token, who);
    } catch (error) {
      refused(error, fields, say, "Creating the account");
    }
  });
  return form;
}

async function logIn(api, email, password) {
  const answer = await api.request("POST", "/api/auth/login", {body: {email, password}});
  return answer.text.trim();
}

/** What a refused sign-in or registration means, said in the live region and under the
 * field it is about. */
function refused(error, fields, say, doing) {
  let message;
  if (error.status === 401) {
    message = error.code === "PASSWORD_CHANGE_REQUIRED"
      ? "This account has a temporary password: ask an operator to set a new one."
      : "The email or the password is wrong.";
  } else if (error.status === 429 && error.code === "TOO_MANY_ATTEMPTS") {
    const wait = error.retryAfter ?? 30;
    message = `Too many sign-ins for this email: try again in ${wait} seconds.`;
  } else if (error.status === 409 && error.code === "EMAIL_TAKEN") {
    message = "An account with this email exists: sign in instead.";
    markField(fields.email, message);
  } else {
    message = explain(error, doing);
  }
  for (const detail of error.details ?? []) {
    if (fields[detail.field]) markField(fields[detail.field], detail.message);
  }
  say(message, "error");
  const invalid = Object.values(fields).find(([, control]) =>
    control.getAttribute("aria-invalid") === "true");
  (invalid ? invalid[1] : Object.values(fields)[0][1]).focus();
}

function markField([id, control], message) {
  control.setAttribute("aria-invalid", "true");
  document.getElementById(`${id}-error`).textContent = message;
}

function clearErrors(fields) {
  for (const [id, control] of Object.values(fields)) {
    control.removeAttribute("aria-invalid");
    document.getElementById(`${id}-error`).textContent = "";
  }
}

function tokenForm(say, signedIn) {
  const token = h("textarea", {name: "token", rows: 4, required: true, spellcheck: "false",
    autocomplete: "off"});
  const form = h("form", {class: "card", novalidate: true, "aria-labelledby": "token-heading"},
    h("h3", {id: "token-heading"}, "Or paste a token"),
    field("sign-in-token", "Bearer token", token,
      ["For scripts and tests: locally, ", h("code", {}, "make -s token"),
        " prints an operator's token and ", h("code", {}, "make -s token ROLE=customer USER_ID=42"),
        " a customer's."]),
    h("button", {type: "submit"}, "Sign in with the token"));
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
  return form;
}
