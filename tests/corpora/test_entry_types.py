"""Every entry type and message role gets a case in every op that walks it.

The matrix is op x kind: the ops that take entries or messages (read from the protocol's
schemas), the entry types of `ctxspec.reference.session.ENTRY_TYPES` and the roles of
`ctxspec.reference.messages.MESSAGE_ROLES` (a message entry counts as its role). A cell is filled
by an active case of the op whose input carries the kind and no other kind beyond the
user, assistant and tool-result messages every port takes (a header besides, in a session
file's text): a port that cannot take some other type still runs it. An empty cell fails,
unless `NO_CELL` says why it cannot exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from corpus_kinds import CORE, MESSAGE_KINDS, entry_kinds, kinds_of, walking_ops

from ctxspec.conformance.corpus.cases import Case, load_cases

# Pi 0.85.0 writes a summary as its own entry (`branch_summary`, `compaction`), never as a
# message entry of its role: those columns cover it
_SUMMARY_ENTRY = "a summary is written as its own entry type, never as a message entry of this role"
# (op or "*", kind) -> why no case can carry that kind in that op
NO_CELL: Final[Mapping[tuple[str, str], str]] = {
    ("*entries", "message:branchSummary"): _SUMMARY_ENTRY,
    ("*entries", "message:compactionSummary"): _SUMMARY_ENTRY,
    ("session.parse", "*"): "parseSessionEntries reads lines as JSON and never an entry's type",
}


def _exempt(op: str, walks: str, kind: str) -> bool:
    return any(
        (key_op in (op, f"*{walks}")) and key_kind in (kind, "*") for key_op, key_kind in NO_CELL
    )


def matrix(cases: Iterable[Case] | None = None) -> dict[str, dict[str, list[str]]]:
    """op -> kind -> the ids of the active cases of the op that carry the kind alone (of
    `cases`, the corpus by default)."""
    walks = walking_ops()
    cells: dict[str, dict[str, list[str]]] = {}
    for op, kind in walks.items():
        columns = entry_kinds() if kind == "entries" else MESSAGE_KINDS
        cells[op] = {column: [] for column in columns if not _exempt(op, kind, column)}
    for case in load_cases() if cases is None else cases:
        row = cells.get(case.op)
        if row is None or case.status != "active":
            continue
        kinds = kinds_of(case)
        others = kinds - CORE - ({"session"} if "jsonl" in case.args else set())
        for kind in kinds:
            if kind in row and others <= {kind}:
                row[kind].append(case.id)
    return cells


def test_every_kind_has_a_case_in_every_op_walking_it() -> None:
    """No cell of the op x kind matrix is empty."""
    cells = matrix()
    empty = [f"{op} x {kind}" for op, row in cells.items() for kind, ids in row.items() if not ids]
    assert not empty, f"{len(empty)} cells without a case:\n" + "\n".join(empty)


def test_the_matrix_reads_the_protocol_and_the_reference() -> None:
    """The rows are the ops that walk entries or messages, the columns every kind."""
    cells = matrix()
    assert {"compaction.cut_point", "session.navigate", "messages.convert"} <= set(cells)
    assert "session.parse" in walking_ops() and not cells["session.parse"]
    assert {"model_change", "session_info", "message:bashExecution"} <= set(cells["session.run"])
    assert "message:compactionSummary" in cells["tokens.estimate"]


def test_no_cell_names_ops_and_kinds_that_exist() -> None:
    """Every exemption names an op that walks entries or messages (or a `*`) and a kind."""
    walks = walking_ops()
    kinds = set(entry_kinds()) | {"*"}
    for op, kind in NO_CELL:
        assert op in walks or op in ("*entries", "*messages"), op
        assert kind in kinds, kind


def test_a_kind_carried_only_beside_another_leaves_its_cell_empty() -> None:
    """Without its single-kind case, `collect x label` is empty, though a case that also
    carries a bash run still holds a label."""
    cases = [c for c in load_cases() if c.id != "collect-label-collects-3"]
    mixed = [c for c in cases if c.op == "branch.collect" and "label" in kinds_of(c)]
    assert mixed, "a mixed branch.collect case holds a label"
    assert not matrix(cases)["branch.collect"]["label"]
    assert matrix()["branch.collect"]["label"] == ["collect-label-collects-3"]
