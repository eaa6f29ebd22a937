// The public API (docs/api.md), called with the signed-in user's bearer token. Nothing
// else is ever fetched: the page's Content-Security-Policy allows this API alone.

let lastWrite = 0;

/** When (Date.now()) this page last changed something through the API: views that show
 * figures kept from the writes (the dashboard) read them again soon after. */
export function lastWriteAt() {
  return lastWrite;
}

export class ApiError extends Error {
  /** status 0: no answer at all (the network, or CORS refusing the answer). */
  constructor(status, body, retryAfter) {
    super(body?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error ?? null;
    this.details = Array.isArray(body?.details) ? body.details : [];
    this.retryAfter = retryAfter;
  }
}

export class Api {
  /** baseUrl: "" for the page's own origin (the local gateway), else the gateway's URL
   * with its stage (`GatewayUrl`, docs/api.md#two-apis). */
  constructor(baseUrl, token) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.token = token;
  }

  url(path, query = {}) {
    const url = new URL(this.baseUrl + path, window.location.href);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined && value !== null && value !== "") {
        url.searchParams.set(name, value);
      }
    }
    return url.href;
  }

  async request(method, path, {query, body, idempotencyKey} = {}) {
    return this.send(method, this.url(path, query), body, idempotencyKey);
  }

  async send(method, url, body, idempotencyKey) {
    // No token: signing in and registering (docs/api.md#signing-in) need none.
    // JSON asked for by name: a large answer (a person's data) then comes compressed,
    // which API Gateway passes on only to such a request (docs/api.md#personal-data).
    const headers = {Accept: "application/json"};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    // docs/api.md#retries-without-duplicates-idempotency-key: the same key for a retry
    // of the same submission, so a double click or a retry creates one item.
    if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
    let response;
    try {
      response = await fetch(url, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store", credentials: "omit",
      });
    } catch {
      throw new ApiError(0, null, null);
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = {message: text};
    }
    if (!response.ok) {
      throw new ApiError(response.status, data, retryAfterSeconds(response));
    }
    if (method !== "GET") lastWrite = Date.now();
    return {status: response.status, data, text, next: nextPage(response, url)};
  }

  /** One page of a list (docs/api.md#lists); `page.next` fetches the following one. */
  async list(path, query = {}) {
    return this.page(this.url(path, query));
  }

  async page(url) {
    const answer = await this.send("GET", url);
    return {items: answer.data, next: answer.next};
  }
}

function retryAfterSeconds(response) {
  const value = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

/** The next page's URL, from `Link: <...>; rel="next"` (relative to the host, with the
 * stage prefix) or else from X-Next-Token with the same query; null on the last page. */
function nextPage(response, url) {
  const link = response.headers.get("Link");
  const match = link && /<([^>]+)>\s*;\s*rel="?next"?/.exec(link);
  if (match) return new URL(match[1], url).href;
  const token = response.headers.get("X-Next-Token");
  if (!token) return null;
  const next = new URL(url);
  next.searchParams.set("nextToken", token);
  return next.href;
}

/** A fresh Idempotency-Key (a form keeps one until its submission succeeds). */
export function newIdempotencyKey() {
  return crypto.randomUUID();
}
