"""The mutation run's own logic: what counts as equivalent, the sample, the listed file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

pytest.importorskip("cosmic_ray")
spec = importlib.util.spec_from_file_location("mutation_run", ROOT / "mutation" / "run.py")
assert spec and spec.loader
run = importlib.util.module_from_spec(spec)
sys.modules["mutation_run"] = run
spec.loader.exec_module(run)


def mutant(module: str, n: int, text: str = "x = 1") -> Any:
    return run.Mutant(f"j{module}{n}", module, "f", "core/NumberReplacer", n, n + 1, text)


class TestAnnotations:
    SOURCE = (
        "from __future__ import annotations\n"
        "def f(a: int | None, b: float = 1 + 2) -> list[int] | None:\n"
        "    c: int | str = a | b\n"
        "    return c\n"
    )

    def test_spans_cover_argument_return_and_variable_annotations(self) -> None:
        spans = run.annotation_spans(self.SOURCE)
        assert ((2, 9), (2, 19)) in spans  # int | None
        assert ((2, 42), (2, 58)) in spans  # list[int] | None
        assert ((3, 7), (3, 16)) in spans  # int | str

    def test_defaults_and_expressions_are_not_annotations(self) -> None:
        spans = run.annotation_spans(self.SOURCE)
        inside = lambda pos: any(a <= pos <= b for a, b in spans)  # noqa: E731
        assert not inside((2, 32))  # the default's 1 + 2
        assert not inside((3, 21))  # the body's a | b

    def test_without_postponed_annotations_nothing_is_skipped(self) -> None:
        assert run.annotation_spans("def f(a: int | None) -> None:\n    pass\n") == []


class TestSample:
    def test_same_seed_same_sample_and_per_module_counts(self) -> None:
        mutants = [mutant(m, n) for m in ("a.py", "b.py") for n in range(20)]
        first = run.sample(mutants, 3, seed=7)
        assert first == run.sample(mutants, 3, seed=7)
        assert sorted(m.module for m in first) == ["a.py"] * 3 + ["b.py"] * 3
        assert first != run.sample(mutants, 3, seed=8)

    def test_without_a_previous_sample_the_draw_is_the_seeds(self) -> None:
        mutants = [mutant(m, n) for m in ("a.py", "b.py") for n in range(20)]
        assert run.sample(mutants, 3, seed=7, again=set()) == run.sample(mutants, 3, seed=7)

    def test_a_previous_sample_is_taken_again_where_the_code_still_has_it(self) -> None:
        before = [mutant("a.py", n, f"x = {n}") for n in range(20)]
        first = run.sample(before, 3, seed=7)
        keys = run.stable_keys(before)
        again = {keys[m.job_id] for m in first}
        # an edit above shifts every line and job id; one sampled line is edited away
        gone = first[0]
        after = [
            run.Mutant(f"new{m.job_id}", m.module, m.function, m.operator, m.occurrence,
                       m.line + 5, "y = 0" if m is gone else m.text)
            for m in before
        ]  # fmt: skip
        second = run.sample(after, 3, seed=8, again=again)
        texts = [m.text for m in second]
        assert texts[:2] == sorted((m.text for m in first[1:]), key=lambda t: int(t[4:]))
        assert len(second) == 3  # the one whose line changed is replaced by a fresh draw

    def test_stable_keys_rank_mutants_of_one_line(self) -> None:
        twins = [mutant("a.py", n, "x = a + b + c") for n in range(2)]
        assert sorted(run.stable_keys(twins).values()) == [
            ("a.py", "f", "core/NumberReplacer", "x = a + b + c", 0),
            ("a.py", "f", "core/NumberReplacer", "x = a + b + c", 1),
        ]

    def test_all_takes_every_mutant(self) -> None:
        mutants = [mutant("a.py", n) for n in range(4)]
        assert run.sample(mutants, None, seed=0) == mutants


class TestEquivalentList:
    def test_entries_need_every_field_and_a_reason(self, tmp_path: Path) -> None:
        listed = tmp_path / "equivalent.yaml"
        listed.write_text("- {module: m, function: f, operator: o, line: x, reason: ' '}\n")
        with pytest.raises(run.EquivalentListError, match="no reason"):
            run.load_equivalents(listed)
        listed.write_text("- {module: m, function: f}\n")
        with pytest.raises(run.EquivalentListError, match="entry 0"):
            run.load_equivalents(listed)

    def test_an_entry_is_keyed_by_its_line_text(self, tmp_path: Path) -> None:
        listed = tmp_path / "equivalent.yaml"
        listed.write_text(
            "- {module: m, function: f, operator: o, line: '  x = 1  ', reason: same value}\n"
        )
        assert run.load_equivalents(listed) == {("m", "f", "o", "x = 1"): "same value"}

    def test_the_shipped_list_loads(self) -> None:
        run.load_equivalents()


class TestDataclassFlags:
    """`slots=True` / `kw_only=True` flips are equivalent only where nothing can tell."""

    @staticmethod
    def flagged(source: str) -> set[tuple[int, int]]:
        return {start for start, _ in run.dataclass_flag_spans(source)}

    def test_slots_and_kw_only_flips_of_a_plain_dataclass(self) -> None:
        source = (
            "from dataclasses import dataclass, field\n"
            "@dataclass(frozen=True, slots=True, kw_only=True)\n"
            "class A:\n"
            "    x: int\n"
            "    y: list[int] = field(default_factory=list)\n"
        )
        # slots and kw_only; never frozen (False drops __hash__, which callers may use)
        assert self.flagged(source) == {(2, 30), (2, 44)}

    def test_kw_only_kept_where_positional_fields_could_not_be_ordered(self) -> None:
        source = (
            "from dataclasses import dataclass, field\n"
            "@dataclass(kw_only=True)\n"
            "class A:\n"
            "    x: int = 0\n"
            "    y: int = field(repr=False)\n"  # no default: after x, kw_only=False fails
        )
        assert self.flagged(source) == set()
        assert self.flagged(source.replace("    x: int = 0\n", "    x: int\n")) == {(2, 19)}

    def test_kw_only_kept_for_a_class_with_bases_or_subclasses(self) -> None:
        based = "from dataclasses import dataclass\n@dataclass(kw_only=True)\nclass A(B):\n"
        based += "    x: int\n"
        assert self.flagged(based) == set()
        inherited = based.replace("class A(B)", "class A") + "class C(A):\n    pass\n"
        assert self.flagged(inherited) == set()

    def test_slots_kept_where_the_storage_could_be_seen(self) -> None:
        plain = "from dataclasses import dataclass\n@dataclass(slots=True)\nclass A:\n    x: int\n"
        assert self.flagged(plain) == {(2, 17)}
        assert self.flagged(plain + "print(vars(A(1)))\n") == set()
        assert self.flagged(plain + "    def f(self):\n        return super().f()\n") == set()
        # super() in another class does not concern this one
        other = "class B(C):\n    def f(self):\n        return super().f()\n"
        assert self.flagged(plain + other) == {(2, 17)}

    def test_only_true_constants_of_dataclass_decorators(self) -> None:
        source = (
            "from dataclasses import dataclass\n"
            "@other(slots=True)\n"
            "class A:\n    x: int\n"
            "@dataclass(slots=False, kw_only=flag)\n"
            "class B:\n    x: int\n"
        )
        assert self.flagged(source) == set()

    def test_a_flagged_mutant_is_left_out_before_the_sample(self) -> None:
        m = run.Mutant("j", "m.py", "<module>", "core/ReplaceTrueWithFalse", 0, 2,
                       "@dataclass(slots=True)", dataclass_flag=True)  # fmt: skip
        assert run.population([m]) == ([], {"dataclass flag": 1})


class TestPopulation:
    """A site inside an annotation is no mutant: never sampled, run or counted equivalent."""

    SOURCE = (
        "from __future__ import annotations\n"
        "def js_slice(text: str, start: float, end: float | None = None) -> str:\n"
        "    return text[int(start) | 0 :]\n"
    )

    @pytest.fixture(scope="class")
    @classmethod
    def made(cls, tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
        """Cosmic Ray's own mutants of SOURCE, as `mutants_of` reads them."""
        tree = tmp_path_factory.mktemp("tree")
        (tree / "reference").mkdir()
        (tree / "reference" / "__init__.py").write_text("")
        (tree / "reference" / "m.py").write_text(cls.SOURCE)
        session = tree / "session.sqlite"
        run.cosmic_ray(tree, "init", str(run.write_config(tree, 10)), str(session))
        with run.use_db(str(session), run.WorkDB.Mode.open) as db:
            return run.mutants_of(db, tree)

    def test_bitor_of_an_annotation_is_made_but_left_out(self, made: list[Any]) -> None:
        signature = [m for m in made if m.line == 2 and "BitOr" in m.operator]
        assert signature  # Cosmic Ray makes them: `float | None` turned `float >> None`, ...
        pool, dropped = run.population(made)
        assert not any(m.line == 2 for m in pool)
        assert dropped == {"annotation": len(signature)}
        # the body's `|` is an expression: its mutants stay
        assert any(m.line == 3 and "BitOr" in m.operator for m in pool)
        assert all(m in pool for m in run.sample(pool, 100, seed=0))

    def test_the_report_counts_them_apart_never_as_equivalent(self, made: list[Any]) -> None:
        pool, dropped = run.population(made)
        chosen = run.sample(pool, 3, seed=0)
        text, summary = run.report(
            chosen, {}, {}, 0, 3, "c" * 40, pool=pool, dropped=dropped,
            modules=["reference/__init__.py", "reference/m.py"],
        )  # fmt: skip
        assert f"- {dropped['annotation']} sites inside an annotation" in text
        assert "Argued equivalent in `mutation/equivalent.yaml`: 0 of 3 sampled (0.0%)" in text
        assert f"| `reference/m.py` | {len(pool)} | 3 | 0 | 0 | 0 | 0 | – |" in text
        assert "| `reference/__init__.py` | 0 | 0 |" in text  # a module with no mutant is shown
        assert summary["equivalent"] == 0
        assert summary["leftOut"] == dict(dropped)
        assert all(r["status"] != "equivalent" for r in summary["mutants"])

    def test_a_listed_mutant_stays_in_the_sample_and_counts_as_equivalent(self) -> None:
        m = mutant("m.py", 0)
        pool, _ = run.population([m])
        assert pool == [m]
        listed = {("m.py", "f", "core/NumberReplacer", "x = 1"): "same value"}
        text, summary = run.report([m], {}, listed, 0, 10, "c" * 40, pool=pool)
        assert "1 of 1 sampled (100.0%)" in text
        assert summary["mutants"][0] == {
            "mutant": m.describe(), "key": ["m.py", "f", "core/NumberReplacer", "x = 1", 0],
            "status": "equivalent", "why": "same value",
        }  # fmt: skip


LISTED = {
    ("m.py", "f", "core/NumberReplacer", "x = 1"): "exact",
    ("edge.py", "*", "*", "*"): "no op reaches it",
}


class TestListedReason:
    def test_exact_key_and_wildcards(self) -> None:
        assert run.listed_reason(mutant("m.py", 0), LISTED) == "exact"
        assert run.listed_reason(mutant("m.py", 0, "x = 2"), LISTED) == ""
        assert run.listed_reason(mutant("edge.py", 3, "anything"), LISTED) == "no op reaches it"
        assert run.listed_reason(mutant("other.py", 3), LISTED) == ""
