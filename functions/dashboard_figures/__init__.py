"""The dashboard's figures, kept as the platform changes: each committed change of a
product, an order or a shipment, read from its table's stream, applied once to the
counters of the figures table (common.dashboard.layout), which the dashboard reads."""
