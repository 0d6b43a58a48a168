"""Sleeps forever: never answers anything."""

import time

time.sleep(10**9)
