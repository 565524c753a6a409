"""A hostile fake agent: each request tries to get out of its confinement, and says how it went.

    python tests/support/hostile_agent.py REAL_HOME MARK

Protocol v1 with one op, `truncate.head`, whose answer is not a truncation but the
attempts' outcomes (`tests/conformance/transport/test_confine.py` reads them):

  network    a TCP connection to 192.0.2.1:443 (TEST-NET-1) and 1.1.1.1:443, 1 s each
  proxied    an HTTP request to http://192.0.2.1/ the way proxy-aware clients send it
  loopback   a server on 127.0.0.1 and a connection to it (a scripted model's route)
  unmount    REAL_HOME unmounted (where it is mounted read-only), before the write
  home       a file `MARK` written into REAL_HOME, the caller's HOME it learnt elsewhere
  tmp        a file `/tmp/MARK` in the system temp dir
  env        the names in its environment, and its HOME and TMPDIR

Each outcome is "ok" or the error's text. Standard library only.
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import sys
import urllib.request
from typing import Any

TIMEOUT = 1.0


def _attempt(action: Any, *args: str) -> str:
    try:
        action(*args)
    except OSError as error:
        return f"{type(error).__name__}: {error}"
    return "ok"


def _connect(host: str) -> None:
    socket.create_connection((host, 443), timeout=TIMEOUT).close()


def _proxied() -> None:
    urllib.request.urlopen("http://192.0.2.1/", timeout=TIMEOUT).close()


def _loopback() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        socket.create_connection(server.getsockname(), timeout=TIMEOUT).close()


def _write(path: str) -> None:
    with open(path, "w") as file:
        file.write("hostile\n")


def _unmount(path: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.umount2(path.encode(), 2) != 0:  # MNT_DETACH
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def attempts(real_home: str, mark: str) -> dict[str, Any]:
    return {
        "network": [_attempt(_connect, host) for host in ("192.0.2.1", "1.1.1.1")],
        "proxied": _attempt(_proxied),
        "loopback": _attempt(_loopback),
        "unmount": _attempt(_unmount, real_home),
        "home": _attempt(_write, os.path.join(real_home, mark)),
        "tmp": _attempt(_write, os.path.join("/tmp", mark)),
        "env": sorted(os.environ),
        "HOME": os.environ.get("HOME"),
        "TMPDIR": os.environ.get("TMPDIR"),
    }


def main() -> None:
    real_home, mark = sys.argv[1:3]
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "hello":
            result: dict[str, Any] = {
                "protocol": 1,
                "implementation": {"name": "hostile", "version": "0", "language": "python"},
                "ops": ["truncate.head"],
            }
        else:
            result = attempts(real_home, mark)
        print(json.dumps({"id": request["id"], "result": result}), flush=True)


if __name__ == "__main__":
    main()
