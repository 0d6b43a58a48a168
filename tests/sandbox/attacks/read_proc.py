"""Reading /proc for other processes: what is visible, and what the kernel lets it touch."""

import json
import os
import sys

processes = {}
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            with open(f"/proc/{entry}/comm") as comm:
                processes[entry] = comm.read().strip()
        except OSError:
            processes[entry] = "?"
touched = {}
for path, mode in (
    ("/proc/sysrq-trigger", "w"),
    ("/proc/kcore", "rb"),
    ("/proc/sys/kernel/hostname", "w"),
    ("/proc/1/mem", "rb"),
):
    try:
        with open(path, mode) as handle:
            handle.read(1) if "r" in mode else handle.write("x")
        touched[path] = "done"
    except OSError as error:
        touched[path] = type(error).__name__
print(
    "REPORT " + json.dumps({"processes": processes, "touched": touched}),
    file=sys.stderr,
    flush=True,
)
