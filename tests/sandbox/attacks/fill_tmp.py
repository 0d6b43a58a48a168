"""Filling /tmp: one file as big as it can grow, then more files until the disk is full."""

import json
import os
import sys

chunk = b"f" * (1 << 20)
report = {}
for index in range(1000):
    size = 0
    try:
        with open(f"/tmp/fill{index}", "wb", buffering=0) as handle:
            while True:
                handle.write(chunk)
                size += len(chunk)
    except OSError as error:
        report.setdefault("first_file_error", type(error).__name__ + " " + str(error.errno))
        report.setdefault("first_file_mb", size >> 20)
        if size == 0:
            report["last_error"] = error.errno
            break
report["total_mb"] = sum(os.path.getsize(f"/tmp/{n}") for n in os.listdir("/tmp")) >> 20
print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
