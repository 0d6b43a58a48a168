"""Reads everything and never answers."""

import sys

for _line in sys.stdin:
    pass
