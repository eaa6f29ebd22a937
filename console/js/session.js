// Who is signed in. The token's payload is read here only to choose which views to
// offer and to show who is signed in; the gateway verifies the token on every request,
// so nothing here is a check of anything.

const KEY = "logistics-console-token";
// The email a user signed in with, to show who is signed in (a pool's access token names
// its user by an opaque id only). Never the password: that is never kept anywhere.
const NAME_KEY = "logistics-console-name";
const OPERATORS_GROUP = "operators";

export class NotAToken extends Error {}

/** {token, sub, role, userId, expires} of a bearer token, or NotAToken; `name`: who
 * signed in, when the console knows (their email). */
export function sessionFor(token, name = null) {
  const trimmed = token.trim().replace(/^Bearer\s+/i, "");
  const parts = trimmed.split(".");
  if (parts.length !== 3) throw new NotAToken("This is not a token: a token has three parts separated by dots.");
  let claims;
  try {
    claims = JSON.parse(decodeBase64Url(parts[1]));
  } catch {
    throw new NotAToken("This is not a token: its middle part is not readable.");
  }
  if (typeof claims !== "object" || claims === null) throw new NotAToken("This is not a token.");
  const expires = typeof claims.exp === "number" ? claims.exp * 1000 : null;
  if (expires !== null && expires <= Date.now()) {
    throw new NotAToken("This token has expired: get a new one.");
  }
  const role = roleOf(claims);
  const userId = Number.isInteger(claims.userId) ? claims.userId
    : /^[0-9]{1,15}$/.test(claims.userId ?? "") ? Number(claims.userId) : null;
  const sub = name ?? claims.sub ?? claims.username ?? "unknown";
  return {token: trimmed, sub: String(sub), role, userId, expires};
}

/** As the gateway reads it (docs/identity.md): `role`; else a member of the pool's group
 * "operators" is an operator and any other pool user (an access token) a customer; a
 * token with neither is an operator's from before roles existed. */
function roleOf(claims) {
  if (claims.role === "customer" || claims.role === "operator") return claims.role;
  const groups = claims["cognito:groups"];
  if (Array.isArray(groups) && groups.includes(OPERATORS_GROUP)) return "operator";
  return claims.token_use === "access" ? "customer" : "operator";
}

function decodeBase64Url(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** The session kept for this tab (sessionStorage: gone when the tab closes). */
export function restore() {
  const token = sessionStorage.getItem(KEY);
  if (!token) return null;
  try {
    return sessionFor(token, sessionStorage.getItem(NAME_KEY));
  } catch {
    forget();
    return null;
  }
}

export function keep(session, name = null) {
  sessionStorage.setItem(KEY, session.token);
  if (name) sessionStorage.setItem(NAME_KEY, name);
  else sessionStorage.removeItem(NAME_KEY);
}

export function forget() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(NAME_KEY);
}
