"""The key-rotation function: Secrets Manager's rotation of the platform's two keys."""
