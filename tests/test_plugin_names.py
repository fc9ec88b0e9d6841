"""No takeover (issue 44): a plug-in never takes a name debench has (its own entry points, the model
prefixes its server kind serves: ``openai``, ``anthropic``, litellm's providers), and a name two
plug-ins declare is neither's; ``plugins --check`` and a command using the name say which packages
clash, naming both.

The plug-ins are the tests' own (``tests/plugin_site.py``), installed beside debench."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli
from plugin_site import answer_kind, env, install, user_task

from debench.core.provider_names import litellm_providers, server_prefixes
from debench.testing.stub_server import StubServer, fixed_responder

TAKEOVER = {
    "acme_openai/__init__.py": "",
    "acme_openai/kinds.py": answer_kind("con"),
    "acme_openai/metrics.py": """
        from functools import partial

        import numpy as np

        from debench.plugin_types import ratio, register_sum_metric


        def _always(preds, targets):
            return np.column_stack([np.ones(len(preds)), np.ones(len(preds))])


        ACCURACY = register_sum_metric("accuracy_of_acme", _always, partial(ratio, empty="none"))
    """,
}
TAKEOVER_ENTRIES = {
    "debench.models": {"openai": "acme_openai.kinds:KIND"},
    "debench.metrics": {"accuracy": "acme_openai.metrics:ACCURACY"},
}


def test_a_plugin_registering_openai_never_answers_openai_models(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "acme-openai", "0.1.0", TAKEOVER, TAKEOVER_ENTRIES)
    with StubServer(responder=fixed_responder("Winner: pro")) as srv:
        proc = run_cli(
            "eval", "--task", "debateart_winner", "--model", "openai/stub", "--api-base", srv.base_url, "--limit", "4",
            "--output-dir", str(tmp_path / "out"), "--no-progress", env=env(site, tmp_path / "cache"),
        )  # fmt: skip
        asked = len(srv.stats.requests)
    assert proc.returncode == 0, proc.stderr
    assert asked == 4  # the provider answered every document, not the plug-in
    results = json.loads(next((tmp_path / "out").rglob("results_*.json")).read_text())
    assert results["model"]["kind"] == "openai-http" and "acme-openai" not in results["versions"]
    samples = [json.loads(line) for line in next((tmp_path / "out").rglob("samples_*.jsonl")).read_text().splitlines()]
    assert {r["prediction"] for r in samples} == {"pro"}  # the stub's answer; the plug-in's is con
    # the command says which packages clash, naming both (once per name it uses)
    warned = [line for line in proc.stderr.splitlines() if "acme-openai" in line]
    assert len(warned) == 2, proc.stderr
    assert any(
        "model kind 'openai' of package acme-openai 0.1.0 (openai = acme_openai.kinds:KIND) takes a name debench "
        "already has (a model prefix of its server kind: litellm provider 'openai')" in line
        for line in warned
    )
    assert any(
        "metric 'accuracy' of package acme-openai 0.1.0" in line and "its own entry point" in line for line in warned
    )


def test_plugins_check_names_both_packages_of_a_clash(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "acme-openai", "0.1.0", TAKEOVER, TAKEOVER_ENTRIES)
    metric = {"acme_b.py": TAKEOVER["acme_openai/metrics.py"]}
    install(
        site,
        "acme-a",
        "1.0",
        {"acme_a.py": TAKEOVER["acme_openai/metrics.py"]},
        {"debench.metrics": {"bacc": "acme_a:ACCURACY"}},
    )
    install(site, "acme-b", "2.0", metric, {"debench.metrics": {"bacc": "acme_b:ACCURACY"}})
    check = run_cli("plugins", "--check", env=env(site, tmp_path / "cache"))
    assert check.returncode == 2
    refused = [line.strip() for line in check.stdout.splitlines() if "REFUSED" in line]
    assert len(refused) == 4, check.stdout  # openai, accuracy, and bacc of each package
    assert all("debench already has" in line for line in refused if line.startswith(("openai", "accuracy")))
    bacc = [line for line in refused if line.startswith("bacc")]
    assert all("package acme-a 1.0 (bacc = acme_a:ACCURACY) and package acme-b 2.0" in line for line in bacc)
    # the built-ins still come through whole
    rows = json.loads(run_cli("plugins", "--json", env=env(site, tmp_path / "cache")).stdout)
    assert {r["distribution"] for r in rows if r["name"] in ("openai", "accuracy", "bacc")} == {
        "debench", "acme-openai", "acme-a", "acme-b",
    }  # fmt: skip
    assert [r["distribution"] for r in rows if r["name"] == "accuracy" and "problem" not in r] == ["debench"]

    # a task using the name two packages declare is refused before anything runs, naming both
    refused = _refused_eval(site, tmp_path, ["bacc"])
    assert "metric 'bacc' is declared by package acme-a 1.0 (bacc = acme_a:ACCURACY) and package acme-b 2.0" in refused


def test_a_judge_method_two_packages_declare_is_refused_naming_both(tmp_path: Path) -> None:
    site = tmp_path / "site"
    method = (
        "from debench.plugin_types import record_from_response\n\nasync def judge(ctx, doc):\n    raise ValueError\n"
    )
    for dist in ("acme-c", "acme-d"):
        module = dist.replace("-", "_")
        install(site, dist, "1.0", {f"{module}.py": method}, {"debench.methods": {"twice": f"{module}:judge"}})
    proc = run_cli(
        "eval", "--task", "debateart_winner", "--model", "baseline/first", "--method", "twice", "--limit", "4",
        "--output-dir", str(tmp_path / "out"), env=env(site, tmp_path / "cache"),
    )  # fmt: skip
    assert proc.returncode == 2 and not (tmp_path / "out").exists() and proc.stderr.count("\n") == 1, proc.stderr
    assert (
        "judge method 'twice' is declared by package acme-c 1.0 (twice = acme_c:judge) and package acme-d"
        in proc.stderr
    )


def _refused_eval(site: Path, tmp: Path, metrics: list[str]) -> str:
    """``eval`` of a task of the user's own with ``metrics``: refused before anything runs; its line."""
    task = user_task(tmp / "tasks", "dw_mine", metrics)
    proc = run_cli(
        "eval", "--task", str(task), "--model", "baseline/first", "--limit", "4", "--output-dir", str(tmp / "out"),
        env=env(site, tmp / "cache"),
    )  # fmt: skip
    assert proc.returncode == 2 and not (tmp / "out").exists() and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


SNEAKY = """
    from functools import partial

    import numpy as np

    from debench.plugin_types import ratio, register_sum_metric


    def _terms(preds, targets):
        return np.column_stack([np.ones(len(preds)), np.ones(len(preds))])


    register_sum_metric("sneaky", _terms, partial(ratio, empty="none"))
    register_sum_metric("accuracy", _terms, partial(ratio, empty="none"))  # debench's name
"""


def test_a_module_registering_a_name_debench_has_is_refused(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "acme-sneaky", "0.1.0", {"acme_sneaky.py": SNEAKY}, {"debench.metrics": {"sneaky": "acme_sneaky"}})
    assert (
        "entry point 'sneaky = acme_sneaky' in group debench.metrics of package acme-sneaky: its module registers "
        "the metric 'accuracy', a name debench already has"
    ) in _refused_eval(site, tmp_path, ["accuracy", "sneaky"])


def test_the_server_kind_s_prefixes_are_litellm_s_providers() -> None:
    prefixes = server_prefixes()
    assert {"openai", "anthropic", "gemini", "groq", "mistral", "ollama", "hosted_vllm"} <= set(prefixes)


@pytest.mark.slow  # imports litellm (seconds)
def test_the_providers_read_without_importing_litellm_are_litellm_s_own_list() -> None:
    import litellm

    assert set(litellm_providers()) == {str(getattr(p, "value", p)) for p in litellm.provider_list}
