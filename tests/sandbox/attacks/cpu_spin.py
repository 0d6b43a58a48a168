"""CPU spin in many threads: try to take every core of the machine."""

import sys
import threading


def spin() -> None:
    while True:
        pass


for _ in range(16):
    threading.Thread(target=spin, daemon=True).start()
sys.stdout.write("spinning\n")
sys.stdout.flush()
for line in sys.stdin:  # still answers, slowly
    sys.stdout.write(line)
    sys.stdout.flush()
