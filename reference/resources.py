"""Resources: what Pi's resource loader puts in front of the model, and from where (Pi 0.85.0).

`load_resources(listing, cwd=..., agent_dir=..., home=..., project_trusted=...)` is
`DefaultResourceLoader.reload()` with a `SettingsManager` whose project trust is given:

- context files (`discovery.load_project_context_files`, never gated; `no_context_files`);
- extensions, skills, prompt templates and themes: the package manager's paths
  (`ctxspec.reference.packages`: settings packages and entries, the loader's own roots in the
  order of `SKILL_ROOTS` / `PROMPT_ROOTS`, RES-1, RES-7), after the explicit extension
  paths' own resources and before the explicit `additional_*_paths`; the first of a
  name wins, the same real file twice is skipped silently, a missing explicit path is a
  diagnostic (RES-1, RES-6, THEME-1);
- extensions are resolved to the paths the loader hands its extension loader
  (`extension_paths`, EXT-1) and never loaded: loading one runs its code;
- the system prompt and append list: explicit values, else `SYSTEM.md` /
  `APPEND_SYSTEM.md` from the trusted project or the agent directory (RES-4, RES-5).

Untrusted, every root marked `gated` is skipped, project `.pi/settings.json` included
(RES-2). Scans pass over what ignore files match (RES-9). Each resource carries Pi's
`sourceInfo` (RES-8): the package manager's origin of its path (an exact path, else the
first registered directory holding it), else the one its loader gave it, else the
loader's default (under the agent's or the project's resource roots, else temporary).
`to_pi(extended=..., include=...)` sends what the request asks for: the v1.0 shape, the
1.1 `extended` fields, and the 1.2 parts of `INCLUDE_PARTS`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from ctxspec.reference import packages
from ctxspec.reference.discovery import ContextFile, load_project_context_files
from ctxspec.reference.packages import Origin, Resolved
from ctxspec.reference.paths import is_local_path, resolve_path
from ctxspec.reference.prompt_templates import PromptTemplate, dedupe_prompts, load_prompt_templates
from ctxspec.reference.scans import RESOURCE_TYPES
from ctxspec.reference.skills import Diagnostic, Skill, SourceInfo, load_skills
from ctxspec.reference.themes import Theme, dedupe_themes, load_themes
from ctxspec.reference.tree import Listing, join, normalize, strip_bom

__all__ = [
    "INCLUDE_PARTS",
    "PROMPT_ROOTS",
    "SKILL_ROOTS",
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
# the parts of the loader's answer a request may ask for besides the v1.0 shape (1.2)
INCLUDE_PARTS: Final = ("themes", "extensions", "promptContent")
# the loader's own reports of explicit paths it cannot find
MISSING: Final = {
    "skills": "Skill path does not exist",
    "prompts": "Prompt template path does not exist",
    "themes": "Theme path does not exist",
}


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
    themes: tuple[Theme, ...] = ()
    theme_diagnostics: tuple[Diagnostic, ...] = ()
    extension_paths: tuple[str, ...] = ()
    extension_errors: tuple[tuple[str, str], ...] = field(default=())

    def to_pi(self, *, extended: bool = False, include: Collection[str] = ()) -> dict[str, Any]:
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
        content = "promptContent" in include
        result: dict[str, Any] = {
            "agentsFiles": [f.to_pi() for f in self.context_files],
            "skills": skills,
            "skillDiagnostics": [d.to_pi() for d in self.skill_diagnostics],
            "prompts": [p.to_pi(extended=extended, content=content) for p in self.prompts],
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
        if "themes" in include:
            result["themes"] = [t.to_pi(extended=extended) for t in self.themes]
            result["themeDiagnostics"] = [d.to_pi() for d in self.theme_diagnostics]
        if "extensions" in include:
            result["extensionPaths"] = list(self.extension_paths)
            result["extensionErrors"] = [
                {"path": path, "error": error} for path, error in self.extension_errors
            ]
        return result


def _merged(listing: Listing, *groups: Sequence[str]) -> list[str]:
    """The loader's `mergePaths`: the paths in order, once per real path."""
    seen: set[str] = set()
    out: list[str] = []
    for path in (p for group in groups for p in group):
        real = listing.canonical(path)
        if real not in seen:
            seen.add(real)
            out.append(path)
    return out


class _Origins:
    """The loader's `metadataByPath`: each path's first origin, in the order registered."""

    def __init__(self) -> None:
        self.by_path: dict[str, Origin] = {}

    def register(self, items: Sequence[Resolved], fallback: Origin | None = None) -> list[str]:
        """Register every path (`fallback` first when given); the enabled ones, in order."""
        for item in items:
            self.by_path.setdefault(item.path, fallback or item.origin)
        return [item.path for item in items if item.enabled]

    def find(self, path: str) -> SourceInfo | None:
        """RES-8: the origin of `path` itself, else of the first registered directory
        holding it."""
        if path in self.by_path:
            return self.by_path[path].info(path)
        for registered, origin in self.by_path.items():
            if path.startswith(registered.rstrip("/") + "/"):
                return origin.info(path)
        return None


def _default_info(listing: Listing, path: str, *, cwd: str, agent_dir: str) -> SourceInfo:
    """RES-8: the loader's sourceInfo for a path nobody registered: the agent's or the
    project's resource roots, else temporary with the path's directory as base."""
    for scope, base in (("user", agent_dir), ("project", join(cwd, ".pi"))):
        for kind in RESOURCE_TYPES:
            root = join(base, kind)
            if path == root or path.startswith(root + "/"):
                return SourceInfo(path=path, source="local", scope=scope, base_dir=root)
    base_dir = path if listing.is_dir(path) else posixpath.dirname(path)
    return SourceInfo(path=path, source="local", base_dir=base_dir)


def _missing(
    listing: Listing, kind: str, raws: Sequence[str], resolved: Sequence[str],
    diags: Sequence[Diagnostic], *, local_only: bool = True,
) -> list[Diagnostic]:  # fmt: skip
    """RES-6: the loader's own errors for explicit paths that do not exist, once per path,
    unless a diagnostic already names it (PATH-1: package sources are no paths)."""
    out: list[Diagnostic] = []
    for raw, path in zip(raws, resolved, strict=True):
        if local_only and not is_local_path(raw):
            continue
        if not listing.exists(path) and all(d.path != path for d in (*diags, *out)):
            out.append(Diagnostic(type="error", message=MISSING[kind], path=path))
    return out


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
    """RES-4: the trusted project's `.pi/<name>`, else `<agentDir>/<name>`, else None. The
    first that exists is taken and read as an explicit value is (RES-5): a directory there
    is not passed over but gives its own path as the text, as Pi's failed read does."""
    path = _discovered_path(listing, cwd, agent_dir, name, trusted)
    return None if path is None else _file_or_literal(listing, path)


def _system_prompts(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    trusted: bool,
    system_prompt: str | None,
    append_system_prompt: Sequence[str] | None,
) -> tuple[str | None, str | None, tuple[str, ...], tuple[str, ...]]:
    """RES-4, RES-5: the custom prompt and the append items, and the paths they were
    read from (RES-8: the values, or discovered files, that exist as paths)."""
    # an explicit value replaces discovery; "" means none
    if system_prompt is None:
        system_path = _discovered_path(listing, cwd, agent_dir, "SYSTEM.md", trusted)
        system = _discovered(listing, cwd, agent_dir, "SYSTEM.md", trusted)
    else:
        system_path = system_prompt if _names_path(listing, system_prompt) else None
        system = _file_or_literal(listing, system_prompt) if system_prompt else None
    if append_system_prompt is None:
        found_path = _discovered_path(listing, cwd, agent_dir, "APPEND_SYSTEM.md", trusted)
        append_paths: tuple[str, ...] = () if found_path is None else (found_path,)
        found = _discovered(listing, cwd, agent_dir, "APPEND_SYSTEM.md", trusted)
        append: tuple[str, ...] = () if found is None else (found,)
    else:
        append_paths = tuple(p for p in append_system_prompt if _names_path(listing, p))
        append = tuple(_file_or_literal(listing, item) for item in append_system_prompt if item)
    return system, system_path, append, append_paths


def load_resources(
    listing: Listing,
    *,
    cwd: str,
    agent_dir: str,
    home: str,
    project_trusted: bool = True,
    additional_skill_paths: Sequence[str] = (),
    additional_prompt_template_paths: Sequence[str] = (),
    additional_theme_paths: Sequence[str] = (),
    additional_extension_paths: Sequence[str] = (),
    no_skills: bool = False,
    no_prompt_templates: bool = False,
    no_themes: bool = False,
    no_extensions: bool = False,
    no_context_files: bool = False,
    system_prompt: str | None = None,
    append_system_prompt: Sequence[str] | None = None,
) -> Resources:
    """Pi's `DefaultResourceLoader({...}).reload()` over a listing.

    Explicit paths are read as users write them (PATH-1, `ctxspec.reference.paths`).
    `system_prompt=""` and `append_system_prompt=[]` switch discovery off; empty append
    items are dropped. Raises `InvalidInput` for a package source that needs an install.

    >>> tree = Listing.from_wire({"w/.pi/SYSTEM.md": "P", "a/SYSTEM.md": "G"})
    >>> untrusted = load_resources(tree, cwd="/w", agent_dir="/a", home="/h", project_trusted=False)
    >>> untrusted.system_prompt
    'G'
    """
    cwd, agent_dir, home = normalize(cwd), normalize(agent_dir), normalize(home)

    def explicit(values: Sequence[str], field_name: str) -> list[str]:
        return [resolve_path(v, cwd=cwd, home=home, field=field_name) for v in values]

    context = (
        ()
        if no_context_files
        else load_project_context_files(listing, cwd=cwd, agent_dir=agent_dir)
    )
    found = packages.resolve(
        listing, cwd=cwd, agent_dir=agent_dir, home=home, trusted=project_trusted
    )
    cli = packages.resolve_sources(listing, additional_extension_paths, cwd=cwd, home=home)
    origins = _Origins()
    enabled = {kind: origins.register(found[kind]) for kind in RESOURCE_TYPES}
    # RES-8: the explicit extension paths' extensions and skills read as `cli` resources,
    # their prompts and themes as the package's
    command_line = Origin(source="cli", scope="temporary")
    cli_enabled = {
        kind: origins.register(
            cli[kind], command_line if kind in ("extensions", "skills") else None
        )
        for kind in RESOURCE_TYPES
    }

    def paths(kind: str, off: bool, additional: Sequence[str]) -> list[str]:
        own = [] if off else enabled[kind]
        return _merged(listing, cli_enabled[kind], own, additional)

    # EXT-1: what the extension loader would be handed, and the explicit paths it lacks
    extension_paths = _merged(
        listing, cli_enabled["extensions"], [] if no_extensions else enabled["extensions"]
    )
    extension_errors = [
        (path, f"Extension path does not exist: {path}")
        for raw, path in zip(
            additional_extension_paths,
            explicit(additional_extension_paths, "additionalExtensionPaths"),
            strict=True,
        )
        if is_local_path(raw) and not listing.exists(path)
    ]

    def info(path: str, own: SourceInfo | None) -> SourceInfo:
        return (
            origins.find(path) or own or _default_info(listing, path, cwd=cwd, agent_dir=agent_dir)
        )

    # skills (RES-1): every path goes to loadSkills as an explicit one
    skill_raw = list(additional_skill_paths)
    skill_extra = explicit(skill_raw, "additionalSkillPaths")
    skill_paths = paths("skills", no_skills, skill_extra)
    loaded = (
        load_skills(
            listing, cwd=cwd, agent_dir=agent_dir, skill_paths=skill_paths, include_defaults=False
        )
        if skill_paths or not no_skills
        else None
    )
    skills = (
        ()
        if loaded is None
        else tuple(replace(s, source_info=info(s.file_path, s.source_info)) for s in loaded.skills)
    )
    skill_diags = () if loaded is None else loaded.diagnostics
    skill_diags = (*skill_diags, *_missing(listing, "skills", skill_raw, skill_extra, skill_diags))
    # prompts (RES-6): the collisions first, then the missing explicit paths
    prompt_raw = list(additional_prompt_template_paths)
    prompt_extra = explicit(prompt_raw, "additionalPromptTemplatePaths")
    prompt_paths = paths("prompts", no_prompt_templates, prompt_extra)
    templates = load_prompt_templates(listing, prompt_paths, cwd=cwd, agent_dir=agent_dir)
    prompts, prompt_diags = dedupe_prompts(templates)
    prompts = [replace(p, source_info=info(p.file_path, p.source_info)) for p in prompts]
    prompt_diags += _missing(listing, "prompts", prompt_raw, prompt_extra, prompt_diags)
    # themes (THEME-1): loaded, deduplicated, then the missing explicit paths
    theme_raw = list(additional_theme_paths)
    theme_extra = explicit(theme_raw, "additionalThemePaths")
    theme_paths = paths("themes", no_themes, theme_extra)
    loaded_themes, theme_diags = load_themes(listing, theme_paths)
    themes, collisions = dedupe_themes(loaded_themes)
    themes = [replace(t, source_info=info(t.source_path, None)) for t in themes]
    theme_diags += collisions
    theme_diags += _missing(
        listing, "themes", theme_raw, theme_extra, theme_diags, local_only=False
    )
    system, system_path, append, append_paths = _system_prompts(
        listing, cwd=cwd, agent_dir=agent_dir, trusted=project_trusted,
        system_prompt=system_prompt, append_system_prompt=append_system_prompt,
    )  # fmt: skip
    return Resources(
        system_prompt_source=None if system_path is None else normalize(system_path),
        append_system_prompt_sources=tuple(normalize(p) for p in append_paths),
        context_files=context,
        skills=skills,
        skill_diagnostics=tuple(skill_diags),
        prompts=tuple(prompts),
        prompt_diagnostics=tuple(prompt_diags),
        system_prompt=system,
        append_system_prompt=append,
        themes=tuple(themes),
        theme_diagnostics=tuple(theme_diags),
        extension_paths=tuple(extension_paths),
        extension_errors=tuple(extension_errors),
    )
