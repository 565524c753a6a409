"""`python -m conformance.harnesses.reference`: serve it as protocol v1 on stdio."""

from conformance.harnesses.reference import serve

serve()
