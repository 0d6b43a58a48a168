"""Moves /tmp's times (a write there, then utime to now: what any bot may do) and reports
them before and after: the next seating of a reused container must find them as the
container started, not as this bot left them (the supervisor's clean puts them back)."""

import json
import os
import sys
import time


def times():
    stat = os.stat("/tmp")
    return {"atime": stat.st_atime_ns, "mtime": stat.st_mtime_ns}


def main():
    report = {"start": times()}
    time.sleep(0.05)
    with open("/tmp/moved", "w") as written:
        written.write("x")
    os.unlink("/tmp/moved")
    os.listdir("/tmp")
    os.utime("/tmp")
    report["after"] = times()
    print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
    for line in sys.stdin:
        sys.stdout.write(line)
        sys.stdout.flush()


main()
