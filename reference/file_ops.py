"""The files a Pi 0.85.0 summary lists: the read/write/edit tool calls of the messages
it summarises, carried on from a previous compaction.

Apart from `ctxspec.reference.compaction` because compaction summaries and branch summaries
(`ctxspec.reference.branch`) both list them, and because it is its own rule: which tool calls
count, the order the sets keep, and the two lists (`<read-files>`, `<modified-files>`) a
summary ends with. `ctxspec.reference.compaction` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._utf16 import utf16_key
from ctxspec.reference.session import js_truthy

__all__ = [
    "FILE_OP_TOOLS",
    "FileOperations",
    "compute_file_lists",
    "extract_file_ops_from_message",
    "file_op_calls",
    "format_file_operations",
    "previous_file_ops",
]

# tool name -> which set of FileOperations its `path` argument joins
FILE_OP_TOOLS: Final = {"read": "read", "write": "written", "edit": "edited"}

Entry = Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class FileOperations:
    """Paths of read/write/edit tool calls, each set in first-seen order."""

    read: tuple[str, ...] = ()
    written: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()

    def add(self, kind: str, path: str) -> FileOperations:
        current: tuple[str, ...] = getattr(self, kind)
        if path in current:
            return self
        kinds = {"read": self.read, "written": self.written, "edited": self.edited}
        return FileOperations(**{**kinds, kind: (*current, path)})  # tuples, as built

    def adding(self) -> _FileOpsBuilder:
        """A builder starting from these sets (adds in O(1), unlike `add`)."""
        return _FileOpsBuilder(
            {
                "read": dict.fromkeys(self.read),
                "written": dict.fromkeys(self.written),
                "edited": dict.fromkeys(self.edited),
            }
        )

    def to_pi(self) -> dict[str, Any]:
        return {"read": list(self.read), "written": list(self.written), "edited": list(self.edited)}


class _FileOpsBuilder:
    """FileOperations being gathered: each kind an insertion-ordered set (a dict's keys)."""

    __slots__ = ("_kinds",)

    def __init__(self, kinds: dict[str, dict[str, None]]) -> None:
        self._kinds = kinds

    def add(self, kind: str, path: str) -> None:
        self._kinds[kind].setdefault(path)

    def add_from_messages(self, messages: Sequence[Mapping[str, Any]]) -> None:
        """The `path` of each read/write/edit tool call of the assistant messages, in order."""
        self.add_calls(file_op_calls(messages))

    def add_calls(self, calls: Sequence[tuple[str, str]]) -> None:
        """Each (kind, path) of `file_op_calls`, in order."""
        kinds = self._kinds
        for kind, path in calls:
            kinds[kind].setdefault(path)

    def build(self) -> FileOperations:
        kinds = self._kinds
        read, written, edited = (tuple(kinds[k]) for k in ("read", "written", "edited"))
        return FileOperations(read=read, written=written, edited=edited)


def file_op_calls(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """The (kind, path) of each read/write/edit tool call of the assistant messages, in order.

    A call counts when its block is a `toolCall` with a `name` and `arguments`, and the
    arguments' `path` is a non-empty string.
    """
    found: list[tuple[str, str]] = []
    for message in messages:
        content = message.get("content") if message.get("role") == "assistant" else None
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, Mapping) or block.get("type") != "toolCall":
                continue
            if "name" not in block or "arguments" not in block:
                continue
            arguments, name = block["arguments"], block["name"]
            path = arguments.get("path") if isinstance(arguments, Mapping) else None
            kind = FILE_OP_TOOLS.get(name) if isinstance(name, str) else None
            if kind is not None and isinstance(path, str) and path:
                found.append((kind, path))
    return found


def extract_file_ops_from_message(
    message: Mapping[str, Any], ops: FileOperations
) -> FileOperations:
    """Add the `path` of each read/write/edit tool call of an assistant message."""
    builder = ops.adding()
    builder.add_from_messages((message,))
    return builder.build()


def compute_file_lists(ops: FileOperations) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(read-only files, modified files), each sorted by UTF-16 code units."""
    modified = set(ops.edited) | set(ops.written)
    read_only = sorted((f for f in ops.read if f not in modified), key=utf16_key)
    return tuple(read_only), tuple(sorted(modified, key=utf16_key))


def format_file_operations(read_files: Sequence[str], modified_files: Sequence[str]) -> str:
    """The `<read-files>`/`<modified-files>` blocks appended to a summary, or `""`.

    >>> format_file_operations(["a"], ["b"])
    '\\n\\n<read-files>\\na\\n</read-files>\\n\\n<modified-files>\\nb\\n</modified-files>'
    """
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(sections) if sections else ""


def previous_file_ops(previous: Entry | None) -> FileOperations:
    """The file lists a previous compaction carries on (none when a hook made it)."""
    details = previous.get("details") if previous is not None else None
    if previous is None or js_truthy(previous.get("fromHook")) or not isinstance(details, Mapping):
        return FileOperations()
    ops = FileOperations().adding()
    for name in _list(details.get("readFiles")):
        ops.add("read", name)
    for name in _list(details.get("modifiedFiles")):
        ops.add("edited", name)
    return ops.build()


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
