"""``clihelp.run_cli`` (the CLI in this process) answers as ``run_cli_process`` (a new interpreter):
the same exit code, stdout and stderr, for every kind of ending a command has; and it leaves this
process as it found it."""

from __future__ import annotations

import logging
import os
import socket
import sys
from pathlib import Path

import pytest
from clihelp import IMPORT_TIME_ENV, run_cli, run_cli_process

from debench.core import redact
from debench.testing.stub_server import FaultPlan, StubServer

SAMPLE_RUN = [
    "eval",
    "--task",
    "ibm_speech_likert",
    "--model",
    "baseline/random",
    "--limit",
    "5",
    "--data-source",
    "sample",
    "--no-progress",
    "--bootstrap",
    "20",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _both(tmp_path: Path, *args: str, env: dict[str, str] | None = None):
    """Run ``args`` both ways; ``{out}`` in an argument is a fresh folder per run, named ``OUT`` in the
    outputs so that they can be compared."""
    runs = []
    for how, run in (("in-process", run_cli), ("process", run_cli_process)):
        out = tmp_path / how
        proc = run(*[a.replace("{out}", str(out)) for a in args], env=env)
        runs.append((proc.returncode, proc.stdout.replace(str(out), "OUT"), proc.stderr.replace(str(out), "OUT")))
    return runs


@pytest.mark.parametrize(
    "args, code",
    [
        (["--version"], 0),
        (["tasks"], 0),
        (["eval", "--task", "ibm_speech_likert", "--bogus"], 2),  # click's usage error, naming the program
        (["eval", "--task", "no_such_task", "--model", "baseline/random"], 2),  # a UserError: one line
        pytest.param(  # litellm says it cannot route the model: a new interpreter imports it (~3 s)
            [
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                "foobar/x",
                "--limit",
                "2",
                "--data-source",
                "sample",
                "--output-dir",
                "{out}",
                "--no-progress",
            ],
            2,
            marks=pytest.mark.slow,
        ),
        ([*SAMPLE_RUN, "--output-dir", "{out}"], 0),
        (["-vv", *SAMPLE_RUN, "--output-dir", "{out}"], 0),  # logging set up by the command, on its stderr
        (["score", "--task", "ibm_speech_likert", "--predictions", "{out}/none.jsonl", "--data-source", "sample"], 2),
    ],
)
def test_in_process_equals_a_new_process(tmp_path: Path, args: list[str], code: int) -> None:
    inproc, process = _both(tmp_path, *args)
    assert process[0] == code, process
    assert inproc == process


def test_an_output_folder_that_is_a_file_is_the_same_refusal(tmp_path: Path) -> None:
    (tmp_path / "in-process").write_text("a file")
    (tmp_path / "process").write_text("a file")
    inproc, process = _both(tmp_path, *SAMPLE_RUN, "--output-dir", "{out}")
    assert process[0] == 2 and "is a file" in process[2], process
    assert inproc == process


def test_errors_above_the_threshold_exit_1_the_same(tmp_path: Path) -> None:
    """Every request refused by a content filter (a per-sample error): the run writes its files,
    lists the message, exits 1."""
    port = _free_port()
    runs = []
    for how, run in (("in-process", run_cli), ("process", run_cli_process)):
        out = tmp_path / how
        with StubServer(port=port, faults=FaultPlan(script=["filtered"] * 3)):
            proc = run(
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                "openai/stub",
                "--api-base",
                f"http://127.0.0.1:{port}/v1",
                "--limit",
                "3",
                "--data-source",
                "sample",
                "--output-dir",
                str(out),
                "--no-progress",
                "--bootstrap",
                "20",
                env={"DEBENCH_CACHE_DIR": str(tmp_path / how / "cache")},
            )
        runs.append((proc.returncode, proc.stdout.replace(str(out), "OUT"), proc.stderr.replace(str(out), "OUT")))
    assert runs[1][0] == 1 and "ended in errors" in runs[1][2], runs[1]
    assert runs[0] == runs[1]


def test_the_process_is_left_as_it_was(tmp_path: Path) -> None:
    """env and cwd apply to the command only; logging, warnings, secrets and argv are put back."""
    root = logging.getLogger()
    before = (
        dict(os.environ),
        os.getcwd(),
        list(root.handlers),
        root.level,
        logging.getLogger("LiteLLM").level,
        set(redact._REMEMBERED),
        list(sys.argv),
    )
    proc = run_cli(
        "-vv",
        *SAMPLE_RUN,
        "--output-dir",
        "rel",
        "--api-key",
        "sk-remembered-0123456789",
        cwd=tmp_path,
        env={"DEBENCH_SOMETHING": "x"},
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "rel").is_dir()  # the relative folder, in cwd
    after = (
        dict(os.environ),
        os.getcwd(),
        list(root.handlers),
        root.level,
        logging.getLogger("LiteLLM").level,
        set(redact._REMEMBERED),
        list(sys.argv),
    )
    assert after == before


def test_an_import_time_variable_gets_a_new_process(tmp_path: Path) -> None:
    """HF_HUB_OFFLINE is read by huggingface_hub when it is imported: a change of it needs a new
    interpreter, which run_cli starts by itself."""
    assert "HF_HUB_OFFLINE" in IMPORT_TIME_ENV and os.environ["HF_HUB_OFFLINE"] == "1"
    args = ("eval", "--task", str(tmp_path / "nothing.yaml"), "--model", "baseline/random")
    assert run_cli(*args).args[0] == "debench"  # in this process
    proc = run_cli(*args, env={"HF_HUB_OFFLINE": "0"})
    assert proc.args[:3] == [sys.executable, "-m", "debench.cli"] and proc.returncode == 2, proc.stderr
    assert os.environ["HF_HUB_OFFLINE"] == "1"
