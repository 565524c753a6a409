"""Resources: what Pi's resource loader puts in front of the model, and from where (Pi 0.85.0).

`load_resources(listing, cwd=..., agent_dir=..., home=..., project_trusted=...)` is
`DefaultResourceLoader.reload()` with a `SettingsManager` whose project trust is given:

- context files (`discovery.load_project_context_files`, never gated; `no_context_files`);
- skills and prompt templates from the roots of `SKILL_ROOTS` / `PROMPT_ROOTS`, in that
  order, then the explicit `additional_*_paths` (RES-1): the first of a name wins, the
  same real file twice is skipped silently, a missing explicit path is a diagnostic;
- the system prompt and append list: explicit values, else `SYSTEM.md` /
  `APPEND_SYSTEM.md` from the trusted project or the agent directory (RES-4, RES-5).

Untrusted, every root marked `gated` is skipped, project `.pi/settings.json` included
(RES-2). Not modelled: extensions (loading them runs project code), themes, packages,
glob and `!` patterns in settings entries (`InvalidInput`), `.gitignore` matching.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from reference.discovery import ContextFile, load_project_context_files
from reference.errors import InvalidInput
from reference.skills import Diagnostic, Skill, load_skills_from_dir, parse_skill_file
from reference.tree import Listing, join, normalize, strip_bom

__all__ = [
    "PROMPT_ROOTS",
    "SKILL_ROOTS",
    "PromptTemplate",
    "Resources",
    "load_resources",
]

Scope = Literal["project-settings", "project", "agents-ancestors", "user-settings", "user", "home"]

# RES-1: the roots in precedence order (first wins on a name); `gated` ones need trust.
# `project-settings`/`user-settings` are the `skills`/`prompts` entries of
# `cwd/.pi/settings.json` (relative to `cwd/.pi`) and `<agentDir>/settings.json`.
SKILL_ROOTS: Final[tuple[tuple[Scope, str, bool], ...]] = (
    ("project-settings", "<cwd>/.pi/settings.json skills", True),
    ("project", "<cwd>/.pi/skills", True),
    ("agents-ancestors", "<dir>/.agents/skills, dir = cwd up to the git root", True),
    ("user-settings", "<agentDir>/settings.json skills", False),
    ("user", "<agentDir>/skills", False),
    ("home", "$HOME/.agents/skills", False),
)
PROMPT_ROOTS: Final[tuple[tuple[Scope, str, bool], ...]] = (
    ("project-settings", "<cwd>/.pi/settings.json prompts", True),
    ("project", "<cwd>/.pi/prompts", True),
    ("user-settings", "<agentDir>/settings.json prompts", False),
    ("user", "<agentDir>/prompts", False),
)
SKILL_PATH_MISSING: Final = ("warning", "skill path does not exist")
PROMPT_PATH_MISSING: Final = ("error", "Prompt template path does not exist")
_GLOB_CHARS: Final = frozenset("*?[{!")


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptTemplate:
    """A prompt template: its name (the file name without `.md`) and path."""

    name: str
    file_path: str

    def to_pi(self) -> dict[str, Any]:
        return {"name": self.name, "filePath": self.file_path}


@dataclass(frozen=True, slots=True, kw_only=True)
class Resources:
    """What one `reload()` yields (the parts that compare across machines)."""

    context_files: tuple[ContextFile, ...]
    skills: tuple[Skill, ...]
    skill_diagnostics: tuple[Diagnostic, ...]
    prompts: tuple[PromptTemplate, ...]
    prompt_diagnostics: tuple[Diagnostic, ...]
    system_prompt: str | None
    append_system_prompt: tuple[str, ...]

    def to_pi(self) -> dict[str, Any]:
        return {
            "agentsFiles": [f.to_pi() for f in self.context_files],
            "skills": [
                {
                    "name": s.name,
                    "filePath": s.file_path,
                    "disableModelInvocation": s.disable_model_invocation,
                }
                for s in self.skills
            ],
            "skillDiagnostics": [d.to_pi() for d in self.skill_diagnostics],
            "prompts": [p.to_pi() for p in self.prompts],
            "promptDiagnostics": [d.to_pi() for d in self.prompt_diagnostics],
            "systemPrompt": self.system_prompt,
            "appendSystemPrompt": list(self.append_system_prompt),
        }


def _settings_entries(listing: Listing, settings: str, key: str) -> tuple[str, ...]:
    """The `key` entries of a settings file, absolute (relative to the file's directory)."""
    text = listing.read_text(settings)
    if text is None:
        return ()
    try:
        data = json.loads(strip_bom(text))
    except ValueError:
        return ()
    entries = data.get(key) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return ()
    base = posixpath.dirname(settings)
    out: list[str] = []
    for entry in entries:
        if not isinstance(entry, str):
            continue
        if _GLOB_CHARS & set(entry) or entry[:1] in "+-":
            raise InvalidInput("tree", f"{settings}: pattern entry {entry!r} is not modelled")
        out.append(normalize(entry) if entry.startswith("/") else join(base, entry))
    return tuple(out)


def _git_root(listing: Listing, cwd: str) -> str:
    """The nearest directory at or above `cwd` holding a `.git` entry, else `/`."""
    for directory in listing.walk_up(cwd):
        if listing.exists(join(directory, ".git")):
            return directory
    return "/"


def _agents_root(
    listing: Listing, root: str, out: list[tuple[Skill, str]], diags: list[Diagnostic]
) -> None:
    """An `.agents/skills` root: its sub-directories are scanned, its own `*.md` are not."""
    if not listing.is_dir(root):
        return
    for name in listing.children(root):
        path = join(root, name)
        if name.startswith(".") or name == "node_modules" or not listing.is_dir(path):
            continue
        load_skills_from_dir(listing, path, out, diags)


def _skill_file(
    listing: Listing, path: str, out: list[tuple[Skill, str]], diags: list[Diagnostic]
) -> None:
    text = listing.read_text(path)
    if text is None:
        return
    skill, warnings = parse_skill_file(
        path, text, is_skill_file=posixpath.basename(path) == "SKILL.md"
    )
    diags.extend(warnings)
    if skill is not None:
        out.append((skill, listing.canonical(path)))


def _skill_path(
    listing: Listing, path: str, out: list[tuple[Skill, str]], diags: list[Diagnostic]
) -> bool:
    """Load a directory or `.md` file; False when nothing exists at `path`."""
    if not listing.exists(path):
        return False
    if listing.is_dir(path):
        load_skills_from_dir(listing, path, out, diags)
    elif path.endswith(".md"):
        _skill_file(listing, path, out, diags)
    return True


def _collect_skills(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    home: str,
    trusted: bool,
    no_skills: bool,
    additional: Sequence[str],
) -> tuple[tuple[Skill, ...], tuple[Diagnostic, ...]]:
    found: list[tuple[Skill, str]] = []
    diags: list[Diagnostic] = []
    if not no_skills:
        # RES-1, RES-2: gated roots only when the project is trusted
        if trusted:
            for path in _settings_entries(listing, join(cwd, ".pi", "settings.json"), "skills"):
                _skill_path(listing, path, found, diags)
            if listing.is_dir(join(cwd, ".pi", "skills")):
                load_skills_from_dir(listing, join(cwd, ".pi", "skills"), found, diags)
            # RES-3: `.agents/skills` from cwd up to the git root, nearest first
            stop = _git_root(listing, cwd)
            for directory in listing.walk_up(cwd):
                _agents_root(listing, join(directory, ".agents", "skills"), found, diags)
                if directory == stop:
                    break
        for path in _settings_entries(listing, join(agent_dir, "settings.json"), "skills"):
            _skill_path(listing, path, found, diags)
        if listing.is_dir(join(agent_dir, "skills")):
            load_skills_from_dir(listing, join(agent_dir, "skills"), found, diags)
        _agents_root(listing, join(home, ".agents", "skills"), found, diags)
    # RES-1: explicit paths come last (they lose name collisions) and are never gated
    for path in additional:
        if not _skill_path(listing, path, found, diags):
            kind, message = SKILL_PATH_MISSING
            diags.append(Diagnostic(type=kind, message=message, path=path))
    winners: dict[str, Skill] = {}
    collisions: list[Diagnostic] = []
    real_seen: set[str] = set()
    for skill, real in found:
        if real in real_seen:
            continue
        real_seen.add(real)
        if skill.name in winners:
            collisions.append(_collision("skill", skill.name, winners[skill.name].file_path, skill))
            continue
        winners[skill.name] = skill
    return tuple(winners.values()), (*diags, *collisions)


def _collision(kind: str, name: str, winner: str, loser: Skill | PromptTemplate) -> Diagnostic:
    # RES-6: a prompt collision names the command (`/name`), a skill collision the name
    shown = f"/{name}" if kind == "prompt" else name
    return Diagnostic(
        type="collision",
        message=f'name "{shown}" collision',
        path=loser.file_path,
        collision={
            "resourceType": kind,
            "name": name,
            "winnerPath": winner,
            "loserPath": loser.file_path,
        },
    )


def _prompt_path(listing: Listing, path: str, out: list[tuple[PromptTemplate, str]]) -> bool:
    """RES-6: a directory gives its own `*.md` files (not sub-directories); a file itself."""
    if not listing.exists(path):
        return False
    files = (
        [join(path, n) for n in listing.children(path) if n.endswith(".md")]
        if listing.is_dir(path)
        else [path]
    )
    for file in files:
        if listing.is_file(file) and listing.read_bytes(file) is not None:
            name = posixpath.basename(file).removesuffix(".md")
            out.append((PromptTemplate(name=name, file_path=file), listing.canonical(file)))
    return True


def _collect_prompts(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    trusted: bool,
    no_prompts: bool,
    additional: Sequence[str],
) -> tuple[tuple[PromptTemplate, ...], tuple[Diagnostic, ...]]:
    found: list[tuple[PromptTemplate, str]] = []
    diags: list[Diagnostic] = []
    if not no_prompts:
        roots: list[str] = []
        if trusted:
            roots += _settings_entries(listing, join(cwd, ".pi", "settings.json"), "prompts")
            roots.append(join(cwd, ".pi", "prompts"))
        roots += _settings_entries(listing, join(agent_dir, "settings.json"), "prompts")
        roots.append(join(agent_dir, "prompts"))
        for root in roots:
            _prompt_path(listing, root, found)
    for path in additional:
        if not _prompt_path(listing, path, found):
            kind, message = PROMPT_PATH_MISSING
            diags.append(Diagnostic(type=kind, message=message, path=path))
    winners: dict[str, PromptTemplate] = {}
    collisions: list[Diagnostic] = []
    real_seen: set[str] = set()
    for prompt, real in found:
        if real in real_seen:
            continue
        real_seen.add(real)
        if prompt.name in winners:
            collisions.append(
                _collision("prompt", prompt.name, winners[prompt.name].file_path, prompt)
            )
            continue
        winners[prompt.name] = prompt
    return tuple(winners.values()), (*diags, *collisions)


def _file_or_literal(listing: Listing, value: str) -> str:
    """RES-5: an explicit value naming an existing file is its text (BOM stripped)."""
    if value.startswith("/") and listing.is_file(value):
        text = listing.read_text(value)
        if text is not None:
            return strip_bom(text)
    return value


def _discovered(listing: Listing, cwd: str, agent_dir: str, name: str, trusted: bool) -> str | None:
    """RES-4: the trusted project's `.pi/<name>`, else `<agentDir>/<name>`, else None."""
    candidates = ([join(cwd, ".pi", name)] if trusted else []) + [join(agent_dir, name)]
    for path in candidates:
        if listing.is_file(path):
            text = listing.read_text(path)
            if text is not None:
                return strip_bom(text)
    return None


def load_resources(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    home: str,
    project_trusted: bool = True,
    additional_skill_paths: Sequence[str] = (),
    additional_prompt_template_paths: Sequence[str] = (),
    no_skills: bool = False,
    no_prompt_templates: bool = False,
    no_context_files: bool = False,
    system_prompt: str | None = None,
    append_system_prompt: Sequence[str] | None = None,
) -> Resources:
    """Pi's `DefaultResourceLoader({...}).reload()` over a listing (paths absolute).

    `system_prompt=""` and `append_system_prompt=[]` switch discovery off; empty append
    items are dropped. Raises `InvalidInput` for a settings entry that is a pattern.

    >>> tree = Listing.from_wire({"w/.pi/SYSTEM.md": "P", "a/SYSTEM.md": "G"})
    >>> untrusted = load_resources(tree, cwd="/w", agent_dir="/a", home="/h", project_trusted=False)
    >>> untrusted.system_prompt
    'G'
    """
    cwd, agent_dir, home = normalize(cwd), normalize(agent_dir), normalize(home)
    context = (
        ()
        if no_context_files
        else load_project_context_files(listing, cwd=cwd, agent_dir=agent_dir)
    )
    skills, skill_diags = _collect_skills(
        listing,
        cwd=cwd,
        agent_dir=agent_dir,
        home=listing.canonical(home),
        trusted=project_trusted,
        no_skills=no_skills,
        additional=tuple(normalize(p) for p in additional_skill_paths),
    )
    prompts, prompt_diags = _collect_prompts(
        listing,
        cwd=cwd,
        agent_dir=agent_dir,
        trusted=project_trusted,
        no_prompts=no_prompt_templates,
        additional=tuple(normalize(p) for p in additional_prompt_template_paths),
    )
    # RES-4, RES-5: an explicit value replaces discovery; "" means none
    if system_prompt is None:
        system = _discovered(listing, cwd, agent_dir, "SYSTEM.md", project_trusted)
    else:
        system = _file_or_literal(listing, system_prompt) if system_prompt else None
    if append_system_prompt is None:
        found = _discovered(listing, cwd, agent_dir, "APPEND_SYSTEM.md", project_trusted)
        append: tuple[str, ...] = () if found is None else (found,)
    else:
        append = tuple(_file_or_literal(listing, item) for item in append_system_prompt if item)
    return Resources(
        context_files=context,
        skills=skills,
        skill_diagnostics=skill_diags,
        prompts=prompts,
        prompt_diagnostics=prompt_diags,
        system_prompt=system,
        append_system_prompt=append,
    )
