"""The webhooks' events: each committed change of an order, a shipment or a product, read
from its table's stream, turned into the events integrators subscribe to."""
