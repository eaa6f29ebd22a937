"""The dashboard's figures table: what it holds under which keys, and its read by key."""
