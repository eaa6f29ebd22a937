"""Valid request bodies the tests and benchmarks send: the three creates at their
smallest, for those that count what a create costs rather than what it says (each adds
the ids it needs), and a customer's order."""

PRODUCT = {
    "sku": "C-1",
    "nombre": "Caja",
    "precioUnitario": 19.99,
    "stockActual": 10,
    "umbralMinimo": 1,
}
ORDER = {
    "userId": 1,
    "userEmail": "a@b.co",
    "clienteNombre": "A",
    "total": 19.99,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "cantidad": 1,
}
SHIPMENT = {"pedidoId": 1, "tipoEnvio": "EXPRESS", "transportista": "DHL", "destino": "Lima"}
# Ana's order: the customer with userId 7 (the callers' tests name her ANA), of product 1.
ANA_ORDER = {
    "userId": 7,
    "userEmail": "ana@example.com",
    "clienteNombre": "Ana",
    "total": 10,
    "tipoPedido": "NACIONAL",
    "destino": "Lima",
    "productoId": 1,
    "cantidad": 1,
}
