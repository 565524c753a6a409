"""The universal checks judge answers in a profile's terms: a sound answer passes every
check, and each kind of broken answer breaks the check that names it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.judging.universal import CHECKS, NotDeclared, judge
from ctxspec.conformance.judging.universal.compaction import expected_compact
from ctxspec.conformance.judging.universal.instructions import select
from ctxspec.conformance.judging.universal.units import size
from ctxspec.conformance.runner.profiles import Profile, load_profile, profile_for

HEAD_TAIL = {
    "unit": "utf16", "limit": 40, "keeps": "head+tail", "recover": "path", "source": "test",
    "pattern": r"(?P<head>.*)\n\[(?P<omitted>\d+) omitted, see (?P<path>\S*)\]\n(?P<tail>.*)",
}  # fmt: skip
PROFILE = {
    "agent": "test-agent", "title": "Test", "versions": ["1.0.0"], "not_applicable": [],
    "tool_output": {"shell": HEAD_TAIL},
    "instructions": {"global": [".t/RULES.md"], "names": ["RULES.md"], "walk": "up-to-marker",
                     "markers": [".git"], "order": "root-to-leaf", "source": "test",
                     "budget": {"unit": "bytes", "limit": 30, "covers": "project"},
                     "cut_marker": None},
    "trust": {"gates": ["project-instructions"], "source": "test"},
    "compaction": {"trigger": {"from": ["usage"], "at": 0.5}, "source": "test",
                   "keep_tail": {"share": 0.3, "unit": "chars"}},
    "sessions": {"resume": True, "fork": True, "source": "test"},
}  # fmt: skip


@pytest.fixture
def profile(tmp_path: Path) -> Profile:
    path = tmp_path / "test-agent.yaml"
    path.write_text(yaml.safe_dump(PROFILE), "utf-8")
    return load_profile(str(path))


def _cut(content: str, head: int, tail: int) -> str:
    omitted = len(content) - head - tail
    return f"{content[:head]}\n[{omitted} omitted, see /tmp/out]\n{content[len(content) - tail :]}"


def kinds(found: list[Any]) -> set[str]:
    return {difference.kind for difference in found}


def test_a_sound_cut_passes_every_check(profile: Profile) -> None:
    content = "x" * 100
    result = {"content": _cut(content, 5, 5), "saved": content}
    found = judge(profile, "agent.tool_output", {"content": content, "limit": 60}, result)
    assert found == []


def test_a_cut_between_surrogate_halves_breaks_whole_characters(profile: Profile) -> None:
    content = "😀" * 50
    split = _cut(content, 2, 2).replace("😀\n[", "\ud83d\n[", 1)
    found = judge(profile, "agent.tool_output", {"content": content, "limit": 200},
                  {"content": split}, ["whole-characters"])  # fmt: skip
    assert kinds(found) == {"violates:whole-characters"}


def test_a_marker_over_the_limit_breaks_fits_budget(profile: Profile) -> None:
    content = "y" * 100
    found = judge(profile, "agent.tool_output", {"content": content, "limit": 20},
                  {"content": _cut(content, 10, 10)})  # fmt: skip
    assert kinds(found) == {"violates:fits-budget"}


def test_an_unmarked_change_and_a_wrong_count_break_marked(profile: Profile) -> None:
    content = "z" * 100
    args = {"content": content, "limit": 200}
    assert kinds(judge(profile, "agent.tool_output", args, {"content": content[:50]})) >= {
        "violates:marked"
    }
    lying = _cut(content, 5, 5).replace("[90 omitted", "[80 omitted")
    assert kinds(judge(profile, "agent.tool_output", args, {"content": lying}, ["marked"])) == {
        "violates:marked"
    }


def test_a_tail_that_is_not_a_suffix_breaks_true_cut(profile: Profile) -> None:
    content = "0123456789" * 10
    wrong = _cut(content, 5, 5)[:-1] + "X"
    found = judge(profile, "agent.tool_output", {"content": content, "limit": 999},
                  {"content": wrong}, ["true-cut"])  # fmt: skip
    assert kinds(found) == {"violates:true-cut"}


def test_a_saved_output_missing_a_character_breaks_saved_whole(profile: Profile) -> None:
    content = "a😀" * 30
    result = {"content": _cut(content, 3, 3), "saved": content[:-1]}
    found = judge(profile, "agent.tool_output", {"content": content}, result, ["saved-whole"])
    assert kinds(found) == {"violates:saved-whole"}


def test_a_tool_the_profile_does_not_declare_is_not_declared(profile: Profile) -> None:
    with pytest.raises(NotDeclared, match=r"tool_output\.read"):
        judge(profile, "agent.tool_output", {"content": "", "tool": "read"}, {"content": ""})


TREE = {
    "home/u/.t/RULES.md": "GLOBAL rules",
    "ws/p/.git/": {},
    "ws/p/RULES.md": "ROOT rules",
    "ws/p/0sub/RULES.md": "ZERO rules",
    "ws/RULES.md": "ABOVE the git root",
}
ARGS = {"tree": TREE, "cwd": "/ws/p/0sub", "home": "/home/u"}


def test_select_walks_to_the_marker_root_to_leaf_global_first(profile: Profile) -> None:
    paths = [f.path for f in select(profile.data["instructions"], ARGS)]
    assert paths == ["/home/u/.t/RULES.md", "/ws/p/RULES.md", "/ws/p/0sub/RULES.md"]


def test_files_sorted_as_strings_break_declared_order(profile: Profile) -> None:
    sound = {"text": "GLOBAL rules\n\nROOT rules\n\nZERO rules"}
    assert judge(profile, "agent.instructions", ARGS, sound) == []
    sorted_ = {"text": "GLOBAL rules\n\nZERO rules\n\nROOT rules"}
    assert kinds(judge(profile, "agent.instructions", ARGS, sorted_)) == {"violates:declared-order"}


def test_a_silently_clipped_file_breaks_selected_files_present(profile: Profile) -> None:
    clipped = {"text": "GLOBAL rules\n\nROOT rules\n\nZERO rul"}
    found = judge(profile, "agent.instructions", ARGS, clipped, ["selected-files-present"])
    assert kinds(found) == {"violates:selected-files-present"}
    assert "cut to" in str(found[0].actual)


def test_a_byte_cut_inside_a_character_breaks_whole_characters(profile: Profile) -> None:
    args = {**ARGS, "tree": {"ws/p/.git/": {}, "ws/p/RULES.md": "é" * 20}, "cwd": "/ws/p"}
    found = judge(profile, "agent.instructions", args, {"text": "é" * 12 + "\ufffd"})
    assert "violates:whole-characters" in kinds(found)


def test_an_untrusted_project_file_in_the_prompt_breaks_untrusted_gated(
    profile: Profile,
) -> None:
    args = {**ARGS, "trust": "untrusted"}
    assert judge(profile, "agent.instructions", args, {"text": "GLOBAL rules"}) == []
    leaked = judge(profile, "agent.instructions", args, {"text": "GLOBAL rules\nROOT rules"})
    assert kinds(leaked) == {"violates:untrusted-gated"}


MESSAGES = [{"role": "user", "text": "u" * 100}, {"role": "assistant", "text": "a" * 100,
            "toolCall": True}, {"role": "tool", "text": "t" * 100},
            {"role": "assistant", "text": "b" * 100}]  # fmt: skip


@pytest.mark.parametrize(
    ("usage", "compact", "broken"),
    [(4999, False, set()), (5000, True, set()), (5000, False, {"violates:trigger-usage"}),
     (4999, True, {"violates:trigger-usage"})],
)  # fmt: skip
def test_usage_at_the_declared_share_triggers(
    profile: Profile, usage: int, compact: bool, broken: set[str]
) -> None:
    args = {"window": 10_000, "usage": usage, "messages": MESSAGES}
    result = {"compact": compact, "keep": 3 if compact else None}
    assert kinds(judge(profile, "agent.compaction", args, result, ["trigger-usage"])) == broken


def test_a_tail_starting_at_a_tool_result_breaks_tool_pair_whole(profile: Profile) -> None:
    args = {"window": 10_000, "usage": 9000, "messages": MESSAGES}
    found = judge(profile, "agent.compaction", args, {"compact": True, "keep": 2})
    assert "violates:tool-pair-whole" in kinds(found)


def test_a_length_cut_summary_accepted_breaks_the_check(profile: Profile) -> None:
    args = {"window": 1, "messages": [], "summary": "x", "stopReason": "length"}
    assert kinds(judge(profile, "agent.summary", args, {"accepted": True})) == {
        "violates:length-cut-refused"
    }
    assert judge(profile, "agent.summary", args, {"accepted": False}) == []


HISTORY = [{"role": "user", "text": "a 😀"}, {"role": "assistant", "text": "b\r\n"}]
RESUME = {"messages": HISTORY, "prompt": "c", "reply": "d"}
CARRIED = [*HISTORY, {"role": "user", "text": "c"}]


def test_a_resumed_history_with_extra_messages_keeps_it(profile: Profile) -> None:
    """The agent may add its own messages; the history is an ordered subsequence."""
    reminder = {"role": "user", "text": "<reminder>"}
    result = {"messages": [reminder, *CARRIED[:2], reminder, CARRIED[2]], "original": None}
    assert judge(profile, "agent.resume", RESUME, result) == []


@pytest.mark.parametrize(
    ("carried", "missing"),
    [
        ([CARRIED[0], CARRIED[2]], "message 1"),
        ([CARRIED[1], CARRIED[0], CARRIED[2]], "message 1"),
        ([{"role": "user", "text": "a \ufffd"}, *CARRIED[1:]], "message 0"),
        (CARRIED[:2], "the prompt"),
    ],
    ids=["dropped", "out-of-order", "damaged", "no-prompt"],
)
def test_a_resumed_history_lost_breaks_resume_keeps_history(
    profile: Profile, carried: list[dict[str, str]], missing: str
) -> None:
    (found,) = judge(profile, "agent.resume", RESUME, {"messages": carried, "original": None})
    assert found.check == "resume-keeps-history"
    assert missing in found.actual


def test_a_fork_s_turn_in_the_original_breaks_fork_leaves_original(profile: Profile) -> None:
    fork = {**RESUME, "fork": True}
    leaked = [*HISTORY, {"role": "user", "text": "c"}, {"role": "assistant", "text": "d"},
              {"role": "user", "text": "c"}]  # fmt: skip
    assert judge(profile, "agent.resume", fork, {"messages": CARRIED, "original": CARRIED}) == []
    (found,) = judge(profile, "agent.resume", fork, {"messages": CARRIED, "original": leaked})
    assert found.check == "fork-leaves-original"
    assert "message 3" in found.actual


def test_a_fork_the_profile_does_not_declare_is_not_declared(profile: Profile) -> None:
    data = {**PROFILE, "sessions": {"resume": True, "fork": False, "source": "test"}}
    linear = Profile("linear", data, "linear.yaml")
    with pytest.raises(NotDeclared, match=r"sessions\.fork"):
        judge(
            linear,
            "agent.resume",
            {**RESUME, "fork": True},
            {"messages": CARRIED, "original": None},
        )


def test_units_count_as_declared() -> None:
    text = "aé😀\ud83d"
    assert [size(text, unit) for unit in ("utf16", "codepoints", "bytes")] == [5, 4, 10]
    assert size("x" * 9, "tokens", {"bytes": 4}) == 3


def test_every_check_has_a_docstring() -> None:
    for checks in CHECKS.values():
        for name, check in checks.items():
            assert check.__doc__, name


def test_a_broken_profile_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**PROFILE, "tool_output": {"shell": {"unit": "furlongs"}}}))
    with pytest.raises(CorpusError, match=r"bad\.yaml: at tool_output/shell"):
        load_profile(str(path))
    with pytest.raises(CorpusError, match="no profile 'nope'"):
        load_profile("nope")


def test_the_pi_family_is_judged_by_the_pi_profile() -> None:
    for impl in ("reference", "fastengine", "pi@1.6.0", "oh-my-pi@18.3.4", "./my-port"):
        assert profile_for(impl).name == "pi"
    pi = load_profile("pi")
    why = pi.not_applicable(op="agent.compaction", boundary="x", name="y", kind="case")
    assert why is not None and "own API" in why


@pytest.mark.parametrize(
    ("combine", "expected"), [("either", True), ("usage-else-estimate", False)]
)
def test_a_reported_usage_overrides_the_estimate_when_declared(
    combine: str, expected: bool
) -> None:
    terms = {"trigger": {"from": ["usage", "estimate"], "at": 0.5, "combine": combine},
             "estimate": {"chars_per_token": 4}}  # fmt: skip
    args = {"window": 1000, "usage": 10, "messages": [{"role": "user", "text": "x" * 4000}]}
    assert expected_compact(terms, args) is expected
    assert expected_compact(terms, {**args, "usage": None}) is True


@pytest.mark.parametrize(("strict", "at_threshold"), [(None, False), (True, False), (False, True)])
def test_a_reserve_is_strict_unless_declared_not(strict: bool | None, at_threshold: bool) -> None:
    trigger: dict[str, object] = {"from": ["usage"], "reserve": 100}
    if strict is not None:
        trigger["strict"] = strict
    args = {"window": 1000, "messages": [{"role": "user", "text": "x"}]}
    assert expected_compact({"trigger": trigger}, {**args, "usage": 900}) is at_threshold
    assert expected_compact({"trigger": trigger}, {**args, "usage": 899}) is False
    assert expected_compact({"trigger": trigger}, {**args, "usage": 901}) is True


def test_an_envelope_around_every_result_is_read_through(profile: Profile) -> None:
    terms = {**HEAD_TAIL, "envelope": r"Exit: \d+\nOutput:\n(?P<body>.*)", "limit": 60}
    enveloped = Profile("e", {**profile.data, "tool_output": {"shell": terms}}, "test")
    short = {"content": "ok\n"}
    assert judge(enveloped, "agent.tool_output", short, {"content": "Exit: 0\nOutput:\nok\n"}) == []
    content = "z" * 100
    cut = {"content": "Exit: 0\nOutput:\n" + _cut(content, 5, 5)}
    assert judge(enveloped, "agent.tool_output", {"content": content}, cut) == []
    assert kinds(judge(enveloped, "agent.tool_output", short, {"content": "Exit: 0\nOut"})) >= {
        "violates:marked"
    }
