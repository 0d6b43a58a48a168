"""CPU spin in many threads: try to take every core of the machine.

The first line goes out before the threads start: a starved main thread (16 spinners hold
the GIL, and the container has one CPU on a busy machine) could otherwise miss the
referee's start-up clock, and the fault would be a timeout instead of the bad answer.
"""

import sys
import threading


def spin() -> None:
    while True:
        pass


sys.stdout.write("spinning\n")
sys.stdout.flush()
for _ in range(16):
    threading.Thread(target=spin, daemon=True).start()
for line in sys.stdin:  # still answers, slowly
    sys.stdout.write(line)
    sys.stdout.flush()
