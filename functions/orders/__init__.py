"""Orders service: order creation checked against stock, and the order-approved event."""
