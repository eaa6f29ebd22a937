// Sign-in through the Cognito user pool's hosted page, when the stack has one: the OAuth
// 2.0 authorization code flow with PKCE (RFC 7636), for a public client (no secret).
// The access token is the API's credential (docs/operations.md#identity: ID tokens are
// refused by the gateway).

const VERIFIER = "logistics-console-pkce-verifier";
const STATE = "logistics-console-pkce-state";

function base64Url(bytes) {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomText(length) {
  return base64Url(crypto.getRandomValues(new Uint8Array(length)));
}

/** Where the hosted page sends the user back: the page's one address, the client's
 * callback URL (infra/template.yaml), even when it was opened as "/" on CloudFront. */
export function redirectUri() {
  return `${window.location.origin}/console`;
}

/** Go to the hosted sign-in page. */
export async function startSignIn(cognito) {
  const verifier = randomText(48);
  const state = randomText(24);
  sessionStorage.setItem(VERIFIER, verifier);
  sessionStorage.setItem(STATE, state);
  const challenge = base64Url(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const url = new URL("/oauth2/authorize", cognito.domain);
  url.search = new URLSearchParams({
    response_type: "code", client_id: cognito.clientId, redirect_uri: redirectUri(),
    scope: cognito.scopes ?? "openid email", state, code_challenge: challenge,
    code_challenge_method: "S256",
  }).toString();
  window.location.assign(url.href);
}

/** If the hosted page sent the user back here, trade the code for tokens and return the
 * access token; null when this is not such a return. Throws with a message otherwise. */
export async function finishSignIn(cognito) {
  const params = new URLSearchParams(window.location.search);
  if (!params.has("code") && !params.has("error")) return null;
  const verifier = sessionStorage.getItem(VERIFIER);
  const state = sessionStorage.getItem(STATE);
  sessionStorage.removeItem(VERIFIER);
  sessionStorage.removeItem(STATE);
  window.history.replaceState(null, "", redirectUri() + window.location.hash);
  if (params.has("error")) {
    throw new Error(`Sign-in was not completed (${params.get("error_description") || params.get("error")}).`);
  }
  if (!verifier || params.get("state") !== state) {
    throw new Error("Sign-in was not completed: this answer is not for this page. Sign in again.");
  }
  const response = await fetch(new URL("/oauth2/token", cognito.domain), {
    method: "POST",
    headers: {"Content-Type": "application/x-www-form-urlencoded"},
    body: new URLSearchParams({
      grant_type: "authorization_code", client_id: cognito.clientId,
      code: params.get("code"), redirect_uri: redirectUri(), code_verifier: verifier,
    }),
  });
  if (!response.ok) throw new Error("Sign-in was not completed: the code was refused. Sign in again.");
  const tokens = await response.json();
  return tokens.access_token;
}

/** Sign out of the hosted page too, back to this page. */
export function signOutUrl(cognito) {
  const url = new URL("/logout", cognito.domain);
  url.search = new URLSearchParams({client_id: cognito.clientId, logout_uri: redirectUri()}).toString();
  return url.href;
}
