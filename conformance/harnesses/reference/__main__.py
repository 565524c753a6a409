"""`python -m ctxspec.conformance.harnesses.reference`: serve it as protocol v1 on stdio."""

from ctxspec.conformance.harnesses.reference import serve

serve()
