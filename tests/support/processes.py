"""What the tests ask of this machine's processes."""

from __future__ import annotations


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie is dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"
