"""One enormous line (8 MB), then a normal one, then silence."""

import os
import time

os.write(1, b"y" * (8 << 20) + b"\n")
os.write(1, b"after\n")
time.sleep(600)
