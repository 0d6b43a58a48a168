"""Leaving zombies and orphans: children never waited for, grandchildren orphaned."""

import json
import os
import sys
import time

for _ in range(5):  # orphans: the child exits at once, the grandchild a moment later
    if os.fork() == 0:
        if os.fork() == 0:
            time.sleep(0.2)
            os._exit(0)
        os._exit(0)
    os.wait()
for _ in range(3):  # its own zombies: children it never waits for
    if os.fork() == 0:
        os._exit(0)
time.sleep(1.0)
states = {}
for entry in os.listdir("/proc"):
    if entry.isdigit():
        with open(f"/proc/{entry}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        states[entry] = (fields[0], int(fields[1]))  # state, parent
zombies = [state for state in states.values() if state[0] == "Z"]
report = {
    "orphan_zombies": sum(1 for state in zombies if state[1] != os.getpid()),
    "own_zombies": sum(1 for state in zombies if state[1] == os.getpid()),
}
print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
