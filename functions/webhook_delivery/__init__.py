"""The webhooks' delivery: each event POSTed to its endpoint, signed, retried with
backoff, then kept as a dead letter (docs/api.md#webhooks)."""
