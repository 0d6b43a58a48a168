"""Signalling or killing its parent, PID 1, a host process (HOST_PID) and everyone."""

import json
import os
import signal
import sys
import time

report = {"ppid": os.getppid()}
with open(f"/proc/{os.getppid()}/comm") as comm:
    report["parent"] = comm.read().strip()
for name, pid, sig in (
    ("host", int(os.environ["HOST_PID"]), signal.SIGKILL),
    ("pid1_kill", 1, signal.SIGKILL),
    ("everyone", -1, signal.SIGKILL),
):
    try:
        os.kill(pid, sig)
        report[name] = "sent"
    except OSError as error:
        report[name] = type(error).__name__
time.sleep(0.2)
report["pid1_alive"] = os.path.exists("/proc/1")
print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
os.kill(os.getppid(), signal.SIGTERM)  # its init passes this on to the bot itself
time.sleep(600)
