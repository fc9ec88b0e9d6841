"""Static GBNF grammars (``<name>.gbnf``) that constrain answers on servers that accept them.

They are files, not generated text, and each is exercised by a test against the local model:
a malformed grammar has crashed llama.cpp processes.
"""

from __future__ import annotations

from pathlib import Path

GRAMMARS_DIR = Path(__file__).resolve().parent


def grammar_names() -> list[str]:
    return sorted(p.stem for p in GRAMMARS_DIR.glob("*.gbnf"))


def load_grammar(name: str | None) -> str | None:
    if name is None:
        return None
    path = GRAMMARS_DIR / f"{name}.gbnf"
    if not path.is_file():
        from debench.core.errors import UserError

        raise UserError(f"unknown grammar '{name}' (known: {', '.join(grammar_names())})", field="generation.grammar")
    return path.read_text(encoding="utf-8")
