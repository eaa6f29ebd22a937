// What an API answer means to the person at the desk (docs/api.md#errors).

/** A sentence for a failed request; `doing` names what was tried ("Saving the product");
 * `facts` what the screen knows that the answer does not say: `cantidad`, the units an
 * order asks for; `reserved`, the units approved orders hold of a product. */
export function explain(error, doing, facts = {}) {
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
      return `${prefix}${conflict(error, facts)}`;
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
      // A move or an order refused for it changed nothing (docs/api.md#stock-follows-orders).
      const nothing = error.code === "INVENTORY_UNAVAILABLE" ? ", so nothing was changed" : "";
      return `${prefix}${what} unavailable at the moment${nothing}. ` +
        `Try again in ${wait} second${wait === 1 ? "" : "s"}.`;
    }
    default:
      return `${prefix}the platform had a problem (HTTP ${error.status}). Try again later.`;
  }
}

/** A 409, by its code (docs/api.md#errors): the lifecycle, the stock an approval would
 * reserve, a product orders hold, or writes that kept colliding. */
function conflict(error, {cantidad, reserved} = {}) {
  switch (error.code) {
    case "INVALID_TRANSITION":
      return "that move is not allowed from its current status (it may have changed " +
        "meanwhile). Its current status is now shown.";
    case "INSUFFICIENT_STOCK": {
      // Approving: details name `cantidad` and the units available ("only 3 of product 7
      // available"); may be negative after a recount. An order of several lines: each
      // short line (`lineas[1].cantidad`).
      const short = (error.details ?? []).filter((each) => /^lineas\[\d+\]/.test(each.field));
      if (short.length > 1 || (short.length && unitsAvailable(error) === null)) {
        const which = short.map((each) => `line ${Number(/\d+/.exec(each.field)[0]) + 1}: ` +
          each.message).join("; ");
        return `some lines cannot be covered by the units available (${which}), so nothing ` +
          "was reserved. The order stays PENDIENTE: approve it when more stock comes in.";
      }
      const units = unitsAvailable(error);
      const asks = cantidad ? `, and the order asks for ${cantidad}` : "";
      const what = units === null
        ? "fewer units of its product are available than the order asks for"
        : units > 0
          ? `only ${units} unit${units === 1 ? " of its product is" : "s of its product are"} ` +
            `available (in stock and not held by approved orders)${asks}`
          : units === 0
            ? "no units of its product are available (none in stock that approved orders " +
              `do not already hold)${asks}`
            : `no units of its product are available: approved orders hold ${-units} more ` +
              `than are in stock${asks}`;
      return `${what}. The order stays PENDIENTE: approve it when more stock comes in or ` +
        "other approved orders are cancelled.";
    }
    case "PRODUCT_NOT_FOUND":
      return "its product is no longer in the catalog (it was deleted), so no units can be " +
        "reserved for it. The order stays PENDIENTE: cancel it, or place it again for " +
        "another product.";
    case "PRODUCT_RESERVED":
      return `approved orders hold ${reserved ? `${reserved} of its units` : "some of its units"}, ` +
        "so it was not deleted. Ship or cancel those orders first: the product's details " +
        "list them.";
    case "WAREHOUSE_IN_USE":
      return error.details?.length
        ? "it still holds units or reservations of some products, so it was not deleted. " +
          "Transfer them to another warehouse (each product's screen) first."
        : "PRINCIPAL is every stack's warehouse: it is never deleted.";
    case "DUPLICATE_CODE":
      return "another warehouse has this code: choose another.";
    case "STOCK_IN_SEVERAL_WAREHOUSES":
      return "its units are in several warehouses, so a new stock cannot say which one it " +
        "counts: nothing was changed. Set each warehouse's count on the product's screen.";
    case "USER_EMAIL_MISMATCH":
      return "that User ID belongs to an account with another email, so the order was not " +
        "placed: an order for an account carries its email. Check the User ID (each " +
        "customer has their own) or the email.";
    case "USER_ID_ERASED":
      return "that User ID belonged to a person whose data was erased: nothing can be " +
        "placed under it any more, so nothing was saved. A person who comes back has a " +
        "new User ID.";
    case "USER_ID_REGISTERING":
      return "that User ID is being given to a new account at this very moment, so " +
        "nothing was saved. Try again in a second: the order will be that account's.";
    case "CONCURRENT_UPDATE":
      return "other changes were being made to it at the same moment and this one could " +
        "not get through, so nothing was changed. Check what is shown now and try again.";
    default:
      return "it changed meanwhile. The list has been reloaded: check it and try again.";
  }
}

/** The units available that an INSUFFICIENT_STOCK refusal's `cantidad` detail names;
 * null when it names none. */
export function unitsAvailable(error) {
  const detail = (error.details ?? []).find((each) => each.field === "cantidad");
  const match = /-?\d+/.exec(detail?.message ?? "");
  return match ? Number(match[0]) : null;
}
