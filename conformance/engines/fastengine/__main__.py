"""`python -m ctxspec.conformance.engines.fastengine`: serve it as protocol v1 on stdio."""

from ctxspec.conformance.engines.fastengine import serve

serve()
