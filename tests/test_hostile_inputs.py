"""A hostile environment and hostile inputs (issue 34): the cache keyed on the endpoint actually
reached, no `.env` loaded, failures that cannot recover stop the run at once, ceilings on counts,
parser patterns and prompt templates bounded, no absolute path written, and the smaller refusals.
Each case is one line and exit code 2 (or a correct bounded result), against the stub server on
127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from clihelp import run_cli

from debench.core.atomic import write_atomic
from debench.core.errors import DataError, UserError
from debench.core.record_log import RecordLog
from debench.task.bounded_render import render
from debench.task.config import FieldMap, ParserConfig
from debench.task.parsing import MATCH_TIMEOUT_S, parse_answer
from debench.task.prompt_sandbox import TemplateBoundError
from debench.testing.fixed_status import FixedStatusServer
from debench.testing.stub_server import BatchPlan, FaultPlan, StubServer

SAMPLE = (
    "--task",
    "ibm_speech_likert",
    "--limit",
    "2",
    "--data-source",
    "sample",
    "--no-progress",
    "--bootstrap",
    "20",
)
"""A run on the sample data shipped with debench (two speeches)."""


def eval_args(model: str, out: Path, *extra: str) -> list[str]:
    return ["eval", "--model", model, *SAMPLE, "--output-dir", str(out), *extra]


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a refused command (after any progress output)."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-1500:])
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("debench: error: "), proc.stderr[-1500:]
    assert "Traceback" not in proc.stderr
    return last


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The test's environment without any provider variable, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LITELLM_"))}
    return {**env, "DEBENCH_CACHE_DIR": str(tmp_path / "cache"), **extra}


# -- the endpoint actually reached -----------------------------------------------------------------


def test_an_endpoint_set_in_the_environment_gets_its_own_requests(tmp_path: Path) -> None:
    """OPENAI_API_BASE changed between two runs of `gpt-4o`: the second server is asked too (its
    answers are not the first one's, served from the cache), and each results file names its
    endpoint in the model's identity."""
    with StubServer() as one, StubServer() as two:
        for srv, out in ((one, "a"), (two, "b")):
            env = {
                "DEBENCH_CACHE_DIR": str(tmp_path / "cache"),
                "OPENAI_API_BASE": srv.base_url,
                "OPENAI_API_KEY": "sk-test-0123456789abcdef",
            }
            proc = run_cli(*eval_args("gpt-4o", tmp_path / out), env=env)
            assert proc.returncode == 0, proc.stderr[-1500:]
        asked = one.stats.total_requests, two.stats.total_requests
        bases = [one.base_url.rstrip("/"), two.base_url.rstrip("/")]
    assert asked == (2, 2)
    for base, out in zip(bases, ("a", "b"), strict=True):
        results = json.loads(next((tmp_path / out).rglob("results_*.json")).read_text())
        assert results["model"]["identity"]["api_base"] == [base]


@pytest.mark.slow  # a new process importing litellm (what loads .env): 15-20 s on a loaded machine
def test_a_dot_env_file_is_not_loaded(tmp_path: Path) -> None:
    """litellm loads `.env` when imported unless LITELLM_MODE says otherwise; debench sets it, so
    a `.env` in the working folder sends no request anywhere: the run without a key is refused."""
    with StubServer() as srv:
        (tmp_path / ".env").write_text(f"OPENAI_API_BASE={srv.base_url}\nOPENAI_API_KEY=sk-from-dot-env-0123456789\n")
        proc = subprocess.run(
            [sys.executable, "-m", "debench.cli", *eval_args("gpt-4o", tmp_path / "out")],
            cwd=tmp_path,
            env=clean_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=300,
        )
        asked = srv.stats.total_requests
    assert "needs OPENAI_API_KEY" in one_line(proc)
    assert asked == 0
    assert not (tmp_path / "out").exists() or not any(
        (tmp_path / "out").iterdir()
    )  # a refused run leaves no empty results/<model>/


# -- failures that cannot recover ------------------------------------------------------------------


@pytest.mark.parametrize("client", ["http", "litellm"])
@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "bad request"),
        (401, "invalid key"),
        (403, "forbidden"),
        (404, "no such model"),
        (422, "unprocessable"),
        (501, "not implemented"),
        (429, "insufficient_quota"),
    ],
)
def test_a_status_no_retry_can_fix_stops_the_run_at_once(
    tmp_path: Path, status: int, message: str, client: str
) -> None:
    with FixedStatusServer(status, {"error": {"message": message, "type": "error", "code": None}}) as srv:
        base, hits = srv.base_url, srv.hits
        proc = run_cli(
            *eval_args(
                "openai/stub",
                tmp_path / "out",
                "--api-base",
                base,
                "--concurrency",
                "1",
                "--model-args",
                f"client={client}",
            ),
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")},
        )
    line = one_line(proc)
    assert base in line and str(status) in line and message in line
    assert len(hits) == 1  # not retried, and the second document never asked


def test_a_server_that_never_answers_stops_the_run_naming_the_timeout(tmp_path: Path) -> None:
    plan = FaultPlan(fail_first_n_per_prompt=100, fail_kind="slow", slow_seconds=5)
    with StubServer(faults=plan) as srv:
        proc = run_cli(
            *eval_args(
                "openai/stub",
                tmp_path / "out",
                "--api-base",
                srv.base_url,
                "--concurrency",
                "1",
                "--model-args",
                "timeout=0.3,max_retries=1,base_delay=0.01",
            ),
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")},
        )
        asked = srv.stats.total_requests
    line = one_line(proc)
    assert "has not answered any request" in line and "request timeout of 0.3 s" in line
    assert asked == 2  # the first document's two attempts; the second document is never sent


def test_a_batch_that_never_ends_stops_at_its_deadline(tmp_path: Path) -> None:
    with StubServer(batch=BatchPlan(duration=3600)) as srv:
        proc = run_cli(
            *eval_args(
                "openai/gpt-4o-mini",
                tmp_path / "out",
                "--api-base",
                srv.base_url,
                "--batch",
                "--batch-poll",
                "0.05",
                "--batch-deadline",
                "0.0003",
            ),
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")},
        )
    line = one_line(proc)
    assert "not finished after" in line and "--batch-deadline" in line and "rerun the same command" in line
    state = json.loads(next((tmp_path / "out").rglob("batches_*.json")).read_text())
    assert len(state["batches"]) == 1  # kept for the rerun


# -- ceilings --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "bound"),
    [
        ("--concurrency", "1000000000", "4096"),
        ("--bootstrap", "100000000", "100000"),
        ("--repeats", "100000", "1000"),
        ("--batch-deadline", "100000", "720"),
    ],
)
def test_counts_past_their_ceiling_are_refused(tmp_path: Path, option: str, value: str, bound: str) -> None:
    line = one_line(run_cli(*eval_args("baseline/random", tmp_path / "out", option, value)))
    assert option in line and f"at most {bound}" in line
    assert not (tmp_path / "out").exists()


def test_arena_rank_counts_have_ceilings(tmp_path: Path) -> None:
    (tmp_path / "j.jsonl").write_text("")
    proc = run_cli(
        "arena",
        "rank",
        "--judgments",
        str(tmp_path / "j.jsonl"),
        "--output",
        str(tmp_path / "r.json"),
        "--n-boot",
        "100000000",
    )
    assert proc.returncode == 2 and "--n-boot" in proc.stderr


def test_a_catastrophic_parser_pattern_is_a_bounded_parse_failure() -> None:
    cfg = ParserConfig(patterns=[r"^(a|aa)+$"], type="str")
    result = parse_answer("a" * 40 + "!", cfg)
    assert not result.ok and result.reason is not None and f"{MATCH_TIMEOUT_S:g} s time bound" in result.reason
    # a long answer: the patterns see its end (the last match is taken), bounded
    long = "x" * 1_000_000 + " Score: 4"
    assert parse_answer(long, ParserConfig(patterns=[r"Score:\s*(\d)"], type="int")).value == 4


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("{% for i in range(100000000) %}x{% endfor %}", "range() calls yield more than"),
        (
            "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
            "range() calls yield more than",
        ),
        ("{{ 'x' * 10000000000 }}", "repeats a value past"),
        ("{{ 10 ** 100000000 }}", "power above"),
        ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recurses too deeply"),
        # what a filter or a text method would build is checked before it is built (no gigabyte first)
        ("{{ 'a'|center(10**10) }}", "asks center for more than"),
        ("{{ 'a'.ljust(10**10) }}", "asks ljust for more than"),
        ("{{ '%0999999999d' % 1 }}", "asks % for more than"),
        ("{{ '%*d' % (10**10, 1) }}", "asks % for more than"),
        ("{{ '{:>{}}'.format(1, 10**10) }}", "asks format for more than"),
        ("{{ '%0999999999d'|format(1) }}", "asks format for more than"),
        ("{{ ('x' * 1000000)|replace('x', 'y' * 100000) }}", "asks replace for more than"),
        ("{{ ('z' * 1000000).join(range(90000)|list) }}", "asks join for more than"),
        ("{{ range(90000)|map('string')|join('z' * 1000000) }}", "asks join for more than"),
        ("{{ ('z' * 1000000).join(range(90000)|map('string')) }}", "asks join for more than"),
        ("{{ ('\n' * 1000000)|indent(10**6) }}", "asks indent for more than"),
        ("{{ [1]|batch(10**10, 0)|list }}", "asks batch for more than"),
    ],
)
def test_a_prompt_template_renders_within_bounds(template: str, says: str) -> None:
    with pytest.raises(TemplateBoundError, match=r"\w") as info:
        render(template, {})
    assert says in str(info.value) and "\n" not in str(info.value)
    assert render("{% for i in range(3) %}{{ i }}{% endfor %}", {}) == "012"
    benign = (
        "{{ 'ab'|center(6) }}|{{ 'a,b'.split(',')|join('-') }}|{{ '%03d' % 7 }}|{{ '{:>4}'.format(1) }}|{{ '%d' % "
        "5000000 }}|{{ 'abc'|truncate(5000000) }}"
    )
    assert render(benign, {}) == "  ab  |a-b|007|   1|5000000|abc"


def test_a_task_whose_template_loops_for_ever_is_one_line(tmp_path: Path) -> None:
    task = (Path(__file__).parent.parent / "tasks" / "ibm_speech_likert.yaml").read_text(encoding="utf-8")
    hostile = tmp_path / "loop.yaml"
    hostile.write_text(
        task.replace("user: |", "user: |\n    {% for i in range(100000000) %}{% endfor %}", 1), encoding="utf-8"
    )
    assert "range(100000000)" in hostile.read_text()
    proc = run_cli(
        "eval",
        "--task",
        str(hostile),
        "--model",
        "baseline/random",
        "--limit",
        "2",
        "--data-source",
        "sample",
        "--no-progress",
        "--output-dir",
        str(tmp_path / "out"),
    )
    assert "range() calls yield more than" in one_line(proc)


# -- two runs of one eval, and what a run leaves behind ----------------------------------------------


def test_concurrent_atomic_writes_of_one_file_all_succeed(tmp_path: Path) -> None:
    """Two runs writing the same plot at once: each renames its own temporary file into place."""
    target = tmp_path / "sub" / "plot_scores.svg"
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            for _ in range(50):
                write_atomic(target, f"<svg>{i}</svg>" * 1000)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert target.read_text() in {f"<svg>{i}</svg>" * 1000 for i in range(4)}
    assert sorted(p.name for p in target.parent.iterdir()) == ["plot_scores.svg"]  # no temporary file left


def test_a_finished_log_leaves_no_hidden_file(tmp_path: Path) -> None:
    from debench.data.samples import SampleRecord

    a = RecordLog(tmp_path / "samples_x.jsonl", SampleRecord, "doc_id")
    b = RecordLog(tmp_path / "samples_x.jsonl", SampleRecord, "doc_id")  # a second process on the same log
    a.append(SampleRecord(doc_id="d1", status="ok"))
    a.close()  # removes the lock file while b still works: b locks a new one
    b.append(SampleRecord(doc_id="d2", status="ok"))
    b.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["samples_x.jsonl"]
    assert [json.loads(x)["doc_id"] for x in (tmp_path / "samples_x.jsonl").read_text().splitlines()] == ["d1", "d2"]


def test_a_finished_eval_leaves_no_hidden_file(tmp_path: Path) -> None:
    proc = run_cli(*eval_args("baseline/random", tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in (tmp_path / "out").rglob(".*")] == []


# -- absolute paths --------------------------------------------------------------------------------


def test_validate_refuses_an_absolute_path_in_a_command_string(tmp_path: Path) -> None:
    proc = run_cli(*eval_args("baseline/random", tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    results = next((tmp_path / "out").rglob("results_*.json"))
    data = json.loads(results.read_text())
    data["config"]["command"] = "debench eval --predictions /home/someone/secret/preds.jsonl"
    results.write_text(json.dumps(data))
    line = one_line(run_cli("validate", str(results)))
    assert "config.command" in line and "absolute path" in line


# -- smaller refusals ------------------------------------------------------------------------------


def test_empty_choices_are_refused() -> None:
    with pytest.raises(ValueError, match="allows no answer"):
        ParserConfig(patterns=[r"(\w+)"], choices=[])


@pytest.mark.parametrize("bad", [None, float("nan"), "", "  ", True, [1]])
def test_a_record_without_a_usable_id_is_refused(bad: object) -> None:
    from debench.data.generic import docs_from_records

    fm = FieldMap(doc_id="id", text="text", gold="label")
    with pytest.raises(DataError, match="record 2: the id must be text or a whole number"):
        docs_from_records(
            [{"id": "a", "text": "t", "label": 1}, {"id": bad, "text": "t", "label": 1}], fm, "data.jsonl"
        )


def test_a_reference_naming_an_unknown_model_is_refused() -> None:
    from debench.arena.judgments import Judgment
    from debench.arena.rank import analyse_judgments

    lines = [Judgment(topic=f"t{i}", side1="a", side2="b", winner=1 + i % 2, judge="j") for i in range(4)]
    with pytest.raises(UserError, match=r"'c'.*which no judgment has"):
        analyse_judgments(lines, reference=["a", "b", "c"], n_boot=10, n_perm=10)


def test_small_refusals_are_one_line(tmp_path: Path) -> None:
    assert "--api-base does not apply" in one_line(
        run_cli(*eval_args("baseline/random", tmp_path / "o1", "--api-base", "http://127.0.0.1:9/v1"))
    )
    assert "no such file or folder: ./missing" in one_line(run_cli(*eval_args("vllm/./missing", tmp_path / "o2")))
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


def test_the_python_api_refuses_a_non_task_with_a_value_error() -> None:
    import debench

    assert issubclass(UserError, ValueError)
    with pytest.raises(ValueError, match=r"expected a task name.*got int 123"):
        debench.evaluate(123, "baseline/random")  # type: ignore[arg-type]  # the hostile call under test


def test_no_key_is_fatal_not_transient(monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena --judge gpt-4o --api-base URL` without a key: refused before the judge's first request
    (the OpenAI client would refuse it, and litellm reports that as a 500, which was retried 7
    times per debate); the client's refusal itself is fatal wherever it comes from."""
    from debench.models.factory import make_model
    from debench.models.retry import classify_status

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match="needs OPENAI_API_KEY"):
        make_model("gpt-4o", api_bases=["http://127.0.0.1:9/v1"]).check_ready()
    make_model(
        "openai/stub", api_bases=["http://127.0.0.1:9/v1"]
    ).check_ready()  # a server of the user's: no key needed
    assert classify_status(500, "OpenAIException - Missing credentials. Please pass an `api_key`") == "fatal"
    assert classify_status(500, "The server had an error") == "transient"
