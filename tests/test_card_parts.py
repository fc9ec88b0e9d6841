"""The parts of a judge card, each on its own: Cohen's kappa of verdicts against the gold (checked
against an independent computation on the real debates), the metadata-only copy of a public
debate, the epsilon the card chooses, the sections' statuses, and docs/studies.md holding every
threshold the code holds."""

from __future__ import annotations

import random
import re
from collections import Counter

import numpy as np
import pytest
from conftest import DATA_DIR, REPO, real_data_dir

from debench.card.build import overall
from debench.card.model import ConsistencyRow, Criteria, Criterion, Number
from debench.card.replaceability import choose_epsilon
from debench.card.thresholds import AGREEMENT, BIAS, CONSISTENCY, COST, MEMORIZATION, REPLACEABILITY, section, worst
from debench.data.base import Doc
from debench.data.bp_competition import load_bp
from debench.data.debateart import load_debateart
from debench.data.prompts import build_messages
from debench.metrics.base import get_metric
from debench.probes.metadata_only import metadata_only, published_refusal
from debench.run.task_lookup import load_task
from debench.scoring.scores import MetricValue
from debench.task.config import TaskConfig


def kappa(preds: list[str], targets: list[object]) -> float | None:
    metric = get_metric("cohen_kappa")
    state = metric.prepare([Doc(doc_id=str(i), target=t) for i, t in enumerate(targets)])
    arr = np.empty(len(preds), dtype=object)
    arr[:] = preds
    return metric.value(state, arr)


def independent_kappa(preds: list[str], golds: list[str]) -> float:
    """Cohen's (1960) kappa from the confusion table, written out."""
    n = len(preds)
    observed = sum(p == g for p, g in zip(preds, golds, strict=True)) / n
    pc, gc = Counter(preds), Counter(golds)
    expected = sum(pc[label] * gc[label] for label in set(pc) | set(gc)) / n**2
    return (observed - expected) / (1 - expected)


def test_cohen_kappa_is_cohens_on_the_real_debateart_verdicts() -> None:
    real_data_dir("debatrix_panelbench")
    golds = [d.target for d in load_debateart(DATA_DIR / "debatrix_panelbench" / "DebateArt")]
    rng = random.Random(7)
    for _ in range(20):
        preds = [g if rng.random() < rng.random() else rng.choice(["pro", "tie", "con"]) for g in golds]
        assert kappa(preds, golds) == pytest.approx(independent_kappa(preds, golds), abs=1e-12)
    assert kappa(golds, golds) == 1.0
    assert kappa(["con"] * len(golds), golds) == 0.0  # a constant judge, right 56 times in 100, is at chance


def test_cohen_kappa_with_several_gold_winners_counts_any_of_them() -> None:
    """BP: a prediction naming an advancing team is right; chance is a judge naming teams as often as
    this one does, whatever the debate."""
    real_data_dir("debatrix_panelbench")
    golds = [d.target for d in load_bp(DATA_DIR / "debatrix_panelbench" / "BP-Competition")]
    preds = ["OO", "CG", "OG", "CO"] * 5 + ["OO", "OO"]
    n = len(golds)
    observed = sum(p in g for p, g in zip(preds, golds, strict=True)) / n
    expected = sum(preds.count(t) / n * sum(t in g for g in golds) / n for t in ("OG", "OO", "CG", "CO"))
    assert kappa(preds, golds) == pytest.approx((observed - expected) / (1 - expected), abs=1e-12)
    assert kappa([g[0] for g in golds], golds) > 0.9
    assert kappa(["CO"] * n, golds) == pytest.approx(0.0, abs=1e-12)


def test_cohen_kappa_is_undefined_when_everything_is_one_label() -> None:
    assert kappa(["pro", "pro"], ["pro", "pro"]) is None


@pytest.mark.parametrize("task_name", ["debateart_winner", "debateart_source_scores", "bp_top_team"])
def test_the_metadata_only_prompt_names_the_debate_and_holds_no_speech(task_name: str) -> None:
    real_data_dir("debatrix_panelbench")
    task, _ = load_task(task_name)
    folder = "DebateArt" if task_name.startswith("debateart") else "BP-Competition"
    load = load_debateart if folder == "DebateArt" else load_bp
    for doc in load(DATA_DIR / "debatrix_panelbench" / folder):
        copy = metadata_only(doc, task)
        assert copy.doc_id.startswith(f"{doc.doc_id}#metadata_only:") and copy.target == doc.target
        text = prompt(task, copy)
        # the full debate's prompt, with the transcript (and a DebateArt debater's background) replaced
        shown = doc.model_copy(update={"fields": {**doc.fields, "info_slide": copy.fields["info_slide"]}})
        assert text == prompt(task, shown).replace(doc.fields["transcript"], copy.fields["transcript"])
        assert doc.fields["motion"] in text and "speeches of this debate are not shown" in text
        assert doc.fields["transcript"] not in text
        assert [(s.speaker, s.side, s.text) for s in copy.speeches] == [(s.speaker, s.side, "") for s in doc.speeches]
        if folder == "DebateArt":
            assert doc.fields["pro_name"] in text and "debateart.com" in text and copy.fields["info_slide"] == ""
            rounds = sum(s.side == doc.speeches[0].side for s in doc.speeches)
            assert f"{rounds} round(s): {len(doc.speeches)} speeches" in text
        else:
            assert doc.meta["round"] in text and copy.fields["info_slide"] == doc.fields["info_slide"]


def prompt(task: TaskConfig, doc: Doc) -> str:
    messages = build_messages(task.prompt.system, task.prompt.user, doc, task.prompt.variables)
    return "\n".join(m["content"] for m in messages)


def test_the_probe_applies_to_public_debates_only() -> None:
    assert published_refusal(load_task("debateart_winner")[0]) is None
    assert published_refusal(load_task("bp_top_team")[0]) is None
    refusal = published_refusal(load_task("ibm_speech_likert")[0])
    assert refusal is not None and "not a public record" in refusal


def _kappa(value: float | None, note: str | None = None) -> MetricValue:
    return MetricValue(value=value, ci95=None if value is None else [value - 0.03, value + 0.03], n=631, note=note)


def test_epsilon_is_halved_when_the_annotators_agree_little() -> None:
    low = choose_epsilon(0.1, _kappa(0.2708))
    assert low.value == 0.05 and low.task_value == 0.1 and "agree little" in low.why
    assert choose_epsilon(0.1, _kappa(0.55)).value == 0.1
    assert choose_epsilon(0.2, _kappa(0.39)).value == 0.1
    unknown = choose_epsilon(0.1, _kappa(None, "no annotator pair shares 50 or more speeches"))
    assert unknown.value == 0.1 and "no annotator pair shares 50" in unknown.why
    assert choose_epsilon(0.15, None).value == 0.15


def _row(status: str, task: str = "t", reason: str = "r") -> ConsistencyRow:
    return ConsistencyRow(
        task=task, status=status, reason=reason, repeats=2, temperature=0.7, agreement=Number(value=0.9, n=3)
    )  # type: ignore[arg-type]


def test_a_section_is_as_bad_as_its_worst_row_and_says_which() -> None:
    s = section(
        Criterion[ConsistencyRow],
        CONSISTENCY,
        [_row("pass", "a"), _row("warn", "b", "x"), _row("warn", "c", "x")],
        "none",
    )
    assert s.status == "warn" and s.reason == "b, c: x" and s.advice == CONSISTENCY.advice["warn"]
    assert section(Criterion[ConsistencyRow], CONSISTENCY, [_row("not_measured")], "none").status == "not_measured"
    assert section(Criterion[ConsistencyRow], CONSISTENCY, [], "no task").reason == "no task"
    assert worst(["info", "not_measured"]) == "info" and worst(["pass", "not_measured"]) == "pass"


def test_the_overall_line_is_the_worst_criterion_and_names_what_was_not_measured() -> None:
    def crit(spec, status):  # type: ignore[no-untyped-def]
        return section(Criterion[ConsistencyRow], spec, [_row(status)], "none")

    c = Criteria.model_construct(
        agreement=crit(AGREEMENT, "warn"), replaceability=crit(REPLACEABILITY, "not_measured"),
        consistency=crit(CONSISTENCY, "pass"), bias=crit(BIAS, "fail"), memorization=crit(MEMORIZATION, "fail"),
        cost=crit(COST, "info"),
    )  # fmt: skip
    o = overall(c)
    assert o.status == "fail" and o.reason == "fail on bias, memorization. Not measured: replaceability."
    assert o.advice.startswith("bias: ") and "memorization: " in o.advice


def test_docs_hold_every_threshold_and_source_the_code_holds() -> None:
    """docs/studies.md's card section names each number a status turns on, and each source."""
    from debench.card import thresholds as t

    page = (REPO / "docs" / "studies.md").read_text(encoding="utf-8")
    card = page[page.index("## A judge card") :]
    for value in (
        t.MODERATE_KAPPA,
        t.LOW_ANNOTATOR_KAPPA,
        t.FLIP_LIMIT,
        t.RETEST_PASS,
        t.RETEST_FAIL,
        t.VERBOSITY_MARGIN,
        t.ALPHA,
    ):
        assert re.search(rf"(?<![\d.]){re.escape(f'{value:g}')}(?!\d)", card), value
    for source in ("Norman, Rivera & Hughes", "Calderon, Reichart & Dror", "Landis & Koch"):
        assert source in card
    for spec in (AGREEMENT, REPLACEABILITY, CONSISTENCY, BIAS, MEMORIZATION, COST):
        assert f"**{spec.name}**" in card


def test_no_overall_pass_without_agreement() -> None:
    def crit(spec, status):  # type: ignore[no-untyped-def]
        return section(Criterion[ConsistencyRow], spec, [_row(status)], "none")

    c = Criteria.model_construct(
        agreement=crit(AGREEMENT, "not_measured"), replaceability=crit(REPLACEABILITY, "not_measured"),
        consistency=crit(CONSISTENCY, "not_measured"), bias=crit(BIAS, "not_measured"),
        memorization=crit(MEMORIZATION, "pass"), cost=crit(COST, "info"),
    )  # fmt: skip
    o = overall(c)
    assert o.status == "not_measured" and o.reason.startswith("agreement with the humans could not be measured")
    assert o.advice == AGREEMENT.advice["not_measured"]
