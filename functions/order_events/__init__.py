"""The order-events function: the asynchronous listener of PedidoAprobadoEvent."""
