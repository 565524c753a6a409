"""What a harness scripts the loopback model with, and what the model records (`model.py`).

A script is a list of `Turn`s, the n-th answering the n-th model request, or a function
of the `Request` that returns its `Turn` (None: this request is not scripted). A turn
is what the model says, in order (`Text` and `ToolCall` parts), the `Usage` it reports
(None: none at all) and whether it stopped at the output limit (`cut`); its stop reason
in each dialect follows from those (`stop`). The parts are dialect-neutral: each
dialect's wire format is in `model_wire.py`.

Standard library only, like the rest of the kit: a PyPI port's adapter may run it in
the port's own venv (`transport/pyrun.py`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

__all__ = [
    "EXCERPT",
    "Part",
    "Request",
    "Responder",
    "Script",
    "Stop",
    "Text",
    "ToolCall",
    "Turn",
    "Usage",
    "excerpt",
]

Stop = Literal["end", "tool", "cut"]  # why a turn ended, before a dialect names it
EXCERPT: Final = 240  # characters of a body an error shows, head and tail together


@dataclass(frozen=True, slots=True)
class Text:
    """Assistant text. `id` names the Responses output item (`msg_ctxspec` when empty)."""

    text: str
    id: str = ""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call of the agent's tool `name` with JSON `arguments`; `call_id` pairs it with the
    result the agent sends back."""

    name: str
    arguments: Mapping[str, Any]
    call_id: str

    @property
    def arguments_json(self) -> str:
        """The arguments as the wire carries them: one JSON text."""
        return json.dumps(self.arguments)


Part = Text | ToolCall


@dataclass(frozen=True, slots=True)
class Usage:
    """The token counts a turn reports. `input_tokens` is the whole prompt, of which
    `cached_tokens` were read from a cache (each dialect splits or nests them its way)."""

    input_tokens: int = 0
    output_tokens: int = 1
    cached_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted answer."""

    parts: Sequence[Part]
    usage: Usage | None = field(default_factory=Usage)
    cut: bool = False  # stopped at the output limit

    @property
    def stop(self) -> Stop:
        if self.cut:
            return "cut"
        return "tool" if any(isinstance(part, ToolCall) for part in self.parts) else "end"

    @classmethod
    def say(cls, text: str, **options: Any) -> Turn:
        """A turn of one text (`options`: `usage`, `cut`)."""
        return cls((Text(text),), **options)


@dataclass(frozen=True, slots=True)
class Request:
    """One request as the model received it: `number` counts every request from 1,
    `dialect` is None for a path no dialect serves, `body` the parsed JSON (None when
    there was none), `headers` without the credentials (`model.SECRET_HEADERS`)."""

    number: int
    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    dialect: str | None

    def describe(self) -> str:
        """`METHOD path` and an excerpt of its body, as errors name a request."""
        return f"{self.method} {self.path} (request {self.number}): {excerpt(self.body)}"


def excerpt(body: Any) -> str:
    """A body as one short line: its JSON's head and tail, the middle elided."""
    if body is None:
        return "(no body)"
    text = json.dumps(body, ensure_ascii=True)
    if len(text) <= EXCERPT:
        return text
    half = EXCERPT // 2
    return f"{text[:half]} … {text[-half:]} ({len(text)} characters)"


Responder = Callable[[Request], Turn | None]
Script = Sequence[Turn] | Responder
