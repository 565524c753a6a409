"""`python -m ctxspec`: the same command line as the `ctxspec` script."""

from ctxspec.conformance.cli import main

raise SystemExit(main())
