"""Run a command inside new namespaces: only loopback, a private /tmp, the caller's HOME read-only.

    python -I -S jail.py SPEC_JSON -- ARGV...

`confine` starts an agent's adapter through this script; everything the adapter starts
(Codex's CLI, a tool's shell, a loopback model server) lives in the same namespaces, so a
model server the adapter serves on 127.0.0.1 stays reachable. Before it execs `ARGV`:

- a user namespace (the caller's uid and gid mapped to themselves), a network namespace
  whose only interface is `lo`, brought up here (no route leaves the machine), and a
  mount namespace (private: nothing mounted here is seen outside);
- each `private` pair (`[folder, dir]`): `dir` mounted over `folder` (the system temp
  dir), so what the command leaves there lands in `dir`, inside the run, removed with it;
- each `readonly` folder (the caller's HOME) mounted over itself read-only: a write there
  fails (EROFS);
- each `shown` folder (what the command runs from: ctxspec, its Python, the PATH, a
  runtime) mounted back at its own path read-only, where the two above hid it;
- each `keep` folder (the run dir, ctxspec's install cache) mounted back at its own path
  as it was, read-write, above the others;
- no capability to mount left after exec (the bounding set emptied but CAP_SETFCAP), so
  the command cannot undo these mounts, even where the caller is root and so the
  namespace's root.

It exits 125 with a line on stderr when the kernel refuses a step; with `check` as the
whole ARGV it exits 0 after the last step (`confine.probe`). Standard library only: it
runs before ctxspec is importable, in a fresh interpreter.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import socket
import struct
import sys
from typing import Any, Final

CLONE_NEWNS: Final = 0x00020000
CLONE_NEWUSER: Final = 0x10000000
CLONE_NEWNET: Final = 0x40000000
MS_RDONLY: Final = 1
MS_REMOUNT: Final = 32
MS_BIND: Final = 4096
MS_REC: Final = 16384
MS_PRIVATE: Final = 1 << 18
# flags a remount inside a user namespace must keep (statvfs ST_* -> mount MS_*)
_LOCKED: Final = ((2, 2), (4, 4), (8, 8), (1024, 1024), (2048, 2048), (4096, 1 << 21))
# kept: a process of uid 0 needs it to map uid 0 into a namespace of its own (Codex's
# bubblewrap sandbox does), and it unmounts nothing
_CAP_SETFCAP: Final = 31
_PR_CAPBSET_DROP: Final = 24
_PR_CAP_AMBIENT: Final = 47
_PR_CAP_AMBIENT_CLEAR_ALL: Final = 4
_SIOCGIFFLAGS: Final = 0x8913
_SIOCSIFFLAGS: Final = 0x8914
_IFF_UP: Final = 1
REFUSED: Final = 125  # the exit status when the kernel refuses a step
CHECK: Final = "check"

_libc = ctypes.CDLL(None, use_errno=True)


class Refused(OSError):
    """A step the kernel refused (no namespaces, no mount in one)."""


def _call(name: str, *args: object) -> None:
    if getattr(_libc, name)(*args) != 0:
        errno = ctypes.get_errno()
        raise Refused(errno, f"{name}{args!r}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, flags: int) -> None:
    encoded = [None if part is None else part.encode() for part in (source, target)]
    _call("mount", encoded[0], encoded[1], None, flags, None)


def _write(path: str, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


def _namespaces() -> None:
    uid, gid = os.getuid(), os.getgid()
    _call("unshare", CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS)
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def _bind(fd: int, target: str, *, readonly: bool) -> None:
    os.makedirs(target, exist_ok=True)
    _mount(f"/proc/self/fd/{fd}", target, MS_BIND | MS_REC)
    if readonly:
        kept = os.statvfs(target).f_flag
        locked = sum(flag for st, flag in _LOCKED if kept & st)
        _mount(None, target, MS_REMOUNT | MS_BIND | MS_RDONLY | locked)


def _mounts(spec: dict[str, list[Any]]) -> None:
    """The private, read-only and kept folders, each opened before any is mounted over."""
    opened = {
        path: os.open(path, os.O_PATH | os.O_DIRECTORY)
        for path in [
            *spec["readonly"],
            *spec["shown"],
            *spec["keep"],
            *(pair[1] for pair in spec["private"]),
        ]
        if os.path.isdir(path)
    }
    _mount(None, "/", MS_REC | MS_PRIVATE)
    for folder, inside in spec["private"]:
        if os.path.isdir(folder) and inside in opened:
            _bind(opened[inside], folder, readonly=False)
    for path in sorted(spec["readonly"], key=len) + sorted(spec["shown"], key=len):
        if path in opened:
            _bind(opened[path], path, readonly=True)
    for path in sorted(spec["keep"], key=len):
        if path in opened:
            _bind(opened[path], path, readonly=False)
    for fd in opened.values():
        os.close(fd)


def _drop_capabilities() -> None:
    """Empty the bounding set (but CAP_SETFCAP), so the command holds no capability to
    mount after exec, even as the root of the namespace: it cannot undo a mount made here."""
    with open("/proc/sys/kernel/cap_last_cap") as file:
        last = int(file.read())
    _call("prctl", _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for capability in range(last + 1):
        if capability != _CAP_SETFCAP:
            _call("prctl", _PR_CAPBSET_DROP, capability, 0, 0, 0)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: jail.py SPEC_JSON -- ARGV...", file=sys.stderr)
        return 2
    spec, command = json.loads(argv[0]), argv[2:]
    try:
        _namespaces()
        _loopback_up()
        _mounts(spec)
        _drop_capabilities()
    except OSError as error:
        print(f"ctxspec jail: the kernel refused a namespace: {error}", file=sys.stderr)
        return REFUSED
    if command == [CHECK]:
        return 0
    os.execvpe(command[0], command, os.environ)
    return REFUSED  # not reached: exec replaces this process or raises


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
