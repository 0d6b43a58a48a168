"""Floods standard output without a single newline."""

import os

chunk = b"x" * (1 << 16)
while True:
    os.write(1, chunk)
