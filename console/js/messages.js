// What an API answer means to the person at the desk (docs/api.md#errors).

/** A sentence for a failed request; `doing` names what was tried ("Saving the product"). */
export function explain(error, doing) {
  const prefix = doing ? `${doing} failed: ` : "";
  switch (error.status) {
    case 0:
      return `${prefix}the platform did not answer. Check your connection and try again.`;
    case 400:
      return `${prefix}${error.message}`;
    case 401:
      return "Your session has ended or your token is not valid: please sign in again.";
    case 403:
      return `${prefix}your role may not do this. Ask an operator if you need it done.`;
    case 404:
      return `${prefix}it no longer exists, or it is not yours to see.`;
    case 409:
      return error.code === "INVALID_TRANSITION"
        ? `${prefix}that move is not allowed from its current status (it may have changed ` +
          "meanwhile). The list now shows its current status."
        : `${prefix}it changed meanwhile. The list has been reloaded: check it and try again.`;
    case 413:
      return `${prefix}what you sent is too large.`;
    case 422:
      return `${prefix}this form was already sent with other values. Reload and try again.`;
    case 429:
      return `${prefix}too many requests right now. Wait a few seconds, then try again.`;
    case 502:
    case 504:
      // The request may have been carried out with its answer lost (a function's
      // environment that died after the write): a create is sent again under the same
      // Idempotency-Key, a move to the same status changes nothing.
      return `${prefix}the platform did not finish answering (HTTP ${error.status}), so ` +
        "it may or may not have been done. Send it again: it will not be done twice.";
    case 503: {
      const wait = error.retryAfter ?? 30;
      const what = error.code === "INVENTORY_UNAVAILABLE" ? "the inventory is"
        : "a service it depends on is";
      return `${prefix}${what} unavailable at the moment. ` +
        `Try again in ${wait} second${wait === 1 ? "" : "s"}.`;
    }
    default:
      return `${prefix}the platform had a problem (HTTP ${error.status}). Try again later.`;
  }
}
