"""Webhooks: the endpoints integrators subscribe, their deliveries and attempts
(docs/api.md#webhooks)."""
