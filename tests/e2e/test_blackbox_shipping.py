"""Shipping over HTTP against the real local stack (`make run`), token from `make -s token`."""

from datetime import datetime, timedelta

SHIPMENT = {
    "pedidoId": 31,
    "tipoEnvio": "EXPRESS",
    "transportista": "Coordinadora",
    "destino": "Cali",
}


def _moment(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f")


def test_shipment_lifecycle_over_http(http):
    response = http.gateway("POST", "/api/envios", json=SHIPMENT)
    assert response.status_code == 201, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    shipment = response.json()
    sid = shipment["id"]
    created = _moment(shipment["creadoEn"])
    assert shipment == {
        **SHIPMENT,
        "id": sid,
        "status": "CREADO",
        "guiaDespecho": f"EXP-{created:%Y%m%d}-{sid:06d}",
        "rutaDescripcion": "Express prioritario \u2014 Cali",
        "fechaEstimadaEntrega": shipment["fechaEstimadaEntrega"],
        "creadoEn": shipment["creadoEn"],
        # Tracked from its creation (docs/api.md#tracking): a code of its own.
        "codigoSeguimiento": shipment["codigoSeguimiento"],
        "estadoSeguimiento": "CREADO",
        "atrasado": False,
        "incidencia": None,
    }
    assert len(shipment["codigoSeguimiento"]) >= 16
    assert _moment(shipment["fechaEstimadaEntrega"]) - created == timedelta(days=1)

    response = http.gateway("GET", f"/api/envios/{sid}")
    assert response.status_code == 200 and response.json() == shipment

    response = http.gateway("GET", "/api/envios")
    assert response.status_code == 200 and shipment in response.json()

    response = http.gateway("PATCH", f"/api/envios/{sid}/status", params={"status": "EN_RUTA"})
    assert response.status_code == 200
    # A PATCH of the status sets the tracking state to the same (docs/api.md#tracking).
    assert response.json() == {**shipment, "status": "EN_RUTA", "estadoSeguimiento": "EN_RUTA"}
    assert http.gateway("GET", f"/api/envios/{sid}").json()["status"] == "EN_RUTA"

    response = http.gateway("PATCH", f"/api/envios/{sid}/status", params={"status": "PERDIDO"})
    assert response.status_code == 400 and response.json()["error"] == "VALIDATION_ERROR"

    response = http.gateway("GET", "/api/envios/987654321")
    assert response.status_code == 404 and response.json()["error"] == "SHIPMENT_NOT_FOUND"
    response = http.gateway("PATCH", "/api/envios/987654321/status", params={"status": "CREADO"})
    assert response.status_code == 404

    response = http.gateway("GET", "/api/envios/abc")
    assert response.status_code == 400 and response.json()["error"] == "INVALID_ID"

    response = http.gateway("POST", "/api/envios", json={**SHIPMENT, "tipoEnvio": "terrestre"})
    assert response.status_code == 400 and response.json()["error"] == "VALIDATION_ERROR"


def test_shipping_without_a_token_gets_401(http):
    for method, path in [
        ("GET", "/api/envios"),
        ("POST", "/api/envios"),
        ("GET", "/api/envios/1"),
        ("PATCH", "/api/envios/1/status?status=CREADO"),
    ]:
        response = http.gateway(method, path, auth=False, json=SHIPMENT)
        assert response.status_code == 401
        assert response.json() == {"message": "Unauthorized"}
