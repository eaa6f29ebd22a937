"""Shipments stored before tracking, given a tracking code and a place in the late check
(infra/tracking_backfill.py): then the public look-up finds them, and one already late
is marked at the check's next run, once; a delivered one is never marked."""

from datetime import datetime

from common.platform.settings import Cloud
from infra.tracking_backfill import TABLES, backfill
from shipping import service, tracking
from shipping.repository import ShipmentRepository
from tests.support.memory import InMemoryLookups


def old_shipment(ident: int, status: str) -> dict:
    """A shipment as the code before tracking stored it (with its shard keys)."""
    return {
        "id": {"N": str(ident)},
        "pedidoId": {"N": "21"},
        "status": {"S": status},
        "tipoEnvio": {"S": "EXPRESS"},
        "transportista": {"S": "DHL"},
        "guiaDespecho": {"S": f"EXP-20260101-{ident:06d}"},
        "rutaDescripcion": {"S": "Express prioritario — Lima"},
        "destino": {"S": "Lima"},
        "fechaEstimadaEntrega": {"S": "2026-01-02T00:00:00.000000"},
        "creadoEn": {"S": "2026-01-01T00:00:00.000000"},
        "statusShard": {"S": f"{status}#{ident % 16}"},
        "shard": {"N": str(ident % 16)},
    }


def test_old_shipments_get_a_code_and_the_late_check_once_and_twice_changes_nothing(tables):
    tables.put_item(TableName="ShipmentsTable", Item=old_shipment(3, "EN_RUTA"))
    tables.put_item(TableName="ShipmentsTable", Item=old_shipment(4, "ENTREGADO"))
    names = {table: table for table in TABLES}
    done = backfill(tables, names)
    assert (done["codes"], done["checks"]) == (2, 1)
    assert backfill(tables, names) == {}  # nothing left to give
    shipments = ShipmentRepository(Cloud.from_env())
    late, delivered = shipments.get(3), shipments.get(4)
    for shipment in (late, delivered):
        assert tracking.lookup_code(shipment.codigo_seguimiento) == shipment.codigo_seguimiento
        view = service.public_tracking(
            shipments, InMemoryLookups(), "192.0.2.1", shipment.codigo_seguimiento
        )
        assert view["status"] == shipment.status
    assert late.codigo_seguimiento != delivered.codigo_seguimiento
    assert (late.estado_seguimiento, delivered.estado_seguimiento) == ("EN_RUTA", "ENTREGADO")
    assert service.check_late(shipments, datetime(2026, 12, 1)) == 1
    assert shipments.get(3).atraso_avisado is not None
    assert shipments.get(4).atraso_avisado is None
    assert backfill(tables, names) == {}  # checked: never given the check again
