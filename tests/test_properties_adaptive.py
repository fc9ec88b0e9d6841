"""Properties of the adaptive schedule's choice (``debench.arena.adaptive.choose``) that hold for
any model names, in any order: waves driven as ``debench arena --schedule adaptive`` drives them
(each wave at most ``--concurrency`` debates and never past ``--budget``), with verdicts fixed in
advance by the debaters' places in the list."""

from __future__ import annotations

import hashlib
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from debench.arena.adaptive import Choice, Game, Slot, choose

NAMES = st.lists(
    st.text("abcdefghijklmnopqrstuvwxyz0123456789-_./", min_size=1, max_size=8), min_size=2, max_size=5, unique=True
)


def _points(world: int, topic: int, side1: int, side2: int) -> float:
    """Side 1's points in a debate, by the seats' places in the model list (not their names)."""
    digest = hashlib.sha256(f"{world}|{topic}|{side1}|{side2}".encode()).digest()
    return (0.0, 0.5, 1.0, 1.0)[digest[0] % 4]


def _schedule(models: list[str], n_topics: int, k: int, budget: int, seed: int, world: int) -> list[list[Choice]]:
    """Every wave until nothing more is chosen or the budget is spent, as the arena runs them."""
    place = {m: n for n, m in enumerate(models)}
    games: list[Game] = []
    taken: list[Slot] = []
    waves: list[list[Choice]] = []
    for wave in range(10_000):
        size = min(k, budget - len(taken))
        chosen = choose(models, n_topics, games, taken, size, seed, wave) if size > 0 else []
        if not chosen:
            break
        waves.append(chosen)
        for c in chosen:
            s = c.slot
            taken.append(s)
            games.append(Game(s.side1, s.side2, _points(world, s.topic, place[s.side1], place[s.side2])))
    return waves


@settings(max_examples=40)
@given(
    models=NAMES,
    n_topics=st.integers(1, 3),
    k=st.integers(1, 8),
    extra=st.integers(-30, 5),
    seed=st.integers(0, 2**32 - 1),
    world=st.integers(0, 1000),
)
def test_never_repeats_keeps_the_budget_and_finishes_the_round_robin(
    models: list[str], n_topics: int, k: int, extra: int, seed: int, world: int
) -> None:
    full = n_topics * len(models) * (len(models) - 1)
    budget = max(1, full + extra)
    waves = _schedule(models, n_topics, k, budget, seed, world)
    slots = [c.slot for wave in waves for c in wave]
    assert len(slots) == len(set(slots))  # no (pair, topic, side) twice
    assert all(len(wave) <= k for wave in waves) and len(slots) <= budget
    assert all(s.side1 != s.side2 and {s.side1, s.side2} <= set(models) and 0 <= s.topic < n_topics for s in slots)
    assert len(slots) == min(budget, full)  # the round robin whole when the budget allows it
    seats = Counter((s.side1, s.side2) for s in slots)
    assert all(abs(seats[(a, b)] - seats[(b, a)]) <= 1 for a, b in seats)  # home and away balanced


@settings(max_examples=30)
@given(
    models=NAMES,
    data=st.data(),
    n_topics=st.integers(1, 3),
    k=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
    world=st.integers(0, 1000),
)
def test_the_choice_is_the_same_up_to_renaming(
    models: list[str], data: st.DataObject, n_topics: int, k: int, seed: int, world: int
) -> None:
    """The same debaters listed in another order (their places renamed), or given other names: each
    wave is the first run's, renamed."""
    others = data.draw(
        st.one_of(
            st.permutations(models),
            st.lists(
                st.text("ABCXYZ0189", min_size=1, max_size=4), min_size=len(models), max_size=len(models), unique=True
            ),
        )
    )
    renamed = dict(zip(models, others, strict=True))
    budget = n_topics * len(models) * (len(models) - 1)
    first = _schedule(models, n_topics, k, budget, seed, world)
    second = _schedule(others, n_topics, k, budget, seed, world)
    assert [[(c.slot, c.leg) for c in wave] for wave in second] == [
        [(Slot(c.slot.topic, renamed[c.slot.side1], renamed[c.slot.side2]), c.leg) for c in wave] for wave in first
    ]
    assert [[tuple(c.target) for c in wave] for wave in second] == [
        [(renamed[c.target[0]], renamed[c.target[1]]) for c in wave] for wave in first
    ]
