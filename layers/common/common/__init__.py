"""Code every function shares; deployed as the `common` Lambda layer."""
