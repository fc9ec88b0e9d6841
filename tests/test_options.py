"""One typed options model per command, used by the CLI and the Python API alike: the same ranges
and choices, refused in the same one line (exit code 2 from the CLI), with a did-you-mean for an
unknown name; click's usage text is replaced by debench's one line. Every case runs in process
(CliRunner, direct calls) and is refused before any data is read or any file written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from clihelp import invoke

import debench
from debench.arena.tournament import ArenaSettings
from debench.core.errors import UserError
from debench.core.options import Options
from debench.probes.run import ProbeOptions
from debench.run.pipeline import EvalOptions, ScoreOptions
from debench.speeches.generate import GenerateOptions
from debench.speeches.rate import RateOptions

EVAL = ["eval", "--task", "ibm_speech_likert", "--model", "baseline/random"]


def _phrase(line: str) -> str:
    """What a refusal says after naming the option (``field '--limit': <phrase>``)."""
    return line.split("': ", 1)[1]


@pytest.mark.parametrize(
    ("flag", "value", "keyword", "api_value", "phrase"),
    [
        ("--limit", "-3", "limit", -3, "must be at least 1 (got -3)"),
        ("--limit", "0", "limit", 0, "must be at least 1 (got 0)"),
        ("--concurrency", "0", "concurrency", 0, "must be at least 1 (got 0)"),
        ("--repeats", "0", "repeats", 0, "must be at least 1 (got 0)"),
        ("--bootstrap", "-5", "n_bootstrap", -5, "must be at least 0 (got -5)"),
        ("--data-source", "cloud", "data_source", "cloud", "'cloud' is not one of auto, hub, local, sample"),
        (
            "--data-source",
            "locl",
            "data_source",
            "locl",
            "'locl' is not one of auto, hub, local, sample; did you mean 'local'?",
        ),
        (
            "--method",
            "dirct",
            "method",
            "dirct",
            "not a judge method (known: debatrix-f, debatrix-f-scores, debatrix-h, debatrix-h-scores, direct); did "
            "you mean 'direct'? (got dirct)",
        ),
        ("--ensemble", "meen", "ensemble", "meen", "'meen' is not one of mean, median, majority; did you mean 'mean'?"),
        ("--batch-poll", "-1", "batch_poll", -1, "must be at least 0 (got -1)"),
        ("--seed", "x", "seed", "x", "expected a whole number (got x)"),
        ("--limit", "2.5", "limit", 2.5, "expected a whole number (got 2.5)"),
    ],
)
def test_eval_options_are_refused_alike_by_the_cli_and_the_api(
    tmp_path: Path, flag: str, value: str, keyword: str, api_value: Any, phrase: str
) -> None:
    out = tmp_path / "out"
    line = invoke(*EVAL, flag, value, "--output-dir", str(out)).one_line_error()
    assert line.startswith(f"debench: error: field '{flag}': ")
    with pytest.raises(UserError) as info:
        debench.evaluate("ibm_speech_likert", "baseline/random", output_dir=out, **{keyword: api_value})
    message = str(info.value)
    assert "\n" not in message and flag in message
    assert _phrase(line) == _phrase(message) == phrase
    assert not out.exists()  # refused before anything ran


@pytest.mark.parametrize(
    ("keyword", "value", "phrase"),
    [
        ("model", None, "expected a model string"),
        ("model", 123, "expected a model string"),
        ("model", "", "must not be empty"),
        (
            "model_args",
            ["temperature=0.5"],
            "expected 'key=value,...' or a mapping of settings (got ['temperature=0.5'])",
        ),
        ("limit", True, "expected a number, not true/false (got True)"),
    ],
)
def test_api_values_of_the_wrong_type_are_one_line(tmp_path: Path, keyword: str, value: Any, phrase: str) -> None:
    """No AttributeError from deep inside: the value is checked where it comes in."""
    kwargs: dict[str, Any] = {"model": "baseline/random", keyword: value} if keyword != "model" else {"model": value}
    with pytest.raises(UserError, match=r"^field '--") as info:
        debench.evaluate("ibm_speech_likert", output_dir=tmp_path / "out", **kwargs)
    assert phrase in str(info.value) and "\n" not in str(info.value)


def test_unknown_names_get_a_did_you_mean(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"aevaluate\(\): unknown keyword 'limt'; did you mean 'limit'\?"):
        debench.evaluate("ibm_speech_likert", "baseline/random", limt=3)
    with pytest.raises(UserError, match=r"score\(\): unknown keyword 'bootstrap'; did you mean 'n_bootstrap'\?"):
        debench.score("ibm_speech_likert", tmp_path / "p.jsonl", bootstrap=3)
    with pytest.raises(UserError, match="unknown option 'concurency'; did you mean 'concurrency'"):
        EvalOptions(concurency=3)
    line = invoke(*EVAL, "--limt", "3").one_line_error()
    assert "'--limt'" in line and "Did you mean '--limit'?" in line
    line = invoke("evl", "--task", "x").one_line_error()
    assert "no such command 'evl'; did you mean 'eval'?" in line


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["eval", "--model", "baseline/random"], "Missing option '--task'"),
        (["arena", "rank", "--judgments", "j.jsonl", "--output", "r.json", "--rule", "strictt"], "'--rule'"),
        (["compare", "a.json"], "Missing argument"),
        (["--bogus"], "No such option '--bogus'"),
    ],
)
def test_click_usage_errors_are_one_line(args: list[str], needle: str) -> None:
    line = invoke(*args).one_line_error()
    assert needle in line and "--help" in line


@pytest.mark.parametrize(
    ("args", "model", "kwargs", "phrase"),
    [
        (
            ["score", "--task", "ibm_speech_likert", "--predictions", "p.jsonl", "--output", "o.json", "--limit", "0"],
            ScoreOptions,
            {"limit": 0},
            "must be at least 1 (got 0)",
        ),
        (
            [
                "score",
                "--task",
                "ibm_speech_likert",
                "--predictions",
                "p.jsonl",
                "--output",
                "o.json",
                "--bootstrap",
                "-1",
            ],
            ScoreOptions,
            {"n_bootstrap": -1},
            "must be at least 0 (got -1)",
        ),
        (
            ["probe", "--task", "debateart_winner", "--model", "baseline/last", "--limit", "0"],
            ProbeOptions,
            {"limit": 0},
            "must be at least 1 (got 0)",
        ),
        (
            ["probe", "--task", "debateart_winner", "--model", "baseline/last", "--method", "debatrix"],
            ProbeOptions,
            {"method": "debatrix"},
            "not a judge method (known: debatrix-f, debatrix-f-scores, debatrix-h, debatrix-h-scores, direct); did "
            "you mean 'debatrix-h'? (got debatrix)",
        ),
        (
            ["rate-speeches", "--speeches", "s.csv", "--model", "baseline/random", "--bootstrap", "-1"],
            RateOptions,
            {"n_bootstrap": -1},
            "must be at least 0 (got -1)",
        ),
        (
            ["rate-speeches", "--speeches", "s.csv", "--model", "baseline/random", "--max-error-rate", "1.5"],
            RateOptions,
            {"max_error_rate": 1.5},
            "must be at most 1 (got 1.5)",
        ),
        (
            ["generate-speeches", "--model", "baseline/random", "--output", "s.csv", "--words", "5"],
            GenerateOptions,
            {"words": 5},
            "must be at least 10 (got 5)",
        ),
        (
            ["generate-speeches", "--model", "baseline/random", "--output", "s.csv", "--temperature", "-1"],
            GenerateOptions,
            {"temperature": -1},
            "must be at least 0 (got -1)",
        ),
        (
            ["arena", "--models", "a,b", "--judge", "c", "--rounds", "1"],
            ArenaSettings,
            {"rounds": 1},
            "must be at least 2 (got 1)",
        ),
        (
            ["arena", "--models", "a,b", "--judge", "c", "--concurrency", "0"],
            ArenaSettings,
            {"concurrency": 0},
            "must be at least 1 (got 0)",
        ),
        (
            ["arena", "--models", "a,b", "--judge", "c", "--max-tokens", "8"],
            ArenaSettings,
            {"max_tokens": 8},
            "must be at least 16 (got 8)",
        ),
        (["arena", "--models", "a,b", "--judge", "c", "--ensemble", "mean"], None, {}, "'mean' is not one of majority"),
    ],
)
def test_every_command_checks_its_options_with_its_model(
    tmp_path: Path, args: list[str], model: type[Options] | None, kwargs: dict[str, Any], phrase: str
) -> None:
    """The CLI's check and the options model the library takes (what a script builds) agree."""
    where = ["--output-dir", str(tmp_path)] if args[0] in ("probe", "rate-speeches", "arena") else []
    line = invoke(*args, *where).one_line_error()
    assert _phrase(line) == phrase
    if model is not None:
        with pytest.raises(UserError) as info:
            model(**kwargs)
        assert _phrase(str(info.value)) == phrase


def test_help_shows_the_ranges_and_choices() -> None:
    out = invoke(*EVAL, "--help").stdout
    assert (
        "--limit INTEGER>=1" in out
        and "--data-source [auto|hub|local|sample]" in out
        and "--max-error-rate NUMBER 0..1" in out
    )


def test_one_reader_of_key_value_strings_for_the_model_arguments_and_the_redaction() -> None:
    """``options.key_value_parts`` reads ``k=v,k=v`` (and ``k=v;k=v`` after ``model@``) for both
    ``models.args``, which refuses what is malformed, and ``redact``, which masks secrets in what
    a user typed however it is written and keeps every other part as written."""
    from debench.core.errors import UserError
    from debench.core.options import key_value_parts
    from debench.core.redact import Redactor
    from debench.models.args import parse_model_args, split_model_spec

    assert [(p.key, p.value) for p in key_value_parts(" temperature = 0.5 ,stop=a=b,,flag")] == [
        ("temperature", "0.5"),
        ("stop", "a=b"),
        ("", None),
        ("flag", None),
    ]
    args = parse_model_args("temperature=0.5, max_tokens=64,api_key=sk-local-123")
    assert args.generation_overrides == {"temperature": 0.5, "max_tokens": 64} and args.client.api_key == "sk-local-123"
    redact = Redactor(env={})
    assert redact.key_values("temperature=0.5, api_key = sk-local-123,oops") == "temperature=0.5, api_key =***,oops"
    assert redact.argv(
        ["--model", "openai/x@temperature=0;api_key=hunter22", "--model-args", "max_retries=1,token=abc"]
    ) == [
        "--model",
        "openai/x@temperature=0;api_key=***",
        "--model-args",
        "max_retries=1,token=***",
    ]
    for bad, phrase in (
        ("temperature", "expected key=value, got 'temperature'"),
        ("=3", "expected key=value"),
        ("seed=1,seed=2", "'seed' is given twice"),
    ):
        with pytest.raises(UserError, match=phrase):
            parse_model_args(bad)
    assert split_model_spec("openai/x@temperature=0.2;max_tokens=9")[1].generation_overrides == {
        "temperature": 0.2,
        "max_tokens": 9,
    }
