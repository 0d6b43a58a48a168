"""Never reads its input: the referee's writes pile up until the pipe is full."""

import time

time.sleep(10**9)
