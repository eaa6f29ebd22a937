"""Notification service: accepts any JSON object, logs it, confirms with fixed text."""
