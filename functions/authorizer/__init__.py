"""JWT bearer-token validation for the gateway (docs/api.md#authentication)."""
