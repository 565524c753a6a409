"""The fast engine's optional C passes: the streaming tail's decoder
(fastengine/_speedups.c), the passes over a session's entries (fastengine/_sessions.c),
the token estimate's walk (fastengine/_tokens.c) and the session file's parse
(fastengine/_json.c, fastengine/_parse.c), with their helpers in fastengine/_capi.h.

Everything else about the package is in pyproject.toml. `optional=True`: where the
extension cannot be compiled the install goes on, and fastengine takes its own
pure-Python paths (same answers, tested; about half the speed). `reference/`, the
oracle, is pure Python and needs neither.
"""

from setuptools import Extension, setup

HEADERS = ["fastengine/_capi.h"]  # the passes' shared helpers (dict_get, new_dict, append_index)

setup(
    ext_modules=[
        Extension("fastengine._speedups", ["fastengine/_speedups.c"], optional=True),
        *(
            Extension(
                f"fastengine.{pass_}", [f"fastengine/{pass_}.c"], depends=HEADERS, optional=True
            )
            for pass_ in ("_sessions", "_tokens", "_parse", "_json")
        ),
    ]
)
