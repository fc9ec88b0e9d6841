"""The OpenAI-compatible stub server: answers, latency, faults, statistics, lifecycle and CLI."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from debench.testing.stub_server import (
    LIKERT_TEMPLATES,
    LIKERT_UNPARSEABLE,
    FaultPlan,
    StubServer,
    cycle_responder,
    fixed_responder,
    likert_responder,
    prompt_key,
)

REPO = Path(__file__).resolve().parent.parent
_HTTP = httpx.Client()  # one pooled client: building one per request costs ~30 ms


@pytest.fixture(scope="module", autouse=True)
def _close_http_client() -> Iterator[None]:
    yield
    _HTTP.close()


def _messages(text: str = "Rate this speech.") -> list[dict[str, str]]:
    return [{"role": "system", "content": "You are a judge."}, {"role": "user", "content": text}]


def _post(base_url: str, text: str = "Rate this speech.", timeout: float = 60.0, **extra: Any) -> httpx.Response:
    body = {"model": "judge-x", "messages": _messages(text), **extra}
    return _HTTP.post(f"{base_url}/chat/completions", json=body, timeout=timeout)


def _outcome(base_url: str, text: str = "Rate this speech.", timeout: float = 60.0) -> str:
    """What a plain client observes: "ok", "429", "500", "drop" or "timeout"."""
    try:
        resp = _post(base_url, text, timeout=timeout)
    except httpx.TimeoutException:
        return "timeout"
    except (httpx.RemoteProtocolError, httpx.ReadError):
        return "drop"
    return "ok" if resp.status_code == 200 else str(resp.status_code)


def test_completion_response_is_valid_openai_json() -> None:
    with StubServer(responder=fixed_responder("Score: 4")) as srv:
        assert srv.base_url == f"http://127.0.0.1:{srv.port}/v1"
        for url in (srv.base_url, srv.root_url):  # /v1/chat/completions and /chat/completions
            resp = _post(url, "one two three")
            assert resp.status_code == 200
            data = resp.json()
            assert data["object"] == "chat.completion"
            assert data["id"] and isinstance(data["created"], int)
            assert data["model"] == "judge-x"
            choice = data["choices"][0]
            assert choice["message"] == {"role": "assistant", "content": "Score: 4"}
            assert choice["finish_reason"] == "stop"
            # "You are a judge." (4 words) + "one two three" (3) -> 7; "Score: 4" -> 2
            assert data["usage"] == {
                "prompt_tokens": 7,
                "completion_tokens": 2,
                "total_tokens": 9,
                "prompt_tokens_details": {"cached_tokens": 0},
            }

        models = _HTTP.get(f"{srv.base_url}/models").json()
        assert models["object"] == "list" and [m["id"] for m in models["data"]] == ["stub"]
        assert _HTTP.get(f"{srv.root_url}/health").status_code == 200
        assert _HTTP.get(f"{srv.root_url}/_stub/stats").json()["outcomes"] == {"ok": 2}


def test_invalid_requests_get_openai_style_400() -> None:
    with StubServer() as srv:
        resp = _post(srv.base_url, stream=True)
        assert resp.status_code == 400
        assert resp.json()["error"]["type"] == "invalid_request_error"
        assert resp.json()["error"]["code"] == "unsupported_parameter"
        bad = _HTTP.post(f"{srv.base_url}/chat/completions", content=b"{not json", timeout=60)
        assert bad.status_code == 400 and "error" in bad.json()
        no_messages = _HTTP.post(f"{srv.base_url}/chat/completions", json={"model": "m"}, timeout=60)
        assert no_messages.status_code == 400
        assert srv.stats.outcomes == {"400": 3}


def test_openai_client_can_call_it() -> None:
    import openai  # litellm's dependency: always installed

    with StubServer(responder=fixed_responder("Rating: [[5]]")) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        out = client.chat.completions.create(model="stub", messages=_messages())
        assert out.choices[0].message.content == "Rating: [[5]]"
        assert out.usage is not None and out.usage.total_tokens > 0


def test_latency_is_applied_and_can_be_changed_on_a_running_server() -> None:
    """Only lower bounds: how much longer a request takes is the machine's load."""
    with StubServer(latency=0.2) as srv:
        start = time.perf_counter()
        assert _post(srv.base_url).status_code == 200
        assert time.perf_counter() - start >= 0.2
        srv.latency = 0.5
        start = time.perf_counter()
        assert _post(srv.base_url).status_code == 200
        assert time.perf_counter() - start >= 0.5


def test_each_fault_kind_as_seen_by_a_plain_client() -> None:
    plan = FaultPlan(script=["429", "500", "drop", "slow"], retry_after="3", slow_seconds=600)
    with StubServer(faults=plan) as srv:
        resp = _post(srv.base_url)
        assert resp.status_code == 429
        assert resp.headers["Retry-After"] == "3"
        assert resp.json()["error"]["type"] == "rate_limit_error"
        assert resp.json()["error"]["code"] == "rate_limit_exceeded"

        resp = _post(srv.base_url)
        assert resp.status_code == 500 and resp.json()["error"]["type"] == "server_error"

        assert _outcome(srv.base_url) == "drop"
        assert _outcome(srv.base_url, timeout=0.3) == "timeout"
        assert srv.stats.in_flight == 1  # the slow request is still sleeping on the server
        # stopping (as leaving the context does) cancels the slow handler instead of waiting its
        # 600 s: stop() raises if its thread has not ended within 60 s, far below that and far
        # above what a busy machine needs
        srv.stop(timeout=60)


def test_script_is_consumed_in_order_then_requests_succeed() -> None:
    script = ["ok", "500", "429", "429", "ok", "drop"]
    with StubServer(faults=FaultPlan(script=script)) as srv:
        seen = [_outcome(srv.base_url, f"prompt {i}") for i in range(len(script) + 3)]
        assert seen == [*script, "ok", "ok", "ok"]
        assert srv.stats.outcomes == {"ok": 5, "500": 1, "429": 2, "drop": 1}


def test_rates_are_deterministic_and_roughly_honoured() -> None:
    plan = FaultPlan(rate_limit=0.2, server_error=0.1, drop=0.1, seed=7, retry_after="0")
    runs = []
    for _ in range(2):
        with StubServer(faults=plan, record_requests=False) as srv:
            runs.append([_outcome(srv.base_url, f"speech {i}") for i in range(100)])
            assert srv.stats.requests == []
    assert runs[0] == runs[1]
    counts = {k: runs[0].count(k) for k in ("ok", "429", "500", "drop")}
    assert 40 <= counts["ok"] <= 80 and counts["429"] >= 8 and counts["500"] >= 3 and counts["drop"] >= 3

    with StubServer(faults=FaultPlan(rate_limit=1.0)) as srv:
        assert {_outcome(srv.base_url, f"p{i}") for i in range(5)} == {"429"}


def test_fail_first_n_per_prompt_with_concurrent_retries() -> None:
    plan = FaultPlan(fail_first_n_per_prompt=2, fail_kind="500")

    def until_ok(base_url: str, text: str) -> list[str]:
        seen = [_outcome(base_url, text)]
        while seen[-1] != "ok":
            seen.append(_outcome(base_url, text))
        return seen

    prompts = [f"speech number {i}" for i in range(12)]
    with StubServer(faults=plan, latency=0.01) as srv:
        with ThreadPoolExecutor(max_workers=6) as pool:
            histories = list(pool.map(lambda p: until_ok(srv.base_url, p), prompts))
        stats = srv.stats
    assert all(h == ["500", "500", "ok"] for h in histories)
    assert stats.outcomes == {"500": 24, "ok": 12}
    assert stats.total_requests == 36
    assert all(stats.attempts(_messages(p)) == 3 for p in prompts)
    assert set(stats.attempts_per_prompt) == {prompt_key(_messages(p)) for p in prompts}


def test_peak_in_flight_counts_concurrent_requests() -> None:
    n = 8
    barrier = threading.Barrier(n)

    def call(i: int) -> int:
        barrier.wait()
        return _post(srv.base_url, f"p{i}").status_code

    with StubServer(latency=0.5) as srv:
        with ThreadPoolExecutor(max_workers=n) as pool:
            assert list(pool.map(call, range(n))) == [200] * n
        stats = srv.stats
        assert stats.peak_in_flight == n and stats.in_flight == 0 and stats.total_requests == n
        srv.reset_stats()
        assert srv.stats.peak_in_flight == 0 and srv.stats.total_requests == 0


def test_request_bodies_are_recorded() -> None:
    with StubServer() as srv:
        _post(srv.base_url, "hello", temperature=0.0, max_tokens=16)
        (body,) = srv.stats.requests
        assert body["messages"] == _messages("hello")
        assert body["temperature"] == 0.0 and body["max_tokens"] == 16


def test_binds_to_loopback_only() -> None:
    with StubServer() as srv:
        port = srv.port
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
        # 127.0.0.2 is another loopback address: reachable only by a server bound to all addresses
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.2", port), timeout=2).close()


def test_clean_shutdown_leaves_no_threads_and_frees_the_port() -> None:
    before = set(threading.enumerate())
    srv = StubServer(faults=FaultPlan(script=["slow"], slow_seconds=30))
    with srv:
        port = srv.port
        assert _outcome(srv.base_url, timeout=0.2) == "timeout"
    assert set(threading.enumerate()) <= before
    srv.stop()  # idempotent
    with pytest.raises(RuntimeError):
        srv.base_url  # noqa: B018 - reading the property is the test
    with StubServer(port=port) as again:  # the port can be bound again at once
        assert again.port == port


def test_fault_plan_validation() -> None:
    with pytest.raises(ValueError):
        FaultPlan(rate_limit=0.7, server_error=0.5)
    with pytest.raises(ValueError):
        FaultPlan(script=["teapot"])
    with pytest.raises(ValueError):
        FaultPlan(rate_limit=1.5)


def test_likert_responder_is_deterministic_with_some_unparseable_answers() -> None:
    respond = likert_responder(seed=3)
    answers = [respond({"messages": _messages(f"speech {i}")}) for i in range(400)]
    assert answers == [respond({"messages": _messages(f"speech {i}")}) for i in range(400)]
    assert answers != [likert_responder(seed=4)({"messages": _messages(f"speech {i}")}) for i in range(400)]
    unparseable = sum(a in LIKERT_UNPARSEABLE for a in answers)
    assert 15 <= unparseable <= 70  # default rate 0.1
    assert len(set(answers)) > 15
    always_unparseable = likert_responder(unparseable_rate=1.0)
    assert all(always_unparseable({"messages": [i]}) in LIKERT_UNPARSEABLE for i in range(20))


@pytest.mark.parametrize("task", ["ibm_speech_likert", "ibm_speech_likert_cot"])
def test_likert_answers_parse_with_the_task_parser(task: str) -> None:
    """The stub's scored answers parse to their score, the others fail, under the real task parser."""
    from debench.task.config import ParserConfig
    from debench.task.parsing import parse_answer

    path = REPO / "tasks" / f"{task}.yaml"
    cfg = ParserConfig.model_validate(yaml.safe_load(path.read_text())["parser"])
    for template in LIKERT_TEMPLATES:
        for score in range(1, 6):
            result = parse_answer(template.format(n=score), cfg)
            assert result.ok and result.value == score, template
    for text in LIKERT_UNPARSEABLE:
        assert not parse_answer(text, cfg).ok, text


def test_cycle_responder() -> None:
    respond = cycle_responder(["a", "b"])
    assert [respond({}) for _ in range(5)] == ["a", "b", "a", "b", "a"]
    with pytest.raises(ValueError):
        cycle_responder([])


def test_cli_prints_base_url_and_serves_faults() -> None:
    cmd = [sys.executable, "-m", "debench.testing.stub_server", "--port", "0", "--script", "429,ok",
           "--retry-after", "2", "--responder", "fixed:Score: 3"]  # fmt: skip
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO) as proc:
        try:
            assert proc.stdout is not None
            base_url = proc.stdout.readline().strip()
            assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
            first = _post(base_url)
            assert first.status_code == 429 and first.headers["retry-after"] == "2"
            assert _post(base_url).json()["choices"][0]["message"]["content"] == "Score: 3"
            stats = _HTTP.get(base_url.removesuffix("/v1") + "/_stub/stats").json()
            assert stats["outcomes"] == {"429": 1, "ok": 1}
        finally:
            proc.terminate()
            _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr


def test_cli_rejects_bad_options() -> None:
    cmd = [sys.executable, "-m", "debench.testing.stub_server", "--fault-rate-429", "2"]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=30)
    assert out.returncode == 2 and "error" in out.stderr
