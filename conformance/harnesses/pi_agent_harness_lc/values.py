"""Values of `pi-agent-harness-lc`'s adapter: the port's modules, and wire JSON <-> its
pydantic models (messages, entries, settings), with the port's validation errors
answered as `invalid_input`.

Part of the adapter (`adapter.py`), run in the port's venv: it imports the standard
library, the port and the harness kit only.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Refused, Unsupported

__all__ = [
    "Args",
    "_call",
    "_compaction",
    "_core_messages",
    "_core_stream",
    "_core_types",
    "_entry_out",
    "_harness",
    "_message",
    "_message_out",
    "_messages",
    "_messages_in",
    "_run",
    "_settings",
    "_skills",
    "_storage",
    "_summaries",
    "_system_prompt",
    "_types",
]

# The port's modules, imported by name: they exist only in the port's venv.
_core_messages: Any = importlib.import_module("pi_agent_core.messages")
_core_types: Any = importlib.import_module("pi_agent_core.types")
_core_stream: Any = importlib.import_module("pi_agent_core.event_stream")
_harness: Any = importlib.import_module("pi_agent_harness")
_types: Any = importlib.import_module("pi_agent_harness.types")
_messages: Any = importlib.import_module("pi_agent_harness.messages")
_compaction: Any = importlib.import_module("pi_agent_harness.compaction")
_summaries: Any = importlib.import_module("pi_agent_harness.compaction.compaction")
_skills: Any = importlib.import_module("pi_agent_harness.skills")
_system_prompt: Any = importlib.import_module("pi_agent_harness.system_prompt")
_storage: Any = importlib.import_module("pi_agent_harness.session.jsonl_storage")
_pydantic: Any = importlib.import_module("pydantic")


# Roles the port types (core messages and the harness's own); others stay plain dicts,
# as the port's own session replay keeps them.
_MESSAGE_TYPES: Final[Mapping[str, Any]] = {
    "user": _core_messages.UserMessage,
    "assistant": _core_messages.AssistantMessage,
    "toolResult": _core_messages.ToolResultMessage,
    "bashExecution": _messages.BashExecutionMessage,
    "custom": _messages.CustomMessage,
    "branchSummary": _messages.BranchSummaryMessage,
    "compactionSummary": _messages.CompactionSummaryMessage,
}


def _refused(error: BaseException) -> BaseException | None:
    """The port's own validation-type refusal in `error`'s chain, if any."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, InvalidInput | Refused | Unsupported):
            return seen
        validation = isinstance(seen, _pydantic.ValidationError | _types.SessionError)
        bad_argument = getattr(seen, "code", None) == "invalid_argument"
        if validation or (bad_argument and isinstance(seen, _types.AgentHarnessError)):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _call(run: Callable[[], Any]) -> Any:
    """`run()`, with the port's validation errors answered as invalid_input."""
    try:
        return run()
    except (InvalidInput, Refused, Unsupported):
        raise
    except Exception as error:
        refused = _refused(error)
        if isinstance(refused, InvalidInput | Refused | Unsupported):
            raise refused from error
        if refused is not None:
            raise Refused(f"{type(refused).__name__}: {refused}") from error
        raise


def _message(raw: Any) -> Any:
    """A wire message as the port's typed message (its `AgentMessage`)."""
    if not isinstance(raw, dict):
        return raw
    kind = _MESSAGE_TYPES.get(str(raw.get("role")))
    return raw if kind is None else kind.model_validate(raw)


def _messages_in(raw: Any) -> list[Any]:
    if not isinstance(raw, list):
        raise InvalidInput("messages", "must be a list")
    return [_message(m) for m in raw]


def _dump(value: Any) -> Any:
    """A port value as JSON, the way the port persists messages (`exclude_none=True`)."""
    if isinstance(value, _pydantic.BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_dump(v) for v in value]
    return value


def _message_out(message: Any) -> Any:
    """A port message in Pi's shape: its `Usage` has a `reasoningTokens` Pi's has not."""
    out = _dump(message)
    if isinstance(out, dict) and isinstance(out.get("usage"), dict):
        out["usage"].pop("reasoningTokens", None)
    return out


def _entry_out(entry: Any) -> Any:
    """A session entry as the port writes it to a session file (its `_entry_to_json`)."""
    return json.loads(_storage._entry_to_json(entry))


def _settings(raw: Any) -> Any:
    raw = raw or {}
    fields = {"enabled": "enabled", "reserveTokens": "reserve_tokens"}
    fields["keepRecentTokens"] = "keep_recent_tokens"
    return _types.CompactionSettings(**{fields[k]: v for k, v in raw.items() if k in fields})


def _run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)
