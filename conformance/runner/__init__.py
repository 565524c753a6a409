"""The runner behind `ctxspec conform`: the pytest plugin and its options, statuses and
records, expectations and profiles, failing examples told as protocol data, progress."""
