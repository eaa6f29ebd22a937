"""The inventory's units: the product's record and table, the moves the orders service
may ask of the inventory, and the one way to it (its client and circuit breaker)."""
