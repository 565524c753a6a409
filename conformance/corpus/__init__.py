"""The corpus: the case files loaded, their builders expanded, renamed ids resolved, and
the loaded corpus cached on disk for the workers."""
