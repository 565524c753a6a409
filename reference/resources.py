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
(RES-2). Settings `skills` / `prompts` entries are paths or patterns (RES-7): a glob keeps
the entries' files it matches, `!glob` drops a file (also one the loader found itself),
`+path` / `-path` force one in or out; matching is minimatch's (`glob_match`).
With `extended`, `to_pi` adds what Pi's loader also knows: each skill's description,
base directory and `sourceInfo`, each prompt's description (and argument hint) and
`sourceInfo`, and the paths the system prompt and append items were read from.

Not modelled: extensions (loading them runs project code), themes, packages,
`.gitignore` / `.ignore` / `.fdignore` matching.
"""

from __future__ import annotations

import json
import math
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Final, Literal

from reference.discovery import ContextFile, load_project_context_files
from reference.frontmatter import FrontmatterError, js_trim, parse_frontmatter
from reference.ignore import IgnoreMatcher, IgnoreRuleError, read_rules
from reference.paths import is_local_path, resolve_path
from reference.skills import Diagnostic, Skill, SourceInfo, load_skills
from reference.tree import Listing, join, normalize, strip_bom

__all__ = [
    "PROMPT_ROOTS",
    "SKILL_ROOTS",
    "PromptTemplate",
    "Resources",
    "glob_match",
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
PROMPT_PATH_MISSING: Final = ("error", "Prompt template path does not exist")


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptTemplate:
    """A prompt template: its name (the file name without `.md`), path and description
    (a front matter value of any JSON type, as Pi keeps it)."""

    name: str
    file_path: str
    description: Any = ""
    argument_hint: Any = None
    source_info: SourceInfo | None = None

    def to_pi(self, *, extended: bool = False) -> dict[str, Any]:
        wire: dict[str, Any] = {"name": self.name, "filePath": self.file_path}
        if extended:
            wire["description"] = self.description
            if self.argument_hint is not None:
                wire["argumentHint"] = self.argument_hint
            if self.source_info is not None:
                wire["sourceInfo"] = self.source_info.to_pi()
        return wire


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
    system_prompt_source: str | None = None
    append_system_prompt_sources: tuple[str, ...] = ()

    def to_pi(self, *, extended: bool = False) -> dict[str, Any]:
        skills = []
        for s in self.skills:
            wire: dict[str, Any] = {
                "name": s.name,
                "filePath": s.file_path,
                "disableModelInvocation": s.disable_model_invocation,
            }
            if extended:
                wire = s.to_pi(extended=True)
            skills.append(wire)
        result: dict[str, Any] = {
            "agentsFiles": [f.to_pi() for f in self.context_files],
            "skills": skills,
            "skillDiagnostics": [d.to_pi() for d in self.skill_diagnostics],
            "prompts": [p.to_pi(extended=extended) for p in self.prompts],
            "promptDiagnostics": [d.to_pi() for d in self.prompt_diagnostics],
            "systemPrompt": self.system_prompt,
            "appendSystemPrompt": list(self.append_system_prompt),
        }
        if extended:
            result["systemPromptSource"] = (
                None if self.system_prompt_source is None else {"path": self.system_prompt_source}
            )
            result["appendSystemPromptSources"] = [
                {"path": p} for p in self.append_system_prompt_sources
            ]
        return result


def _segment_regex(segment: str) -> str:
    # minimatch without `dot`: a wildcard never matches a leading `.`
    regex = "" if segment.startswith(".") else "(?!\\.)"
    i = 0
    while i < len(segment):
        char = segment[i]
        close = segment.find("]", i + 2) if char == "[" else -1
        if char == "*":
            regex += "[^/]*"
        elif char == "?":
            regex += "[^/]"
        elif close != -1:
            body = segment[i + 1 : close]
            negate = body[0] in "!^"
            body = re.sub(r"([\\\]\[^])", r"\\\1", body[1:] if negate else body)
            regex += "[" + ("^" if negate else "") + body.replace("\\-", "-") + "]"
            i = close
        else:
            regex += re.escape(char)
        i += 1
    return regex


@cache
def _glob_regex(pattern: str) -> re.Pattern[str] | None:
    """One minimatch pattern (braces expanded) as a regex; None for a `#` comment."""
    if pattern.startswith("#"):
        return None
    segments = pattern.split("/")
    regex = ""
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":  # any number of segments, none starting with `.`
            regex += "(?:(?!\\.)[^/]+(?:/(?!\\.)[^/]+)*)?" if last else "(?:(?!\\.)[^/]+/)*"
        else:
            regex += _segment_regex(segment) + ("" if last else "/")
    return re.compile(regex + "$")


def _braces(pattern: str) -> list[str]:
    """`a{b,c}d` as `abd`, `acd` (nested sets expanded one at a time)."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    out: list[str] = []
    for option in match.group(1).split(","):
        out += _braces(pattern[: match.start()] + option + pattern[match.end() :])
    return out


def glob_match(path: str, pattern: str) -> bool:
    """RES-7: `minimatch(path, pattern)` with its defaults (`*` stays in one segment, `**`
    spans segments, braces, classes, no dot files unless the pattern names the dot).

    >>> glob_match("a/b/SKILL.md", "a/**/*.md"), glob_match("a/.b/x.md", "a/*/x.md")
    (True, False)
    """
    for option in _braces(pattern):
        regex = _glob_regex(option)
        if regex is not None and regex.match(path):
            return True
    return False


# RES-7: the order the loader sorts its resources in: project before user, settings
# entries (`local`) before what it finds itself (`auto`); a stable sort
PRECEDENCE: Final = {
    ("project", "local"): 0,
    ("project", "auto"): 1,
    ("user", "local"): 2,
    ("user", "auto"): 3,
}
OVERRIDE_PREFIXES: Final = ("!", "+", "-")


@dataclass(frozen=True, slots=True)
class _Origin:
    """Where the loader found a path: Pi's resource metadata."""

    source: str  # local (a settings entry) or auto (a root it scans)
    scope: str  # project or user
    base_dir: str | None = None

    def info(self, path: str) -> SourceInfo:
        return SourceInfo(path=path, source=self.source, scope=self.scope, base_dir=self.base_dir)


def _settings_entries(listing: Listing, settings: str, key: str) -> tuple[str, ...]:
    """The string `key` entries of a settings file, as written ((): none or unreadable)."""
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
    return tuple(e for e in entries if isinstance(e, str))


def _is_pattern(entry: str) -> bool:
    # RES-7: an override (`!x`, `+x`, `-x`) or a glob (`*`, `?`); anything else is a path
    return entry.startswith(OVERRIDE_PREFIXES) or "*" in entry or "?" in entry


def _relative(base: str, path: str) -> str:
    return posixpath.relpath(path, base) if path != base else ""


def _pattern_targets(path: str, base: str, *, exact: bool) -> list[str]:
    """RES-7: what a pattern is tried on: the path relative to the settings directory,
    (globs only) the file name, and the absolute path; for a SKILL.md also its directory."""
    targets = (
        [_relative(base, path), path]
        if exact
        else [_relative(base, path), posixpath.basename(path), path]
    )
    if posixpath.basename(path) == "SKILL.md":
        directory = posixpath.dirname(path)
        targets += (
            [_relative(base, directory), directory]
            if exact
            else [_relative(base, directory), posixpath.basename(directory), directory]
        )
    return targets


def _matches(path: str, patterns: Sequence[str], base: str) -> bool:
    targets = _pattern_targets(path, base, exact=False)
    return any(glob_match(t, p) for p in patterns for t in targets)


def _matches_exact(path: str, patterns: Sequence[str], base: str) -> bool:
    targets = _pattern_targets(path, base, exact=True)
    return any(p.removeprefix("./") in targets for p in patterns)


def _enabled_by_overrides(path: str, entries: Sequence[str], base: str) -> bool:
    """RES-7: an auto-found path is on unless a `!glob` matches it; `+path` turns it back
    on, `-path` off (both exact paths), in that order."""
    excludes = [e[1:] for e in entries if e.startswith("!")]
    includes = [e[1:] for e in entries if e.startswith("+")]
    removes = [e[1:] for e in entries if e.startswith("-")]
    enabled = not (excludes and _matches(path, excludes, base))
    if includes and _matches_exact(path, includes, base):
        enabled = True
    if removes and _matches_exact(path, removes, base):
        enabled = False
    return enabled


def _apply_patterns(files: Sequence[str], patterns: Sequence[str], base: str) -> set[str]:
    """RES-7: settings entries' patterns over the files their plain entries gave: plain
    globs keep what they match (all, when none), `!glob` drops, `+path` adds back, `-path`
    drops for good."""
    includes = [p for p in patterns if not p.startswith(OVERRIDE_PREFIXES)]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    adds = [p[1:] for p in patterns if p.startswith("+")]
    removes = [p[1:] for p in patterns if p.startswith("-")]
    kept = [f for f in files if not includes or _matches(f, includes, base)]
    if excludes:
        kept = [f for f in kept if not _matches(f, excludes, base)]
    if adds:
        kept += [f for f in files if f not in kept and _matches_exact(f, adds, base)]
    if removes:
        kept = [f for f in kept if not _matches_exact(f, removes, base)]
    return set(kept)


def _skill_entries(
    listing: Listing, directory: str, mode: str, scan: tuple[str, IgnoreMatcher] | None = None
) -> list[str]:
    """The skill files the loader finds under a directory (RES-1, RES-3).

    A directory with `SKILL.md` gives that file only. Else names starting with `.` and
    `node_modules` are skipped; `*.md` files count at the top (`pi` mode: settings
    entries, `.pi/skills`, `<agentDir>/skills`) or below it (`agents` mode:
    `.agents/skills`); sub-directories are searched. RES-9: what the scan's ignore files
    match is passed over (a `.md` file and a directory, with a final `/`, are tested).
    """
    top, matcher = scan if scan is not None else (directory, IgnoreMatcher())
    read_rules(listing, directory, top, matcher)
    found: list[str] = []
    try:
        own = join(directory, "SKILL.md")
        if listing.is_file(own) and not matcher.ignores(posixpath.relpath(own, top)):
            return [own]
        for name in listing.children(directory):
            if name.startswith(".") or name == "node_modules":
                continue
            path = join(directory, name)
            is_dir, is_file = listing.is_dir(path), listing.is_file(path)
            rel = posixpath.relpath(path, top)
            if (
                is_file
                and name.endswith(".md")
                and not matcher.ignores(rel)
                and (directory == top) == (mode == "pi")
            ):
                found.append(path)
            elif is_dir and not matcher.ignores(rel + "/"):
                found += _skill_entries(listing, path, mode, (top, matcher))
    except IgnoreRuleError:
        pass
    return found


def _prompt_files(
    listing: Listing,
    directory: str,
    *,
    recursive: bool,
    suffix: str = ".md",
    scan: tuple[str, IgnoreMatcher] | None = None,
) -> list[str]:
    """RES-6: the `*.md` files of a prompt root, names starting with `.` (and
    `node_modules`) skipped; a settings entry's directory is searched to any depth.

    RES-9: what the ignore files match is passed over: a root's own rules only, each
    entry tested without a final `/`; in a recursive search every directory's rules,
    directories tested with a final `/`.
    """
    top, matcher = scan if scan is not None else (directory, IgnoreMatcher())
    if recursive or scan is None:
        read_rules(listing, directory, top, matcher)
    found: list[str] = []
    try:
        for name in listing.children(directory):
            if name.startswith(".") or name == "node_modules":
                continue
            path = join(directory, name)
            is_dir, is_file = listing.is_dir(path), listing.is_file(path)
            if not is_dir and not is_file:
                continue  # a dangling link
            rel = posixpath.relpath(path, top)
            if matcher.ignores(rel + "/" if recursive and is_dir else rel):
                continue
            if is_file and name.endswith(suffix):
                found.append(path)
            elif recursive and is_dir:
                found += _prompt_files(
                    listing, path, recursive=True, suffix=suffix, scan=(top, matcher)
                )
    except IgnoreRuleError:
        pass
    return found


def _entry_files(listing: Listing, paths: Sequence[str], kind: str) -> list[str]:
    files: list[str] = []
    for path in paths:
        if listing.is_file(path):
            files.append(path)
        elif listing.is_dir(path):
            files += (
                _skill_entries(listing, path, "pi")
                if kind == "skills"
                else _prompt_files(listing, path, recursive=True)
            )
    return files


def _resolve_paths(
    listing: Listing, *, cwd: str, agent_dir: str, home: str, trusted: bool, kind: str
) -> list[tuple[str, bool, _Origin]]:
    """RES-1, RES-7: every path the loader considers for `kind` (skills or prompts), with
    whether it is enabled and where it came from, in precedence order, one per real file."""
    found: dict[str, tuple[bool, _Origin]] = {}

    def add(path: str, enabled: bool, origin: _Origin) -> None:
        found.setdefault(path, (enabled, origin))

    project_base, user_base = join(cwd, ".pi"), agent_dir
    project_entries = (
        _settings_entries(listing, join(project_base, "settings.json"), kind) if trusted else ()
    )
    user_entries = _settings_entries(listing, join(user_base, "settings.json"), kind)
    for entries, scope, base in (
        (project_entries, "project", project_base),
        (user_entries, "user", user_base),
    ):
        plain = [e for e in entries if not _is_pattern(e)]
        patterns = [e for e in entries if _is_pattern(e)]
        resolved = [normalize(e) if e.startswith("/") else join(base, e) for e in plain]
        files = _entry_files(listing, resolved, kind)
        kept = _apply_patterns(files, patterns, base)
        for file in files:
            add(file, file in kept, _Origin("local", scope))

    def auto(paths: Sequence[str], entries: Sequence[str], scope: str, base: str) -> None:
        for path in paths:
            add(path, _enabled_by_overrides(path, entries, base), _Origin("auto", scope, base))

    def scan(root: str, mode: str) -> list[str]:
        if not listing.is_dir(root):
            return []
        if kind == "skills":
            return _skill_entries(listing, root, mode)
        return _prompt_files(listing, root, recursive=False)

    home_agents = join(home, ".agents", "skills")
    if kind == "skills":
        if trusted:
            auto(scan(join(project_base, "skills"), "pi"), project_entries, "project", project_base)
            # RES-3: `.agents/skills` from cwd up to the git root, nearest first
            stop = _git_root(listing, cwd)
            for directory in listing.walk_up(cwd):
                root = join(directory, ".agents", "skills")
                if root != home_agents:
                    auto(
                        scan(root, "agents"), project_entries, "project", join(directory, ".agents")
                    )
                if directory == stop:
                    break
        auto(scan(join(user_base, "skills"), "pi"), user_entries, "user", user_base)
        auto(scan(home_agents, "agents"), user_entries, "user", join(home, ".agents"))
    else:
        if trusted:
            auto(
                scan(join(project_base, "prompts"), "pi"), project_entries, "project", project_base
            )
        auto(scan(join(user_base, "prompts"), "pi"), user_entries, "user", user_base)
    ordered = sorted(found.items(), key=lambda kv: PRECEDENCE[(kv[1][1].scope, kv[1][1].source)])
    seen: set[str] = set()
    out: list[tuple[str, bool, _Origin]] = []
    for path, (enabled, origin) in ordered:
        real = listing.canonical(path)
        if real in seen:
            continue
        seen.add(real)
        out.append((path, enabled, origin))
    return out


def _git_root(listing: Listing, cwd: str) -> str:
    """The nearest directory at or above `cwd` holding a `.git` entry, else `/`."""
    for directory in listing.walk_up(cwd):
        if listing.exists(join(directory, ".git")):
            return directory
    return "/"


def _merged(listing: Listing, paths: Sequence[str], additional: Sequence[str]) -> list[str]:
    """The loader's `mergePaths`: found paths, then explicit ones, once per real path."""
    seen: set[str] = set()
    out: list[str] = []
    for path in (*paths, *additional):
        real = listing.canonical(path)
        if real not in seen:
            seen.add(real)
            out.append(path)
    return out


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
    resolved = (
        []
        if no_skills
        else _resolve_paths(
            listing, cwd=cwd, agent_dir=agent_dir, home=home, trusted=trusted, kind="skills"
        )
    )
    origins = {path: origin for path, _, origin in resolved}
    paths = _merged(listing, [p for p, enabled, _ in resolved if enabled], additional)
    # RES-1: all of them are explicit paths to `loadSkills` (no defaults)
    loaded = load_skills(
        listing, cwd=cwd, agent_dir=agent_dir, skill_paths=paths, include_defaults=False
    )
    skills = tuple(
        replace(s, source_info=origins[s.file_path].info(s.file_path))
        if s.file_path in origins
        else s
        for s in loaded.skills
    )
    return skills, loaded.diagnostics


def _collision(kind: str, name: str, winner: str, loser: PromptTemplate) -> Diagnostic:
    # RES-6: a prompt collision names the command (`/name`)
    return Diagnostic(
        type="collision",
        message=f'name "/{name}" collision',
        path=loser.file_path,
        collision={
            "resourceType": kind,
            "name": name,
            "winnerPath": winner,
            "loserPath": loser.file_path,
        },
    )


def _prompt_template(listing: Listing, path: str, info: SourceInfo) -> PromptTemplate | None:
    """RES-8: a prompt file: named after the file; its description the front matter's
    (any truthy value), else the body's first non-blank line, cut at 60 UTF-16 units
    with `...`; a file whose front matter does not parse is no template."""
    text = listing.read_text(path)
    if text is None:
        return None
    try:
        front, body = parse_frontmatter(text)
    except FrontmatterError:
        return None
    fields: dict[str, Any] = front if isinstance(front, dict) else {}
    description = fields.get("description")
    if not _js_truthy(description):
        first = next((line for line in body.split("\n") if js_trim(line)), None)
        description = "" if first is None else _cut(first)
    hint = fields.get("argument-hint")
    return PromptTemplate(
        name=posixpath.basename(path).removesuffix(".md"),
        file_path=path,
        description=description,
        argument_hint=hint if _js_truthy(hint) else None,
        source_info=info,
    )


def _js_truthy(value: Any) -> bool:
    if isinstance(value, float) and math.isnan(value):
        return False
    return value is not None and value is not False and value not in {0, ""}


def _cut(line: str) -> str:
    units = line.encode("utf-16-le", "surrogatepass")
    if len(units) <= 120:
        return line
    return units[:120].decode("utf-16-le", "surrogatepass") + "..."


def _collect_prompts(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    trusted: bool,
    no_prompts: bool,
    additional: Sequence[str],
    additional_raw: Sequence[str],
) -> tuple[tuple[PromptTemplate, ...], tuple[Diagnostic, ...]]:
    resolved = (
        []
        if no_prompts
        else _resolve_paths(
            listing, cwd=cwd, agent_dir=agent_dir, home="/", trusted=trusted, kind="prompts"
        )
    )
    origins = {path: origin for path, _, origin in resolved}
    user_root, project_root = join(agent_dir, "prompts"), join(cwd, ".pi", "prompts")

    def info(path: str, given: str) -> SourceInfo:
        if path in origins:
            return origins[path].info(path)
        # RES-8: `loadPromptTemplates`'s own sourceInfo, by the path it was given
        for root, scope in ((user_root, "user"), (project_root, "project")):
            if given == root or given.startswith(root + "/"):
                return SourceInfo(path=given, source="local", scope=scope, base_dir=root)
        base = given if listing.is_dir(given) else posixpath.dirname(given)
        return SourceInfo(path=given, source="local", base_dir=base)

    templates: list[PromptTemplate] = []
    for path in _merged(listing, [p for p, enabled, _ in resolved if enabled], additional):
        if not listing.exists(path):
            continue
        # RES-6: an explicit directory gives its own `*.md` files, dot files included
        files = (
            [join(path, n) for n in listing.children(path) if n.endswith(".md")]
            if listing.is_dir(path)
            else [path]
            if path.endswith(".md")
            else []
        )
        for file in files:
            if not listing.is_file(file):
                continue
            template = _prompt_template(listing, file, info(file, path if file == path else file))
            if template is not None:
                templates.append(template)
    winners: dict[str, PromptTemplate] = {}
    collisions: list[Diagnostic] = []
    for template in templates:
        if template.name in winners:
            collisions.append(
                _collision("prompt", template.name, winners[template.name].file_path, template)
            )
            continue
        winners[template.name] = template
    # RES-6: the collisions first, then the missing explicit paths (checked after loading,
    # once per path; PATH-1: a package source is no path)
    diags: list[Diagnostic] = []
    for raw, path in zip(additional_raw, additional, strict=True):
        if is_local_path(raw) and not listing.exists(path) and path not in {d.path for d in diags}:
            kind, message = PROMPT_PATH_MISSING
            diags.append(Diagnostic(type=kind, message=message, path=path))
    return tuple(winners.values()), (*collisions, *diags)


def _file_or_literal(listing: Listing, value: str) -> str:
    """RES-5: an explicit value naming an existing file is its text (BOM stripped)."""
    if value.startswith("/") and listing.is_file(value):
        text = listing.read_text(value)
        if text is not None:
            return strip_bom(text)
    return value


def _names_path(listing: Listing, value: str) -> bool:
    return value.startswith("/") and listing.exists(value)


def _discovered_path(
    listing: Listing, cwd: str, agent_dir: str, name: str, trusted: bool
) -> str | None:
    """RES-4: which file discovery takes the text from (None: no file)."""
    candidates = ([join(cwd, ".pi", name)] if trusted else []) + [join(agent_dir, name)]
    return next((p for p in candidates if listing.exists(p)), None)


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
    items are dropped.

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
        additional=tuple(
            resolve_path(p, cwd=cwd, home=home, field="additionalSkillPaths")
            for p in additional_skill_paths
        ),
    )
    prompts, prompt_diags = _collect_prompts(
        listing,
        cwd=cwd,
        agent_dir=agent_dir,
        trusted=project_trusted,
        no_prompts=no_prompt_templates,
        additional=tuple(
            resolve_path(p, cwd=cwd, home=home, field="additionalPromptTemplatePaths")
            for p in additional_prompt_template_paths
        ),
        additional_raw=tuple(additional_prompt_template_paths),
    )
    # RES-4, RES-5: an explicit value replaces discovery; "" means none
    # RES-8: the source paths are the values (or discovered files) that exist as paths
    if system_prompt is None:
        system_path = _discovered_path(listing, cwd, agent_dir, "SYSTEM.md", project_trusted)
        system = _discovered(listing, cwd, agent_dir, "SYSTEM.md", project_trusted)
    else:
        system_path = system_prompt if _names_path(listing, system_prompt) else None
        system = _file_or_literal(listing, system_prompt) if system_prompt else None
    if append_system_prompt is None:
        found_path = _discovered_path(listing, cwd, agent_dir, "APPEND_SYSTEM.md", project_trusted)
        append_paths: tuple[str, ...] = () if found_path is None else (found_path,)
        found = _discovered(listing, cwd, agent_dir, "APPEND_SYSTEM.md", project_trusted)
        append: tuple[str, ...] = () if found is None else (found,)
    else:
        append_paths = tuple(p for p in append_system_prompt if _names_path(listing, p))
        append = tuple(_file_or_literal(listing, item) for item in append_system_prompt if item)
    return Resources(
        system_prompt_source=None if system_path is None else normalize(system_path),
        append_system_prompt_sources=tuple(normalize(p) for p in append_paths),
        context_files=context,
        skills=skills,
        skill_diagnostics=skill_diags,
        prompts=prompts,
        prompt_diagnostics=prompt_diags,
        system_prompt=system,
        append_system_prompt=append,
    )
