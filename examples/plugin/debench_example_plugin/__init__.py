"""An example debench plug-in: a model kind (``cue/``), a metric (``within_one``), a judge method
(``ask-twice``) and an arena rating method (``net_wins``), each registered by an entry point in
this package's pyproject.toml."""
