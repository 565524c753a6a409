"""The corpus cache: a hit is exactly the parse it stands for, and any change is a miss.

These tests fail if the cache changed what is checked: a stale corpus after a case file
changed, a damaged file taken for cases, or cases read back that differ from a parse.
"""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxspec.conformance.corpus import cache as corpus_cache
from ctxspec.conformance.corpus.cases import Case, _are_cases, load_cases_from
from ctxspec.corpora import cases_root

BOUNDARY = "multibyte_cuts"


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXSPEC_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(corpus_cache.OFF_VARIABLE, raising=False)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A small corpus: one boundary's case files, the case schema, the generators."""
    real = Path(str(cases_root())).parent
    root = tmp_path / "corpora"
    shutil.copytree(real / "cases" / BOUNDARY, root / "cases" / BOUNDARY)
    shutil.copytree(real / "generators", root / "generators")
    shutil.copy(real / "case.schema.json", root / "case.schema.json")
    return root


def _counting(root: Path) -> tuple[list[int], Callable[[], tuple[Case, ...]]]:
    parses: list[int] = []

    def parse() -> tuple[Case, ...]:
        parses.append(1)
        return load_cases_from(root / "cases")

    return parses, parse


def test_a_hit_is_the_parse(corpus: Path) -> None:
    parses, parse = _counting(corpus)
    first = corpus_cache.load(corpus, parse, _are_cases)
    again = corpus_cache.load(corpus, parse, _are_cases)
    assert len(parses) == 1
    assert again == first == load_cases_from(corpus / "cases")
    assert again is not first  # read back from the file, not this process's memory


def test_a_changed_case_file_is_a_miss(corpus: Path) -> None:
    parses, parse = _counting(corpus)
    before = corpus_cache.load(corpus, parse, _are_cases)
    file = sorted((corpus / "cases" / BOUNDARY).glob("*.yaml"))[0]
    text = file.read_text("utf-8")
    case = next(c for c in before if c.source.startswith(f"{BOUNDARY}/{file.name}#"))
    file.write_text(text.replace(f"id: {case.id}\n", f"id: {case.id}-changed\n", 1), "utf-8")
    after = corpus_cache.load(corpus, parse, _are_cases)
    assert len(parses) == 2
    assert f"{case.id}-changed" in {c.id for c in after}
    assert case.id not in {c.id for c in after}


def test_a_changed_generator_or_schema_is_a_miss(corpus: Path) -> None:
    key = corpus_cache.corpus_key(corpus)
    generator = corpus / "generators" / "sessions.py"
    generator.write_text(generator.read_text("utf-8") + "\n# changed\n", "utf-8")
    assert corpus_cache.corpus_key(corpus) != key
    key = corpus_cache.corpus_key(corpus)
    schema = corpus / "case.schema.json"
    schema.write_text(schema.read_text("utf-8") + "\n", "utf-8")
    assert corpus_cache.corpus_key(corpus) != key


@pytest.mark.parametrize("damage", [b"", b"not a pickle", None])
def test_a_damaged_file_is_a_miss(corpus: Path, damage: bytes | None) -> None:
    parses, parse = _counting(corpus)
    path = corpus_cache.cache_file(corpus_cache.corpus_key(corpus))
    path.parent.mkdir(parents=True)
    if damage is None:  # a valid pickle of something else
        damage = pickle.dumps(("not", "cases"))
    path.write_bytes(damage)
    loaded = corpus_cache.load(corpus, parse, _are_cases)
    assert len(parses) == 1 and loaded == load_cases_from(corpus / "cases")


def test_off_parses_every_time(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(corpus_cache.OFF_VARIABLE, "off")
    parses, parse = _counting(corpus)
    for _ in range(2):
        corpus_cache.load(corpus, parse, _are_cases)
    assert len(parses) == 2
    assert not corpus_cache.cache_file(corpus_cache.corpus_key(corpus)).exists()


@pytest.mark.slow
def test_the_whole_corpus_reads_back_as_parsed() -> None:
    corpora = cases_root().joinpath("..")
    parsed = load_cases_from(cases_root())
    corpus_cache.load(corpora, lambda: parsed, _are_cases)
    read = corpus_cache.load(corpora, lambda: (), _are_cases)
    assert read == parsed and len(read) == len(parsed)
