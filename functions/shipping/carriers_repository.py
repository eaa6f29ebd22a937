"""Carriers in DynamoDB (CarriersTable), their secrets sealed with the stack's KMS key for
each carrier (common.webhooks.vault, as the webhooks' secrets are).

A carrier's code is its item's key: a conditional put makes it unique, whoever races.
The intake opens a carrier's secret to check each event it pushes; opened secrets are
kept in the environment's memory for a while (a burst of a carrier's events costs one
KMS call, not one each), never logged, never shown again.
"""

import functools
import threading
import time
from collections.abc import Callable

from pynamodb.exceptions import DoesNotExist, PutError

from common.platform.settings import Cloud, Webhooks
from common.storage import counters
from common.storage import tables as storage
from common.storage.counters import CounterModel
from common.storage.id_blocks import IdBlocks
from common.webhooks.vault import Vault
from shipping.carriers import Carrier, duplicate_code
from shipping.model import CarrierModel

COUNTER = "carriers"
# What a carrier's secret is bound to in KMS (the encryption context's key; IAM's
# condition for the shipping functions' use of the key).
BOUND_TO = "transportista"
# How long an environment keeps a carrier it read, with its secret opened.
KEPT_SECONDS = 300.0


class CarrierRepository:
    def __init__(
        self,
        cloud: Cloud,
        webhooks: Webhooks,
        vault: Vault | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        storage.bind(cloud, CarrierModel, CounterModel)
        self._vault = vault or Vault(cloud, webhooks, bound_to=BOUND_TO)
        self._ids = IdBlocks(functools.partial(counters.reserve, COUNTER))
        self._clock = clock
        self._kept: dict[str, tuple[float, Carrier, str]] = {}
        self._lock = threading.Lock()

    def next_id(self) -> int:
        return self._ids.next_id()

    def add(self, carrier: Carrier, secret: str) -> None:
        item = CarrierModel(
            carrier.codigo,
            id=carrier.id,
            nombre=carrier.nombre,
            secreto=self._vault.seal(carrier.codigo, secret),
            creado_en=carrier.creado_en,
        )
        try:
            item.save(condition=CarrierModel.codigo.does_not_exist())
        except PutError as exc:
            if storage.condition_failed(exc):
                raise duplicate_code(carrier.codigo) from None
            raise

    def signing(self, codigo: str) -> tuple[Carrier, str] | None:
        """The carrier of `codigo` and its secret, opened (from memory while kept)."""
        now = self._clock()
        with self._lock:
            kept = self._kept.get(codigo)
        if kept is not None and now - kept[0] < KEPT_SECONDS:
            return kept[1], kept[2]
        if not 0 < len(codigo.encode("utf-8")) <= 1024:  # no key DynamoDB would refuse
            return None
        try:
            item = CarrierModel.get(codigo, consistent_read=True)
        except DoesNotExist:
            return None
        carrier = Carrier(
            codigo=item.codigo, nombre=item.nombre, id=int(item.id), creado_en=item.creado_en
        )
        secret = self._vault.open(item.codigo, item.secreto)
        with self._lock:
            self._kept[codigo] = (now, carrier, secret)
        return carrier, secret
