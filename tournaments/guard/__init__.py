"""Refusing work: per-user quotas, request rate limits, body and upload size limits, sign-in
lockout, the client's address, bounded JSON and strict query parameters."""
