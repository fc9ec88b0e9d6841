"""The hostile files of issue 43, rebuilt from its text, for its tests (``tests/test_hostile_files.py``)
and its benchmark (``benchmarks/hostile.py``): each case writes its files into a folder and gives
the ``debench`` command line that reads them and what the one-line refusal says. Aliases of aliases
(10 ** 7 values from 700 bytes), devices and FIFOs where a file is expected, nesting 100,000 levels
deep, metric arguments, parser groups and model arguments checked too late, keys given twice.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

Case = tuple[list[str], str]
"""The command's arguments (after ``debench``) and what its error line says."""

REPO = Path(__file__).resolve().parents[2]
TASK = (REPO / "tasks" / "ibm_speech_likert.yaml").read_text(encoding="utf-8")
SAMPLE = ("--limit", "2", "--data-source", "sample", "--no-progress", "--bootstrap", "20")
SAMPLE_RUN = ("--task", "ibm_speech_likert", "--data-source", "sample", "--no-progress", "--bootstrap", "20")
"""A whole run on debench's sample data (8 speeches)."""
ARENA = (
    "arena",
    "--models",
    "openai/a,openai/b",
    "--judge",
    "openai/j",
    "--api-base",
    "http://127.0.0.1:9/v1",
    "--no-progress",
)
"""An arena whose models are never asked: every case below is refused while its files are read."""
GENERIC_TASK = (
    "name: g\ndescription: d\n"
    "dataset: {adapter: generic, file: data.jsonl, fields: {doc_id: id, text: text, gold: label}}\n"
    "prompt: {user: '{{ transcript }}'}\nparser: {patterns: ['(\\d)'], type: int}\nmetrics: [{name: accuracy}]\n"
)
"""A generic task over ``data.jsonl`` beside it."""


def laughs(indent: str = "", levels: int = 7, width: int = 10) -> str:
    """About 700 bytes of aliases of aliases: 10 ** 7 values once expanded (issue 43, item 1)."""
    lines = [f"{indent}l0: &l0 [{', '.join(['x'] * width)}]"]
    lines += [f"{indent}l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def eval_task(task: Path | str, out: Path, *extra: str) -> list[str]:
    return ["eval", "--model", "baseline/random", "--task", str(task), *SAMPLE, "--output-dir", str(out), *extra]


def task_file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def with_metric(metric: str) -> str:
    return TASK.replace("  - name: parse_failure_rate", f"{metric}\n  - name: parse_failure_rate")


# -- the cases refused while reading: (argv, what the line says) -------------------------------------


def _alias_task(tmp: Path) -> Case:
    task = task_file(tmp, "alias", TASK.replace("  type: int\n", "  type: int\n  map:\n" + laughs("    ")))
    return eval_task(task, tmp / "o"), "field 'parser.map.l1.0': the value anchored (&) at line 52 is used again"


def _alias_topics(tmp: Path) -> Case:
    (tmp / "t.yaml").write_text("anchors:\n" + laughs("  ") + "topics:\n  - {question: q, side1: *l6}\n")
    return [*ARENA, "--topics", str(tmp / "t.yaml"), "--output-dir", str(tmp / "o")], "debench reads no YAML aliases"


def _alias_speech_file(tmp: Path) -> Case:
    """A DebateArt speech file whose first speech is an alias of 10 ** 7 values."""
    data = tmp / "data" / "debatrix_panelbench" / "DebateArt"
    shutil.copytree(REPO / "debench" / "data" / "samples" / "debateart", data)
    speech = sorted((data / "speech").glob("*.yml"))[0]
    speech.write_text(
        "- anchors:\n"
        + laughs("      ")
        + "  debater_name: rosa\n  content: *l6\n"
        + speech.read_text(encoding="utf-8")
    )
    argv = ["eval", "--model", "baseline/random", "--task", "debateart_winner", "--data-source", "local"]
    return [*argv, "--data-dir", str(tmp / "data"), "--no-progress", "--output-dir", str(tmp / "o")], (
        f"{speech}: field '0.anchors.l1.0': the value anchored (&) at line 2"
    )


def _deep_data_line(tmp: Path) -> Case:
    (tmp / "g").mkdir()
    (tmp / "g" / "data.jsonl").write_text(
        '{"id": "a", "text": "t", "label": 1}\n{"id": "b", "text": ' + "[" * 200_000 + "]" * 200_000 + ', "label": 1}\n'
    )
    task = tmp / "g" / "g.yaml"
    task.write_text(GENERIC_TASK)
    return [*eval_task(task, tmp / "o")[:5], "--no-progress", "--output-dir", str(tmp / "o")], (
        "data.jsonl: line 2: nested more than 200 levels deep"
    )


def _deep_topics(tmp: Path) -> Case:
    (tmp / "deep.yaml").write_text("topics: " + "[" * 100_000 + "]" * 100_000 + "\n")
    return [
        *ARENA,
        "--topics",
        str(tmp / "deep.yaml"),
        "--output-dir",
        str(tmp / "o"),
    ], "deep.yaml: invalid YAML at line 1"


def topics_case(text: str, suffix: str = ".yaml") -> Callable[[Path], Case]:
    def case(tmp: Path) -> Case:
        path = tmp / f"topics{suffix}"
        path.write_text(text)
        return [*ARENA, "--topics", str(path), "--output-dir", str(tmp / "o")], str(path)

    return case


def _task(name: str, text: str, says: str) -> Callable[[Path], Case]:
    return lambda tmp: (eval_task(task_file(tmp, name, text), tmp / "o"), says)


def _judgments(lines: list[str], *extra: str) -> Callable[[Path], Case]:
    def case(tmp: Path) -> Case:
        path = tmp / "j.jsonl"
        path.write_text("\n".join(lines) + "\n")
        return ["arena", "rank", "--judgments", str(path), "--output", str(tmp / "r.json"), *extra], str(path)

    return case


GOOD_LEG = json.dumps({"topic": "t", "side1": "a", "side2": "b", "winner": 1})
TWO_WINNERS = '{"topic": "u", "side1": "a", "side2": "b", "winner": null, "winner": 1}'
MANUAL = ["--task", "debatebench_verdict", "--data-source", "sample", "--judging-manual", "/dev/zero"]
TIMEOUT_INF = ["--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1", "--model-args", "timeout=inf"]


def _eval(*argv: str) -> Callable[[Path], list[str]]:
    return lambda tmp: ["eval", *argv, "--no-progress", "--output-dir", str(tmp / "o")]


def _arena(*argv: str) -> Callable[[Path], list[str]]:
    return lambda tmp: [*ARENA, *argv, "--output-dir", str(tmp / "o")]


def _says(argv: Callable[[Path], list[str]], says: str) -> Callable[[Path], Case]:
    return lambda tmp: (argv(tmp), says)


CASES: dict[str, Callable[[Path], Case]] = {
    "aliases in a task file": _alias_task,
    "aliases in a topics file": _alias_topics,
    "aliases in a DebateArt speech file": _alias_speech_file,
    "--task /dev/zero": _says(
        lambda tmp: eval_task("/dev/zero", tmp / "o"), "/dev/zero: the task file is a character device"
    ),
    "--topics /dev/zero": _says(_arena("--topics", "/dev/zero"), "/dev/zero: the topics file is a character device"),
    "--judging-manual /dev/zero": _says(
        _eval("--model", "baseline/random", *MANUAL), "/dev/zero: the judging manual is a character device"
    ),
    "arena rank --reference /dev/zero": _says(
        lambda tmp: _judgments([GOOD_LEG], "--reference", "/dev/zero")(tmp)[0],
        "/dev/zero: the reference ranking is a character device",
    ),
    "arena --reference /dev/zero, before the first debate": _says(
        _arena("--reference", "/dev/zero"), "/dev/zero: the reference ranking is a character device"
    ),
    "a data line 200,000 levels deep": _deep_data_line,
    "a topics file 100,000 levels deep": _deep_topics,
    "a metric argument that does not exist": _task(
        "junk",
        with_metric("  - name: macro_f1\n    args: {junk: 1}"),
        "field 'metrics.7.args.junk': macro_f1: unknown argument",
    ),
    "a metric argument of the wrong type": _task(
        "labels",
        with_metric("  - name: macro_f1\n    args: {labels: 5}"),
        "field 'metrics.7.args.labels': macro_f1: Input should be a valid list",
    ),
    "an argument to a metric that takes none": _task(
        "none",
        with_metric("  - name: accuracy\n    args: {k: 1}"),
        "field 'metrics.7.args.k': accuracy: the metric takes no argument",
    ),
    "parser.group 99 with a one-group pattern": _task(
        "group",
        TASK.replace("  match: last", "  match: last\n  group: 99"),
        "field 'parser.group': pattern 0 has 1 group(s) and no group 99",
    ),
    "--model-args timeout=inf": _says(
        _eval(*TIMEOUT_INF, "--task", "ibm_speech_likert", *SAMPLE),
        "--model-args: timeout=inf: expected a finite number",
    ),
    "topic sides that are a list and a mapping": topics_case(
        "topics:\n  - {question: q, side1: [1, 2], side2: {x: 1}}\n"
    ),
    "an empty side": topics_case("q | | no\n", ".txt"),
    "a task file naming `name` twice": _task(
        "dupname",
        TASK + "name: other\n",
        "field 'name': line 70: the key is given twice in one mapping (first at line 3)",
    ),
    "a second parser:": _task(
        "dupparser",
        TASK + "parser: {patterns: ['(\\d)'], type: int}\n",
        "field 'parser': line 70: the key is given twice",
    ),
    'a judgment with "winner" twice': _judgments([GOOD_LEG, TWO_WINNERS]),
}


def fifo_task(tmp: Path) -> Case:
    """A FIFO as the task file (it blocked, with no output, until something wrote to it)."""
    os.mkfifo(tmp / "fifo.yaml")
    return eval_task(
        tmp / "fifo.yaml", tmp / "o"
    ), "fifo.yaml: the task file is a FIFO (a named pipe), not a regular file"


def fifo_data_file(tmp: Path) -> Case:
    """A FIFO as a generic task's ``dataset.file``."""
    os.mkfifo(tmp / "data.jsonl")
    (tmp / "g.yaml").write_text(GENERIC_TASK)
    argv = [
        "eval",
        "--model",
        "baseline/random",
        "--task",
        str(tmp / "g.yaml"),
        "--no-progress",
        "--output-dir",
        str(tmp / "o"),
    ]
    return argv, "data.jsonl: the data file is a FIFO (a named pipe), not a regular file"


FIFO_CASES: dict[str, Callable[[Path], Case]] = {
    "a FIFO as the task file": fifo_task,
    "a FIFO as a generic task's dataset.file": fifo_data_file,
}
"""Cases that block a process reading them without bounds: run in a new process, never in a test's own."""

EXPENSIVE = (
    "aliases in a task file",
    "aliases in a topics file",
    "aliases in a DebateArt speech file",
    "--task /dev/zero",
    "--topics /dev/zero",
    "--judging-manual /dev/zero",
    "arena rank --reference /dev/zero",
    "a data line 200,000 levels deep",
    "a topics file 100,000 levels deep",
)
"""The cases of ``CASES`` that took gigabytes, minutes or a traceback of thousands of lines before
issue 43 (``benchmarks/hostile.py`` measures them under a 3 GB address-space limit)."""


def predictions_of(log: Path, out: Path) -> Path:
    """A predictions file for ``debench score`` naming every document of the samples ``log`` (each
    predicted 3)."""
    docs = [json.loads(line)["doc_id"] for line in log.read_text(encoding="utf-8").splitlines()]
    out.write_text("".join(json.dumps({"doc_id": d, "prediction": 3}) + "\n" for d in docs), encoding="utf-8")
    return out
