"""Skills: discovery with diagnostics, and the `<available_skills>` block (Pi 0.85.0).

- `load_skills(listing, cwd=..., agent_dir=..., skill_paths=..., include_defaults=...)`:
  Pi's `loadSkills`: `<agentDir>/skills`, then `cwd/.pi/skills`, then the explicit paths;
  the first skill of a name wins (SKILL-5);
- `parse_skill_file(path, text, ...)`: the front matter (`ctxspec.reference.frontmatter`, YAML
  1.2 core schema as Pi's `yaml` reads it) and its warnings;
- `format_skills_for_prompt(skills, tool)`: the block the system prompt carries.

Each skill carries Pi's `sourceInfo` (`SourceInfo`), sent when a request asks for it.
Directory scans pass over what the ignore files inside them match (SKILL-9,
`ctxspec.reference.ignore`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ctxspec.reference._utf16 import code_units
from ctxspec.reference.frontmatter import FrontmatterError, js_trim, parse_frontmatter
from ctxspec.reference.ignore import IgnoreMatcher, IgnoreRuleError, read_rules
from ctxspec.reference.paths import resolve_path
from ctxspec.reference.scans import scan_children
from ctxspec.reference.tree import Listing, join

__all__ = [
    "MAX_DESCRIPTION_LENGTH",
    "MAX_NAME_LENGTH",
    "Diagnostic",
    "Skill",
    "SkillsResult",
    "SourceInfo",
    "escape_xml",
    "first_of_each_name",
    "format_skills_for_prompt",
    "load_skill_file",
    "load_skills",
    "load_skills_from_dir",
    "parse_skill_file",
    "skill_collision",
]

MAX_NAME_LENGTH: Final = 64
MAX_DESCRIPTION_LENGTH: Final = 1024
SKILL_FILE: Final = "SKILL.md"
# SKILL-3: JS `/^[a-z0-9-]+$/` (no `m` flag): `$` is the end of the name only, where
# Python's `$` would also match before a final "\n"
_NAME_CHARS: Final = re.compile(r"[a-z0-9-]+")
# SKILL-6: the five XML escapes, `&` first
XML_ESCAPES: Final = (
    ("&", "&amp;"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ('"', "&quot;"),
    ("'", "&apos;"),
)
SKILLS_INTRO: Final = (
    "\n\nThe following skills provide specialized instructions for specific tasks.",
)
RELATIVE_PATHS_LINE: Final = (
    "When a skill file references a relative path, resolve it against the skill directory "
    "(parent of SKILL.md / dirname of the path) and use that absolute path in tool commands."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceInfo:
    """Where a resource came from (Pi's `sourceInfo`): `source` is `local`, `auto`, ...;
    `scope` `user`, `project` or `temporary`; `base_dir` None where Pi leaves it out."""

    path: str
    source: str
    scope: str = "temporary"
    origin: str = "top-level"
    base_dir: str | None = None

    def to_pi(self) -> dict[str, Any]:
        wire = {"path": self.path, "source": self.source, "scope": self.scope}
        wire["origin"] = self.origin
        if self.base_dir is not None:
            wire["baseDir"] = self.base_dir
        return wire


# SKILL-8: the sourceInfo `loadSkills` gives per kind of root: scope and source
SKILL_SOURCES: Final = {
    "user": ("local", "user"),
    "project": ("local", "project"),
    "path": ("local", "temporary"),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Skill:
    """A loaded skill (Pi's `Skill`)."""

    name: str
    description: str
    file_path: str
    base_dir: str
    disable_model_invocation: bool = False
    source_info: SourceInfo | None = None

    def to_pi(self, *, extended: bool = False) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "filePath": self.file_path,
            "baseDir": self.base_dir,
            "disableModelInvocation": self.disable_model_invocation,
        }
        if extended and self.source_info is not None:
            wire["sourceInfo"] = self.source_info.to_pi()
        return wire


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """A warning or a name collision met while loading."""

    type: str
    message: str
    path: str
    collision: Mapping[str, Any] | None = None

    @classmethod
    def of_collision(
        cls, resource_type: str, name: Any, *, shown: str, winner_path: str, loser_path: str
    ) -> Diagnostic:
        """A name collision (SKILL-5, RES-6, THEME-3), at the loser's path: each kind
        shows the name in the message its own way (`shown`)."""
        return cls(
            type="collision",
            message=f'name "{shown}" collision',
            path=loser_path,
            collision={
                "resourceType": resource_type,
                "name": name,
                "winnerPath": winner_path,
                "loserPath": loser_path,
            },
        )

    def to_pi(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.type, "message": self.message, "path": self.path}
        if self.collision is not None:
            wire["collision"] = dict(self.collision)
        return wire


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillsResult:
    skills: tuple[Skill, ...]
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    def to_pi(self, *, extended: bool = False) -> dict[str, Any]:
        return {
            "skills": [s.to_pi(extended=extended) for s in self.skills],
            "diagnostics": [d.to_pi() for d in self.diagnostics],
        }


def escape_xml(text: str) -> str:
    """`& < > " '` as entities.

    >>> escape_xml("Run & diagnose <tests>")
    'Run &amp; diagnose &lt;tests&gt;'
    """
    for raw, entity in XML_ESCAPES:
        text = text.replace(raw, entity)
    return text


def format_skills_for_prompt(skills: Sequence[Skill], tool: str = "read") -> str:
    """SKILL-6: the `<available_skills>` block; `""` when no skill may be invoked.

    Skills with `disable_model_invocation` are left out. SKILL-6: `tool` `read` names
    the read tool; any other value (`bash`, or anything else) names bash.
    """
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    how = (
        "Use the read tool to load a skill's file when the task matches its description."
        if tool == "read"
        else "Use bash to load a skill's file when the task matches its description."
    )
    lines = [*SKILLS_INTRO, how, RELATIVE_PATHS_LINE, "", "<available_skills>"]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{escape_xml(skill.name)}</name>",
            f"    <description>{escape_xml(skill.description)}</description>",
            f"    <location>{escape_xml(skill.file_path)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def parse_skill_file(
    path: str, text: str, *, is_skill_file: bool, source: str = "path"
) -> tuple[Skill | None, list[Diagnostic]]:
    """One skill file: the skill (None when not loaded) and its warnings (SKILL-2..4).

    `source` (`user`, `project`, `path`) sets the skill's `sourceInfo` (SKILL-8).
    """
    warnings: list[Diagnostic] = []

    def warn(message: str) -> None:
        warnings.append(Diagnostic(type="warning", message=message, path=path))

    try:
        front, _ = parse_frontmatter(text)
    except FrontmatterError as error:
        # SKILL-4: a YAML error is a warning for SKILL.md; another file is passed over
        if is_skill_file:
            warn(error.message)
        return None, warnings
    fields: dict[str, Any] = front if isinstance(front, dict) else {}
    description = fields.get("description")
    has_description = isinstance(description, str) and js_trim(description) != ""
    if not is_skill_file and not has_description:
        return None, warnings  # SKILL-4: a loose .md without description, silently
    base_dir = posixpath.dirname(path)
    # SKILL-3: description problems first, then name problems; lengths in UTF-16 units
    if not isinstance(description, str) or not has_description:
        warn("description is required")
    elif code_units(description) > MAX_DESCRIPTION_LENGTH:
        warn(f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({code_units(description)})")
    raw_name = fields.get("name")
    # SKILL-2: the frontmatter name (when a non-empty string), else the directory's name
    name = raw_name if isinstance(raw_name, str) and raw_name else posixpath.basename(base_dir)
    if code_units(name) > MAX_NAME_LENGTH:
        warn(f"name exceeds {MAX_NAME_LENGTH} characters ({code_units(name)})")
    if not _NAME_CHARS.fullmatch(name):
        warn("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        warn("name must not start or end with a hyphen")
    if "--" in name:
        warn("name must not contain consecutive hyphens")
    if not isinstance(description, str) or not has_description:
        return None, warnings
    kind, scope = SKILL_SOURCES.get(source, (source, "temporary"))
    skill = Skill(
        name=name,
        description=description,
        file_path=path,
        base_dir=base_dir,
        disable_model_invocation=fields.get("disable-model-invocation") is True,
        source_info=SourceInfo(path=path, source=kind, scope=scope, base_dir=base_dir),
    )
    return skill, warnings


def load_skill_file(
    listing: Listing,
    path: str,
    out: list[tuple[Skill, str]],
    diags: list[Diagnostic],
    source: str = "path",
) -> None:
    """Load one file into `out` (with its realpath) and its warnings into `diags`."""
    text = listing.read_text(path)
    if text is None:
        return
    skill, warnings = parse_skill_file(
        path, text, is_skill_file=posixpath.basename(path) == SKILL_FILE, source=source
    )
    diags.extend(warnings)
    if skill is not None:
        out.append((skill, listing.canonical(path)))


def load_skills_from_dir(
    listing: Listing,
    directory: str,
    out: list[tuple[Skill, str]],
    diags: list[Diagnostic],
    *,
    source: str = "path",
    _scan: tuple[str, IgnoreMatcher] | None = None,
) -> None:
    """SKILL-1: a directory with `SKILL.md` is one skill; else its sub-directories are
    searched (names starting with `.` and `node_modules` skipped), and `*.md` files
    directly in the top directory are skills too.

    SKILL-9: entries the scan's ignore files match are passed over (`ctxspec.reference.ignore`:
    the root's and every entered directory's `.gitignore`, `.ignore`, `.fdignore`, rules
    kept for the rest of the scan); an ignored `SKILL.md` makes no skill root. A rule
    V8 cannot compile ends the directory's scan where it is first tried (IGN-4).
    """
    root, matcher = _scan if _scan is not None else (directory, IgnoreMatcher())
    read_rules(listing, directory, root, matcher)
    try:
        own = join(directory, SKILL_FILE)
        if listing.is_file(own) and not matcher.ignores(posixpath.relpath(own, root)):
            load_skill_file(listing, own, out, diags, source)
            return
        for name, path, is_dir, _ in scan_children(listing, directory):
            rel = posixpath.relpath(path, root)
            if matcher.ignores(rel + "/" if is_dir else rel):
                continue
            if is_dir:
                load_skills_from_dir(
                    listing, path, out, diags, source=source, _scan=(root, matcher)
                )
            elif directory == root and name.endswith(".md"):
                load_skill_file(listing, path, out, diags, source)
    except IgnoreRuleError:
        return


def first_of_each_name(
    found: Sequence[tuple[Skill, str]],
) -> tuple[tuple[Skill, ...], tuple[Diagnostic, ...]]:
    """SKILL-5: the first skill of a name wins; a winner's file met again is skipped
    silently, but a loser is not remembered: met again, it collides again."""
    winners: dict[str, Skill] = {}
    collisions: list[Diagnostic] = []
    real_seen: set[str] = set()
    for skill, real in found:
        if real in real_seen:
            continue
        if skill.name in winners:
            collisions.append(skill_collision(winners[skill.name], skill))
            continue
        winners[skill.name] = skill
        real_seen.add(real)
    return tuple(winners.values()), tuple(collisions)


def skill_collision(winner: Skill, loser: Skill) -> Diagnostic:
    return Diagnostic.of_collision(
        "skill",
        loser.name,
        shown=loser.name,
        winner_path=winner.file_path,
        loser_path=loser.file_path,
    )


def load_skills(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    skill_paths: Sequence[str] = (),
    include_defaults: bool = True,
    home: str | None = None,
) -> SkillsResult:
    """Pi's `loadSkills`: defaults (user, then project), then explicit paths; first name wins.

    Each explicit path is resolved first (PATH-1, `ctxspec.reference.paths`: trimmed, relative to
    `cwd`, `~` from `home`); diagnostics name the resolved path. One that does not exist,
    or is a file not ending `.md`, is a warning.
    """
    found: list[tuple[Skill, str]] = []
    diags: list[Diagnostic] = []
    user_dir, project_dir = join(agent_dir, "skills"), join(cwd, ".pi", "skills")
    if include_defaults:
        for directory, source in ((user_dir, "user"), (project_dir, "project")):
            if listing.is_dir(directory):
                load_skills_from_dir(listing, directory, found, diags, source=source)
    resolved = [resolve_path(p, cwd=cwd, home=home, field="skillPaths") for p in skill_paths]
    for path in resolved:
        # SKILL-8: without defaults, a path inside a default root keeps that root's kind
        source = "path"
        if not include_defaults:
            for root, kind in ((user_dir, "user"), (project_dir, "project")):
                if path == root or path.startswith(root.rstrip("/") + "/"):
                    source = kind
                    break
        if not listing.exists(path):
            diags.append(Diagnostic(type="warning", message="skill path does not exist", path=path))
        elif listing.is_dir(path):
            load_skills_from_dir(listing, path, found, diags, source=source)
        elif listing.is_file(path) and path.endswith(".md"):
            load_skill_file(listing, path, found, diags, source)
        else:
            diags.append(
                Diagnostic(type="warning", message="skill path is not a markdown file", path=path)
            )
    skills, collisions = first_of_each_name(found)
    return SkillsResult(skills=skills, diagnostics=(*diags, *collisions))
