"""Canonical judges (issue 41), rule by rule: what a submission nominates, what makes it
self-reported instead, the ceilings the gate refuses, and the one definition of a task's primary
metric. Each test fails if its rule is taken out (the settings compared, the ensemble refused, the
n_ctx ceiling, one row kept per non-canonical judge, a nomination exempt)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lbhelp import MAINTAINERS, TRUSTED

from debench.core.errors import UserError
from debench.leaderboard.canonical import CanonicalJudge, canonical_judges, gate_problem, nominated
from debench.leaderboard.maintainers import load_maintainers
from debench.leaderboard.trusted import load_trusted
from debench.leaderboard.validate import one_row_per_judge
from debench.metrics.names import STATUS_METRICS, primary_metric
from debench.run.task_lookup import installed_task

MODEL = "gpt-4o-mini-2024-07-18"


def _judges() -> list[CanonicalJudge]:
    return canonical_judges(load_maintainers(MAINTAINERS))


def _sub(identity: dict[str, Any], task: str = "bp_top_team", method: str = "direct", folder: str = "x") -> Any:
    """What ``nominated`` and ``gate_problem`` read of a validated submission."""
    t = installed_task(task)
    assert t is not None
    return SimpleNamespace(
        identity=identity,
        task=t,
        results=SimpleNamespace(task=SimpleNamespace(method=method), model=SimpleNamespace(name=identity.get("name"))),
        results_path=Path(f"{folder}/results_{task}_000000000000.json"),
        submission=folder,
        judge_key=str(sorted(identity.items())),
    )


@pytest.mark.parametrize(
    "identity",
    [
        {"name": MODEL, "send_grammar": False},
        {"name": MODEL, "send_grammar": False, "generation": {"max_tokens": 400}},  # the task's own
        {"name": MODEL, "send_grammar": False, "generation": {"temperature": 0}},  # the task's own
        {"name": MODEL, "send_grammar": False, "generation": {"seed": 7}},  # a seed at temperature 0
        {"name": MODEL, "send_grammar": False, "api_base": ["https://api.openai.com/v1"]},
        {"name": MODEL, "send_grammar": False, "api_base": ["https://api.openai.com/v1/"]},
    ],
)
def test_clones_of_the_default_settings_nominate_the_one_canonical_judge(identity: dict[str, Any]) -> None:
    got = nominated(_sub(identity), _judges(), load_trusted(TRUSTED))
    assert isinstance(got, CanonicalJudge) and got.id == f"{MODEL}/direct" and got.folder == MODEL


@pytest.mark.parametrize(
    ("generation", "named"),
    [
        ({"stop": ["Winner: CO"]}, 'stop ["Winner: CO"] (canonical: not set)'),
        ({"temperature": 2}, "temperature 2 (canonical: 0.0)"),
        ({"temperature": 1, "seed": 3}, "seed 3 (canonical: not set)"),
        ({"top_p": 1}, "top_p 1 (canonical: not set)"),
        ({"max_tokens": 8}, "max_tokens 8 (canonical: 400)"),
    ],
)
def test_a_setting_of_the_submitters_makes_the_entry_self_reported_naming_it(
    generation: dict[str, Any], named: str
) -> None:
    got = nominated(
        _sub({"name": MODEL, "send_grammar": False, "generation": generation}), _judges(), load_trusted(TRUSTED)
    )
    assert isinstance(got, str) and named in got and f"canonical judge {MODEL}/direct" in got, got


def test_what_is_not_a_canonical_judge_says_why() -> None:
    trusted, judges = load_trusted(TRUSTED), _judges()
    assert "not a model of the maintainers' allowlist" in str(nominated(_sub({"name": "gpt-4o"}), judges, trusted))
    own = nominated(_sub({"name": MODEL, "api_base": ["http://127.0.0.1:9/v1"]}), judges, trusted)
    assert "can never verify" in str(own)
    assert "not debatrix-h" in str(nominated(_sub({"name": MODEL}, method="debatrix-h"), judges, trusted))
    # an ensemble of allowlisted models whose members recorded an api_base: never a canonical
    # judge, so nothing rebuilds it (issue 42, item 6: the old rebuild dropped only the top-level api_base)
    members = [{"name": MODEL, "send_grammar": False, "api_base": ["https://api.openai.com/v1"]}] * 2
    ens = {"name": f"ensemble-majority({MODEL},{MODEL})", "aggregate": "majority", "members": members}
    assert "an ensemble is never a canonical judge" in str(nominated(_sub(ens), judges, trusted))
    # a member's own endpoint is the submitter's, and the reason says so
    mine = {**members[0], "api_base": ["http://127.0.0.1:9/v1"]}
    own = nominated(_sub({**ens, "members": [members[0], mine]}), judges, trusted)
    assert f"member {MODEL}: its api_base http://127.0.0.1:9/v1" in str(own) and "can never verify" in str(own), own


def test_a_named_variant_is_a_judge_of_its_own(tmp_path: Any) -> None:
    warm = (
        f"  - model: {MODEL}\n    variant: warm\n    methods: [direct]\n    settings: {{temperature: 0.7, seed: 1}}\n"
    )
    text = MAINTAINERS.read_text().replace("\n# The overall ranking", warm + "\n# The overall ranking")
    (tmp_path / "m.yaml").write_text(text)
    maint = load_maintainers(tmp_path / "m.yaml")
    judges = canonical_judges(maint)
    got = nominated(
        _sub({"name": MODEL, "send_grammar": False, "generation": {"seed": 1, "temperature": 0.7}}),
        judges,
        load_trusted(TRUSTED),
    )
    assert isinstance(got, CanonicalJudge) and got.id == f"{MODEL}+warm/direct" and got.folder == f"{MODEL}+warm"
    plain = nominated(_sub({"name": MODEL, "send_grammar": False}), judges, load_trusted(TRUSTED))
    assert isinstance(plain, CanonicalJudge) and plain.id == f"{MODEL}/direct"


def test_the_maintainers_file_names_exact_models_known_methods_and_settings_that_make_the_model(tmp_path: Any) -> None:
    m = load_maintainers(MAINTAINERS)
    assert [a.model for a in m.entries_of("local/smollm2")] == ["local/smollm2"] and m.entries_of("gpt-4o") == []
    assert m.budgets.per_refresh.wall_minutes <= 330 and m.overall_tasks
    for old, new, field in [
        ("model: gpt-4o-2024-08-06", "model: gpt-4o*", "allowlist"),
        ("methods: [direct]\n", "methods: [directly]\n", "allowlist.0"),
        (
            "settings: {}\n    description: the embedded",
            "settings: {n_ctx: 10}\n    description: the embedded",
            "allowlist.0.settings",
        ),
        (
            "settings: {}\n    description: OpenAI gpt-4o,",
            "settings: {api_key: sk-x}\n    description: OpenAI gpt-4o,",
            "allowlist.1",
        ),
        ("    tokens: 3000000\n", "    tokens: 9000000\n", None),  # per_entry above per_refresh
    ]:
        text = MAINTAINERS.read_text()
        assert old in text, old
        (tmp_path / "m.yaml").write_text(text.replace(old, new, 1))
        with pytest.raises(UserError) as exc:
            load_maintainers(tmp_path / "m.yaml")
        assert len(str(exc.value).splitlines()) == 1 and (field is None or f"field '{field}" in str(exc.value)), (
            exc.value
        )


def test_the_gate_refuses_an_n_ctx_above_the_one_the_job_serves() -> None:
    judges = _judges()
    big = gate_problem(_sub({"name": "local/smollm2", "n_ctx": 700_000}, task="ibm_speech_likert"), judges)
    assert big is not None and "field 'model.identity.n_ctx'" in str(big) and "above the 4096" in str(big)
    assert gate_problem(_sub({"name": "local/smollm2", "n_ctx": 700_000.0}, task="ibm_speech_likert"), judges)
    assert gate_problem(_sub({"name": "local/smollm2", "n_ctx": 2048}, task="ibm_speech_likert"), judges) is None
    assert gate_problem(_sub({"name": "gguf/other.gguf", "n_ctx": 700_000}, task="ibm_speech_likert"), judges) is None
    # and the job never starts what a submission writes: the canonical smollm2 has no n_ctx of its own
    (smollm2,) = [j for j in judges if j.id == "local/smollm2/direct"]
    assert "n_ctx" not in smollm2.identity and smollm2.settings == {}


def test_later_nominations_are_kept_and_other_copies_refused_naming_the_first() -> None:
    a, b, c = (_sub({"name": MODEL}, folder=f) for f in ("squatter", "vendor", "third"))
    kept, refused = one_row_per_judge([a, b, c], exempt=lambda s: s.submission != "third")
    assert kept == [a, b] and len(refused) == 1 and "as the submission in folder squatter/" in str(refused[0])
    kept, refused = one_row_per_judge([a, b], exempt=lambda s: True)
    assert kept == [a, b] and refused == []


def test_one_definition_of_the_primary_metric() -> None:
    from debench.leaderboard.build import _columns
    from debench.scoring.group_summary import primary_metric as group_primary

    assert primary_metric(["kappa_human", "kendall_tau_c", "kappa_loo"]) == "kendall_tau_c"
    assert primary_metric(["parse_failure_rate", "alt_test_winning_rate"]) == "alt_test_winning_rate"
    assert primary_metric(["krippendorff_alpha_human", "krippendorff_alpha"]) == "krippendorff_alpha"
    assert primary_metric(["parse_failure_rate", "completion_rate"]) is None  # nothing to rank by
    for name in ("ibm_speech_likert", "bp_top_team", "debateart_winner", "debatebench_verdict"):
        task = installed_task(name)
        assert task is not None
        names = [m.name for m in task.metrics]
        results = SimpleNamespace(metrics={n: SimpleNamespace(value=0.5, ci95=None, n=1) for n in names})
        got = group_primary(results)  # type: ignore[arg-type]
        assert got is not None and got.name == _columns(task)[0] == primary_metric(names), name


def test_a_task_of_status_rates_only_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 42, item 6: such a task raised StopIteration in verify (reported as "the leaderboard's
    run failed"); it is refused where the results file is bound to its task, naming the field."""
    from debench.leaderboard import task_binding
    from debench.scoring.results import load_results

    real = installed_task("bp_top_team")
    assert real is not None
    rates = real.model_copy(update={"metrics": [m for m in real.metrics if m.name in STATUS_METRICS]})
    assert rates.metrics and primary_metric([m.name for m in rates.metrics]) is None
    monkeypatch.setattr(task_binding, "named_task", lambda name, include_paths=(): rates)
    (path,) = (MAINTAINERS.parent / "submissions" / "baseline__first").glob("results_bp_top_team_*.json")
    with pytest.raises(UserError) as err:
        task_binding.bound_task(load_results(path), path)
    assert err.value.field == "task.name" and "no metric that measures the judge (only status rates)" in str(err.value)
