"""Reading host files and other bots' code: look for the secrets the test planted.

HOST_MARKER names a file on the worker's machine; SECRETS lists strings planted there
and in another bot's code. It tries the direct paths, then searches its whole visible
file system for the strings.
"""

import json
import os
import stat
import sys

secrets = [s.encode() for s in os.environ["SECRETS"].split(",")]
tried = {}
for path in (
    os.environ["HOST_MARKER"],
    "/etc/shadow",
    "/proc/1/root/etc/shadow",
    "/var/lib/docker",
    "/var/run/docker.sock",
    os.environ.get("REPO", "/work"),
):
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "rb") as handle:
                handle.read(100)
        tried[path] = "read"
    except OSError as error:
        tried[path] = type(error).__name__
found = []
for top in ("/",):
    for folder, dirs, files in os.walk(top):
        if folder in ("/proc", "/sys", "/dev"):
            dirs[:] = []
            continue
        for name in files:
            path = os.path.join(folder, name)
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    continue  # a FIFO would block; devices are no one's secrets
                with open(path, "rb") as handle:
                    data = handle.read(1 << 20)
            except OSError:
                continue
            found += [path for secret in secrets if secret in data]
print("REPORT " + json.dumps({"tried": tried, "found": found}), file=sys.stderr, flush=True)
