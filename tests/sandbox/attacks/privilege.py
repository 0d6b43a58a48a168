"""Privilege escalation attempts: setuid, unshare, mount, keyctl, chroot, setuid programs."""

import ctypes
import json
import os
import subprocess
import sys

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
SYS_KEYCTL, KEYCTL_JOIN_SESSION_KEYRING = 250, 1


def errno_of(result: int) -> str:
    return "succeeded" if result == 0 else os.strerror(ctypes.get_errno())


report = {
    "setuid": errno_of(libc.setuid(0)),
    "unshare_user": errno_of(libc.unshare(CLONE_NEWUSER)),
    "unshare_mount": errno_of(libc.unshare(CLONE_NEWNS)),
    "mount": errno_of(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
    "keyctl": errno_of(libc.syscall(SYS_KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, None)),
    "chroot": errno_of(libc.chroot(b"/tmp")),
}
with open("/proc/self/status") as status:
    for line in status:
        key, _, value = line.partition(":")
        if key in ("Uid", "Gid", "Groups", "CapEff", "CapPrm", "CapInh", "CapAmb"):
            report[key] = " ".join(value.split())
        elif key in ("NoNewPrivs", "Seccomp"):
            report[key] = value.split()[0]
setuid_programs = []
for folder in ("/bin", "/usr/bin", "/sbin", "/usr/sbin"):
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.stat(path).st_mode & 0o4000:
            setuid_programs.append(path)
report["setuid_programs"] = setuid_programs
if os.path.exists("/bin/mount"):
    run = subprocess.run(["/bin/mount", "-t", "tmpfs", "none", "/tmp"], capture_output=True)
    report["mount_program"] = run.returncode
print("REPORT " + json.dumps(report), file=sys.stderr, flush=True)
