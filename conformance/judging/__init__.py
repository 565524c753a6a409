"""Judging answers: the differences between two JSON values (one path syntax), what counts
as the same answer, an answer against a case or the reference, and the universal checks
that judge the other agents by their own profiles. Only `check` asks anything (through
`ctxspec.conformance.ask`); the rest read the answers they are given, shared by the
suite, fuzz and `bench`."""
