"""The optional C speedups: the streaming tail (reference/_speedups.c) and the one pass
over a session's entries (reference/_sessions.c).

Everything else about the package is in pyproject.toml. `optional=True`: where the
extension cannot be compiled the install goes on, and reference.stream uses its
pure-Python path (same results, tested against each other; about half the speed), and
reference.session its Python scan.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("reference._speedups", ["reference/_speedups.c"], optional=True),
        Extension("reference._sessions", ["reference/_sessions.c"], optional=True),
    ]
)
