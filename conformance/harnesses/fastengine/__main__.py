"""`python -m ctxspec.conformance.harnesses.fastengine`: serve it as protocol v1 on stdio."""

from ctxspec.conformance.harnesses.fastengine import serve

serve()
