"""The reference engine's shape: its public surface, its purity, its doctests."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import ctxspec
from ctxspec import reference
from ctxspec.conformance.transport.cache import cache_root

ENGINE = Path(reference.__file__).parent
# each module's `__all__`: Pi's names and, by reason, the others (a data table)
SURFACE: dict[str, dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "surface.yaml").read_text("utf-8")
)
# the folders the package installs (setup.py's map), where no star import may be
PACKAGE_FOLDERS = ("ctxspec", "reference", "fastengine", "conformance", "corpora", "benchmarks")
PI_CODE = cache_root() / "impls" / "pi-0.85.0" / "node_modules"  # Pi's packages, if installed
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
        """Every public module has an `__all__` naming only what it defines: Pi's names
        and the others listed with their reason (tests/reference/surface.yaml)."""
        module = importlib.import_module(f"ctxspec.reference.{name}")
        assert hasattr(module, "__all__")
        assert all(hasattr(module, item) for item in module.__all__)
        listed = _surface(name)
        assert not listed.keys() & set(SURFACE[name]["pi"]) - set(module.__all__)
        unlisted = sorted(set(module.__all__) - set(listed))
        assert not unlisted, f"neither Pi's nor listed with a reason in surface.yaml: {unlisted}"
        gone = sorted(set(listed) - set(module.__all__))
        assert not gone, f"listed in surface.yaml, not in {name}.__all__: {gone}"
        borrowed = sorted(set(module.__all__) & _imported_from_public(name))
        assert not borrowed, f"defined in another public module (a second address): {borrowed}"

    def test_every_module_is_in_the_surface_table(self) -> None:
        """surface.yaml lists each public module, and only those."""
        assert set(SURFACE) == {m for m in MODULES if not m.startswith("_")}

    @pytest.mark.skipif(not PI_CODE.is_dir(), reason="Pi 0.85.0 is not installed")
    def test_the_names_listed_as_pis_are_in_pis_code(self) -> None:
        """Each `pi` name, camelCased, is an identifier of Pi 0.85.0's installed code."""
        identifiers: set[str] = set()
        for path in PI_CODE.glob("@earendil-works/*/dist/**/*"):
            if (
                path.suffix in (".js", ".ts")
                and "node_modules" not in path.relative_to(PI_CODE).parts[2:]
            ):
                identifiers |= set(re.findall(r"[A-Za-z_$][\w$]*", path.read_text("utf-8")))
        if not identifiers:
            pytest.skip("Pi 0.85.0's code is not where it is expected")
        names = {n for entry in SURFACE.values() for n in entry["pi"]}
        assert sorted(n for n in names if _camel(n) not in identifiers) == []

    def test_no_star_imports(self) -> None:
        """No module of the package imports `*`: every name has one address."""
        root = Path(ctxspec.__file__).resolve().parent.parent
        starred = [
            f"{path.relative_to(root)}:{node.lineno}"
            for folder in PACKAGE_FOLDERS
            for path in sorted((root / folder).rglob("*.py"))
            for node in ast.walk(ast.parse(path.read_text("utf-8")))
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        ]
        assert starred == []

    def test_results_are_frozen(self) -> None:
        """Results cannot be changed after the fact."""
        result = reference.truncate_tail("abc")
        with pytest.raises(AttributeError):
            result.content = "x"  # type: ignore[misc]


def _surface(name: str) -> dict[str, str]:
    """The names surface.yaml lists for a module: name -> why it is public ("Pi's")."""
    entry = SURFACE[name]
    listed = dict.fromkeys(entry["pi"], "Pi's")
    for reason, names in (entry["extras"] or {}).items():
        for item in names:
            assert item not in listed, f"{name}.{item} is listed twice"
            listed[item] = reason
    return listed


def _imported_from_public(name: str) -> set[str]:
    """The names a module imports from another public module of reference/."""
    tree = ast.parse((ENGINE / f"{name}.py").read_text("utf-8"))
    return {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("ctxspec.reference.")
        and not node.module.rsplit(".", 1)[-1].startswith("_")  # type: ignore[union-attr]
        for alias in node.names
    }


def _camel(name: str) -> str:
    """A snake_case name as Pi spells it (`find_cut_point` -> `findCutPoint`); constants
    and classes are spelled alike."""
    if name.isupper() or name[:1].isupper():
        return name
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


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
            assert not [n for n in names if n.split(".")[:2] == ["ctxspec", "fastengine"]], path


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    """The examples in the docstrings are true."""
    module = importlib.import_module(f"ctxspec.reference.{name}")
    failures, _ = doctest.testmod(module)
    assert failures == 0
