"""A person's data and its erasure: the record of rights requests, an accepted erasure's
progress and queue, and a person's orders and shipments read and stripped by key
(docs/personal-data.md)."""
