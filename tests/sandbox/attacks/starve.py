"""Starving PID 1 so that the container cannot be killed: the bot tries to give PID 1
SCHED_IDLE and nice 19 (refused: another user's process), lowers its own priority the
same way (it may), then starts 40 children that spin for ever at full weight, reports
(``REPORT {json}``) and echoes its input. Stopping the seating must still end every
process of it within seconds."""

import json
import os
import sys

SPINNERS = 40


def attempt(action):
    try:
        action()
        return "done"
    except OSError as error:
        return type(error).__name__


report = {
    "pid1_idle": attempt(lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))),
    "pid1_nice": attempt(lambda: os.setpriority(os.PRIO_PROCESS, 1, 19)),
}
spin = ["sh", "-c", "while :; do :; done"]
children = [os.posix_spawn("/bin/sh", spin, dict(os.environ)) for _ in range(SPINNERS)]
report["spinners"] = len(children)
report["self_idle"] = attempt(lambda: os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0)))
print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
