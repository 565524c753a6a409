"""The reference engine's shape: its public surface, its purity, its doctests."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

from ctxspec import reference

ENGINE = Path(reference.__file__).parent
FORBIDDEN_IMPORTS = {"os", "subprocess", "socket", "time", "shutil", "tempfile", "pathlib", "io"}
# every module (reference/ is pure Python: the C passes are fastengine's);
# `reference/edge/` is the I/O edge and is checked to be imported by none
MODULES = sorted(
    m.name
    for m in pkgutil.iter_modules([str(ENGINE)])
    if not m.ispkg and (ENGINE / f"{m.name}.py").is_file()
)


class TestSurface:
    """What `import reference` offers."""

    def test_all_matches_the_public_names(self) -> None:
        """`reference.__all__` lists exactly the public names the package defines."""
        public = {name for name in vars(reference) if not name.startswith("_")}
        modules = {name for name in public if isinstance(getattr(reference, name), type(reference))}
        assert set(reference.__all__) == public - modules - {"annotations"}

    @pytest.mark.parametrize("name", [m for m in MODULES if not m.startswith("_")])
    def test_each_module_declares_all(self, name: str) -> None:
        """Every public module has an `__all__` naming only what it defines."""
        module = importlib.import_module(f"ctxspec.reference.{name}")
        assert hasattr(module, "__all__")
        assert all(hasattr(module, item) for item in module.__all__)

    def test_results_are_frozen(self) -> None:
        """Results cannot be changed after the fact."""
        result = reference.truncate_tail("abc")
        with pytest.raises(AttributeError):
            result.content = "x"  # type: ignore[misc]


class TestPurity:
    """The engine is sans-I/O: no module imports the file system, processes or clocks."""

    @pytest.mark.parametrize("name", MODULES)
    def test_no_io_imports(self, name: str) -> None:
        """A pure module imports none of os, subprocess, socket, time, pathlib, io, ..."""
        tree = ast.parse((ENGINE / f"{name}.py").read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module.split(".")[0])
        assert not imported & FORBIDDEN_IMPORTS
        edge_imports = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom)
            and (n.module or "").startswith("ctxspec.reference.edge")
        ]
        assert not edge_imports, "a pure module imports the I/O edge"


def test_the_oracle_has_no_c_and_no_fast_paths() -> None:
    """reference/ holds no C source and imports nothing of the fast engine (`fastengine`)."""
    sources = [p for p in ENGINE.rglob("*") if p.suffix in (".c", ".h", ".pyx", ".pxd")]
    assert not sources, "the C passes belong to fastengine/"
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not [n for n in names if n.split(".")[0] == "fastengine"], path


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    """The examples in the docstrings are true."""
    module = importlib.import_module(f"ctxspec.reference.{name}")
    failures, _ = doctest.testmod(module)
    assert failures == 0
