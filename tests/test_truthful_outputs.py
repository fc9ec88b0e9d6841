"""Every file a run writes tells the truth (issue: secrets, settings that were applied; its loud failures are
test_one_line_failures.py).

The commands run as a user runs them (``python -m debench.cli`` in a subprocess), against the stub
OpenAI-compatible server on 127.0.0.1; every file they write is read back byte by byte.
"""

from __future__ import annotations

import json
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
        "card": [
            "card",
            "--model",
            "openai/stub",
            "--api-base",
            base,
            "--tasks",
            "bp_top_team",
            "--limit",
            "1",
            "--bootstrap",
            "10",
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
@pytest.mark.parametrize("command", ["eval", "probe", "card", "rate-speeches", "generate-speeches", "arena"])
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
@pytest.mark.parametrize("command", ["eval", "probe", "card", "rate-speeches", "generate-speeches", "arena"])
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
