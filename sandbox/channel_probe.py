"""The bot that ``sandbox.channels`` runs to measure a covert channel: a sender or a
receiver, as any uploaded bot could be (standard-library Python, run as the bot's user in
the sandbox's container; never imported by the worker's code, only copied into a bot
folder as its ``main.py``).

Its settings come from its environment: ``PROBE_CHANNEL`` (one of ``CHANNELS``),
``PROBE_ROLE`` (``send`` or ``receive``), ``PROBE_BITS`` (the message's length),
``PROBE_KEY`` (names this hand-over's slots, so hand-overs do not read each other's),
``PROBE_MESSAGE`` (the sender's bits, as ``0`` and ``1``). It does its part and prints one
line, ``RESULT {json}``: the receiver's ``bits`` (what it read), and the ``seconds`` of
work it took, then exits.

- ``dentry``: the sender stat()s names that do not exist under the image's /usr/lib, one
  per 1-bit, each call leaving a negative dentry in the host's cache; the receiver times a
  stat() of every name (shuffled) and reads the fast ones as 1.
- ``pagecache``: the sender drops a file of the image from the host's page cache
  (``POSIX_FADV_DONTNEED``) and reads the pages of its 1-bits back in; the receiver times
  a one-byte read of each page (read-ahead off) and reads the fast ones as 1.
- ``tmptimes``: the sender touches /tmp when the clock's fraction of a second says its
  number; the receiver reads that number back from /tmp's modification time.
- ``pids``: the sender forks until its last child's PID, modulo 2**bits, is its number;
  the receiver forks once and reads its child's PID.
- ``inodes``: the same with files made and deleted in /tmp and their inode numbers.

The counters (``pids``, ``inodes``) read a value with an offset (the processes and files
made between sender and receiver): the measuring side learns it from the first hand-overs.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

CHANNELS = ("dentry", "pagecache", "tmptimes", "pids", "inodes")
PAGE = 4096
#: Where the dentry channel's names go: a folder of the image's read-only lower layer.
DENTRY_FOLDER = "/usr/lib"


def split(times: list[int]) -> list[str]:
    """Bits from timings: the faster half reads as 1 (a random message has about as many
    1s as 0s; a median is not thrown by the odd slow call, as a mean is)."""
    middle = sorted(times)[len(times) // 2]
    return ["1" if t < middle else "0" for t in times]


def timed_in_order(count: int, probe: object) -> list[int]:
    """Nanoseconds of ``probe(i)`` for each slot i, visited in a shuffled order."""
    order = list(range(count))
    random.shuffle(order)
    times = [0] * count
    for i in order:
        began = time.perf_counter_ns()
        probe(i)  # type: ignore[operator]
        times[i] = time.perf_counter_ns() - began
    return times


def dentry_names(key: str, bits: int) -> list[str]:
    return [f"{DENTRY_FOLDER}/.{key}{i:05d}" for i in range(bits)]


def stat_quietly(name: str) -> None:
    try:  # noqa: SIM105 (a bare try costs least: it is inside the timed call)
        os.stat(name)
    except OSError:
        pass


def dentry(role: str, key: str, message: str, bits: int) -> list[str] | None:
    names = dentry_names(key, bits)
    if role == "send":
        for name, bit in zip(names, message, strict=True):
            if bit == "1":
                stat_quietly(name)
        return None
    return split(timed_in_order(bits, lambda i: stat_quietly(names[i])))


def page_file(key: str, pages: int) -> str:
    """A file of the image with at least ``pages`` pages, chosen by the key."""
    found = []
    for folder in ("/usr/lib", "/usr/share"):
        for parent, _dirs, files in os.walk(folder):
            for name in files:
                path = os.path.join(parent, name)
                try:
                    if not os.path.islink(path) and os.path.getsize(path) >= pages * PAGE:
                        found.append(path)
                except OSError:
                    pass
    found.sort()
    return found[int(key, 16) % len(found)]


def pagecache(role: str, key: str, message: str, bits: int) -> list[str] | None:
    fd = os.open(page_file(key, bits), os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        if role == "send":
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            for i, bit in enumerate(message):
                if bit == "1":
                    os.pread(fd, 1, i * PAGE)
            return None
        return split(timed_in_order(bits, lambda i: os.pread(fd, 1, i * PAGE)))
    finally:
        os.close(fd)


def tmptimes(role: str, key: str, message: str, bits: int) -> list[str] | None:
    slots = 1 << bits
    if role == "send":
        wanted = int(message, 2)
        while True:  # the middle of the wanted slot of a second
            fraction = (time.time_ns() % 1_000_000_000) * slots / 1e9
            if int(fraction) == wanted and 0.25 < fraction - wanted < 0.75:
                break
            time.sleep(0.0005)
        marker = f"/tmp/.probe-{key}"
        with open(marker, "w"):
            pass
        os.unlink(marker)
        return None
    value = os.stat("/tmp").st_mtime_ns % 1_000_000_000 * slots // 1_000_000_000
    return list(format(value, f"0{bits}b"))


def next_pid() -> int:
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    return child


def next_inode(key: str) -> int:
    name = f"/tmp/.probe-{key}"
    with open(name, "w") as made:
        number = os.fstat(made.fileno()).st_ino
    os.unlink(name)
    return number


def counter(role: str, message: str, bits: int, step: object) -> list[str]:
    """Move a counter until it says the message (send), or read it (receive): the low
    ``bits`` bits of the last value ``step()`` gave."""
    mask = (1 << bits) - 1
    value = step()  # type: ignore[operator]
    if role == "send":
        wanted = int(message, 2)
        for _ in range(4 << bits):
            if value & mask == wanted:
                break
            value = step()  # type: ignore[operator]
    return list(format(value & mask, f"0{bits}b"))


def run(channel: str, role: str, key: str, message: str, bits: int) -> list[str] | None:
    if channel == "dentry":
        return dentry(role, key, message, bits)
    if channel == "pagecache":
        return pagecache(role, key, message, bits)
    if channel == "tmptimes":
        return tmptimes(role, key, message, bits)
    if channel == "pids":
        return counter(role, message, bits, next_pid)
    if channel == "inodes":
        return counter(role, message, bits, lambda: next_inode(key))
    raise SystemExit(f"unknown channel {channel!r}: one of {', '.join(CHANNELS)}")


def main() -> None:
    env = os.environ
    role, bits = env["PROBE_ROLE"], int(env["PROBE_BITS"])
    began = time.perf_counter()
    read = run(env["PROBE_CHANNEL"], role, env["PROBE_KEY"], env.get("PROBE_MESSAGE", ""), bits)
    seconds = time.perf_counter() - began
    result = {"bits": "".join(read) if role == "receive" and read else "", "seconds": seconds}
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
    sys.exit(0)
