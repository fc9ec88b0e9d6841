"""Endpoints that cannot work fail fast, in one line naming the URL, exit code 2 — from the CLI
(in process) and the Python API alike: a malformed api base before any request, an api base where
nothing listens after the short connect grace period, a 404 for the chat path at once, ``--batch``
against a server without the batch endpoints at once. Finished samples are kept."""

from __future__ import annotations

import asyncio
import random
import re
import socket
import time
import types
from pathlib import Path

import pytest
from clihelp import invoke
from conftest import DATA_DIR, real_data_dir

import debench
from debench.core.errors import UserError
from debench.models import retry
from debench.models.retry import EndpointError, RetryPolicy
from debench.testing.stub_server import StubServer

FAST = "base_delay=0.05,max_delay=0.2,max_retries=50,connect_grace=0.5"


@pytest.fixture(autouse=True)
def _data() -> None:
    real_data_dir("ibm_debate_speeches")


def free_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def eval_args(api_base: str, out: Path, *extra: str) -> list[str]:
    return ["eval", "--task", "ibm_speech_likert", "--model", "openai/stub", "--api-base", api_base, "--limit", "3",
            "--output-dir", str(out), "--no-progress", "--data-dir", str(DATA_DIR), *extra]  # fmt: skip


@pytest.mark.parametrize(
    "base", ["not-a-url", "http://", "127.0.0.1:8000/v1", "http://127.0.0.1:99999/v1", "ftp://127.0.0.1/v1"]
)
def test_a_malformed_api_base_is_refused_before_any_request(tmp_path: Path, base: str) -> None:
    line = invoke(*eval_args(base, tmp_path)).one_line_error()
    assert f"'{base}' is not a server URL" in line and "--api-base" in line
    with pytest.raises(UserError, match="is not a server URL"):
        debench.evaluate(
            "ibm_speech_likert", "openai/stub", api_base=base, limit=3, data_dir=DATA_DIR, output_dir=tmp_path
        )
    line = invoke(
        "arena",
        "--models",
        "openai/a,openai/b",
        "--judge",
        "openai/c",
        "--api-base",
        base,
        "--output-dir",
        str(tmp_path),
    ).one_line_error()
    assert "is not a server URL" in line
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("client", ["http", "litellm"])
def test_an_api_base_where_nothing_listens_ends_after_the_grace_period(tmp_path: Path, client: str) -> None:
    base = f"http://127.0.0.1:{free_port()}/v1"
    if client == "litellm":
        import litellm  # noqa: F401 - imported before the clock starts: what is measured is the grace period, not litellm's import

    started = time.monotonic()
    line = invoke(*eval_args(base, tmp_path, "--model-args", f"{FAST},client={client}")).one_line_error()
    elapsed = time.monotonic() - started
    assert (
        f"cannot connect to {'POST ' if client == 'http' else ''}{base}/chat/completions" in line
        and "connect_grace" in line
    )
    gave_up = re.search(r"gave up after (\d+) attempts in ([\d.]+) s", line)
    assert gave_up is not None, line
    # retried for the grace period (a server still starting), then stopped by it: not by the 50
    # retries FAST allows (what the run took beyond that is the machine's load, not asserted)
    assert int(gave_up[1]) <= 50 and float(gave_up[2]) >= 0.5 and elapsed >= 0.5, line
    assert not list(tmp_path.rglob("results_*.json"))  # no results file of nulls
    with pytest.raises(EndpointError, match="cannot connect to"):
        debench.evaluate(
            "ibm_speech_likert",
            "openai/stub",
            api_base=base,
            model_args=f"{FAST},client={client}",
            limit=3,
            data_dir=DATA_DIR,
            output_dir=tmp_path,
        )


def test_the_default_grace_period_is_short() -> None:
    assert RetryPolicy().connect_grace <= 30


@pytest.mark.parametrize("seed", range(20))
def test_with_the_defaults_a_dead_api_base_waits_at_most_the_grace_period_in_all(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """What a dead api base costs with the default policy, on a clock of its own (the machine's load
    plays no part): the waits between attempts add up to the grace period at most, so the run ends
    about ``connect_grace`` seconds after the first refusal."""
    clock = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    async def refused() -> None:
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(
        retry,
        "asyncio",
        types.SimpleNamespace(sleep=sleep, CancelledError=asyncio.CancelledError, TimeoutError=asyncio.TimeoutError),
    )
    monkeypatch.setattr(retry, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    policy = RetryPolicy()
    with pytest.raises(EndpointError, match="cannot connect to"):
        asyncio.run(
            retry.call_with_retries(refused, policy=policy, rng=random.Random(seed), classify=lambda exc: "unreachable")
        )
    assert slept and sum(slept) <= policy.connect_grace


def test_a_404_for_the_chat_path_names_the_url_tried(tmp_path: Path) -> None:
    """An api base without /v1 (or any path the server does not have): one request, one line."""
    with StubServer() as srv:
        base = srv.base_url.removesuffix("/v1") + "/api"
        line = invoke(*eval_args(base, tmp_path, "--concurrency", "1")).one_line_error()
        with pytest.raises(EndpointError, match="HTTP 404"):
            debench.evaluate(
                "ibm_speech_likert",
                "openai/stub",
                api_base=base,
                limit=3,
                concurrency=1,
                data_dir=DATA_DIR,
                output_dir=tmp_path,
            )
    assert f"POST {base}/chat/completions" in line and "HTTP 404" in line and "usually ends in /v1" in line


def test_finished_samples_are_kept_when_the_endpoint_goes_away(tmp_path: Path) -> None:
    """A run that stops on a dead endpoint keeps what it finished; the same command resumes."""
    with StubServer() as srv:
        base = srv.base_url
        (first,) = debench.evaluate(
            "ibm_speech_likert",
            "openai/stub",
            api_base=base,
            limit=2,
            data_dir=DATA_DIR,
            output_dir=tmp_path,
            n_bootstrap=0,
        )
    with pytest.raises(EndpointError):  # the server is gone: the 3rd document cannot be judged
        debench.evaluate(
            "ibm_speech_likert",
            "openai/stub",
            api_base=base,
            model_args=FAST,
            limit=3,
            data_dir=DATA_DIR,
            output_dir=tmp_path,
        )
    from debench.data.samples import read_records

    assert len(read_records(first.samples_path)) == 2


@pytest.mark.parametrize("client", ["http", "litellm"])
def test_batch_against_a_server_without_batch_endpoints_is_one_line(tmp_path: Path, client: str) -> None:
    with StubServer(batch_endpoints=False) as srv:
        line = invoke(
            *eval_args(srv.base_url, tmp_path, "--batch", "--batch-poll", "0.05", "--model-args", f"client={client}")
        ).one_line_error()
        stats = srv.stats
    assert "field '--batch'" in line and "has no batch endpoints" in line and "run without --batch" in line
    assert stats.total_requests == 0  # nothing was sent live instead
