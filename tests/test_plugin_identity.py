"""A plug-in's code is part of a run's identity (issue 44): an upgraded or edited plug-in never
resumes the old samples log nor is served the old answers from the response cache, and the results
name its package and version. debench's own components enter nothing (their fingerprints, file
names and cache keys are checked by tests/test_frozen_outputs*.py and scripts/check_identical_outputs.py).

The plug-ins are the tests' own (``tests/plugin_site.py``), installed beside debench."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clihelp import run_cli
from plugin_site import answer_kind, env, install

KIND = {"debench.models": {"answer": "acme_judge.kinds:KIND"}}


def _eval(site: Path, tmp: Path, *extra: str) -> dict[str, Any]:
    """``eval`` of the first 20 DebateArt debates; the results file, its samples and the command's output."""
    out = tmp / "out"
    proc = run_cli(
        "eval", "--task", "debateart_winner", "--limit", "20", "--output-dir", str(out), "--no-progress", *extra,
        env=env(site, tmp / "cache"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    path = Path(proc.stdout.split("results: ")[1].split()[0])
    results = json.loads(path.read_text())
    samples = [json.loads(line) for line in (path.parent / results["samples_file"]).read_text().splitlines()]
    return {"results": results, "samples": samples, "path": path}


@pytest.mark.slow  # four runs, each in a process of its own (PYTHONPATH)
def test_an_upgraded_or_edited_model_kind_judges_afresh(tmp_path: Path) -> None:
    site = tmp_path / "site"
    modules = {"acme_judge/__init__.py": ""}
    install(site, "acme-judge", "0.1.0", {**modules, "acme_judge/kinds.py": answer_kind("pro")}, KIND)
    first = _eval(site, tmp_path, "--model", "answer/x")
    assert {r["prediction"] for r in first["samples"]} == {"pro"} and len(first["samples"]) == 20
    assert first["results"]["versions"]["acme-judge"] == "0.1.0"
    plugin = first["results"]["model"]["identity"]["plugin"]
    assert plugin["distribution"] == "acme-judge" and plugin["version"] == "0.1.0"
    assert first["results"]["config"]["plugins"] == [{"group": "debench.models", "name": "answer", **plugin}]

    # 0.2.0 answers otherwise: the same command judges every document again, none from the cache
    install(site, "acme-judge", "0.2.0", {"acme_judge/kinds.py": answer_kind("con")}, KIND)
    second = _eval(site, tmp_path, "--model", "answer/x")
    assert {r["prediction"] for r in second["samples"]} == {"con"} and not any(r["cached"] for r in second["samples"])
    assert second["path"] != first["path"] and first["path"].is_file()  # the old run is kept, not resumed
    assert second["results"]["versions"]["acme-judge"] == "0.2.0"
    assert second["results"]["model"]["identity"]["plugin"]["version"] == "0.2.0"

    # an editable install's edit (same version, other code) is caught by the hash of its module files
    install(site, "acme-judge", "0.2.0", {"acme_judge/kinds.py": answer_kind("tie")}, KIND)
    third = _eval(site, tmp_path, "--model", "answer/x")
    assert {r["prediction"] for r in third["samples"]} == {"tie"}
    assert third["results"]["model"]["identity"]["plugin"]["sources_sha256"] != plugin["sources_sha256"]
    assert third["path"] not in (first["path"], second["path"])

    # the same code again: the run resumes its own log (nothing judged again)
    before = (third["path"].parent / third["results"]["samples_file"]).read_text()
    fourth = _eval(site, tmp_path, "--model", "answer/x")
    assert fourth["path"] == third["path"]
    assert (third["path"].parent / third["results"]["samples_file"]).read_text() == before


CACHED_KIND = """
    from debench.plugin_types import Model, ModelRequest, ModelResponse, Request

    class Echo(Model):
        kind = "echo"
        cacheable = True  # its answers are kept in the response cache

        def __init__(self, name):
            self.name = name

        def identity(self):
            return {"name": self.name}

        async def generate(self, request: Request) -> ModelResponse:
            return ModelResponse(text="Winner: {answer}")


    class EchoKind:
        description = "echo/<name>"
        keys = frozenset()

        def make(self, request: ModelRequest) -> Model:
            return Echo(request.name)


    KIND = EchoKind()
"""


@pytest.mark.slow  # two runs, each in a process of its own
def test_an_upgraded_model_kind_is_not_served_the_cached_answers(tmp_path: Path) -> None:
    """The plug-in's identity is in the cache key: an upgrade with a new samples log (``--output-dir``
    elsewhere) still asks the model again."""
    site = tmp_path / "site"
    kind = {"debench.models": {"echo": "acme_echo:KIND"}}
    install(site, "acme-echo", "1.0", {"acme_echo.py": CACHED_KIND.replace("{answer}", "pro")}, kind)
    first = _eval(site, tmp_path, "--model", "echo/x")
    assert {r["prediction"] for r in first["samples"]} == {"pro"} and not any(r["cached"] for r in first["samples"])
    install(site, "acme-echo", "1.1", {"acme_echo.py": CACHED_KIND.replace("{answer}", "con")}, kind)
    second = _eval(site, tmp_path, "--model", "echo/x", "--output-dir", str(tmp_path / "elsewhere"))
    assert {r["prediction"] for r in second["samples"]} == {"con"} and not any(r["cached"] for r in second["samples"])
    # and the same version again is served from the cache (so the key is what changed)
    third = _eval(site, tmp_path, "--model", "echo/x", "--output-dir", str(tmp_path / "third"))
    assert all(r["cached"] for r in third["samples"])


METHOD = '''
    """``first-line``: the direct method, keeping only the first line of the answer."""

    from debench.plugin_types import Doc, JudgeContext, SampleRecord, build_messages, record_from_response

    MARK = "{mark}"


    async def judge(ctx: JudgeContext, doc: Doc) -> SampleRecord:
        prompt = ctx.task.prompt
        messages = build_messages(prompt.system, prompt.user, doc, prompt.variables)
        record = record_from_response(ctx, doc, messages, await ctx.call(messages, doc))
        record.steps = [{"method": MARK}]
        return record
'''


@pytest.mark.slow  # two runs, each in a process of its own
def test_an_upgraded_judge_method_enters_the_run_fingerprint(tmp_path: Path) -> None:
    site = tmp_path / "site"
    method = {"debench.methods": {"first-line": "acme_method:judge"}}
    install(site, "acme-method", "0.1.0", {"acme_method.py": METHOD.replace("{mark}", "old")}, method)
    first = _eval(site, tmp_path, "--model", "baseline/first", "--method", "first-line")
    assert {r["steps"][0]["method"] for r in first["samples"]} == {"old"}
    assert first["results"]["versions"]["acme-method"] == "0.1.0"
    assert first["results"]["config"]["plugins"][0]["name"] == "first-line"
    assert "plugin" not in first["results"]["model"]["identity"]  # a built-in model: its identity as before
    install(site, "acme-method", "0.1.1", {"acme_method.py": METHOD.replace("{mark}", "new")}, method)
    second = _eval(site, tmp_path, "--model", "baseline/first", "--method", "first-line")
    assert {r["steps"][0]["method"] for r in second["samples"]} == {"new"}
    assert second["results"]["config"]["fingerprint"] != first["results"]["config"]["fingerprint"]
    assert second["results"]["versions"]["acme-method"] == "0.1.1"


ARGS_KIND = '''
    from typing import Literal

    from pydantic import BaseModel

    from debench.plugin_types import Model, ModelRequest, ModelResponse, Request


    class Settings(BaseModel):
        """answer: the verdict given; repeat: how many times it is written."""

        answer: Literal["pro", "con", "tie"] = "pro"
        repeat: int = 1


    class Fixed(Model):
        kind = "fixed"
        makes_requests = False

        def __init__(self, name, settings):
            self.name, self.settings = name, settings

        def identity(self):
            return {"name": self.name}

        async def generate(self, request: Request) -> ModelResponse:
            return ModelResponse(text=" ".join(["Winner: " + self.settings.answer] * self.settings.repeat))


    class FixedKind:
        description = "fixed/<name>: the verdict its own --model-args key 'answer' gives"
        keys = frozenset({"temperature"})
        args = Settings

        def make(self, request: ModelRequest) -> Model:
            return Fixed(request.name, request.kind_args)


    KIND = FixedKind()
'''


@pytest.mark.slow  # four commands, each in a process of its own
def test_a_model_kind_declares_its_own_model_args(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "acme-fixed", "1.0", {"acme_fixed.py": ARGS_KIND}, {"debench.models": {"fixed": "acme_fixed:KIND"}})
    con = _eval(site, tmp_path, "--model", "fixed/x@answer=con")
    assert {r["prediction"] for r in con["samples"]} == {"con"}
    assert con["results"]["model"]["identity"]["kind_args"] == {"answer": "con"}  # in the identity
    tie = _eval(site, tmp_path, "--model", "fixed/x", "--model-args", "answer=tie,repeat=2")
    assert {r["prediction"] for r in tie["samples"]} == {"tie"}
    assert tie["results"]["config"]["fingerprint"] != con["results"]["config"]["fingerprint"]
    environ = env(site, tmp_path / "cache")
    for args, expected in [
        ("repeat=two", "model argument for fixed/x: repeat=two: expected a whole number"),
        ("answr=con", "unknown model argument 'answr'; did you mean 'answer'?"),
        ("top_p=0.5", "model argument 'top_p' does not apply to fixed/x"),
    ]:
        proc = run_cli(
            "eval", "--task", "debateart_winner", "--model", "fixed/x", "--model-args", args, "--limit", "2",
            "--output-dir", str(tmp_path / "bad"), "--no-progress", env=environ,
        )  # fmt: skip
        assert proc.returncode == 2 and expected in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not (tmp_path / "bad").exists()
