"""The task model: a task file's typed configuration (``config``), the static GBNF grammars
(``grammars/``), the named transforms of parsed answers, the sandboxed Jinja2 environment prompts
are rendered in, and answers -> predictions (``parsing``, with ``quotes``: quoted debate text is
not an answer).

May import: ``core``.
"""
