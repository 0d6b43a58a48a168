"""Dies before saying ready."""

import sys

print("cannot start: missing model file", file=sys.stderr)
sys.exit(3)
