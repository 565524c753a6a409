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
Directory scans pass over what ignore files match (RES-9, `reference.ignore`).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from reference.errors import InvalidInput
from reference.globs import expand_glob, glob_match
from reference.ignore import IgnoreMatcher, IgnoreRuleError, read_rules
from reference.paths import is_local_path, resolve_path
from reference.skills import SourceInfo
from reference.tree import Listing, join, strip_bom

__all__ = [
    "FILE_SUFFIXES",
    "RESOURCE_TYPES",
    "Origin",
    "Resolved",
    "resolve",
    "resolve_sources",
]

RESOURCE_TYPES: Final = ("extensions", "skills", "prompts", "themes")
# which files a directory of each kind gives (`extensions` dirs have their own rule)
FILE_SUFFIXES: Final = {
    "extensions": (".ts", ".js"),
    "skills": (".md",),
    "prompts": (".md",),
    "themes": (".json",),
}
OVERRIDE_PREFIXES: Final = ("!", "+", "-")


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
        data = json.loads(strip_bom(text))
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


# --- patterns (RES-7) -------------------------------------------------------------------


def _is_pattern(entry: str) -> bool:
    # an override (`!x`, `+x`, `-x`) or a glob (`*`, `?`); anything else is a path
    return entry.startswith(OVERRIDE_PREFIXES) or "*" in entry or "?" in entry


def _relative(base: str, path: str) -> str:
    return posixpath.relpath(path, base) if path != base else ""


def _pattern_targets(path: str, base: str, *, exact: bool) -> list[str]:
    """What a pattern is tried on: the path relative to the base, (globs only) the file
    name, and the absolute path; for a SKILL.md also its directory."""
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
    """An auto-found path is on unless a `!glob` matches it; `+path` turns it back on,
    `-path` off (both exact paths), in that order."""
    excludes = [e[1:] for e in entries if e.startswith("!")]
    includes = [e[1:] for e in entries if e.startswith("+")]
    removes = [e[1:] for e in entries if e.startswith("-")]
    enabled = not (excludes and _matches(path, excludes, base))
    if includes and _matches_exact(path, includes, base):
        enabled = True
    if removes and _matches_exact(path, removes, base):
        enabled = False
    return enabled


def _apply_patterns(files: Sequence[str], patterns: Sequence[str], base: str) -> list[str]:
    """Patterns over the files plain entries gave: plain globs keep what they match
    (all, when none), `!glob` drops, `+path` adds back, `-path` drops for good."""
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
    return kept


def _delta(files: Sequence[str], patterns: Sequence[str], base: str) -> dict[str, bool]:
    """PKG-1: an `autoload: false` entry's patterns, each in turn: `!x`/`-x` switch the
    files they match off, others on (`+x`/`-x` exact, the rest globs)."""
    result: dict[str, bool] = {}
    for pattern in patterns:
        prefixed = pattern.startswith(OVERRIDE_PREFIXES)
        target = pattern[1:] if prefixed else pattern
        exact = pattern.startswith(("+", "-"))
        for file in files:
            hit = _matches_exact(file, [target], base) if exact else _matches(file, [target], base)
            if hit:
                result[file] = not pattern.startswith(("-", "!"))
    return result


# --- directory scans (RES-9: ignore files apply) ---------------------------------------

Scan = tuple[str, IgnoreMatcher]


def skill_entries(
    listing: Listing, directory: str, mode: str, scan: Scan | None = None
) -> list[str]:
    """The skill files under a directory (RES-1, RES-3): a directory with `SKILL.md`
    gives that file only; else `.`-names and `node_modules` are skipped, `*.md` files
    count at the top (`pi` mode) or below it (`agents` mode, `.agents/skills`), and
    sub-directories are searched. RES-9: an ignored `.md` file or directory (tested
    with a final `/`) is passed over."""
    if not listing.exists(directory):
        return []
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
                found += skill_entries(listing, path, mode, (top, matcher))
    except IgnoreRuleError:
        pass
    return found


def collect_files(
    listing: Listing, directory: str, suffixes: tuple[str, ...], scan: Scan | None = None
) -> list[str]:
    """RES-6: the files of a settings entry's directory to any depth (`.`-names and
    `node_modules` skipped); RES-9: every directory's ignore rules, directories tested
    with a final `/`."""
    if not listing.exists(directory):
        return []
    top, matcher = scan if scan is not None else (directory, IgnoreMatcher())
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
            if matcher.ignores(rel + "/" if is_dir else rel):
                continue
            if is_dir:
                found += collect_files(listing, path, suffixes, (top, matcher))
            elif name.endswith(suffixes):
                found.append(path)
    except IgnoreRuleError:
        pass
    return found


def root_files(listing: Listing, directory: str, suffix: str) -> list[str]:
    """RES-6: a prompt or theme root's own files (`.`-names and `node_modules` skipped);
    RES-9: the root's ignore rules, each entry tested bare."""
    if not listing.exists(directory):
        return []
    matcher = IgnoreMatcher()
    read_rules(listing, directory, directory, matcher)
    found: list[str] = []
    try:
        for name in listing.children(directory):
            if name.startswith(".") or name == "node_modules":
                continue
            path = join(directory, name)
            is_file = listing.is_file(path)
            if not is_file and not listing.is_dir(path):
                continue
            if matcher.ignores(name):
                continue
            if is_file and name.endswith(suffix):
                found.append(path)
    except IgnoreRuleError:
        pass
    return found


def _manifest(listing: Listing, directory: str) -> dict[str, list[str]] | None:
    """PKG-2: the `pi` field of a directory's package.json: the string-list entries per
    kind (None: no such field, or no readable JSON object)."""
    text = listing.read_text(join(directory, "package.json"))
    if text is None:
        return None
    try:
        package = json.loads(strip_bom(text))
    except ValueError:
        return None
    if not isinstance(package, dict) or not isinstance(package.get("pi"), dict):
        return None
    manifest: dict[str, list[str]] = {}
    for kind in RESOURCE_TYPES:
        entries = package["pi"].get(kind)
        if isinstance(entries, list) and all(isinstance(e, str) for e in entries):
            manifest[kind] = entries
    return manifest


def _extension_entry(listing: Listing, directory: str) -> list[str] | None:
    """EXT-1: a directory's extension entry points: its manifest's existing `extensions`
    paths, else `index.ts`, else `index.js`; None when it has none."""
    manifest = _manifest(listing, directory)
    if manifest and manifest.get("extensions"):
        named = [join(directory, e) for e in manifest["extensions"]]
        present = [p for p in named if listing.exists(p)]
        if present:
            return present
    for index in ("index.ts", "index.js"):
        if listing.exists(join(directory, index)):
            return [join(directory, index)]
    return None


def extension_entries(listing: Listing, directory: str) -> list[str]:
    """EXT-1: an extensions directory: its own entry points if it has any; else its
    `*.ts`/`*.js` files and the entry points of its sub-directories (`.`-names and
    `node_modules` skipped; RES-9: the directory's ignore rules, sub-directories tested
    with a final `/`)."""
    if not listing.exists(directory):
        return []
    own = _extension_entry(listing, directory)
    if own is not None:
        return own
    matcher = IgnoreMatcher()
    read_rules(listing, directory, directory, matcher)
    found: list[str] = []
    try:
        for name in listing.children(directory):
            if name.startswith(".") or name == "node_modules":
                continue
            path = join(directory, name)
            is_dir, is_file = listing.is_dir(path), listing.is_file(path)
            if not is_dir and not is_file:
                continue
            if matcher.ignores(name + "/" if is_dir else name):
                continue
            if is_file and name.endswith((".ts", ".js")):
                found.append(path)
            elif is_dir:
                found += _extension_entry(listing, path) or []
    except IgnoreRuleError:
        pass
    return found


def resource_files(listing: Listing, directory: str, kind: str) -> list[str]:
    """The files a directory gives as resources of `kind`."""
    if kind == "skills":
        return skill_entries(listing, directory, "pi")
    if kind == "extensions":
        return extension_entries(listing, directory)
    return collect_files(listing, directory, FILE_SUFFIXES[kind])


def _files_from_paths(listing: Listing, paths: Sequence[str], kind: str) -> list[str]:
    files: list[str] = []
    for path in paths:
        if listing.is_file(path):
            files.append(path)
        elif listing.is_dir(path):
            files += resource_files(listing, path, kind)
    return files


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
    files = _files_from_paths(listing, paths, kind)
    overrides = [e for e in entries if e.startswith(OVERRIDE_PREFIXES)]
    return _apply_patterns(files, overrides, root) if overrides else files


def _offered(
    listing: Listing, root: str, kind: str, manifest: Mapping[str, list[str]] | None
) -> list[str]:
    """PKG-2: what a package offers of one kind: its manifest's entries when it lists
    any, else its `<kind>/` directory."""
    entries = (manifest or {}).get(kind)
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
    manifest = _manifest(listing, root)
    if filters is not None:
        for kind in RESOURCE_TYPES:
            patterns = filters.get(kind)
            if patterns is not None and not (
                isinstance(patterns, list) and all(isinstance(p, str) for p in patterns)
            ):
                raise InvalidInput("tree", f"a package filter's {kind} is a list of patterns")
            if filters.get("autoload") is False:
                if patterns:
                    files = _offered(listing, root, kind, manifest)
                    for file, on in _delta(files, patterns, root).items():
                        _add(found, kind, file, origin, on)
            elif patterns is not None:
                files = _offered(listing, root, kind, manifest)
                kept = set(_apply_patterns(files, patterns, root)) if patterns else set()
                for file in files:
                    _add(found, kind, file, origin, file in kept)
            elif manifest is not None and kind in manifest:
                for file in _entry_files(listing, root, manifest[kind], kind):
                    _add(found, kind, file, origin, True)
            elif listing.exists(join(root, kind)):
                for file in resource_files(listing, join(root, kind), kind):
                    _add(found, kind, file, origin, True)
        return True
    if manifest is not None:
        for kind in RESOURCE_TYPES:
            for file in _entry_files(listing, root, manifest.get(kind, []), kind):
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
                _enabled_by_overrides(path, _entries(settings, kind), base),
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
            plain = [e for e in entries if not _is_pattern(e)]
            patterns = [e for e in entries if _is_pattern(e)]
            resolved = [resolve_path(e, cwd=base, home=home, field="tree") for e in plain]
            files = _files_from_paths(listing, resolved, kind)
            on = set(_apply_patterns(files, patterns, base))
            for file in files:
                _add(found, kind, file, Origin(source="local", scope=scope), file in on)
    _auto(
        listing, found, cwd=cwd, agent_dir=agent_dir, home=home, trusted=trusted,
        project=project, user=user,
    )  # fmt: skip
    return _ordered(listing, found)
