"""Floods standard error forever from a thread, while answering its input normally."""

import os
import sys
import threading


def flood() -> None:
    chunk = b"e" * 4096 + b"\n"
    while True:
        os.write(2, chunk)


threading.Thread(target=flood, daemon=True).start()
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
