"""`python -m conformance.harnesses.fastengine`: serve it as protocol v1 on stdio."""

from conformance.harnesses.fastengine import serve

serve()
