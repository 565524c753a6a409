"""Project trust: whether a repository may put its own resources in front of the model.

Pi 0.85.0 keeps decisions in `<agentDir>/trust.json` (`{"<realpath dir>": true|false|null}`)
and resolves trust in a fixed order. This module decides, over a `Listing`:

- `parse_trust_store(text, path)`: the store's decisions, or `InvalidTrustStore` with
  Pi's message (`InvalidInput` for text that is not JSON);
- `find_trust_entry(listing, decisions, cwd)`: the nearest `true`/`false` from the
  realpath of `cwd` up to `/` (`null` counts as absent);
- `has_trust_requiring_project_resources(listing, cwd, home=...)`: whether there is
  anything trust would gate;
- `resolve_project_trusted(...)`: the decision, with no UI (Pi's `-p`, json and rpc modes).

Trust gates loading only: context files, the agent directory's resources, `$HOME`'s
`.agents/skills` and explicit paths are never gated (see `resources`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from reference.errors import InvalidInput
from reference.tree import Listing, join, strip_bom

__all__ = [
    "DEFAULT_PROJECT_TRUST_VALUES",
    "TRUST_REQUIRING_CONFIG_ENTRIES",
    "InvalidTrustStore",
    "TrustEntry",
    "TrustResolution",
    "find_trust_entry",
    "has_trust_requiring_project_resources",
    "parse_trust_store",
    "read_trust_store",
    "resolve_project_trusted",
    "trust_store_path",
]

# TRUST-3: entries of `cwd/.pi/` that make trust required (their existence, any type)
TRUST_REQUIRING_CONFIG_ENTRIES: Final = (
    "settings.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)
CONFIG_DIR_NAME: Final = ".pi"
DEFAULT_PROJECT_TRUST_VALUES: Final = ("always", "never", "ask")

Decisions = Mapping[str, bool | None]


class InvalidTrustStore(InvalidInput):
    """trust.json holds JSON of the wrong shape; `str()` is Pi's message, verbatim."""

    def __init__(self, message: str) -> None:
        super().__init__("trustStore", message)
        self.message = message

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustEntry:
    """The stored decision that applies: the directory it was saved for, and its value."""

    path: str
    decision: bool

    def to_pi(self) -> dict[str, Any]:
        return {"path": self.path, "decision": self.decision}


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustResolution:
    """The resolved trust, whether anything needed it, and the stored entry found."""

    trusted: bool
    requires_trust: bool
    stored: TrustEntry | None

    def to_pi(self) -> dict[str, Any]:
        return {
            "trusted": self.trusted,
            "requiresTrust": self.requires_trust,
            "stored": None if self.stored is None else self.stored.to_pi(),
        }


def trust_store_path(agent_dir: str) -> str:
    return join(agent_dir, "trust.json")


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_trust_store(text: str, path: str) -> dict[str, bool | None]:
    """The decisions in a trust.json text (BOM stripped first).

    >>> parse_trust_store('{"/w": true, "/w/x": null}', "/a/trust.json")
    {'/w': True, '/w/x': None}
    >>> parse_trust_store('[]', "/a/trust.json")
    Traceback (most recent call last):
    reference.trust.InvalidTrustStore: Invalid trust store /a/trust.json: expected an object
    """
    try:
        parsed = json.loads(strip_bom(text), parse_constant=_no_constants)
    except ValueError as error:
        # TRUST-1: Pi prefixes V8's JSON.parse message, whose wording is V8's own
        raise InvalidInput("trustStore", f"Failed to read trust store {path}: {error}") from None
    if not isinstance(parsed, dict):
        raise InvalidTrustStore(f"Invalid trust store {path}: expected an object")
    for key, value in parsed.items():
        if value is not True and value is not False and value is not None:
            raise InvalidTrustStore(
                f"Invalid trust store {path}: value for {json.dumps(key, ensure_ascii=False)}"
                " must be true, false, or null"
            )
    return dict(parsed)


def read_trust_store(listing: Listing, agent_dir: str) -> dict[str, bool | None]:
    """The decisions in `<agentDir>/trust.json`; `{}` when there is none."""
    path = trust_store_path(agent_dir)
    if not listing.exists(path):
        return {}
    text = listing.read_text(path)
    if text is None:
        raise InvalidInput("trustStore", f"Failed to read trust store {path}: not readable")
    return parse_trust_store(text, path)


def find_trust_entry(listing: Listing, decisions: Decisions, cwd: str) -> TrustEntry | None:
    """TRUST-2: the nearest `true`/`false` walking up from the realpath of `cwd`.

    >>> find_trust_entry(Listing({}), {"/w": True, "/w/r": None}, "/w/r/x")
    TrustEntry(path='/w', decision=True)
    """
    for directory in listing.walk_up(listing.canonical(cwd)):
        value = decisions.get(directory)
        if value is True or value is False:
            return TrustEntry(path=directory, decision=value)
    return None


def has_trust_requiring_project_resources(listing: Listing, cwd: str, *, home: str) -> bool:
    """TRUST-3: `cwd/.pi/` holds a gated entry, or some `.agents/skills` exists in cwd or
    an ancestor up to `/`, other than `$HOME/.agents/skills` (paths compared by realpath).
    """
    user_skills = join(listing.canonical(home), ".agents", "skills")
    start = listing.canonical(cwd)
    config = join(start, CONFIG_DIR_NAME)
    if any(listing.exists(join(config, name)) for name in TRUST_REQUIRING_CONFIG_ENTRIES):
        return True
    for directory in listing.walk_up(start):
        skills = join(directory, ".agents", "skills")
        # TRUST-3: existence is enough: even a file named `.agents/skills` counts
        if skills != user_skills and listing.exists(skills):
            return True
    return False


def resolve_project_trusted(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    home: str,
    trust_override: bool | None = None,
    default_project_trust: str | None = None,
) -> TrustResolution:
    """TRUST-4: Pi's `resolveProjectTrusted` without a UI or extensions.

    Order: the override flag (`--approve` / `--no-approve`); no trust-requiring resources
    means trusted; the nearest stored decision; `defaultProjectTrust` (`always`, `never`;
    anything else asks); asking without a UI is untrusted. The store is read only when
    the order reaches it, so a broken store raises only then.
    """
    requires = has_trust_requiring_project_resources(listing, cwd, home=home)
    stored: TrustEntry | None = None
    trusted: bool
    if trust_override is not None:
        trusted = trust_override
    elif not requires:
        trusted = True
    else:
        stored = find_trust_entry(listing, read_trust_store(listing, agent_dir), cwd)
        if stored is not None:
            trusted = stored.decision
        else:
            choice: Literal["always", "never", "ask"] | str = default_project_trust or "ask"
            # TRUST-5: "ask" with no UI (-p, json, rpc) is untrusted, and nothing is saved
            trusted = choice == "always"
    if stored is None and (trust_override is not None or not requires):
        stored = _stored_if_readable(listing, agent_dir, cwd)
    return TrustResolution(trusted=trusted, requires_trust=requires, stored=stored)


def _stored_if_readable(listing: Listing, agent_dir: str, cwd: str) -> TrustEntry | None:
    try:
        return find_trust_entry(listing, read_trust_store(listing, agent_dir), cwd)
    except InvalidInput:
        return None
