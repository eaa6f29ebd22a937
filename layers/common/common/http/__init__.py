"""The HTTP edge every service shares: its Chalice app (the request log, the error body,
the body limit, CORS), reading a request, the answers, lists in pages, creating once per
Idempotency-Key, the API Gateway event, and one service asking another."""
