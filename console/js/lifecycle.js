// The moves the API allows (docs/api.md#the-order-lifecycle, docs/api.md#shipping): the
// console offers only these; the API decides.

export const ORDER_STATUSES = ["PENDIENTE", "APROBADO", "EN_ENVIO", "ENTREGADO", "CANCELADO"];

const ORDER_MOVES = {
  PENDIENTE: ["APROBADO", "CANCELADO"],
  APROBADO: ["EN_ENVIO", "CANCELADO"],
  EN_ENVIO: ["ENTREGADO"],
  ENTREGADO: [],
  CANCELADO: [],
};

export const ORDER_MOVE_LABELS = {
  APROBADO: "Approve", EN_ENVIO: "Ship", ENTREGADO: "Deliver", CANCELADO: "Cancel",
};

/** The statuses an order may move to from `status`; a customer may only cancel. */
export function orderMoves(status, role) {
  const moves = ORDER_MOVES[status] ?? [];
  return role === "customer" ? moves.filter((to) => to === "CANCELADO") : moves;
}

export const SHIPMENT_STATUSES = ["CREADO", "ASIGNADO", "EN_RUTA", "ENTREGADO"];

/** Any status may follow any other; only operators move shipments. */
export function shipmentMoves(status, role) {
  return role === "customer" ? [] : SHIPMENT_STATUSES.filter((to) => to !== status);
}
