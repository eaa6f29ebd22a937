"""Webhooks as the API, the events function and the delivery function all know them:
endpoints, deliveries and attempts (records, tables, repository), the delivery queue and
its message, the secrets' vault and where a delivery may go."""
