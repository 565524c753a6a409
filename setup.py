"""The fast engine's optional C passes: the streaming tail's decoder
(fastengine/_speedups.c), the passes over a session's entries (fastengine/_sessions.c),
the token estimate's walk (fastengine/_tokens.c) and the session file's parse
(fastengine/_json.c, fastengine/_parse.c), with their helpers in fastengine/_capi.h.

Everything else about the package is in pyproject.toml. `optional=True`: where the
extension cannot be compiled the install goes on, and fastengine takes its own
pure-Python paths (same answers, tested; about half the speed). `reference/`, the
oracle, is pure Python and needs neither.
"""

from setuptools import Extension, find_namespace_packages, setup

# the design's top-level folders, each a subpackage of the one import name `ctxspec`
FOLDERS = (
    "reference",
    "fastengine",
    "conformance",
    "corpora",
    "benchmarks",
)  # typecheck_tree.py too
PACKAGE_DIR = {"ctxspec": "ctxspec"} | {f"ctxspec.{folder}": folder for folder in FOLDERS}
PACKAGES = ["ctxspec"] + [
    f"ctxspec.{package}"
    for folder in FOLDERS
    for package in (
        folder,
        *(f"{folder}.{sub}" for sub in find_namespace_packages(folder, exclude=["*__pycache__*"])),
    )
]

HEADERS = ["fastengine/_capi.h"]  # the passes' shared helpers (dict_get, new_dict, append_index)

setup(
    packages=PACKAGES,
    package_dir=PACKAGE_DIR,
    ext_modules=[
        Extension("ctxspec.fastengine._speedups", ["fastengine/_speedups.c"], optional=True),
        *(
            Extension(
                f"ctxspec.fastengine.{pass_}",
                [f"fastengine/{pass_}.c"],
                depends=HEADERS,
                optional=True,
            )
            for pass_ in ("_sessions", "_tokens", "_parse", "_json")
        ),
    ],
)
