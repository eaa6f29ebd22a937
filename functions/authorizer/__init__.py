"""JWT bearer-token validation for the gateway (interface §5)."""
