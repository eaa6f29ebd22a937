"""Names of the platform's events, shared by the function that publishes each and the
function that handles it (which never import each other)."""

ORDER_APPROVED = "PedidoAprobadoEvent"
