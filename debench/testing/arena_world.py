"""A stand-in world for the debate arena: debaters of known strengths and a judge that decides by
them, served by the stub server on 127.0.0.1 (``ArenaWorld.serve``).

Each debater's speeches name it (``[debater NAME]``) and the topic; the judge reads the two names
and the topic from the debate it is shown and decides as Bradley–Terry says: side 1 wins with
probability ``1 / (1 + exp(-(s1 - s2 + side1_bonus)))``, the draw a deterministic function of the
world's seed, the topic and the two seats (``ArenaWorld.winner``). A debate therefore has the same
outcome whenever and in whatever order it is run, through the server or in a simulation without it
(``benchmarks.adaptive``), so two schedules can be compared on the same outcomes.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from typing import Any

from debench.testing.stub_server import StubServer

_QUESTION = re.compile(r'debate on the question "(.*?)"', re.DOTALL)
_SIDE = re.compile(r'Side ([12]):\n"""\n\[debater (\S+)\]')
JUDGE = "world-judge"


def _unit(*parts: object) -> float:
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class ArenaWorld:
    strengths: dict[str, float]
    """Debater name -> strength (logits)."""
    seed: int = 0
    side1_bonus: float = 0.0
    judge: str = JUDGE

    def p_side1(self, side1: str, side2: str) -> float:
        return 1.0 / (1.0 + math.exp(-(self.strengths[side1] - self.strengths[side2] + self.side1_bonus)))

    def winner(self, topic: str, side1: str, side2: str) -> int:
        """1 or 2: the judge's verdict on this debate."""
        return 1 if _unit(self.seed, topic, side1, side2) < self.p_side1(side1, side2) else 2

    def truth(self) -> list[str]:
        """The debaters by strength, best first."""
        return sorted(self.strengths, key=lambda m: (-self.strengths[m], m))

    def respond(self, request: dict[str, Any]) -> str:
        """The stub server's responder: a debater's speech or the judge's verdict."""
        model = request["model"]
        system = str(request["messages"][0]["content"])
        found = _QUESTION.search(system)
        topic = found.group(1) if found else ""
        if model == self.judge:
            seats = dict(_SIDE.findall(str(request["messages"][-1]["content"])))
            w = self.winner(topic, seats["1"], seats["2"])
            return (
                "side1: [[8]], side2: [[4]], winner: [[1]]" if w == 1 else "side1: [[4]], side2: [[8]], winner: [[2]]"
            )
        if model not in self.strengths:
            raise KeyError(f"no debater {model!r} in this world")
        return f"[debater {model}] on {topic}: my argument, given as strongly as I can."

    def serve(self, **stub_options: Any) -> StubServer:
        """The world on a stub server (a context manager; ``base_url`` once entered)."""
        return StubServer(responder=self.respond, **stub_options)
