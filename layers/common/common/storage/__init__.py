"""DynamoDB as every repository uses it: models bound to their tables, the verbs every
repository shares, ids from counters in blocks, write-sharded indexes, and pages of
ascending id with their signed tokens."""
