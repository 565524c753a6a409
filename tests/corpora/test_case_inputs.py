"""Each case carries only the entry types and message roles its rule and `why` are about.

A port that cannot take an entry type answers `unsupported` for any input holding it, and
so loses every case whose input holds one, whatever that case pins. This test lists the
kinds each case of an op walking entries or messages carries (`corpus_kinds`) and fails on
a kind that is not:
- one every port takes (`CORE`: user, assistant and tool-result messages);
- named by the case's rule (`RULE_SUBJECTS`, written from the statements in
  corpora/README.md);
- named by the case's `why`, its id or its file's behaviour (`NAMED_BY`: the words that
  name each kind in prose), as the cases over a session holding every type name it.
A header (`session`) is taken wherever the input is a session file's text (`jsonl`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

import pytest
from corpus_kinds import CORE, UNKNOWN, entry_kinds, kinds_of, walking_ops

from ctxspec.conformance.corpus.cases import Case, load_cases

_METADATA = frozenset({"thinking_level_change", "model_change", "custom", "label", "session_info"})
_SESSION_ROLES = frozenset({"message:bashExecution", "message:custom"})
_SUMMARY_ROLES = frozenset({"message:branchSummary", "message:compactionSummary"})
_EVERY_KIND = frozenset(entry_kinds()) | {UNKNOWN}

# rule -> the kinds its statement is about, beyond CORE
RULE_SUBJECTS: Final[Mapping[str, frozenset[str]]] = {
    # "a cut lands on an entry projecting to a user, assistant, bash, custom or summary message"
    "CP-3": _SESSION_ROLES | {"custom_message", "branch_summary", "compaction"},
    # "steps back over entries that project no message (model or thinking changes, labels),
    # stopping at a compaction"
    "CP-7": _METADATA | {"compaction"},
    # "from the previous compaction's kept entry"
    "CP-9": frozenset({"compaction"}),
    # "then a previous summary in <previous-summary>"
    "CP-10": frozenset({"compaction"}),
    # "not newer than the latest compaction"
    "CP-12": frozenset({"compaction"}),
    # "starts with model_change and thinking_level_change"
    "CP-13": frozenset({"model_change", "thinking_level_change"}),
    # "with only the latest compaction's projection"
    "SS-1": frozenset({"compaction"}),
    # "entries project as messages by type"
    "SS-2": _EVERY_KIND,
    # "a session file's lines"
    "SS-3": frozenset({"session"}),
    # "whose first header has a version below 3 ... a compaction's firstKeptEntryIndex"
    "SS-7": frozenset({"session", "compaction", UNKNOWN}),
    # "files of earlier non-hook summaries included"
    "LCA-2": frozenset({"branch_summary"}),
    # "for a user or custom message"
    "LCA-3": frozenset({"message:custom", "custom_message"}),
    # "a summary is appended as branch_summary"
    "LCA-4": frozenset({"branch_summary"}),
    # "passes user, assistant and toolResult, turns bash runs and custom messages into user
    # messages, drops other roles"
    "MSG-1": _SESSION_ROLES | _SUMMARY_ROLES | {UNKNOWN},
    # "summaries reach the model as user text"
    "MSG-2": _SUMMARY_ROLES,
    # "a bash run reads ..."
    "MSG-3": frozenset({"message:bashExecution"}),
    # "a header's id is none"
    "WIRE-2": frozenset({"session"}),
}

# a case over a session holding every type, or every optional field of every type: the mix
# is what it pins
_EVERY = r"every (entry )?type|every role|each type|every optional field"
# kind -> the words that name it in a case's why, id or behaviour
NAMED_BY: Final[Mapping[str, str]] = {
    "session": r"header|session file|\bv[123]\b|version",
    "thinking_level_change": r"thinking[- _]?level|thinking[- ]change|thinking entry",
    "model_change": r"model[- _]change",
    "compaction": r"compaction|compacted|first ?kept",
    "branch_summary": r"branch[- _]summar",
    "custom": r"custom entr|custom-entry|`custom` entr|extension entr|extension data",
    "custom_message": r"custom[- _]message|extension message|customType",
    "label": r"label",
    "session_info": r"session[- _]info|session name",
    "message:bashExecution": r"bash",
    "message:custom": r"custom[- ]role|custom message|role `?custom",
    "message:branchSummary": r"branch[- ]?summar",
    "message:compactionSummary": r"compaction[- ]?summar|summary message",
    UNKNOWN: r"unknown|mystery|hook|no type|future|no role string|(list|object)[- ]role",
}
_METADATA_WORDS = r"metadata|project(s)? no message|projects nothing"


def _named(case: Case, kind: str) -> bool:
    text = f"{case.why} {case.id} {case.behaviour}"
    if re.search(_EVERY, text, re.IGNORECASE):
        return True
    if kind in _METADATA and re.search(_METADATA_WORDS, text, re.IGNORECASE):
        return True
    return re.search(NAMED_BY[kind], text, re.IGNORECASE) is not None


def foreign_kinds(case: Case) -> set[str]:
    """The kinds `case` carries that neither every port takes nor its rule or why name."""
    about = CORE | RULE_SUBJECTS.get(case.rule, frozenset())
    if "jsonl" in case.args:
        about |= {"session"}
    return {kind for kind in kinds_of(case) - about if not _named(case, kind)}


def _walking_cases() -> list[Case]:
    walks = walking_ops()
    return [case for case in load_cases() if case.op in walks and case.status == "active"]


def test_no_case_carries_a_kind_its_rule_and_why_are_not_about() -> None:
    """Every kind a case carries is one every port takes, or named by its rule or why."""
    found = {case.id: sorted(foreign_kinds(case)) for case in _walking_cases()}
    found = {case_id: kinds for case_id, kinds in found.items() if kinds}
    listing = "\n".join(f"{case_id}: {', '.join(kinds)}" for case_id, kinds in found.items())
    assert not found, f"{len(found)} cases carry kinds they are not about:\n{listing}"


@pytest.mark.parametrize("kind", sorted(_EVERY_KIND))
def test_every_kind_has_words_that_name_it(kind: str) -> None:
    """A kind no word names could never be allowed by a why."""
    assert kind in NAMED_BY or kind == "message:user" or kind in CORE


def _case(why: str, rule: str, entries: list[dict[str, object]]) -> Case:
    return Case(
        id="made-up",
        boundary="compaction_threshold",
        op="compaction.prepare",
        rule=rule,
        level="compat",
        why=why,
        behaviour="a made-up case",
        args={"entries": entries},
    )


_ENTRIES: Final = [
    {"type": "message", "id": "u1", "parentId": None, "message": {"role": "user", "content": "x"}},
    {"type": "label", "id": "lb", "parentId": "u1", "targetId": "u1", "label": "here"},
    {"type": "message", "id": "b1", "parentId": "lb", "message": {"role": "bashExecution"}},
]


def test_a_kind_neither_rule_nor_why_names_is_flagged() -> None:
    """A label and a bash run in a case about tokensBefore (CP-9) are foreign to it."""
    found = foreign_kinds(_case("tokensBefore estimates the context", "CP-9", _ENTRIES))
    assert found == {"label", "message:bashExecution"}


def test_a_kind_the_why_or_rule_names_is_not_flagged() -> None:
    """The why naming the bash run, and CP-7 naming labels, leave nothing foreign."""
    assert not foreign_kinds(_case("the cut steps back over a bash run", "CP-7", _ENTRIES))
