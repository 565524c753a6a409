"""The optional C speedup of the streaming tail (reference/_speedups.c).

Everything else about the package is in pyproject.toml. `optional=True`: where the
extension cannot be compiled the install goes on, and reference.stream uses its
pure-Python path (same results, tested against each other; about half the speed).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("reference._speedups", ["reference/_speedups.c"], optional=True),
    ]
)
