"""The processes of a run: an implementation's process tree, killed whole, and the run's temp dir.

- `kill_tree(root, token, pipes)`: SIGKILL the child's process group and session, every
  descendant by parent pid, and any process that carries the child's token in its
  environment (`TOKEN_VARIABLE`) or holds one of the child's pipes, which finds
  descendants that left with `setsid()`; until none is left (`KILL_BOUND` s at most).
- `become_subreaper()`: on Linux the runner is a child subreaper, so such orphans
  re-parent to it rather than to init, and it reaps what it kills.
- `run_dir()` / `join_run(path)`: the run's private temp dir (`RUN_VARIABLE` in every
  process of the run), swept with its processes at the exit of the process that made it.
- `remove_tree(path)`: remove a directory tree, also one an implementation made unreadable.

`wire` starts the processes; this module only ends them and cleans up after them.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import os
import shutil
import signal
import sys
import tempfile
import time
from typing import Final

__all__ = [
    "KILL_BOUND",
    "RUN_VARIABLE",
    "TMP_VARIABLES",
    "TOKEN_VARIABLE",
    "become_subreaper",
    "join_run",
    "kill_tree",
    "remove_tree",
    "run_dir",
]

TOKEN_VARIABLE: Final = "CTXSPEC_IMPL_TOKEN"  # set in the child's environment, inherited
RUN_VARIABLE: Final = "CTXSPEC_RUN_DIR"  # the run's temp dir, in every process of the run
TMP_VARIABLES: Final = ("TMPDIR", "TMP", "TEMP")  # where Node, Python and others make temp files
KILL_BOUND: Final = 3.0  # seconds the tree kill may take, a fork bomb included
_PR_SET_CHILD_SUBREAPER: Final = 36  # <linux/prctl.h>


@functools.cache
def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _stat(pid: str) -> tuple[str, int, int, int] | None:
    """(state, ppid, pgid, sid) from /proc/PID/stat, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read()
    except OSError:
        return None
    fields = text[text.rfind(b")") + 2 :].split()  # the command name may hold ") "
    return fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3])


def _carries(pid: int, token: bytes, pipes: frozenset[str]) -> bool:
    """Whether `pid` has the child's token in its environment or holds one of its pipes."""
    with contextlib.suppress(OSError), open(f"/proc/{pid}/environ", "rb") as file:
        if token in file.read():
            return True
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") in pipes:
                return True
    return False


def _members(root: int | None, token: bytes, pipes: frozenset[str]) -> dict[int, tuple[str, int]]:
    """Every live process of the tree `root` started, or carrying `token`: pid -> state, ppid."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(entry)) is not None:
            table[int(entry)] = stat
    spared = {os.getpid(), os.getppid(), 1}
    found = {
        pid
        for pid, (state, _, pgid, sid) in table.items()
        if pid not in spared
        and (root in (pid, pgid, sid) or (state != "Z" and _carries(pid, token, pipes)))
    }
    grew = True
    while grew:  # and their descendants, whatever group or session they moved to
        more = {pid for pid, stat in table.items() if stat[1] in found and pid not in spared}
        grew = not more <= found
        found |= more
    return {pid: (table[pid][0], table[pid][1]) for pid in found}


def kill_tree(root: int | None, token: bytes, pipes: frozenset[str]) -> None:
    """SIGKILL `root`'s group and every member of its tree until none is left; reap orphans.

    With `root` None: every process carrying `token`, and their descendants (the run sweep).
    """
    if root is not None:
        with contextlib.suppress(OSError):
            os.killpg(root, signal.SIGKILL)
    if not os.path.isdir("/proc/self"):
        return  # no process table to read: the group kill is all there is
    deadline = time.monotonic() + KILL_BOUND
    orphans: set[int] = set()  # killed, re-parented to this subreaper, not yet reaped
    while time.monotonic() < deadline:
        members = _members(root, token, pipes)
        alive = [pid for pid, (state, _) in members.items() if state != "Z"]
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        orphans |= set(members) - {root}  # `root` is Popen's to reap
        for pid in list(orphans):
            stat = _stat(str(pid))
            if stat is None or (stat[1] != os.getpid() and not become_subreaper()):
                orphans.discard(pid)  # gone, or init's to reap
                continue
            if stat[1] != os.getpid():
                continue  # its parent is dying too: it is re-parented to us in a moment
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    orphans.discard(pid)
        if not alive and not orphans:
            return
        time.sleep(0.01)


_RUN: list[str] = []  # this run's temp dir, once made or joined


def run_dir() -> str:
    """This run's private temp dir (random name, mode 0700), made on first use.

    Every implementation process gets a temp dir of its own inside it (its TMPDIR) and
    `CTXSPEC_RUN_DIR` in its environment. At the exit of the process that made it (Ctrl-C
    and SIGTERM included, see the plugin), every process whose environment carries it is
    killed, with its descendants, and the directory is removed whole. An xdist worker
    `join_run`s its controller's instead, so the controller's exit sweeps the workers'
    leftovers too, even when a worker could not clean up after itself.
    """
    if not _RUN:
        made = tempfile.mkdtemp(prefix="ctxspec-run-")
        _RUN.append(made)
        atexit.register(_sweep_run, made)
    return _RUN[0]


def join_run(path: str) -> None:
    """Use another process's run dir (an xdist worker its controller's); it sweeps it."""
    if not _RUN and os.path.isdir(path):
        _RUN.append(path)


def _sweep_run(path: str) -> None:
    """The end of a run: its workers' and implementations' leftovers, processes and files."""
    if os.path.isdir("/proc/self"):
        kill_tree(None, f"{RUN_VARIABLE}={path}\0".encode(), frozenset())
    remove_tree(path)


def remove_tree(path: str) -> None:
    """Remove a directory tree, also directories an implementation made unreadable (mode 0)."""
    for root, dirs, _ in os.walk(path):  # top-down: each directory unlocked before it is read
        for name in dirs:
            inner = os.path.join(root, name)
            if not os.path.islink(inner):  # never chmod through a link, out of the tree
                with contextlib.suppress(OSError):
                    os.chmod(inner, 0o700)
    shutil.rmtree(path, ignore_errors=True)
