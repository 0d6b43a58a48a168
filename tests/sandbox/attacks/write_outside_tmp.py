"""Writing outside /tmp: the root, its own code, the pipe folder, shared memory, ..."""

import json
import os
import sys

written = {}
for path in (
    "/x",
    "/bot/x",
    "/bot/main.py",
    "/etc/x",
    "/seat/x",
    "/dev/shm/x",
    "/var/tmp/x",
    "/home/x",
    "/run/x",
    "/opt/botkit/x",
    "/tmp/x",
):
    try:
        with open(path, "ab") as handle:
            handle.write(b"owned")
        written[path] = "written"
    except OSError as error:
        written[path] = type(error).__name__
try:
    os.chmod("/bot/main.py", 0o777)
    written["chmod /bot/main.py"] = "written"
except OSError as error:
    written["chmod /bot/main.py"] = type(error).__name__
print("REPORT " + json.dumps(written), file=sys.stderr, flush=True)
