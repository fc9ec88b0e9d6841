"""What a plug-in's code raises is one line naming its package, entry point and exception, exit 2
(issue 44): at load, in a model kind's ``make``, in a metric, in a rating; a model kind failing on
every sample is named in that line, on some samples in the errors listed. Failures found at load
come before any document is judged (nothing written).

The plug-ins are the tests' own (``tests/plugin_site.py``), installed beside debench."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli
from plugin_site import answer_kind, env, install, user_task

KINDS = {"debench.models": {"answer": "acme_judge.kinds:KIND"}}


def _eval(site: Path, tmp: Path, *args: str) -> tuple[int, str, Path]:
    out = tmp / "out"
    proc = run_cli(
        "eval", "--limit", "4", "--output-dir", str(out), "--no-progress", *args, env=env(site, tmp / "cache")
    )
    return proc.returncode, proc.stderr, out


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_a_model_kind_raising_in_make_is_one_line_before_any_request(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "acme-judge", "0.3.0", {"acme_judge/kinds.py": answer_kind("pro", make="{}['x']")}, KINDS)
    code, err, out = _eval(site, tmp_path, "--task", "debateart_winner", "--model", "answer/x")
    line = _one_line(err)
    assert code == 2 and not out.exists()
    assert line == (
        "debench: error: model kind 'answer' of package acme-judge 0.3.0 "
        "(entry point 'answer = acme_judge.kinds:KIND') raised KeyError in make: 'x'"
    )


def test_a_model_kind_raising_in_generate_on_every_document_is_one_line(tmp_path: Path) -> None:
    """The run stops with the one line; the samples are kept as errors (retried on resume)."""
    site = tmp_path / "site"
    install(site, "acme-judge", "0.3.0", {"acme_judge/kinds.py": answer_kind("pro", generate="1 / 0")}, KINDS)
    code, err, out = _eval(site, tmp_path, "--task", "debateart_winner", "--model", "answer/x")
    assert code == 2
    assert _one_line(err) == (
        "debench: error: model kind 'answer' of package acme-judge 0.3.0 "
        "(entry point 'answer = acme_judge.kinds:KIND') raised ZeroDivisionError in generate: division by zero "
        "(on all 4 documents; their samples are kept as errors)"
    )
    records = [json.loads(line) for line in next(out.rglob("samples_*.jsonl")).read_text().splitlines()]
    assert [r["status"] for r in records] == ["error"] * 4
    assert all(r["error"].startswith("model kind 'answer' of package acme-judge 0.3.0") for r in records)


def test_a_model_kind_raising_on_some_documents_is_named_in_the_errors_listed(tmp_path: Path) -> None:
    """The run ends (exit 1: above --max-error-rate) and the errors it lists name the plug-in."""
    site = tmp_path / "site"
    failing = 'assert request.doc.doc_id != "debateart_0017", "not this one"'
    install(site, "acme-judge", "0.3.1", {"acme_judge/kinds.py": answer_kind("pro", generate=failing)}, KINDS)
    code, err, _ = _eval(site, tmp_path, "--task", "debateart_winner", "--model", "answer/x")
    assert code == 1
    assert (
        "1 x model kind 'answer' of package acme-judge 0.3.1 (entry point 'answer = acme_judge.kinds:KIND') "
        "raised AssertionError in generate: not this one"
    ) in err


BAD_METRICS = """
    import numpy as np

    from debench.plugin_types import ratio, register_sum_metric


    def _raising_terms(preds, targets):
        return np.array([len(p) / 0 for p in preds])


    def _float_terms(preds, targets):
        return np.column_stack([np.ones(len(preds)), np.ones(len(preds))])


    RAISES = register_sum_metric("raises", _raising_terms, ratio)
    FLOAT = register_sum_metric("a_float", _float_terms, lambda sums: 0.5)
"""


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        (
            "raises",
            "metric 'raises' of package acme-metrics 0.1.0 (entry point 'raises = acme_metrics:RAISES') "
            "raised ZeroDivisionError in bind: division by zero",
        ),
        (
            "a_float",
            "metric 'a_float' of package acme-metrics 0.1.0 (entry point 'a_float = acme_metrics:FLOAT') "
            "returned float, expected Draws of 1 float values",
        ),
        (
            "gone",
            "entry point 'gone = acme_gone:GONE' in group debench.metrics of package acme-metrics cannot be loaded: "
            "ModuleNotFoundError: No module named 'acme_gone'",
        ),
    ],
)
def test_a_failing_metric_is_one_line_before_any_document_is_judged(tmp_path: Path, metric: str, expected: str) -> None:
    site = tmp_path / "site"
    entries = {"raises": "acme_metrics:RAISES", "a_float": "acme_metrics:FLOAT", "gone": "acme_gone:GONE"}
    install(site, "acme-metrics", "0.1.0", {"acme_metrics.py": BAD_METRICS}, {"debench.metrics": entries})
    task = user_task(tmp_path / "tasks", f"dw_{metric}", ["accuracy", metric])
    code, err, out = _eval(site, tmp_path, "--task", str(task), "--model", "baseline/first")
    assert code == 2 and expected in _one_line(err) and not out.exists()


PICKY = """
    from functools import partial

    import numpy as np

    from debench.plugin_types import ratio, register_sum_metric


    def _picky_terms(preds, targets):
        assert list(preds) == list(targets), "only a perfect judge"
        return np.column_stack([np.ones(len(preds)), np.ones(len(preds))])


    PICKY = register_sum_metric("picky", _picky_terms, partial(ratio, empty="no documents"))
"""


def test_a_metric_failing_only_on_the_run_s_answers_is_one_line_after_it(tmp_path: Path) -> None:
    """The check before the run gives the metric the gold values; a metric failing only on a
    judge's answers fails at scoring: one line, the samples kept (a rerun resumes them)."""
    site = tmp_path / "site"
    install(
        site, "acme-metrics", "0.1.0", {"acme_metrics.py": PICKY}, {"debench.metrics": {"picky": "acme_metrics:PICKY"}}
    )
    task = user_task(tmp_path / "tasks", "dw_picky", ["accuracy", "picky"])
    code, err, out = _eval(site, tmp_path, "--task", str(task), "--model", "baseline/first")
    assert code == 2 and _one_line(err).endswith("raised AssertionError in bind: only a perfect judge")
    assert len(next(out.rglob("samples_*.jsonl")).read_text().splitlines()) == 4


SYNC_METHOD = """
    from debench.plugin_types import Doc, JudgeContext, SampleRecord


    def judge(ctx: JudgeContext, doc: Doc) -> SampleRecord:
        return SampleRecord(doc_id=doc.doc_id, status="error", error="never awaited")
"""


def test_a_method_that_is_not_async_is_refused_before_the_first_request(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "acme-sync", "0.1.0", {"acme_sync.py": SYNC_METHOD}, {"debench.methods": {"sync": "acme_sync:judge"}})
    code, err, out = _eval(
        site, tmp_path, "--task", "debateart_winner", "--model", "baseline/first", "--method", "sync"
    )
    assert code == 2 and not out.exists()
    assert _one_line(err) == (
        "debench: error: entry point 'sync = acme_sync:judge' in group debench.methods of package acme-sync: "
        "not a judge method: expected an async function (JudgeContext, Doc) -> SampleRecord, "
        "got a function that is not async (def, not async def)"
    )


RATING = """
    class Broken:
        description = "divides by the number of ties"
        higher_is_better = True

        def scores(self, table, weights):
            return weights @ (1 / int((table.winner == 0).sum()))


    BROKEN = Broken()
"""


def test_a_rating_raising_is_one_line(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(
        site,
        "acme-rating",
        "2.0",
        {"acme_rating.py": RATING},
        {"debench.arena_ratings": {"by_ties": "acme_rating:BROKEN"}},
    )
    judgments = tmp_path / "j.jsonl"
    judgments.write_text(json.dumps({"topic": "t", "side1": "a", "side2": "b", "winner": 1}) + "\n")
    proc = run_cli(
        "arena", "rank", "--judgments", str(judgments), "--output", str(tmp_path / "r.json"), "--rating", "by_ties",
        env=env(site, tmp_path / "cache"),
    )  # fmt: skip
    assert proc.returncode == 2 and not (tmp_path / "r.json").exists()
    assert _one_line(proc.stderr) == (
        "debench: error: rating method 'by_ties' of package acme-rating 2.0 "
        "(entry point 'by_ties = acme_rating:BROKEN') raised ZeroDivisionError in scores: division by zero"
    )


CHECKED = '''
    from functools import partial

    import numpy as np

    from debench.plugin_types import ratio, register_sum_metric


    def _hits(preds, targets):
        """Share of exact answers."""
        hit = np.array([p == t for p, t in zip(preds, targets)], dtype=float)
        return np.column_stack([hit, np.ones(len(hit))])


    def _numbers(preds, targets):
        return np.column_stack([np.asarray(preds, dtype=float) - np.asarray(targets, dtype=float), np.ones(len(preds))])


    def _nothing(preds, targets):
        raise RuntimeError("not written yet")


    HITS = register_sum_metric("hits", _hits, partial(ratio, empty="no documents"))
    NUMBERS = register_sum_metric("numbers", _numbers, partial(ratio, empty="no documents"))
    NOTHING = register_sum_metric("nothing", _nothing, partial(ratio, empty="no documents"))
'''


def test_plugins_check_calls_each_plugin_metric_on_a_synthetic_input(tmp_path: Path) -> None:
    site = tmp_path / "site"
    entries = {"hits": "acme_checked:HITS", "numbers": "acme_checked:NUMBERS", "nothing": "acme_checked:NOTHING"}
    install(site, "acme-checked", "0.1.0", {"acme_checked.py": CHECKED}, {"debench.metrics": entries})
    proc = run_cli("plugins", "--check", env=env(site, tmp_path / "cache"))
    assert proc.returncode == 2
    broken = {line.split()[0]: line for line in proc.stdout.splitlines() if "BROKEN" in line}
    # hits computes on both inputs, numbers on the numbers only; neither has a description (no IndexError)
    assert set(broken) == {"nothing"}
    assert (
        "metric 'nothing' of package acme-checked 0.1.0 (entry point 'nothing = acme_checked:NOTHING') "
        "raised RuntimeError in bind: not written yet" in broken["nothing"]
    )
    listed = {r["name"]: r for r in json.loads(run_cli("plugins", "--json", env=env(site, tmp_path / "c")).stdout)}
    assert listed["numbers"]["distribution"] == "acme-checked" and listed["numbers"]["version"] == "0.1.0"
