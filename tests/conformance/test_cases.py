"""The corpus itself: schema-valid, linted, and covering what it claims."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from ctxspec.cli import main
from ctxspec.conformance.corpus.cases import BOUNDARIES, expand, lint, load_cases, rule_index
from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.runner.expectations import default_expectations_file, load_expectations
from ctxspec.corpora.generators.sessions import filler, session


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
    """The builders of case files (ctxspec.conformance.corpus.builders)."""

    def test_repeat_and_concat(self) -> None:
        """$repeat and $concat build the string they describe."""
        built = expand({"$concat": ["x\n", {"$repeat": "é", "$times": 3}]})
        assert built == "x\nééé"

    def test_base64_and_repeated_blocks(self) -> None:
        """$base64 encodes the UTF-8 of what it holds; $repeat repeats a built block."""
        assert expand({"$base64": {"$lines": "{n}", "$count": 3}}) == "MQoyCjM="
        block = {"$concat": [{"$repeat": "y", "$times": 2}, "\n"]}
        assert expand({"$repeat": block, "$times": 3}) == "yy\nyy\nyy\n"
        template = {"$concat": ["f:{n}: ", {"$repeat": "k", "$times": 2}]}
        assert expand({"$lines": template, "$count": 2}) == "f:1: kk\nf:2: kk"
        with pytest.raises(CorpusError, match="lone surrogate"):
            expand({"$base64": "\ud83d"}, "here")

    def test_code_units_make_lone_surrogates(self) -> None:
        """$codeUnits can build a lone surrogate and combines a pair."""
        assert expand({"$codeUnits": [0x61, 0xD83D]}) == "a\ud83d"
        assert expand({"$codeUnits": [0xD83D, 0xDE42]}) == "🙂"

    def test_lines_number_a_template(self) -> None:
        """$lines formats `{n}` from $start for $count lines, joined by $join."""
        assert expand({"$lines": "l{n:02}", "$count": 3, "$start": 9}) == "l09\nl10\nl11"
        assert expand({"$lines": "x{n}", "$count": 2, "$join": ", "}) == "x1, x2"
        assert expand({"$lines": "x", "$count": 0}) == ""

    def test_repeat_and_concat_take_lists(self) -> None:
        """$repeat repeats a list's items and $concat joins lists into one."""
        assert expand({"$repeat": [1, 2], "$times": 2}) == [1, 2, 1, 2]
        assert expand({"$concat": [[1], {"$repeat": [2], "$times": 2}]}) == [1, 2, 2]

    def test_session_slice_messages_and_jsonl(self) -> None:
        """$session builds entries; $slice cuts them by id or index; $messages takes the
        messages of message entries; $jsonl writes one compact JSON line each."""
        built = expand({"$session": [{"turns": 2}, {"model_change": "mc"}, {"user": "u3"}]})
        assert [e["id"] for e in built] == ["u1", "a1", "u2", "a2", "mc", "u3"]
        cut = expand({"$slice": built, "$from": "a1", "$to": 5})
        assert [e["id"] for e in cut] == ["a1", "u2", "a2", "mc"]
        assert [m["role"] for m in expand({"$messages": cut})] == ["assistant", "user", "assistant"]
        text = expand({"$jsonl": [{"a": "é"}, [1]]})
        assert text == '{"a":"é"}\n[1]\n'

    def test_builders_nest_inside_out(self) -> None:
        """A builder's arguments are expanded first, so builders compose."""
        script = [{"user": "u1", "text": {"$repeat": "ab", "$times": 2}}]
        (entry,) = expand({"$session": script})
        assert entry["message"]["content"] == "abab"

    @pytest.mark.parametrize(
        "bad",
        [
            {"$repeat": "x"},
            {"$repeat": 3, "$times": 2},
            {"$concat": "ab"},
            {"$concat": ["a", ["b"]]},
            {"$codeUnits": [0x110000]},
            {"$nope": 1},
            {"$repeat": "x", "$times": 2, "extra": 1},
            {"$lines": "{m}", "$count": 2},
            {"$lines": "x", "$count": -1},
            {"$session": [{"user": "u1", "colour": "red"}]},
            {"$session": [{"user": "u1", "assistant": "a1"}]},
            {"$session": "u1"},
            {"$slice": [{"id": "a"}], "$from": "b"},
            {"$messages": "x"},
            {"$jsonl": {"a": 1}},
        ],
    )
    def test_malformed_builders_are_corpus_errors(self, bad: dict[str, object]) -> None:
        """A malformed builder is a CorpusError, not a crash."""
        with pytest.raises(CorpusError):
            expand(bad, "test")


class TestSessionGenerator:
    """ctxspec.corpora.generators.sessions: deterministic sessions from a script."""

    def test_same_script_same_entries(self) -> None:
        """Nothing is random: two runs of one script are equal."""
        script = [{"header": 3}, {"turns": 3, "user": 50, "calls": ["read a.ts"], "result": 9}]
        assert session(script) == session(script)

    def test_tokens_are_exact(self) -> None:
        """`tokens: N` gives 4N code units of numbered lines, none ending in a space."""
        text = filler("u7", 4 * 1234)
        assert len(text) == 4936
        assert text.startswith("u7 line 1: ")
        assert " \n" not in text and not text.endswith(" ")

    def test_parents_chain_and_override(self) -> None:
        """Each entry is the child of the one before; `parent` overrides; headers are no parent."""
        built = session(
            [{"header": 2}, {"user": "u1"}, {"user": "u2", "parent": None}, {"user": "u3"}]
        )
        assert [(e.get("id"), e.get("parentId")) for e in built] == [
            ("s1", None),
            ("u1", None),
            ("u2", None),
            ("u3", "u2"),
        ]
        assert built[0]["version"] == 2

    def test_turns_with_calls_name_their_results(self) -> None:
        """A turn with calls: u<n>, t<n> calling, r<n> answering, a<n> replying."""
        built = session([{"turns": 1, "from": 4, "calls": ["edit b.ts"]}])
        assert [e["id"] for e in built] == ["u4", "t4", "r4", "a4"]
        assert built[2]["message"]["toolCallId"] == "t4.1"
        assert built[1]["message"]["content"][0]["arguments"] == {"path": "b.ts"}


class TestCasesShow:
    """`ctxspec cases show ID`: a case as another language reads it, builders expanded."""

    def test_prints_the_expanded_case(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The case's args come out with `$session` turned into entries."""
        assert main(["cases", "show", "default-keep-cut-on-user-starts-turn"]) == 0
        record = json.loads(capsys.readouterr().out)
        assert record["op"] == "compaction.cut_point"
        assert len(record["args"]["entries"]) == 24
        assert record["expect"]["result"]["firstKeptEntryIndex"] == 4

    def test_an_old_id_shows_the_renamed_case_and_says_so(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """An id the alias table renamed shows the case under its new id, with one warning."""
        old = "tail-last-line-exactly-max-bytes-marked-partial"  # named by no other test: the
        new = "tail-last-line-exactly-max-bytes-kept-whole"  # warning is once per process
        assert main(["cases", "show", old]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out)["id"] == new
        assert err.count(f"is now {new!r}") == 1

    @pytest.mark.parametrize("argv", [["cases", "show"], ["cases", "show", "no-such-case"]])
    def test_unknown_or_no_id_is_a_usage_error(
        self, argv: list[str], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """No id, or an id no case has, is one line on stderr and status 2."""
        assert main(argv) == 2
        assert capsys.readouterr().err.count("\n") == 1
