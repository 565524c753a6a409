"""An engine's error, as the protocol writes it where Pi passes one on: by its kind.

Pi hands some errors of its runtime on as they are: Node's file-system errors
(`ENOENT: no such file or directory, access '/w/x'`), Node's argument checks and V8's
exceptions (`Cannot read properties of undefined (reading 'a')`). Those words are the
engine's, not Pi's: a port in another language cannot give them. The protocol writes such
an error as its kind in angle brackets, Pi's own words around it kept (PROTOCOL.md, "An
engine's words"); the Pi adapter rewrites Node's and V8's words the same way
(`conformance/harnesses/kit/engine.mjs`).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["JsErrorClass", "js_exception", "nul_refused", "system_error"]

JsErrorClass = Literal["TypeError", "SyntaxError", "RangeError"]


def system_error(code: str, path: str | None = None) -> str:
    """A file-system error: its POSIX name, and the path the failing call named.

    A call on an open file (reading a directory) names none.

    >>> system_error("ENOENT", "/w/x"), system_error("EISDIR")
    ('<ENOENT /w/x>', '<EISDIR>')
    """
    return f"<{code}>" if path is None else f"<{code} {path}>"


def js_exception(kind: JsErrorClass) -> str:
    """A JavaScript exception (V8's, or one of Node's argument checks): its class.

    >>> js_exception("TypeError")
    '<TypeError>'
    """
    return f"<{kind}>"


def nul_refused(parameter: str) -> str:
    """A string holding U+0000 that Node refuses to pass on (to a process or a file call).

    `parameter` is the tool's parameter that held it.

    >>> nul_refused("pattern")
    '<NUL in pattern>'
    """
    return f"<NUL in {parameter}>"
