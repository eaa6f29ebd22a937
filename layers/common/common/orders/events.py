"""Names of the platform's events, shared by the function that publishes each and the
function that handles it (which never import each other)."""

# Published when an order is placed, while it is still PENDIENTE: nothing approved it
# yet. Its name on the wire is the original system's, a legacy that stays: its
# integrators (the notification service among them) match on it
# (docs/api.md#the-order-event-pedidoaprobadoevent).
ORDER_PLACED = "PedidoAprobadoEvent"
