"""`python -m ctxspec`: the same command line as the `ctxspec` script."""

from ctxspec.cli import main

raise SystemExit(main())
