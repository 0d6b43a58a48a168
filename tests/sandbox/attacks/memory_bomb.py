"""Memory bomb: allocate (and touch) memory until something stops it."""

import sys

hoard = []
for step in range(1, 200):
    hoard.append(b"x" * (32 << 20))
    print(f"allocated {step * 32} MB", file=sys.stderr, flush=True)
print("REPORT never stopped", file=sys.stderr, flush=True)
