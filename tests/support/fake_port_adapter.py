"""A port's adapter in miniature, for `tests/conformance/harnesses/test_kit_jsonlines.py`:
run by `pyrun.py` under `python -I -S` (no site-packages, no PYTHONPATH), as a port's venv
would run it.

tool.read reads a file of the laid-out tree (through the shared tree code), messages.convert
answers with the modules of ctxspec loaded, truncate.head fails as a port bug would,
format.size answers NaN (not JSON), skills.format refuses in the port's own words and
tokens.estimate is unsupported.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ctxspec.conformance.harnesses.kit.jsonlines import Refused, Unsupported, dispatch, serve
from ctxspec.conformance.harnesses.kit.tree import laid_out, real_argument, real_path, virtualize


def read(args: dict[str, Any]) -> Any:
    with laid_out(args.get("tree")) as root:
        path = Path(real_path(root, args.get("cwd") or "/"), real_argument(root, args["path"]))
        try:
            return {"isError": False, "text": path.read_text()}
        except OSError as error:
            return virtualize({"isError": True, "text": f"{error.strerror}: {path}"}, root)


def modules(args: dict[str, Any]) -> Any:
    loaded = (name for name in sys.modules if name.split(".")[0] == "ctxspec")
    return [{"role": "user", "content": " ".join(sorted(loaded)), "timestamp": 0}]


def crash(args: dict[str, Any]) -> Any:
    raise RuntimeError("the port's own bug")


def refuse(args: dict[str, Any]) -> Any:
    raise Refused("ValidationError: 1 validation error for Skill")


def unsupported(args: dict[str, Any]) -> Any:
    raise Unsupported("the port has no such input")


HANDLERS = {
    "tool.read": read,
    "messages.convert": modules,
    "truncate.head": crash,
    "format.size": lambda args: float("nan"),
    "skills.format": refuse,
    "tokens.estimate": unsupported,
}

if __name__ == "__main__":
    print("a port that prints")  # must not reach the wire
    serve(
        dispatch(
            HANDLERS,
            {"implementation": {"name": "fake-port", "version": "0", "language": "python"}},
        )
    )
