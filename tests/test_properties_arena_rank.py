"""``arena rank`` (``debench.arena.rank.analyse_judgments``) gives the same ranking, scores,
intervals, tests and notes whatever the order of the judgments and of the models in them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from debench.arena.judgments import Judgment
from debench.arena.rank import analyse_judgments

NAMES = st.lists(st.text("abcdefgxyz0123-", min_size=1, max_size=5), min_size=2, max_size=4, unique=True)


@st.composite
def judgments(draw: st.DrawFn) -> list[Judgment]:
    """Judgments of every leg of a round robin on a few topics (some legs left out), by one or two
    judges, with ties and speech lengths."""
    models = draw(NAMES)
    n_topics = draw(st.integers(1, 3))
    judges = draw(st.sampled_from([[None], ["j1", "j2"]]))
    out = []
    for t in range(n_topics):
        for a in models:
            for b in models:
                if a == b or (out and not draw(st.booleans())):
                    continue  # some legs left out (never the first)
                for judge in judges:
                    out.append(
                        Judgment(
                            topic=f"topic {t}",
                            side1=a,
                            side2=b,
                            winner=draw(st.sampled_from([1, 2, None])),
                            judge=judge,
                            side1_words=draw(st.integers(50, 500)),
                            side2_words=draw(st.integers(50, 500)),
                        )
                    )
    return out


@settings(max_examples=12)
@given(js=judgments(), data=st.data())
def test_the_ranking_does_not_depend_on_the_order_of_judgments_or_models(
    js: list[Judgment], data: st.DataObject
) -> None:
    shuffled = data.draw(st.permutations(js))
    first = analyse_judgments(js, "strict", n_boot=20, seed=1, n_perm=20)
    again = analyse_judgments(shuffled, "strict", n_boot=20, seed=1, n_perm=20)
    assert again.model_dump_json() == first.model_dump_json()
