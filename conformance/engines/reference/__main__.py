"""`python -m ctxspec.conformance.engines.reference`: serve it as protocol v1 on stdio."""

from ctxspec.conformance.engines.reference import serve

serve()
