"""Project trust: whether a repository may put its own resources in front of the model.

Pi 0.85.0 keeps decisions in `<agentDir>/trust.json` (`{"<realpath dir>": true|false|null}`)
and resolves trust in a fixed order. This module decides, over a `Listing`:

- `parse_trust_store(text, path)`: the store's decisions, or `InvalidTrustStore` with
  Pi's message (`InvalidInput` for text that is not JSON);
- `find_trust_entry(listing, decisions, cwd)`: the nearest `true`/`false` from the
  realpath of `cwd` up to `/` (`null` counts as absent);
- `has_trust_requiring_project_resources(listing, cwd, home=...)`: whether there is
  anything trust would gate;
- `resolve_project_trusted(...)`: the decision, with no UI (Pi's `-p`, json and rpc modes)
  or with the user's answer to Pi's trust prompt (`TrustPromptAnswer`), and what that
  answer saved; a store the decision did not need and cannot read is reported
  (`TrustStoreError`), not raised;
- `trust_prompt(listing, cwd)`: the prompt Pi shows (`TRUST_PROMPT_OPTIONS`).

Trust gates loading only: context files, the agent directory's resources, `$HOME`'s
`.agents/skills` and explicit paths are never gated (see `resources`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from ctxspec.reference._jsjson import js_assign, js_own_keys, js_parse, js_stringify
from ctxspec.reference._utf16 import utf16_key
from ctxspec.reference.engine import js_exception, system_error
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tree import Listing, join, parent, strip_bom

__all__ = [
    "DEFAULT_PROJECT_TRUST_VALUES",
    "TRUST_PROMPT_OPTIONS",
    "TRUST_PROMPT_TITLE",
    "TRUST_REQUIRING_CONFIG_ENTRIES",
    "InvalidTrustStore",
    "TrustEntry",
    "TrustPrompt",
    "TrustPromptAnswer",
    "TrustResolution",
    "TrustStoreError",
    "UnreadableTrustStore",
    "find_trust_entry",
    "has_trust_requiring_project_resources",
    "parse_trust_store",
    "read_trust_store",
    "resolve_project_trusted",
    "trust_prompt",
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

# TRUST-6: the prompt asked when the order reaches "ask" with a UI; `{cwd}` is the cwd as
# given, while the options name its realpath (and that path's parent)
TRUST_PROMPT_TITLE: Final = (
    "Trust project folder?\n{cwd}\n\nThis allows pi to load .pi settings and resources,"
    " install missing project packages, and execute project extensions."
)
# TRUST-6: (label, trusted, what is saved): "dir" saves the decision for the realpath of
# cwd, "parent" saves true for its parent and clears cwd's own entry, "" saves nothing.
# The parent option is left out when cwd is `/`.
TRUST_PROMPT_OPTIONS: Final = (
    ("Trust", True, "dir"),
    ("Trust parent folder ({parent})", True, "parent"),
    ("Trust (this session only)", True, ""),
    ("Do not trust", False, "dir"),
    ("Do not trust (this session only)", False, ""),
)

Decisions = Mapping[str, bool | None]


class InvalidTrustStore(InvalidInput):
    """trust.json holds JSON of the wrong shape; `str()` is Pi's message, verbatim."""

    def __init__(self, message: str) -> None:
        super().__init__("trustStore", message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UnreadableTrustStore(InvalidInput):
    """trust.json exists but cannot be read (`unreadable`) or is not JSON (`notJson`)."""

    def __init__(self, kind: Literal["unreadable", "notJson"], path: str, message: str) -> None:
        super().__init__("trustStore", message)
        self.kind = kind
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustStoreError:
    """Why the store could not be read: `unreadable`, `notJson` or `invalid` (wrong shape).

    `message` is Pi's text; it is None for `notJson`, whose wording is V8's `JSON.parse`.
    """

    kind: Literal["unreadable", "notJson", "invalid"]
    path: str
    message: str | None

    def to_pi(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "path": self.path}
        if self.message is not None:
            out["message"] = self.message
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustPromptAnswer:
    """What the user picks at the trust prompt: an option's label, or None (dismissed)."""

    pick: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TrustPrompt:
    """The prompt shown: its title and the option labels, in order."""

    title: str
    options: tuple[str, ...]

    def to_pi(self) -> dict[str, Any]:
        return {"title": self.title, "options": list(self.options)}


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
    store_error: TrustStoreError | None = None
    # with a UI only: the prompt shown (None if not asked) and trust.json's text after
    with_ui: bool = False
    prompt: TrustPrompt | None = None
    store_after: str | None = None

    def to_pi(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "trusted": self.trusted,
            "requiresTrust": self.requires_trust,
            "stored": None if self.stored is None else self.stored.to_pi(),
        }
        if self.store_error is not None:
            out["storeError"] = self.store_error.to_pi()
        if self.with_ui:
            out["prompt"] = None if self.prompt is None else self.prompt.to_pi()
            out["storeAfter"] = self.store_after
        return out


def trust_store_path(agent_dir: str) -> str:
    return join(agent_dir, "trust.json")


def parse_trust_store(text: str, path: str) -> dict[str, bool | None]:
    """The decisions in a trust.json text (BOM stripped first).

    >>> parse_trust_store('{"/w": true, "/w/x": null}', "/a/trust.json")
    {'/w': True, '/w/x': None}
    >>> parse_trust_store('[]', "/a/trust.json")
    Traceback (most recent call last):
    ctxspec.reference.trust.InvalidTrustStore: Invalid trust store /a/trust.json: expected an object
    """
    try:
        parsed = js_parse(strip_bom(text))
    except ValueError:
        # TRUST-1: Pi prefixes V8's JSON.parse message, whose wording is V8's own: its kind
        message = f"Failed to read trust store {path}: {js_exception('SyntaxError')}"
        raise UnreadableTrustStore("notJson", path, message) from None
    if not isinstance(parsed, dict):
        raise InvalidTrustStore(f"Invalid trust store {path}: expected an object")
    data: dict[str, bool | None] = {}
    # TRUST-1: Object.entries order (index-like keys first) decides which bad value is named
    for key in js_own_keys(parsed):
        value = parsed[key]
        if value is not True and value is not False and value is not None:
            raise InvalidTrustStore(
                f"Invalid trust store {path}: value for {js_stringify(key)}"
                " must be true, false, or null"
            )
        js_assign(data, key, value)  # `data[key] = value`: a `__proto__` key is dropped
    return data


def read_trust_store(listing: Listing, agent_dir: str) -> dict[str, bool | None]:
    """The decisions in `<agentDir>/trust.json`; `{}` when there is none."""
    path = trust_store_path(agent_dir)
    if not listing.exists(path):
        return {}
    text = listing.read_text(path)
    if text is None:
        # TRUST-1: Node's readFileSync error after Pi's prefix, by its kind: reading a
        # directory names no path, opening a file without read permission names it
        cause = system_error("EISDIR") if listing.is_dir(path) else system_error("EACCES", path)
        raise UnreadableTrustStore(
            "unreadable", path, f"Failed to read trust store {path}: {cause}"
        )
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
    ui: TrustPromptAnswer | None = None,
) -> TrustResolution:
    """TRUST-4: Pi's `resolveProjectTrusted` without extensions.

    Order: the override flag (`--approve` / `--no-approve`); no trust-requiring resources
    means trusted; the nearest stored decision; `defaultProjectTrust` (`always`, `never`;
    anything else asks); asking without a UI (`ui` None) is untrusted, with one it is the
    picked option's decision, saved as the option says (TRUST-6). The store is read only
    when the order reaches it, so a broken store raises only then (`InvalidTrustStore`,
    `UnreadableTrustStore`); otherwise `stored` is looked up afterwards and a store that
    cannot be read gives `store_error`.
    """
    requires = has_trust_requiring_project_resources(listing, cwd, home=home)
    path = trust_store_path(agent_dir)
    stored: TrustEntry | None = None
    prompt: TrustPrompt | None = None
    trusted: bool
    if trust_override is not None:
        trusted = trust_override
    elif not requires:
        trusted = True
    else:
        decisions = read_trust_store(listing, agent_dir)
        stored = find_trust_entry(listing, decisions, cwd)
        choice: Literal["always", "never", "ask"] | str = default_project_trust or "ask"
        if stored is not None:
            trusted = stored.decision
        elif choice in ("always", "never") or ui is None:
            # TRUST-5: "ask" with no UI (-p, json, rpc) is untrusted, and nothing is saved
            trusted = choice == "always"
        else:
            prompt, options = trust_prompt(listing, cwd)
            picked = options.get(ui.pick) if ui.pick is not None else None
            trusted = picked is not None and picked[0]
            if picked is not None and picked[1]:
                listing = listing.with_file(path, _store_text(decisions, picked[1]).encode())
                stored = find_trust_entry(listing, read_trust_store(listing, agent_dir), cwd)
    store_error = None
    if stored is None and (trust_override is not None or not requires):
        stored, store_error = _stored_if_readable(listing, agent_dir, cwd)
    return TrustResolution(
        trusted=trusted,
        requires_trust=requires,
        stored=stored,
        store_error=store_error,
        with_ui=ui is not None,
        prompt=prompt,
        store_after=listing.read_text(path) if ui is not None else None,
    )


Updates = tuple[tuple[str, bool | None], ...]


def trust_prompt(listing: Listing, cwd: str) -> tuple[TrustPrompt, dict[str, tuple[bool, Updates]]]:
    """TRUST-6: the prompt for `cwd`, and each label's (decision, updates to the store).

    >>> prompt, options = trust_prompt(Listing({}), "/w/r")
    >>> prompt.options[1], options[prompt.options[1]]
    ('Trust parent folder (/w)', (True, (('/w', True), ('/w/r', None))))
    """
    real = listing.canonical(cwd)
    above = parent(real)
    options: dict[str, tuple[bool, Updates]] = {}
    for label, decision, saves in TRUST_PROMPT_OPTIONS:
        if saves == "parent":
            if above == real:
                continue
            options[label.format(parent=above)] = (decision, ((above, True), (real, None)))
        else:
            options[label] = (decision, ((real, decision),) if saves == "dir" else ())
    return TrustPrompt(title=TRUST_PROMPT_TITLE.format(cwd=cwd), options=tuple(options)), options


def _store_text(decisions: Decisions, updates: Updates) -> str:
    """trust.json as Pi writes it after `updates`: keys sorted, two-space JSON, a newline."""
    data = dict(decisions)
    for key, value in updates:
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    # TRUST-6: keys sorted as `sort()` sorts (UTF-16 units), then JSON.stringify(sorted,
    # null, 2), which writes index-like keys first and escapes lone surrogates
    ordered = {key: data[key] for key in sorted(data, key=utf16_key)}
    return js_stringify(ordered, 2) + "\n"


def _stored_if_readable(
    listing: Listing, agent_dir: str, cwd: str
) -> tuple[TrustEntry | None, TrustStoreError | None]:
    """The stored entry, or None and why the store cannot be read."""
    try:
        return find_trust_entry(listing, read_trust_store(listing, agent_dir), cwd), None
    except InvalidTrustStore as error:
        return None, TrustStoreError(
            kind="invalid", path=trust_store_path(agent_dir), message=error.message
        )
    except UnreadableTrustStore as error:
        message = None if error.kind == "notJson" else error.message
        return None, TrustStoreError(kind=error.kind, path=error.path, message=message)
