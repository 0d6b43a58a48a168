"""Going after the zygote a pooled Python bot is forked from (``sandbox.supervisor``):
signals, ptrace, its memory, descriptors and environment, its control socket (through
/proc, and among the bot's own descriptors), its scheduling; then, if CRASH is set, the
bot crashes (a segmentation fault) or, with CRASH=bomb, forks until the process cap
stops it and leaves the children behind. Reports (``REPORT {json}`` on standard error)
what each attempt gave, the zygote's PID and start time, the bot's parent and its open
descriptors, and whether numpy was already imported when the bot's code began."""

import contextlib
import ctypes
import json
import os
import random
import signal
import sys
import time

PRELOADED = "numpy" in sys.modules  # none of the modules above imports it

libc = ctypes.CDLL(None, use_errno=True)
report = {"preloaded": PRELOADED, "ppid": os.getppid(), "pid": os.getpid()}


def read(path, mode="r"):
    with open(path, mode) as handle:
        return handle.read()


def attempt(name, action):
    try:
        result = action()
        report[name] = "done" if result is None else result
    except OSError as error:
        report[name] = type(error).__name__


def c_call(function, *args):
    def call():
        if function(*args) == -1:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

    return call


zygotes = []
for entry in os.listdir("/proc"):
    if entry.isdigit():
        with contextlib.suppress(OSError):
            if read(f"/proc/{entry}/comm").strip() == "zygote":
                zygotes.append(int(entry))
report["zygotes"] = zygotes
if zygotes:
    zygote = zygotes[0]
    report["zygote_started"] = read(f"/proc/{zygote}/stat").rsplit(")", 1)[1].split()[19]
    for name in ("SIGKILL", "SIGSTOP", "SIGTERM", "SIGSEGV"):
        attempt(f"kill_{name}", lambda name=name: os.kill(zygote, getattr(signal, name)))
    attempt("ptrace_attach", c_call(libc.ptrace, 16, zygote, None, None))
    attempt("mem", lambda: read(f"/proc/{zygote}/mem", "rb")[:1] and None)
    attempt("zygote_fds", lambda: os.listdir(f"/proc/{zygote}/fd") and None)
    attempt("control", lambda: os.open(f"/proc/{zygote}/fd/3", os.O_RDWR) and None)
    attempt("environ", lambda: read(f"/proc/{zygote}/environ", "rb")[:1] and None)
    attempt("renice", lambda: os.setpriority(os.PRIO_PROCESS, zygote, 19))
    attempt("affinity", lambda: os.sched_setaffinity(zygote, {0}))
    attempt("prlimit", lambda: __import__("resource").prlimit(zygote, 6, (1, 1)))
    time.sleep(0.2)
    report["zygote_state"] = read(f"/proc/{zygote}/stat").rsplit(")", 1)[1].split()[0]
report["fds"] = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
report["random"] = random.random()
report["numpy_random"] = float(__import__("numpy").random.random())
print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)

crash = os.environ.get("CRASH", "")
if crash == "bomb":
    for _ in range(200):
        try:
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
        except OSError:
            break
    os._exit(0)
if crash:
    ctypes.string_at(0)  # a segmentation fault
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
