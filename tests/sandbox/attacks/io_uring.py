"""io_uring: set up a ring (the call the seccomp profile must refuse)."""

import ctypes
import json
import os
import sys

SYS_IO_URING_SETUP = 425  # x86-64
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
fd = libc.syscall(SYS_IO_URING_SETUP, 8, params)
errno = ctypes.get_errno() if fd < 0 else 0
report = {"fd": fd, "errno": errno, "error": os.strerror(errno) if errno else ""}
print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
