"""`make run`'s product glue around the local stack (see __main__.py)."""
