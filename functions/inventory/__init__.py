"""Inventory service: the product catalog, stock checks and low-stock alerts."""
