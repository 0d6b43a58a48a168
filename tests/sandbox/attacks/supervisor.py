"""Going after a reused container's supervisor (PID 1) and what would outlive a seating:
signals to PID 1 (KILL, STOP, TERM, INT), ptrace, its memory, descriptors and
environment, the control FIFOs, SysV IPC and POSIX message queues, IP and netlink
sockets (whose counters persist in the network namespace), the cgroup's counters."""

import ctypes
import json
import os
import signal
import socket
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
report = {}


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


for name in ("SIGKILL", "SIGSTOP", "SIGTERM", "SIGINT"):
    attempt(f"kill_{name}", lambda name=name: os.kill(1, getattr(signal, name)))
time.sleep(0.3)
with open("/proc/1/stat") as stat:
    report["pid1_state"] = stat.read().rsplit(")", 1)[1].split()[0]
attempt("ptrace_attach", c_call(libc.ptrace, 16, 1, None, None))  # PTRACE_ATTACH


def read_one(path):
    with open(path, "rb") as handle:
        handle.read(1)


attempt("mem", lambda: read_one("/proc/1/mem"))
attempt("fds", lambda: os.listdir("/proc/1/fd") and None)
attempt("environ", lambda: read_one("/proc/1/environ"))
attempt("control", lambda: open("/seat/ctl-in", "w").close())
attempt("shmget", c_call(libc.shmget, 0, 4096, 0o1600))
attempt("semget", c_call(libc.semget, 0, 1, 0o1600))
attempt("msgget", c_call(libc.msgget, 0, 0o1600))
rt = ctypes.CDLL("librt.so.1", use_errno=True)
attempt("mq_open", c_call(rt.mq_open, b"/remember", 0o102, 0o600, None))  # O_CREAT|O_RDWR
for family in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_UNIX"):
    attempt(f"socket_{family}", lambda f=family: socket.socket(getattr(socket, f)).close())
attempt("cgroup", lambda: sorted(os.listdir("/sys/fs/cgroup")))
report["tmp"] = sorted(os.listdir("/tmp"))
open("/tmp/left-behind", "w").close()  # the next seating must not find it
print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
