"""The corpus itself: schema-valid, linted, and covering what it claims."""

from __future__ import annotations

from collections import Counter

import pytest

from conformance.cases import BOUNDARIES, expand, lint, load_cases, rule_index
from conformance.errors import CorpusError
from conformance.expectations import default_expectations_file, load_expectations


class TestCorpus:
    """Case files as data."""

    def test_loads_and_lints_clean(self) -> None:
        """Every case file parses, matches the schema and has no lint problem."""
        assert lint(load_cases()) == []

    def test_every_rule_has_cases(self) -> None:
        """Each rule of the index that belongs to a populated boundary has a case."""
        used = Counter(case.rule for case in load_cases())
        prefixes = {case.rule.split("-")[0] for case in load_cases()}
        for rule in rule_index():
            if rule.split("-")[0] in prefixes:
                assert used[rule] > 0, f"{rule} has no case"

    def test_boundary_one_is_thorough(self) -> None:
        """Boundary 1 has at least 40 truncation cases."""
        cases = [c for c in load_cases() if c.boundary == "multibyte_cuts"]
        assert len(cases) >= 40

    def test_boundaries_are_known(self) -> None:
        """Each case's boundary is one of the suite's."""
        assert {case.boundary for case in load_cases()} <= set(BOUNDARIES)

    @pytest.mark.parametrize("impl", ["reference", "pi@0.85.0"])
    def test_shipped_expectations_name_real_cases(self, impl: str) -> None:
        """The shipped expectations files list only ids the corpus has, each with a reason."""
        path = default_expectations_file(impl)
        assert path is not None
        load_expectations(path, impl).check_ids(case.id for case in load_cases())


class TestBuilders:
    """The string builders of case files."""

    def test_repeat_and_concat(self) -> None:
        """$repeat and $concat build the string they describe."""
        built = expand({"$concat": ["x\n", {"$repeat": "é", "$times": 3}]})
        assert built == "x\nééé"

    def test_code_units_make_lone_surrogates(self) -> None:
        """$codeUnits can build a lone surrogate and combines a pair."""
        assert expand({"$codeUnits": [0x61, 0xD83D]}) == "a\ud83d"
        assert expand({"$codeUnits": [0xD83D, 0xDE42]}) == "🙂"

    @pytest.mark.parametrize(
        "bad",
        [
            {"$repeat": "x"},
            {"$repeat": 3, "$times": 2},
            {"$concat": "ab"},
            {"$codeUnits": [0x110000]},
            {"$nope": 1},
            {"$repeat": "x", "$times": 2, "extra": 1},
        ],
    )
    def test_malformed_builders_are_corpus_errors(self, bad: dict[str, object]) -> None:
        """A malformed builder is a CorpusError, not a crash."""
        with pytest.raises(CorpusError):
            expand(bad, "test")
