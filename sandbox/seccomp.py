"""The seccomp profile of bot containers: Docker's default profile, with io_uring refused.

The engine's default profile (Docker 20.10, the engine Debian ships) still allows the
io_uring calls, a large and often-exploited kernel surface that no bot needs. The
profile in ``seccomp.json`` is that default with the three io_uring calls taken out of
every allow rule and refused explicitly (EPERM). Regenerate it from the engine's source
(Debian package golang-github-docker-docker-dev, profiles/seccomp/default.json) with:

    python -m sandbox.seccomp /path/to/default.json
"""

from __future__ import annotations

import copy
import functools
import json
import sys
from pathlib import Path
from typing import Any

IO_URING = ("io_uring_setup", "io_uring_enter", "io_uring_register")
EPERM = 1
PROFILE = Path(__file__).with_name("seccomp.json")


def without_io_uring(default: dict[str, Any]) -> dict[str, Any]:
    """``default`` (a Docker seccomp profile) with io_uring allowed nowhere and refused."""
    profile = copy.deepcopy(default)
    rules = []
    for rule in profile["syscalls"]:
        rule["names"] = [name for name in rule["names"] if name not in IO_URING]
        if rule["names"]:
            rules.append(rule)
    refuse = {"names": list(IO_URING), "action": "SCMP_ACT_ERRNO", "errnoRet": EPERM, "args": []}
    profile["syscalls"] = [refuse, *rules]
    return profile


#: socket()'s first argument for Unix sockets, the one family reused containers keep.
AF_UNIX = 1


@functools.cache
def unix_sockets_only_text() -> str:
    """The profile, with ``socket`` allowed only for AF_UNIX (others: EPERM, the default
    action). For reused containers (``sandbox.reuse``): a network namespace that lives
    through several seatings keeps counters (bytes and packets on ``lo``, TCP
    statistics, sockets waiting out TIME_WAIT) that a bot could set in one seating and
    read in the next; without IP sockets it cannot move them."""
    profile = json.loads(PROFILE.read_text())
    for rule in profile["syscalls"]:
        rule["names"] = [name for name in rule["names"] if name != "socket"]
    profile["syscalls"] = [rule for rule in profile["syscalls"] if rule["names"]]
    unix = {"index": 0, "value": AF_UNIX, "valueTwo": 0, "op": "SCMP_CMP_EQ"}
    profile["syscalls"].append({"names": ["socket"], "action": "SCMP_ACT_ALLOW", "args": [unix]})
    return json.dumps(profile, separators=(",", ":"))


@functools.cache
def profile_text() -> str:
    """The profile as the engine's ``seccomp=`` security option wants it (compact JSON)."""
    return json.dumps(json.loads(PROFILE.read_text()), separators=(",", ":"))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m sandbox.seccomp DOCKER_DEFAULT_PROFILE.json", file=sys.stderr)
        return 2
    default = json.loads(Path(argv[0]).read_text())
    PROFILE.write_text(json.dumps(without_io_uring(default), indent=1) + "\n")
    print(f"wrote {PROFILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
