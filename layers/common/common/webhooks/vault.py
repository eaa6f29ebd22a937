"""The endpoints' secrets at rest: encrypted with the stack's KMS key (WEBHOOK_SECRETS_KEY;
locally the emulator's), never stored in plain text (docs/api.md#endpoints).

A secret is sealed when it is issued (a create, a rotation: the webhooks function) and
opened only to sign a delivery (the delivery function): both through this. Each is bound
to its endpoint: the encryption context names the webhook, so a sealed secret copied
onto another endpoint does not open. What is stored is `kms:` and the ciphertext's
base64; an endpoint written before secrets were encrypted holds the plain `whsec_` text,
which is read as it is until a rotation or the backfill (infra/webhook_secrets.py) seals
it. No secret, sealed or open, is ever logged or shown but in the one answer that issues
it.

The carriers' secrets (docs/api.md#carriers), which sign the tracking events they push
to us, are kept the same way with the same key, each bound to its carrier instead
(`bound_to="transportista"`): a webhook's sealed secret does not open as a carrier's.
"""

import base64
import contextlib
from typing import Any

from common.platform import aws
from common.platform.settings import Cloud, Webhooks

SEALED = "kms:"


def sealed(stored: str) -> bool:
    """Whether a stored secret is encrypted (else: plain text, written before)."""
    return stored.startswith(SEALED)


# What a webhook's secret is bound to (the encryption context's key, IAM's condition).
WEBHOOK = "webhookId"


class Vault:
    def __init__(
        self, cloud: Cloud, webhooks: Webhooks, client: Any = None, bound_to: str = WEBHOOK
    ):
        self._cloud, self._client = cloud, client
        self._bound_to = bound_to
        self._key = webhooks.webhook_secrets_key
        # The client is built at the first use, as the function that built the vault:
        # the webhooks API needs it for a create or a rotation only, not in every cold
        # start (common.platform.aws: its clients are shared, so two first uses build one).
        self._owner = aws.acting_function_or_none()

    def _kms(self) -> Any:
        if self._client is None:
            with aws.acting_as(self._owner) if self._owner else contextlib.nullcontext():
                self._client = aws.kms(self._cloud)
        return self._client

    def _context(self, owner: int | str) -> dict[str, str]:
        return {self._bound_to: str(owner)}

    def seal(self, webhook_id: int | str, secret: str) -> str:
        """The secret as stored: encrypted for this webhook (or carrier); one sealed
        already as is."""
        if sealed(secret):
            return secret
        blob = self._kms().encrypt(
            KeyId=self._key,
            Plaintext=secret.encode("utf-8"),
            EncryptionContext=self._context(webhook_id),
        )["CiphertextBlob"]
        return SEALED + base64.b64encode(blob).decode("ascii")

    def open(self, webhook_id: int | str, stored: str) -> str:
        """The secret a stored one is (plain text, written before encryption, as is)."""
        if not sealed(stored):
            return stored
        plain = self._kms().decrypt(
            KeyId=self._key,
            CiphertextBlob=base64.b64decode(stored.removeprefix(SEALED)),
            EncryptionContext=self._context(webhook_id),
        )["Plaintext"]
        return bytes(plain).decode("utf-8")
