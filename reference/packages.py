"""Pi's package manager: which extension, skill, prompt and theme paths the resource loader
considers, each on or off, and where it came from (Pi 0.85.0, `package-manager.js`).

`resolve(listing, cwd=..., agent_dir=..., home=..., trusted=...)` is
`DefaultPackageManager.resolve()`: for each kind of `RESOURCE_TYPES`, in this order,

- PKG-1 the local packages of the project settings (trusted only), then the user
  settings (`packages`: a path, or `{source, extensions?, skills?, prompts?, themes?,
  autoload?}`); a project entry hides a user entry of the same resolved path, unless it
  has `autoload: false`, which makes it a filter over the user's entry;
- RES-7 the settings entries of that kind (project, then user): paths and patterns;
- RES-1, RES-3 what the loader finds itself in `cwd/.pi/<kind>` (trusted),
  `.agents/skills` up to the git root (trusted), `<agentDir>/<kind>`,
  `$HOME/.agents/skills`.

A path met twice keeps its first origin; the list is then ordered by `Origin.rank`
(project settings, project roots, user settings, user roots, packages) and one path per
real file is kept. `resolve_sources(listing, sources, ...)` is
`resolveExtensionSources(sources, {temporary: true})`, the loader's explicit extension
paths: a file is an extension, a directory a package (PKG-2: its `package.json` `pi`
manifest, else its `extensions/`, `skills/`, `prompts/`, `themes/` directories, else the
directory itself is the extension). A package source that needs an install (`npm:`,
`git:`, a URL) is `InvalidInput`: the suite runs offline and installs nothing.
Directory scans pass over what ignore files match (RES-9, `ctxspec.reference.ignore`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxspec.reference._jsjson import js_parse
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.globs import (
    OVERRIDE_PREFIXES,
    apply_patterns,
    autoload_delta,
    enabled_by_overrides,
    expand_glob,
    is_pattern,
)
from ctxspec.reference.paths import is_local_path, resolve_path
from ctxspec.reference.scans import (
    RESOURCE_TYPES,
    extension_entries,
    files_from_paths,
    manifest,
    resource_files,
    root_files,
    skill_entries,
)
from ctxspec.reference.skills import SourceInfo
from ctxspec.reference.tree import Listing, join, strip_bom

__all__ = [
    "Origin",
    "Resolved",
    "resolve",
    "resolve_sources",
]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where the package manager found a path (Pi's resource metadata)."""

    source: str  # local (settings entry), auto (a root it scans), or a package's source
    scope: str  # project, user or temporary
    origin: str = "top-level"  # or package
    base_dir: str | None = None

    def rank(self) -> int:
        """RES-7: project settings 0, project roots 1, user settings 2, user roots 3,
        package resources 4 (a stable sort)."""
        if self.origin == "package":
            return 4
        return (0 if self.scope == "project" else 2) + (0 if self.source == "local" else 1)

    def info(self, path: str) -> SourceInfo:
        return SourceInfo(
            path=path,
            source=self.source,
            scope=self.scope,
            origin=self.origin,
            base_dir=self.base_dir,
        )


@dataclass(frozen=True, slots=True)
class Resolved:
    path: str
    enabled: bool
    origin: Origin


Found = dict[str, dict[str, tuple[Origin, bool]]]


def _add(found: Found, kind: str, path: str, origin: Origin, enabled: bool) -> None:
    found[kind].setdefault(path, (origin, enabled))  # the first origin of a path stays


# --- settings ------------------------------------------------------------------------


def _settings(listing: Listing, path: str) -> dict[str, Any]:
    """A settings file's object ({} when missing, unreadable or not a JSON object)."""
    text = listing.read_text(path)
    if text is None:
        return {}
    try:
        data = js_parse(strip_bom(text))  # JSON.parse: NaN or Infinity is no JSON
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _entries(settings: Mapping[str, Any], key: str) -> tuple[str, ...]:
    entries = settings.get(key)
    if not isinstance(entries, list):
        return ()
    return tuple(e for e in entries if isinstance(e, str))


def _packages(settings: Mapping[str, Any], where: str) -> list[str | dict[str, Any]]:
    entries = settings.get("packages")
    if not isinstance(entries, list):
        return []
    for entry in entries:
        source = (
            entry
            if isinstance(entry, str)
            else entry.get("source")
            if isinstance(entry, dict)
            else None
        )
        if not isinstance(source, str):
            raise InvalidInput("tree", f"{where} packages: an entry is a source or {{source, ...}}")
        if not is_local_path(source):
            raise InvalidInput(
                "tree", f"{where} packages: {source!r} is a package source, which needs an install"
            )
    return list(entries)


# --- packages (PKG-1, PKG-2) ------------------------------------------------------------


def _entry_files(listing: Listing, root: str, entries: Sequence[str], kind: str) -> list[str]:
    """PKG-2: a manifest's entries of one kind: its paths and globs (relative to the
    package) give files, then its `!`/`+`/`-` entries filter them."""
    paths: list[str] = []
    for entry in entries:
        if entry.startswith(OVERRIDE_PREFIXES):
            continue
        paths += (
            expand_glob(listing, entry, root)
            if "*" in entry or "?" in entry
            else [join(root, entry)]
        )
    files = files_from_paths(listing, paths, kind)
    overrides = [e for e in entries if e.startswith(OVERRIDE_PREFIXES)]
    return apply_patterns(files, overrides, root) if overrides else files


def _offered(
    listing: Listing, root: str, kind: str, offer: Mapping[str, list[str]] | None
) -> list[str]:
    """PKG-2: what a package offers of one kind: its manifest's entries when it lists
    any, else its `<kind>/` directory."""
    entries = (offer or {}).get(kind)
    if entries:
        return _entry_files(listing, root, entries, kind)
    directory = join(root, kind)
    return resource_files(listing, directory, kind) if listing.exists(directory) else []


def _package_resources(
    listing: Listing, root: str, found: Found, filters: Mapping[str, Any] | None, origin: Origin
) -> bool:
    """PKG-2: add a package's resources; False when it offers none (no manifest, no
    resource directory, no filter). A filter's list of a kind keeps what its patterns
    match (none: every file there, off); with `autoload: false` its patterns switch
    files on or off one by one; a kind it does not name takes the package's default."""
    offer = manifest(listing, root)
    if filters is not None:
        for kind in RESOURCE_TYPES:
            patterns = filters.get(kind)
            if patterns is not None and not (
                isinstance(patterns, list) and all(isinstance(p, str) for p in patterns)
            ):
                raise InvalidInput("tree", f"a package filter's {kind} is a list of patterns")
            if filters.get("autoload") is False:
                if patterns:
                    files = _offered(listing, root, kind, offer)
                    for file, on in autoload_delta(files, patterns, root).items():
                        _add(found, kind, file, origin, on)
            elif patterns is not None:
                files = _offered(listing, root, kind, offer)
                kept = set(apply_patterns(files, patterns, root)) if patterns else set()
                for file in files:
                    _add(found, kind, file, origin, file in kept)
            elif offer is not None and kind in offer:
                for file in _entry_files(listing, root, offer[kind], kind):
                    _add(found, kind, file, origin, True)
            elif listing.exists(join(root, kind)):
                for file in resource_files(listing, join(root, kind), kind):
                    _add(found, kind, file, origin, True)
        return True
    if offer is not None:
        for kind in RESOURCE_TYPES:
            for file in _entry_files(listing, root, offer.get(kind, []), kind):
                _add(found, kind, file, origin, True)
        return True
    offered = False
    for kind in RESOURCE_TYPES:
        directory = join(root, kind)
        if listing.exists(directory):
            offered = True
            for file in resource_files(listing, directory, kind):
                _add(found, kind, file, origin, True)
    return offered


def _local_source(
    listing: Listing,
    raw: str,
    *,
    base: str,
    home: str | None,
    found: Found,
    filters: Mapping[str, Any] | None,
    origin: Origin,
    field: str,
) -> None:
    """PKG-2: a local source: a file is an extension; a directory a package (or, offering
    nothing, an extension itself); a missing path adds nothing."""
    path = resolve_path(raw, cwd=base, home=home, field=field)
    if listing.is_file(path):
        _add(
            found,
            "extensions",
            path,
            Origin(origin.source, origin.scope, "package", posixpath.dirname(path)),
            True,
        )
    elif listing.is_dir(path):
        located = Origin(origin.source, origin.scope, "package", path)
        if not _package_resources(listing, path, found, filters, located):
            _add(found, "extensions", path, located, True)


def _empty() -> Found:
    return {kind: {} for kind in RESOURCE_TYPES}


def _ordered(listing: Listing, found: Found) -> dict[str, list[Resolved]]:
    out: dict[str, list[Resolved]] = {}
    for kind in RESOURCE_TYPES:
        ranked = sorted(found[kind].items(), key=lambda item: item[1][0].rank())
        seen: set[str] = set()
        kept: list[Resolved] = []
        for path, (origin, enabled) in ranked:
            real = listing.canonical(path)
            if real not in seen:
                seen.add(real)
                kept.append(Resolved(path=path, enabled=enabled, origin=origin))
        out[kind] = kept
    return out


def resolve_sources(
    listing: Listing, sources: Sequence[str], *, cwd: str, home: str | None
) -> dict[str, list[Resolved]]:
    """`resolveExtensionSources(sources, {temporary: true})`: the loader's explicit
    extension paths, each a local source resolved against cwd (PKG-2)."""
    found = _empty()
    for raw in sources:
        if not is_local_path(raw):
            raise InvalidInput(
                "additionalExtensionPaths", f"{raw!r} is a package source, which needs an install"
            )
        origin = Origin(source=raw, scope="temporary", origin="package")
        _local_source(
            listing, raw, base=cwd, home=home, found=found, filters=None, origin=origin,
            field="additionalExtensionPaths",
        )  # fmt: skip
    return _ordered(listing, found)


def _git_root(listing: Listing, cwd: str) -> str:
    """The nearest directory at or above `cwd` holding a `.git` entry, else `/`."""
    for directory in listing.walk_up(cwd):
        if listing.exists(join(directory, ".git")):
            return directory
    return "/"


def _auto(
    listing: Listing, found: Found, *, cwd: str, agent_dir: str, home: str, trusted: bool,
    project: Mapping[str, Any], user: Mapping[str, Any],
) -> None:  # fmt: skip
    """RES-1, RES-3: what the loader finds in its own roots, each path on unless the
    settings' `!`/`+`/`-` entries of its scope say otherwise."""
    project_base, user_base = join(cwd, ".pi"), agent_dir
    home_agents = join(home, ".agents", "skills")

    def auto(
        kind: str, paths: Sequence[str], scope: str, base: str, settings: Mapping[str, Any]
    ) -> None:
        origin = Origin(source="auto", scope=scope, base_dir=base)
        for path in paths:
            _add(
                found,
                kind,
                path,
                origin,
                enabled_by_overrides(path, _entries(settings, kind), base),
            )

    if trusted:
        auto(
            "extensions",
            extension_entries(listing, join(project_base, "extensions")),
            "project",
            project_base,
            project,
        )
        auto(
            "skills",
            skill_entries(listing, join(project_base, "skills"), "pi"),
            "project",
            project_base,
            project,
        )
        stop = _git_root(listing, cwd)
        for directory in listing.walk_up(cwd):
            root = join(directory, ".agents", "skills")
            if root != home_agents:
                base = join(directory, ".agents")
                auto("skills", skill_entries(listing, root, "agents"), "project", base, project)
            if directory == stop:
                break
        auto(
            "prompts",
            root_files(listing, join(project_base, "prompts"), ".md"),
            "project",
            project_base,
            project,
        )
        auto(
            "themes",
            root_files(listing, join(project_base, "themes"), ".json"),
            "project",
            project_base,
            project,
        )
    auto(
        "extensions",
        extension_entries(listing, join(user_base, "extensions")),
        "user",
        user_base,
        user,
    )
    auto("skills", skill_entries(listing, join(user_base, "skills"), "pi"), "user", user_base, user)
    auto(
        "skills", skill_entries(listing, home_agents, "agents"), "user", join(home, ".agents"), user
    )
    auto("prompts", root_files(listing, join(user_base, "prompts"), ".md"), "user", user_base, user)
    auto("themes", root_files(listing, join(user_base, "themes"), ".json"), "user", user_base, user)


def _package_key(entry: str | Mapping[str, Any], base: str, home: str | None) -> str:
    raw = entry if isinstance(entry, str) else str(entry["source"])
    return resolve_path(raw, cwd=base, home=home, field="tree")


def resolve(
    listing: Listing, *, cwd: str, agent_dir: str, home: str, trusted: bool
) -> dict[str, list[Resolved]]:
    """`DefaultPackageManager.resolve()` with PI_OFFLINE: per kind, every path the loader
    considers, in precedence order, one per real file (see the module docstring)."""
    project_base, user_base = join(cwd, ".pi"), agent_dir
    project = _settings(listing, join(project_base, "settings.json")) if trusted else {}
    user = _settings(listing, join(user_base, "settings.json"))
    found = _empty()
    # PKG-1: project packages first (a project entry replaces a user entry of the same
    # path, or, with autoload false, comes before it as a filter over it)
    chosen: list[tuple[str | dict[str, Any], str]] = []
    index: dict[str, int] = {}
    scoped = [(e, "project") for e in _packages(project, "project settings")]
    scoped += [(e, "user") for e in _packages(user, "user settings")]
    for entry, scope in scoped:
        key = _package_key(entry, project_base if scope == "project" else user_base, home)
        at = index.get(key)
        if at is None:
            index[key] = len(chosen)
            chosen.append((entry, scope))
        elif chosen[at][1] == "project" and scope == "user":
            kept = chosen[at][0]
            if isinstance(kept, dict) and kept.get("autoload") is False:
                chosen.append((entry, scope))
        elif scope == "project":
            chosen[at] = (entry, scope)
    for entry, scope in chosen:
        raw = entry if isinstance(entry, str) else str(entry["source"])
        base = project_base if scope == "project" else user_base
        filters = entry if isinstance(entry, dict) else None
        if filters is not None and scope == "project" and filters.get("autoload") is False:
            # a delta over the user's entry of the same package, read from the user's base
            twin = next(
                (
                    e
                    for e, s in chosen
                    if s == "user"
                    and _package_key(e, user_base, home) == _package_key(entry, project_base, home)
                ),
                None,
            )
            if twin is not None:
                base = user_base
                raw = twin if isinstance(twin, str) else str(twin["source"])
        origin = Origin(
            source=raw if isinstance(entry, str) else str(entry["source"]),
            scope=scope,
            origin="package",
        )
        _local_source(
            listing, raw, base=base, home=home, found=found, filters=filters, origin=origin,
            field="tree",
        )  # fmt: skip
    # RES-7: settings entries of each kind
    for settings, scope, base in ((project, "project", project_base), (user, "user", user_base)):
        for kind in RESOURCE_TYPES:
            entries = _entries(settings, kind)
            plain = [e for e in entries if not is_pattern(e)]
            patterns = [e for e in entries if is_pattern(e)]
            resolved = [resolve_path(e, cwd=base, home=home, field="tree") for e in plain]
            files = files_from_paths(listing, resolved, kind)
            on = set(apply_patterns(files, patterns, base))
            for file in files:
                _add(found, kind, file, Origin(source="local", scope=scope), file in on)
    _auto(
        listing, found, cwd=cwd, agent_dir=agent_dir, home=home, trusted=trusted,
        project=project, user=user,
    )  # fmt: skip
    return _ordered(listing, found)
