"""Transport: the only code that starts an implementation's process, installs, and the cache.

- `base`: what the runner needs of an implementation (`Implementation`, `Reply`);
- `wire`: protocol v1 over a child's stdio (`WireImplementation`), with `processes` (the
  child's process group, the subreaper, the run directory);
- `named`: the families ctxspec installs (`FAMILIES`, `parse_named`, `install`);
- `cache`: the install cache, made safely once (`ensure`, `run_logged`);
- `npm_harness`: an npm family declared (`NpmHarness`) and installed, over `npm_lock`
  (its files, key and npm run) and `npm_registry` (a release with no lock);
- `pyvenv`: a port from PyPI declared (`PypiPort`), in a private venv in the cache;
- `resolve`: an `--impl` name to an implementation (`open_implementation`, `prepare`).

Transport imports no adapter: `named.FAMILIES` reads the harnesses' declarations (data)
on first use and `resolve.ENGINES` names the engines' modules; a family's toolchain is
asked for only when it is installed, so a missing one never breaks the others.
"""
