"""Fork bomb: every process forks as fast as it can, forever."""

import json
import os
import sys
import time

made, refused = 0, ""
for _ in range(100_000):
    try:
        pid = os.fork()
    except OSError as error:
        refused = error.strerror or str(error)
        break
    if pid == 0:  # the children fork too, then linger
        for _ in range(1000):
            try:
                os.fork()
            except OSError:
                break
        time.sleep(600)
        os._exit(0)
    made += 1
print("REPORT " + json.dumps({"forks": made, "refused": refused}), file=sys.stderr, flush=True)
time.sleep(600)
