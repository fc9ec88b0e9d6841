"""Every file a run writes tells the truth (issue: secrets, settings that were applied, loud failures).

The commands run as a user runs them (``python -m debench.cli`` in a subprocess), against the stub
OpenAI-compatible server on 127.0.0.1; every file they write is read back byte by byte.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.testing.stub_server import FaultPlan, StubServer, fixed_responder, likert_responder

SECRET = "sk-proj-PLANTEDsecret0123456789abcdefXYZ"


def files_under(*roots: Path) -> list[Path]:
    return [p for root in roots if root.exists() for p in root.rglob("*") if p.is_file()]


def leaks(secret: str, *roots: Path) -> list[str]:
    """Files under ``roots`` that hold ``secret`` (in any encoding a file could carry it)."""
    needles = [secret.encode(), secret.encode("utf-16-le"), json.dumps(secret).encode()]
    return [str(p) for p in files_under(*roots) if any(n in p.read_bytes() for n in needles)]


def _speeches_csv(path: Path) -> Path:
    path.write_text(
        "id,topic,source,text\n"
        "g1,We should subsidize space exploration,mine,"
        '"Space exploration pays for itself. It drives science, jobs and inspiration."\n',
        encoding="utf-8",
    )
    return path


def _verdict_or_speech(request: dict) -> str:
    system = request["messages"][0]["content"]
    if "judging a finished debate" in system:
        return "side1: [[7]], side2: [[5]], winner: [[1]]"
    if "debate on the question" in system:
        return "A speech with an argument."
    if "opening speech" in system.lower():
        return "Friends, this is my opening speech. It has two sentences."
    return likert_responder(seed=1, unparseable_rate=0.0)(request)


def commands(base: str, out: Path, tmp: Path) -> dict[str, list[str]]:
    data = ["--data-source", "local", "--data-dir", str(DATA_DIR), "--no-progress"]
    topics = tmp / "topics.txt"
    topics.write_text("Should homework be abolished?\n", encoding="utf-8")
    return {
        "eval": [
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            base,
            "--limit",
            "3",
            "--output-dir",
            str(out),
            *data,
        ],
        "probe": [
            "probe",
            "--task",
            "debateart_winner",
            "--model",
            "openai/stub",
            "--api-base",
            base,
            "--probe",
            "swap",
            "--limit",
            "1",
            "--output-dir",
            str(out),
            *data,
        ],
        "rate-speeches": [
            "rate-speeches",
            "--speeches",
            str(_speeches_csv(tmp / "speeches.csv")),
            "--model",
            "openai/stub",
            "--api-base",
            base,
            "--limit",
            "1",
            "--human-sources",
            "Human expert",
            "--output-dir",
            str(out),
            *data,
        ],
        "generate-speeches": [
            "generate-speeches",
            "--model",
            "openai/stub",
            "--api-base",
            base,
            "--topics",
            str(topics),
            "--per-topic",
            "2",
            "--words",
            "20",
            "--output",
            str(out / "speeches.csv"),
            "--no-progress",
        ],
        "arena": [
            "arena",
            "--models",
            "openai/a,openai/b",
            "--judge",
            "openai/judge",
            "--api-base",
            base,
            "--topics",
            str(topics),
            "--rounds",
            "2",
            "--output-dir",
            str(out),
            "--no-progress",
        ],
    }


PATHS = {
    "flag": lambda args: [*args, "--api-key", SECRET],
    "flag=": lambda args: [*args, f"--api-key={SECRET}"],
    "model-args": lambda args: [*args, "--model-args", f"max_retries=0,api_key={SECRET}"],
    "environment": lambda args: args,
}


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("command", ["eval", "probe", "rate-speeches", "generate-speeches", "arena"])
def test_a_planted_secret_reaches_no_file(tmp_path: Path, command: str, path: str) -> None:
    """The secret goes in by a flag, ``--api-key=``, ``--model-args`` or the environment; the server
    answers the first request with an error that names the key it was given (as providers do).
    No file written anywhere (outputs, samples, logs, cache, plots) holds it."""
    real_data_dir("ibm_debate_speeches")
    out, cache = tmp_path / "out", tmp_path / "cache"
    env = {
        "DEBENCH_CACHE_DIR": str(cache),
        "OPENAI_API_KEY": SECRET if path == "environment" else "sk-other-key-not-planted",
    }
    with StubServer(responder=_verdict_or_speech, faults=FaultPlan(script=["filtered"])) as srv:
        args = PATHS[path](commands(srv.base_url, out, tmp_path)[command])
        proc = run_cli(*args, "--max-error-rate", "1", env=env, cwd=tmp_path)
        bodies = srv.stats.requests
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert bodies, "the command made no request"
    # the pages `debench view` makes of these outputs are outputs too
    if command == "eval":
        assert (
            run_cli("view", str(next(out.rglob("results_*.json"))), "--data-dir", str(DATA_DIR), env=env).returncode
            == 0
        )
    if command == "arena":
        assert run_cli("view", str(next(out.glob("arena_*"))), env=env).returncode == 0
    written = files_under(out, cache)
    assert written, "the command wrote nothing"
    assert not leaks(SECRET, out, cache, tmp_path), f"secret found in {leaks(SECRET, out, cache, tmp_path)}"
    assert SECRET not in proc.stdout and SECRET not in proc.stderr
    # the error it got was recorded (with the key masked), not dropped
    assert any(b"content_filter (key ***)" in p.read_bytes() for p in written), "the error was not recorded"
    # nor does a published record name the folder debench is installed in (a user's home directory)
    install = str(Path(__file__).resolve().parent.parent).encode()
    assert not [str(p) for p in written if p.suffix == ".json" and install in p.read_bytes()]


PLAIN = "plain-unshaped-secret-4f9c2e71d8"
"""A key of no provider's shape: only its value, known to this process, can find it."""


@pytest.mark.slow
@pytest.mark.parametrize("command", ["eval", "probe", "rate-speeches", "generate-speeches", "arena"])
def test_an_answer_echoing_the_key_reaches_no_file(tmp_path: Path, command: str) -> None:
    """A successful answer that repeats the user's keys (a key-shaped one given by ``--api-key``, an
    unshaped one in the environment): the answer is used, and no file written — samples log,
    response cache, outputs — holds either key."""
    real_data_dir("ibm_debate_speeches")
    out, cache = tmp_path / "out", tmp_path / "cache"
    env = {"DEBENCH_CACHE_DIR": str(cache), "OPENAI_API_KEY": PLAIN}

    def echo(request: dict) -> str:
        return f"{_verdict_or_speech(request)} (called with {SECRET} and {PLAIN})"

    with StubServer(responder=echo) as srv:
        args = [*commands(srv.base_url, out, tmp_path)[command], "--api-key", SECRET]
        proc = run_cli(*args, env=env, cwd=tmp_path)
        assert srv.stats.requests, "the command made no request"
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = files_under(out, cache)
    assert any(p.suffix == ".jsonl" for p in written) and any(p.suffix == ".sqlite" for p in written), written
    for secret in (SECRET, PLAIN):
        assert not leaks(secret, out, cache, tmp_path), f"{secret} found in {leaks(secret, out, cache, tmp_path)}"
    assert any(b"(called with *** and ***)" in p.read_bytes() for p in written), "the answers were not kept"


def test_validate_and_leaderboard_files_hold_no_secret(tmp_path: Path) -> None:
    """A run made with a key, then scored and built into a leaderboard: none of the files has it."""
    real_data_dir("ibm_debate_speeches")
    out = tmp_path / "out"
    env = {"DEBENCH_CACHE_DIR": str(tmp_path / "cache"), "HF_TOKEN": SECRET + "hf"}
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "baseline/random",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(out),
        "--no-progress",
        f"--api-key={SECRET}",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    samples = next(out.rglob("samples_*.jsonl"))
    scored = tmp_path / "scored.json"
    proc = run_cli(
        "score",
        "--task",
        "ibm_speech_likert",
        "--predictions",
        str(samples),
        "--output",
        str(scored),
        "--data-dir",
        str(DATA_DIR),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    board = tmp_path / "board"
    proc = run_cli(
        "leaderboard", "build", "--results", str(out), "--out", str(board), "--data-dir", str(DATA_DIR), env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert not leaks(SECRET, tmp_path)
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    assert "--api-key=***" in results["config"]["command"]


def test_model_args_are_what_the_server_receives(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    args = "temperature=0.7,max_tokens=5,top_k=3,seed=9,stop=END|STOP,max_retries=0"
    base = [
        "eval",
        "--task",
        "ibm_speech_likert",
        "--limit",
        "2",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--output-dir",
        str(tmp_path / "o"),
    ]
    env = {"DEBENCH_CACHE_DIR": str(tmp_path / "cache")}
    with StubServer(responder=fixed_responder("Score: 3")) as srv:
        for client in (
            "http",
            "litellm",
        ):  # the client does not change the identity: a cache and a folder each, so both ask
            srv.reset_stats()
            proc = run_cli(
                *base,
                "--model",
                "openai/stub",
                "--api-base",
                srv.base_url,
                "--model-args",
                f"{args},client={client}",
                "--output-dir",
                str(tmp_path / "o" / client),
                env={"DEBENCH_CACHE_DIR": str(tmp_path / f"cache-{client}")},
            )
            assert proc.returncode == 0, proc.stderr
            bodies = srv.stats.requests
            assert len(bodies) == 2, (client, len(bodies))
            for b in bodies:
                assert (b["temperature"], b["max_tokens"], b["top_k"], b["seed"], b["stop"]) == (
                    0.7,
                    5,
                    3,
                    9,
                    ["END", "STOP"],
                ), (client, b)
        # the same settings after '@' in the model string; the default run is another identity: new requests
        srv.reset_stats()
        proc = run_cli(
            *base, "--model", "openai/stub@temperature=0.7;max_tokens=5", "--api-base", srv.base_url, env=env
        )
        assert proc.returncode == 0, proc.stderr
        assert [(b["temperature"], b["max_tokens"]) for b in srv.stats.requests] == [(0.7, 5)] * 2
        srv.reset_stats()
        proc = run_cli(*base, "--model", "openai/stub", "--api-base", srv.base_url, env=env)
        assert proc.returncode == 0, proc.stderr
        assert [(b["temperature"], b["max_tokens"]) for b in srv.stats.requests] == [(0.0, 16)] * 2
    results = [json.loads(p.read_text()) for p in (tmp_path / "o").rglob("results_*.json")]
    recorded = {json.dumps(r["config"]["generation"], sort_keys=True) for r in results}
    assert len(results) == 4 and len(recorded) == 3
    hot = [
        r
        for r in results
        if r["config"]["generation"]["temperature"] == 0.7 and r["config"]["generation"]["top_k"] == 3
    ]
    assert hot and all(r["model"]["identity"]["generation"]["top_k"] == 3 for r in hot)


def test_arena_debater_settings_reach_the_server(tmp_path: Path) -> None:
    topics = tmp_path / "t.txt"
    topics.write_text("Is tea better than coffee?\n", encoding="utf-8")
    with StubServer(responder=_verdict_or_speech) as srv:
        proc = run_cli(
            "arena",
            "--models",
            "openai/a@temperature=0.9;max_tokens=40,openai/b",
            "--judge",
            "openai/judge",
            "--api-base",
            srv.base_url,
            "--topics",
            str(topics),
            "--rounds",
            "2",
            "--output-dir",
            str(tmp_path / "o"),
            "--no-progress",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c")},
        )
        bodies = srv.stats.requests
    assert proc.returncode == 0, proc.stderr
    by_model = {(b["model"], b["temperature"], b["max_tokens"]) for b in bodies}
    assert by_model == {("a", 0.9, 40), ("b", 0.0, 350), ("judge", 0.0, 48)}


@pytest.mark.parametrize(
    ("model_args", "expected"),
    [
        ("tiemout=5", "unknown model argument 'tiemout'; did you mean 'timeout'?"),
        ("timeout=abc", "timeout=abc: expected a number"),
        ("max_tokens=0", "max_tokens=0"),
        ("temperature", "expected key=value"),
        ("n_parallel=2", "does not apply to openai/stub"),
    ],
)
def test_bad_model_args_are_one_line_before_any_request(tmp_path: Path, model_args: str, expected: str) -> None:
    with StubServer() as srv:
        proc = run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--model-args",
            model_args,
            "--limit",
            "2",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path),
        )
        n = srv.stats.total_requests
    assert proc.returncode == 2 and n == 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr


def test_baseline_refuses_generation_settings(tmp_path: Path) -> None:
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "baseline/random@temperature=0.7",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(tmp_path),
    )
    assert (
        proc.returncode == 2
        and "takes no generation settings" in proc.stderr
        and len(proc.stderr.strip().splitlines()) == 1
    )


def test_a_template_naming_an_undefined_variable_is_one_line(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    repo_task = Path(__file__).resolve().parent.parent / "tasks" / "ibm_speech_likert.yaml"
    text = repo_task.read_text(encoding="utf-8").replace("{{ topic }}", "{{ motion_text }}", 1)
    assert "motion_text" in text
    task = tmp_path / "mine.yaml"
    task.write_text(text, encoding="utf-8")
    with StubServer() as srv:
        proc = run_cli(
            "eval",
            "--task",
            str(task),
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--limit",
            "2",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path / "o"),
        )
        n = srv.stats.total_requests
    assert proc.returncode == 2 and n == 0, proc.stderr
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and str(task) in line and "motion_text" in line and "prompt.user" in line


def test_unknown_provider_is_one_line_before_any_request(tmp_path: Path) -> None:
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "foobar/x",
        "--limit",
        "2",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        env={"DEBENCH_CACHE_DIR": str(tmp_path / "c")},
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "unknown model or provider 'foobar/x'" in proc.stderr


def test_errors_above_the_threshold_exit_1_after_writing_and_list_the_messages(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    base = [
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "openai/stub",
        "--limit",
        "6",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--model-args",
        "max_retries=1,base_delay=0.01",
    ]
    with StubServer(faults=FaultPlan(script=["500"] * 4 + ["ok"] * 100)) as srv:  # docs 1-2 fail twice: errors
        proc = run_cli(
            *base,
            "--api-base",
            srv.base_url,
            "--output-dir",
            str(tmp_path / "a"),
            "--concurrency",
            "1",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c1")},
        )
    assert proc.returncode == 1, proc.stderr
    assert next((tmp_path / "a").rglob("results_*.json")).exists()
    assert (
        "2 of 6 ended in errors" in proc.stderr
        and "    2 x gave up after 2 attempts: InternalServerError" in proc.stderr
    )
    with StubServer(faults=FaultPlan(script=["500"] * 4 + ["ok"] * 100)) as srv:
        proc = run_cli(
            *base,
            "--api-base",
            srv.base_url,
            "--output-dir",
            str(tmp_path / "b"),
            "--concurrency",
            "1",
            "--max-error-rate",
            "0.5",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c2")},
        )
    assert proc.returncode == 0 and "2 of 6 ended in errors" in proc.stderr


def test_only_transient_failures_are_retried(tmp_path: Path) -> None:
    """A 401 stops the run at its first answer (one line, exit 2, no retry); a 500 is retried."""
    with StubServer(faults=FaultPlan(fail_first_n_per_prompt=1, fail_kind="500")) as srv:
        run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--limit",
            "2",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path / "a"),
            "--model-args",
            "base_delay=0.01",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c")},
        )
        assert set(srv.stats.attempts_per_prompt.values()) == {2}
    with StubServer(faults=FaultPlan(script=["401"] * 2)) as srv:
        proc = run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--limit",
            "2",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path / "b"),
            "--concurrency",
            "1",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c2")},
        )
        assert srv.stats.total_requests == 1
    assert (
        proc.returncode == 2
        and proc.stderr.strip().splitlines()[-1].startswith("debench: error: ")
        and "HTTP 401" in proc.stderr
    )


def _one_line_exit_2(proc) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-1500:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("debench: error: "), proc.stderr
    return lines[0]


def test_hub_offline_is_one_line(tmp_path: Path) -> None:
    line = _one_line_exit_2(
        run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "baseline/random",
            "--data-source",
            "hub",
            "--output-dir",
            str(tmp_path),
            env={"HF_HUB_OFFLINE": "1"},
        )
    )
    assert "Hugging Face Hub" in line and "DEBENCH_DATA_DIR" in line


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Iterator[Path]:
    """An existing folder this process cannot write into: one made read-only, or for root (whom
    permissions do not stop, and CI runs as root) Linux's ``/sys/kernel``, where nobody can create
    a file."""
    if os.geteuid() != 0:
        out = tmp_path / "ro"
        out.mkdir()
        out.chmod(stat.S_IRUSR | stat.S_IXUSR)
        yield out
        out.chmod(stat.S_IRWXU)
        return
    out = Path("/sys/kernel")
    with pytest.raises(OSError):  # the premise: not even root writes here
        (out / "debench-probe").mkdir()
    yield out


def test_read_only_output_dir_is_one_line(unwritable_folder: Path) -> None:
    line = _one_line_exit_2(
        run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "baseline/random",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(unwritable_folder),
        )
    )
    assert str(unwritable_folder) in line


def test_output_dir_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    """What a read-only folder does for a non-root user, a file in the way does for everyone."""
    blocker = tmp_path / "results"
    blocker.write_text("not a folder")
    line = _one_line_exit_2(
        run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "baseline/random",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(blocker / "sub"),
            "--limit",
            "2",
        )
    )
    assert str(blocker) in line
    assert blocker.read_text() == "not a folder"


def test_corrupt_cache_is_one_line_naming_it_and_how_to_move_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    db = cache / "responses.sqlite"
    db.write_bytes(b"this is not an sqlite file at all " * 200)
    before = db.read_bytes()
    with StubServer() as srv:
        line = _one_line_exit_2(
            run_cli(
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                "openai/stub",
                "--api-base",
                srv.base_url,
                "--limit",
                "2",
                "--data-dir",
                str(DATA_DIR),
                "--output-dir",
                str(tmp_path / "o"),
                env={"DEBENCH_CACHE_DIR": str(cache)},
            )
        )
    assert str(db) in line and f"mv '{db}' '{db}.corrupt'" in line
    assert db.read_bytes() == before  # nothing the user had is deleted


def test_cache_path_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "cachefile"
    blocker.write_text("x")
    with StubServer() as srv:
        line = _one_line_exit_2(
            run_cli(
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                "openai/stub",
                "--api-base",
                srv.base_url,
                "--limit",
                "2",
                "--data-dir",
                str(DATA_DIR),
                "--output-dir",
                str(tmp_path / "o"),
                env={"DEBENCH_CACHE_DIR": str(blocker)},
            )
        )
    assert str(blocker) in line and "DEBENCH_CACHE_DIR" in line


@pytest.mark.real_data("the real DebateBench copy has no labels (the sample has them)")
def test_debatebench_without_gold_says_what_to_do(tmp_path: Path) -> None:
    real_data_dir("debatebench")
    line = _one_line_exit_2(
        run_cli(
            "eval",
            "--task",
            "debatebench_verdict",
            "--model",
            "baseline/random",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path),
        )
    )
    assert "scores.xlsx" in line and "--data-source sample" in line and "utkarsh2105/DebateBench" in line


def test_a_healthy_cache_still_works_after_these_checks(tmp_path: Path) -> None:
    """The guard around the cache does not get in the way of a good one (a cached rerun makes no request)."""
    cache = tmp_path / "cache"
    env = {"DEBENCH_CACHE_DIR": str(cache)}
    args = [
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "openai/stub",
        "--limit",
        "3",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
    ]
    with StubServer() as srv:
        assert run_cli(*args, "--api-base", srv.base_url, "--output-dir", str(tmp_path / "a"), env=env).returncode == 0
        srv.reset_stats()
        assert run_cli(*args, "--api-base", srv.base_url, "--output-dir", str(tmp_path / "b"), env=env).returncode == 0
        assert srv.stats.total_requests == 0
    with sqlite3.connect(cache / "responses.sqlite") as db:
        assert db.execute("select count(*) from responses").fetchone()[0] == 3


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("debench, version ")


def test_results_name_a_builtin_task_file_without_the_install_path(tmp_path: Path) -> None:
    """A results file is published: it names debench's own task file as ``tasks/<name>.yaml``, never the
    folder debench is installed in (a user's home directory); a task file of the user's own as given."""
    out = tmp_path / "out"
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "baseline/random",
        "--limit",
        "3",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(out),
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    (results,) = out.glob("*/results_*.json")
    assert json.loads(results.read_text())["config"]["task_file"] == "tasks/ibm_speech_likert.yaml"
    install = str(Path(__file__).resolve().parent.parent)
    assert not [str(p) for p in files_under(out) if p.suffix == ".json" and install in p.read_text()]
