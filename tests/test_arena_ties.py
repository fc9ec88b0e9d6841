"""Draws as draws: the Davidson fit on topic outcomes recovers a planted tie parameter, per rule."""

from __future__ import annotations

import numpy as np
import pytest
from arena_synth import davidson_outcome

from debench.arena.judgments import Judgment
from debench.arena.rank import analyse_judgments

STRENGTHS = {"A": 0.9, "B": 0.3, "C": -0.3, "D": -0.9}


def topic_legs(n_topics: int, nu: float, seed: int, tie_leg_share: float = 0.0) -> list[Judgment]:
    """Each topic outcome drawn from Davidson's model; a won topic is two won legs, a drawn topic
    two split legs, or (with probability ``tie_leg_share``) a won leg and a tied leg."""
    rng = np.random.default_rng(seed)
    names = sorted(STRENGTHS)
    legs = []
    for t in range(n_topics):
        topic = f"t{t}"
        for x in range(len(names)):
            for y in range(x + 1, len(names)):
                a, b = names[x], names[y]
                out = davidson_outcome(rng, STRENGTHS[a] - STRENGTHS[b], nu)
                if out is None and rng.random() < tie_leg_share:
                    w1, w2 = 1, None  # a wins at home, the away leg is tied
                elif out is None:
                    w1, w2 = 1, 1  # split: each wins at home
                else:
                    w1, w2 = (1, 2) if out == 1 else (2, 1)
                legs += [
                    Judgment(topic=topic, side1=a, side2=b, winner=w1),
                    Judgment(topic=topic, side1=b, side2=a, winner=w2),
                ]
    return legs


@pytest.mark.parametrize(("nu", "seed"), [(0.6, 1), (1.5, 2)])
def test_a_planted_tie_parameter_is_recovered_under_both_rules(nu: float, seed: int) -> None:
    legs = topic_legs(250, nu, seed)
    r = analyse_judgments(legs, "strict", n_boot=200, seed=seed)
    for rule in ("strict", "lenient"):  # no tied leg: both rules see the same draws
        fit = r.davidson[rule]
        assert fit.nu == pytest.approx(nu, rel=0.2)
        assert fit.nu_ci95 is not None and fit.nu_ci95[0] < nu < fit.nu_ci95[1]
        assert fit.draw_probability_between_equals == pytest.approx(fit.nu / (2 + fit.nu))
        assert fit.n_topics == 250 * 6 and fit.ranking == ["A", "B", "C", "D"]
    assert r.davidson["strict"].n_drawn == r.topics_drawn
    # Strengths on the logit scale: A - D planted at 1.8 logits.
    bt = r.davidson["strict"].bradley_terry
    assert (bt["A"].score - bt["D"].score) / (400 / np.log(10)) == pytest.approx(1.8, abs=0.35)


def test_the_lenient_rule_turns_a_win_plus_a_tie_into_a_win_and_has_fewer_draws() -> None:
    legs = topic_legs(150, 1.0, seed=3, tie_leg_share=0.5)
    r = analyse_judgments(legs, "lenient", n_boot=50)
    strict, lenient = r.davidson["strict"], r.davidson["lenient"]
    assert lenient.n_drawn < strict.n_drawn and lenient.nu < strict.nu
    assert strict.nu == pytest.approx(1.0, rel=0.25)
    assert r.topics_drawn == lenient.n_drawn  # the top level follows the chosen rule; the fits cover both


def test_no_complete_topic_means_no_fit_and_a_note() -> None:
    r = analyse_judgments([Judgment(topic="t", side1="A", side2="B", winner=1)], n_boot=10)
    assert r.davidson == {} and any("no Davidson fit under the strict rule" in n for n in r.notes)


def test_every_topic_drawn_gives_the_capped_nu_and_a_note() -> None:
    legs = [Judgment(topic=t, side1=a, side2=b, winner=1) for t in ("t1", "t2") for a, b in (("A", "B"), ("B", "A"))]
    r = analyse_judgments(legs, n_boot=20)
    fit = r.davidson["strict"]
    assert (
        fit.n_drawn == fit.n_topics == 2
        and fit.nu == pytest.approx(np.exp(12.0))
        and fit.draw_probability_between_equals > 0.9999
    )
    assert fit.bradley_terry["A"].score == 0.0 and any(
        "every topic is drawn under the strict rule" in n for n in r.notes
    )
