"""What every function stands on, whatever its domain: settings read once at start, AWS
clients, the clock and its one time format, ids, JSON with exact money, errors said
without HTTP, field checks, structured logs that never hold personal data (and the one
list of what is personal), metrics, tracing, the signing keys, and what a function's
init and an environment's restore do. Imports nothing else of the layer."""
