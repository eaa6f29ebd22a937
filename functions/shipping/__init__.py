"""Shipping service: shipments for orders, their delivery strategy and status lifecycle."""
