"""Remembering a deal across the seatings of a duplicate match: the bot keeps every card
it is shown in /tmp, in a daemon (double fork, new session) that holds it in memory and
serves it on an abstract unix socket, and in a child that merely outlives its parent; at
each start it looks for all three and for any process it did not start, and reports on
standard error what it found (``REPORT {json}``), then plays the first legal action."""

import json
import os
import socket
import sys
import time

MEMORY = "/tmp/remembered-deal"
ADDRESS = "\0cardjudge-remember"


def leftovers():
    """Processes of this container not started by this seating: not PID 1, not us, not
    our shell (a process that exec'ed into us keeps our PID), as "UID COMM: CMDLINE"
    (a zygote's is "0 zygote: ...": the container's, not a bot's)."""
    mine = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in (1, mine):
            try:
                with open(f"/proc/{entry}/status") as status:
                    uid = next(line.split()[1] for line in status if line.startswith("Uid:"))
                with open(f"/proc/{entry}/comm") as comm:
                    name = comm.read().strip()
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    words = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{uid} {name}: {words[:200]}")
            except OSError:
                pass
    return found


def ask_daemon():
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(ADDRESS)
        return probe.recv(1 << 16).decode(errors="replace")
    except OSError as error:
        return f"refused: {type(error).__name__}"
    finally:
        probe.close()


def report():
    try:
        with open(MEMORY) as memory:
            kept = memory.read()
    except OSError as error:
        kept = f"none: {type(error).__name__}"
    found = {
        "tmp": sorted(os.listdir("/tmp")),
        "file": kept,
        "daemon": ask_daemon(),
        "processes": leftovers(),
        "pid": os.getpid(),
    }
    print("REPORT " + json.dumps(found), file=sys.stderr, flush=True)


def daemon(secret):
    """A process that outlives the seating, holding ``secret`` in memory."""
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


def outlive():
    """A child that just stays alive, in the seating's session."""
    if os.fork() == 0:
        time.sleep(3600)
        os._exit(0)


report()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "act":
        secret = json.dumps(message["observation"])[:2000]
        with open(MEMORY, "w") as memory:
            memory.write(secret)
        if not os.path.exists("/tmp/daemon-started"):
            open("/tmp/daemon-started", "w").close()
            daemon(secret)
            outlive()
        print(json.dumps({"type": "action", "action": 0}), flush=True)
    elif message["type"] == "match_over":
        break
