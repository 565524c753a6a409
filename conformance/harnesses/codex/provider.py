"""Codex pointed at the shared scripted model (`kit/model.py`), in its Responses dialect.

Codex 0.171.0 talks to a custom provider (`model_providers.<id>` with `wire_api =
"responses"`; `"chat"` is refused by this version) by `POST <base_url>/responses` with
`stream: true`, and reads server-sent events. `scripted(script)` is the model server
serving the Responses dialect only, so a request on any other path fails the run;
`overrides(model)` gives the `-c` overrides that point Codex at it (`model_provider`
and its `model_providers` entry, no retries) and `ENV` the key variable the entry names.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

from typing import Final

from ctxspec.conformance.harnesses.kit.model import ModelServer
from ctxspec.conformance.harnesses.kit.model_script import Script
from ctxspec.conformance.harnesses.kit.model_wire import RESPONSES

__all__ = ["ENV", "PROVIDER", "overrides", "scripted"]

PROVIDER: Final = "ctxspec"
_KEY: Final = "CTXSPEC_MOCK_KEY"
ENV: Final = {_KEY: "ctxspec-mock"}


def scripted(script: Script) -> ModelServer:
    """The scripted model Codex asks: the Responses dialect only."""
    return ModelServer(script, dialects=(RESPONSES,))


def overrides(model: ModelServer) -> list[str]:
    """The `-c` overrides that make Codex ask `model` (serving), once per request (no retries)."""
    entry = (
        f'{{name="ctxspec mock",base_url="{model.base_url}",wire_api="responses",'
        f'env_key="{_KEY}",stream_max_retries=0,request_max_retries=0}}'
    )
    return [f"model_provider={PROVIDER}", f"model_providers.{PROVIDER}={entry}"]
