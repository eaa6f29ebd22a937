"""What an order and a shipment are, as stored and shown: their records and histories,
their tables, what more than one function reads of orders, and the order event with its
outbox."""
