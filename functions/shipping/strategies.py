"""Delivery strategies: what each tipoEnvio means for the guide, the route and the estimate.

Each strategy is one frozen value; adding a tipoEnvio is adding one entry to STRATEGIES,
which is also the only list of valid tipoEnvio values. Every method is pure: the creation
instant is passed in, never read from a clock here.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

# U+2014 with a space each side, as the old system's clients display it.
ROUTE_SEPARATOR = " \u2014 "
GUIDE_NUMBER_DIGITS = 6


@dataclass(frozen=True)
class DeliveryStrategy:
    """How one tipoEnvio is delivered: its guide prefix, transit time and route."""

    tipo: str
    guide_prefix: str
    transit: timedelta
    route_label: str

    def estimated_delivery(self, created: datetime) -> datetime:
        """The delivery estimate, from the same instant as the shipment's creadoEn."""
        return created + self.transit

    def route(self, destino: str) -> str:
        return f"{self.route_label}{ROUTE_SEPARATOR}{destino}"

    def guide(self, created: datetime, shipment_id: int) -> str:
        """e.g. TER-20261122-000042: unique because the shipment id is.

        The number is zero-padded to six digits; a larger id simply has more digits.
        """
        return f"{self.guide_prefix}-{created:%Y%m%d}-{shipment_id:0{GUIDE_NUMBER_DIGITS}d}"


TERRESTRE = DeliveryStrategy(
    tipo="TERRESTRE", guide_prefix="TER", transit=timedelta(days=5), route_label="Ruta terrestre"
)
EXPRESS = DeliveryStrategy(
    tipo="EXPRESS", guide_prefix="EXP", transit=timedelta(days=1), route_label="Express prioritario"
)

STRATEGIES: dict[str, DeliveryStrategy] = {s.tipo: s for s in (TERRESTRE, EXPRESS)}
TIPOS_ENVIO: tuple[str, ...] = tuple(STRATEGIES)


def for_tipo(tipo_envio: str) -> DeliveryStrategy:
    return STRATEGIES[tipo_envio]
