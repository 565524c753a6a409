"""Transport: the only code that starts an implementation's process, installs, and the cache.

- `base`: what the runner needs of an implementation (`Implementation`, `Reply`);
- `wire`: protocol v1 over a child's stdio (`WireImplementation`), with `processes` (the
  child's process group, the subreaper, the run directory);
- `named`: the families ctxspec installs (`FAMILIES`, `parse_named`, `install`);
- `cache`: the install cache, made safely once (`ensure`, `run_logged`);
- `pyvenv`: a private venv in the cache for a port from PyPI;
- `resolve`: an `--impl` name to an implementation (`open_implementation`, `prepare`).

Transport imports no harness: a harness is found by its module's name (`named.FAMILIES`,
`resolve.ENGINES`), so a family's missing toolchain never breaks the others.
"""
