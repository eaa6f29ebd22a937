// Who is signed in. The token's payload is read here only to choose which views to
// offer and to show who is signed in; the gateway verifies the token on every request,
// so nothing here is a check of anything.

const KEY = "logistics-console-token";

export class NotAToken extends Error {}

/** {token, sub, role, userId, expires} of a bearer token, or NotAToken. */
export function sessionFor(token) {
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
  // No role: an operator's token from before roles existed (the gateway reads it so).
  const role = claims.role === "customer" ? "customer" : "operator";
  const userId = Number.isInteger(claims.userId) ? claims.userId : null;
  const sub = claims.sub ?? claims.username ?? "unknown";
  return {token: trimmed, sub: String(sub), role, userId, expires};
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
    return sessionFor(token);
  } catch {
    forget();
    return null;
  }
}

export function keep(session) {
  sessionStorage.setItem(KEY, session.token);
}

export function forget() {
  sessionStorage.removeItem(KEY);
}
