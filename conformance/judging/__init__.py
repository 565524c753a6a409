"""Judging answers: the differences between two JSON values, what counts as the same
answer, an answer against a case or the reference, and the universal checks that judge
the other agents by their own profiles. No I/O: shared by the suite, fuzz and `bench`."""
