"""Signing in with an email and a password, and customers' own accounts
(docs/api.md#signing-in, docs/identity.md)."""
