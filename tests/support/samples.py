"""Minimal valid bodies of the three creates, for the tests and benchmarks that count
what a create costs rather than what it says (each adds the ids it needs)."""

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
