"""Planting a value in every channel we know of, for a later bot in the same container.

At start it reports (``REPORT {json}`` on standard error) the state it was given and
everything an earlier seating could have left: ``state`` (its own resource limits, nice,
scheduling policy, CPU affinity, I/O priority, umask, groups, signal dispositions and
mask, environment, folder, and PID 1's limits, nice, policy and affinity) must be the
same in every seating; ``found``
(planted files in every folder it can write, SysV IPC objects, POSIX message queues,
/dev/shm, an abstract unix socket, processes it did not start) must be empty. Then it
plants ``SECRET`` (from its argument, else random) everywhere it can, reports in
``planted`` what each attempt gave, and echoes its input. Standard library only: every
runtime image's bot runs it with the image's python3. ``zygote`` says whether numpy was
imported before its code began (a Python bot forked from a pooled container's zygote).
"""

import contextlib
import ctypes
import json
import os
import random
import resource
import signal
import socket
import sys
import time

ZYGOTE = "numpy" in sys.modules  # none of the modules above imports it
LIBC = ctypes.CDLL(None, use_errno=True)
IOPRIO = {"x86_64": (251, 252), "aarch64": (30, 31)}[os.uname().machine]
MARK = "planted-"
ADDRESS = b"\0cardjudge-planted"
IPC_KEY = 0x5EED
SKIP = ("/proc", "/sys", "/seat")
LIMITS = {name: getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_")}


def read(path, mode="r"):
    with open(path, mode) as handle:
        return handle.read()


def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)


def errno_text():
    return os.strerror(ctypes.get_errno())


def call(result):
    """A libc call's result: its value, or the error's text."""
    return result if result != -1 else errno_text()


def attempt(action):
    try:
        result = action()
        return "done" if result is None else result
    except OSError as error:
        return type(error).__name__


#: The C library's own signals (32 and 33: thread cancellation, and the set*id calls of a
#: process it believes has threads), whose handlers it installs itself when it needs them:
#: a bot forked from the zygote (numpy's threads) has 33's once it became its user.
GLIBC = (1 << 31) | (1 << 32)


def status(pid):
    with open(f"/proc/{pid}/status") as lines:
        return dict(line.rstrip("\n").split(":\t", 1) for line in lines if ":\t" in line)


def pid1():
    with open("/proc/1/limits") as limits:
        table = limits.read()
    fields = read("/proc/1/stat").rsplit(")", 1)[1].split()
    return {
        "limits": table,
        "nice": fields[16],
        "policy": fields[38],
        "affinity": sorted(os.sched_getaffinity(1)),
        "ioprio": call(LIBC.syscall(IOPRIO[1], 1, 1)),
    }


def state():
    own = status(os.getpid())
    return {
        "rlimits": {name: resource.getrlimit(number) for name, number in LIMITS.items()},
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "policy": os.sched_getscheduler(0),
        "affinity": sorted(os.sched_getaffinity(0)),
        "ioprio": call(LIBC.syscall(IOPRIO[1], 1, 0)),
        "umask": own["Umask"],
        "groups": own["Groups"],
        "ids": [own["Uid"], own["Gid"]],
        "caps": [own[key] for key in ("CapInh", "CapPrm", "CapEff", "CapAmb")],
        "signals": [own["SigBlk"], own["SigIgn"], f"{int(own['SigCgt'], 16) & ~GLIBC:016x}"],
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "pid1": pid1(),
    }


def writable():
    """Folders and regular files this process may write, on every read-write mount."""
    with open("/proc/self/mounts") as table:
        mounts = [line.split() for line in table]
    tops = [m[1] for m in mounts if "rw" in m[3].split(",") and not m[1].startswith(SKIP)]
    folders, files = [], []
    for top in sorted(set(tops)):
        if not os.path.isdir(top):
            files += [top] if os.path.isfile(top) and os.access(top, os.W_OK) else []
            continue
        for where, _, names in os.walk(top):
            if os.access(where, os.W_OK | os.X_OK):
                folders.append(where)
            for name in names:
                path = os.path.join(where, name)
                if os.path.isfile(path) and os.access(path, os.W_OK):
                    files.append(path)
    return sorted(set(folders)), sorted(set(files))


def sysv():
    rows = {}
    for kind in ("shm", "sem", "msg"):
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                rows[kind] = table.read().splitlines()[1:]
        except OSError as error:
            rows[kind] = type(error).__name__
    return rows


def ancestors():
    chain, pid = set(), os.getpid()
    while pid > 1:
        chain.add(pid)
        pid = int(status(pid)["PPid"])
    return chain


def strangers():
    """Processes but PID 1 and our ancestors, as "UID COMM: CMDLINE" (a zygote's is
    "0 zygote: ...": the container's, not a bot's)."""
    mine = ancestors()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != 1 and int(entry) not in mine:
            with contextlib.suppress(OSError):
                uid = status(entry)["Uid"].split()[0]
                comm = read(f"/proc/{entry}/comm").strip()
                cmdline = read(f"/proc/{entry}/cmdline", "rb").decode(errors="replace")
                found.append(f"{uid} {comm}: {cmdline[:200]}")
    return found


def ask_socket():
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(ADDRESS)
        return probe.recv(100).decode(errors="replace")
    except OSError as error:
        return f"refused: {type(error).__name__}"
    finally:
        probe.close()


def planted_files(folders):
    found = []
    for folder in folders:
        with contextlib.suppress(OSError):
            found += [os.path.join(folder, n) for n in os.listdir(folder) if n.startswith(MARK)]
    return found


def message_queue():
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    return rt, call(rt.mq_open(b"/" + MARK.encode(), os.O_RDONLY))


def found(folders):
    return {
        "files": planted_files([*folders, "/tmp", "/dev/shm", "/dev/mqueue"]),
        "sysv": sysv(),
        "mq": message_queue()[1],
        "socket": ask_socket(),
        "processes": strangers(),
        "tmp": sorted(os.listdir("/tmp")),
    }


def daemon(secret):
    """A process that outlives the seating, serving ``secret`` on an abstract socket."""
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(ADDRESS)
        server.listen(4)
        while True:
            client, _ = server.accept()
            client.sendall(secret.encode())
            client.close()
    except OSError:
        time.sleep(3600)
    os._exit(0)


def plant_pid1(secret):
    value = 1000 + secret % 1000
    done = {}
    for name, number in LIMITS.items():
        done[f"prlimit_{name}"] = attempt(lambda n=number: resource.prlimit(1, n, (value, value)))
    done["renice"] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, 1, 19))
    idle = os.sched_param(0)
    done["sched_idle"] = attempt(lambda: os.sched_setscheduler(1, os.SCHED_IDLE, idle))
    done["affinity"] = attempt(lambda: os.sched_setaffinity(1, {0}))
    done["ioprio"] = call(LIBC.syscall(IOPRIO[0], 1, 1, (3 << 13)))  # IDLE class
    done["kill"] = attempt(lambda: os.kill(1, signal.SIGSTOP))
    done["ptrace"] = call(LIBC.ptrace(16, 1, None, None))  # PTRACE_ATTACH
    done["environ"] = attempt(lambda: read("/proc/1/environ") and None)
    return done


def plant_self(secret):
    """Changes to this process's own state (children of PID 1 never inherit them)."""
    for number in LIMITS.values():
        soft, hard = resource.getrlimit(number)
        if soft == resource.RLIM_INFINITY or soft > 64:
            resource.setrlimit(number, (64, hard))
    os.setpriority(os.PRIO_PROCESS, 0, 19)
    os.setpriority(os.PRIO_USER, os.getuid(), 19)  # every process of the bot's user
    os.umask(0o777 & secret)
    os.environ["PLANTED"] = str(secret)


def plant_ipc(secret):
    done = {
        "shmget": call(LIBC.shmget(IPC_KEY, 4096, 0o1666)),
        "semget": call(LIBC.semget(IPC_KEY, 1, 0o1666)),
        "msgget": call(LIBC.msgget(IPC_KEY, 0o1666)),
    }
    rt, _ = message_queue()
    done["mq_open"] = call(rt.mq_open(b"/" + MARK.encode(), 0o102, 0o600, None))
    return done


def plant(secret, folders):
    done = {"pid1": plant_pid1(secret), "ipc": plant_ipc(secret), "files": {}}
    for folder in [*folders, "/dev/shm"]:
        path = os.path.join(folder, f"{MARK}{secret}")
        done["files"][folder] = attempt(lambda p=path: write(p, str(secret)))
    daemon(str(secret))
    plant_self(secret)
    return done


def main():
    secret = int(sys.argv[1]) if len(sys.argv) > 1 else random.randrange(1 << 30)
    folders, files = writable()
    report = {"state": state(), "folders": folders, "files": files, "found": found(folders)}
    report["planted"] = plant(secret, folders)
    report["secret"] = secret
    report["zygote"] = ZYGOTE
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    for line in sys.stdin:
        sys.stdout.write(line)
        sys.stdout.flush()


main()
