"""The direct OpenAI-compatible HTTP client: the same behaviour as the litellm path (retry
classification, Retry-After, caps, timeouts, usage, context overflow, permanent errors), against
the stub server and a tiny fixed-answer server; and the factory's choice between the two."""

from __future__ import annotations

import asyncio
import time

import pytest

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.models.base import ContextOverflow, PermanentModelError, Request, Usage
from debench.models.factory import make_model, parse_model_args
from debench.models.litellm_model import LiteLLMModel
from debench.models.openai_http import HTTPStatusError, OpenAIHTTPModel, classify_http_exception
from debench.models.retry import EndpointError, TransientModelError
from debench.task.config import GenerationConfig
from debench.testing.fixed_status import FixedStatusServer
from debench.testing.stub_server import FaultPlan, StubServer, fixed_responder

FAST = "max_retries=3,base_delay=0.01,max_delay=1,timeout=1"


def _request(text: str = "Rate this.", grammar: str | None = None) -> Request:
    return Request(
        messages=[{"role": "system", "content": "You judge."}, {"role": "user", "content": text}],
        generation=GenerationConfig(temperature=0.0, max_tokens=8),
        doc=Doc(doc_id="d1"),
        grammar_text=grammar,
    )


def _model(base: str, args: str = FAST, name: str = "openai/stub") -> OpenAIHTTPModel:
    model = make_model(name, api_bases=[base], model_args=parse_model_args(args))
    assert isinstance(model, OpenAIHTTPModel)
    return model


async def _generate(model: OpenAIHTTPModel, request: Request):
    try:
        return await model.generate(request)
    finally:
        await model.aclose()


def test_answer_usage_and_request_body() -> None:
    with StubServer(responder=fixed_responder("Score: 4")) as srv:
        model = _model(srv.base_url, FAST + ",grammar=true")
        out = asyncio.run(_generate(model, _request(grammar='root ::= "1"')))
        body = srv.stats.requests[0]
    assert out.text == "Score: 4" and out.attempts == 1
    assert out.usage.prompt_tokens == 4 and out.usage.completion_tokens == 2  # the stub counts words
    assert out.cost_usd is None  # not in litellm's price table
    assert body["model"] == "stub" and body["grammar"] == 'root ::= "1"'
    assert body["messages"][1]["content"] == "Rate this." and body["max_tokens"] == 8 and body["temperature"] == 0.0


@pytest.mark.parametrize("kind", ["429", "500", "drop", "slow"])
def test_transient_failures_are_retried_and_counted(kind: str) -> None:
    plan = FaultPlan(fail_first_n_per_prompt=2, fail_kind=kind, retry_after="0.3", slow_seconds=3)
    with StubServer(faults=plan) as srv:
        t0 = time.perf_counter()
        out = asyncio.run(_generate(_model(srv.base_url), _request()))
        elapsed = time.perf_counter() - t0
        stats = srv.stats
    assert out.attempts == 3 and stats.total_requests == 3
    if kind == "429":
        assert elapsed >= 2 * 0.3  # Retry-After honoured
    if kind == "slow":
        assert elapsed >= 2 * 1.0  # two timeouts of 1 s


def test_retries_are_capped() -> None:
    with StubServer(faults=FaultPlan(fail_first_n_per_prompt=100, fail_kind="500")) as srv:
        with pytest.raises(TransientModelError, match="gave up after 3 attempts"):
            asyncio.run(_generate(_model(srv.base_url, "max_retries=2,base_delay=0.01"), _request()))
        assert srv.stats.total_requests == 3


def test_permanent_error_fails_fast() -> None:
    """A content filter's refusal concerns one prompt: that sample fails, at once."""
    err = {
        "error": {"message": "flagged by the content_filter", "type": "invalid_request_error", "code": "content_filter"}
    }
    with FixedStatusServer(400, err) as srv, pytest.raises(PermanentModelError, match="content_filter") as info:
        asyncio.run(_generate(_model(srv.base_url), _request()))
    assert srv.hits == ["/v1/chat/completions"] and info.value.attempts == 1


def test_a_malformed_request_stops_the_run_at_once() -> None:
    """A 422 (every request of a run is built the same way): one request, not retried, one line
    naming the URL and the status (whether it stops the run: tests/test_refused_documents.py)."""
    err = {"error": {"message": "unsupported parameter", "type": "invalid_request_error", "code": "unprocessable"}}
    with (
        FixedStatusServer(422, err) as srv,
        pytest.raises(EndpointError, match="HTTP 422: unsupported parameter") as info,
    ):
        asyncio.run(_generate(_model(srv.base_url), _request()))
    assert srv.hits == ["/v1/chat/completions"] and info.value.attempts == 1 and srv.base_url in str(info.value)


def test_a_404_stops_the_run_naming_the_url() -> None:
    """A 404 (no such path or model): every request would fail the same way."""
    err = {"error": {"message": "model not found", "type": "invalid_request_error", "code": "model_not_found"}}
    with FixedStatusServer(404, err) as srv, pytest.raises(EndpointError) as info:
        asyncio.run(_generate(_model(srv.base_url), _request()))
    assert f"POST {srv.base_url}/chat/completions" in str(info.value) and "model not found" in str(info.value)
    assert srv.hits == ["/v1/chat/completions"] and info.value.attempts == 1


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
        "the request exceeds the available context size, try increasing it",
    ],
)
def test_context_overflow_is_not_completed(message: str) -> None:
    with (
        FixedStatusServer(400, {"error": {"message": message, "type": "invalid_request_error"}}) as srv,
        pytest.raises(ContextOverflow),
    ):
        asyncio.run(_generate(_model(srv.base_url), _request()))
    assert len(srv.hits) == 1


def test_retry_after_ms_header_is_read() -> None:
    exc_holder: list[BaseException] = []
    with FixedStatusServer(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "250"}) as srv:
        with pytest.raises(TransientModelError) as info:
            asyncio.run(_generate(_model(srv.base_url, "max_retries=1,base_delay=5"), _request()))
        exc_holder.append(info.value.__cause__)
    assert len(srv.hits) == 2
    cause = exc_holder[0]
    assert isinstance(cause, HTTPStatusError) and cause.retry_after == pytest.approx(0.25)


def test_one_retry_after_reader_for_every_client() -> None:
    """retry-after-ms before Retry-After (seconds or an HTTP date), header names in any case, from
    debench's own HTTP errors and from litellm's exceptions alike."""
    import email.utils
    import time

    import httpx
    import litellm

    from debench.models.retry import retry_after_from_exception, retry_after_from_headers

    assert retry_after_from_headers({"Retry-After": "2"}) == 2.0
    assert retry_after_from_headers(httpx.Headers({"retry-after": "3", "Retry-After-Ms": "1500"})) == 1.5
    assert retry_after_from_headers({"retry-after-ms": "soon", "RETRY-AFTER": "4"}) == 4.0
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < retry_after_from_headers({"retry-after": later}) <= 30
    assert retry_after_from_headers({"retry-after": "tomorrow"}) is None and retry_after_from_headers(None) is None
    assert retry_after_from_exception(HTTPStatusError(429, "slow", {"Retry-After": "7"})) == 7.0
    limited = litellm.RateLimitError("slow", llm_provider="openai", model="x")
    limited.litellm_response_headers = httpx.Headers({"retry-after": "5"})
    assert retry_after_from_exception(limited) == 5.0
    assert retry_after_from_exception(ValueError("no headers")) is None


def test_classification_matches_the_litellm_path() -> None:
    """Only failures known to be transient are retried, by either client; a refused connection
    is 'unreachable' (retried for the grace period only), a 404 'fatal'."""
    import aiohttp
    import litellm

    from debench.models.litellm_model import classify_exception

    def kind(status: int, msg: str = "x") -> str:
        return classify_http_exception(HTTPStatusError(status, msg, None))

    assert [kind(s) for s in (408, 409, 429, 500, 502, 503)] == ["transient"] * 6
    assert [kind(s) for s in (401, 402, 403, 404, 405, 501)] == ["fatal"] * 6
    assert kind(400) == kind(422) == "refused"  # fatal or the document's error: the runner decides
    assert kind(429, "You exceeded your current quota (insufficient_quota)") == "fatal"
    assert kind(400, "flagged by the content_filter") == kind(418) == "permanent"
    assert kind(400, "maximum context length exceeded") == "context"
    assert classify_http_exception(ConnectionResetError()) == "transient"
    assert classify_http_exception(aiohttp.ServerDisconnectedError()) == "transient"
    refused = ConnectionRefusedError(111, "Connect call failed")
    assert classify_http_exception(refused) == "unreachable"
    assert (
        classify_http_exception(aiohttp.InvalidURL("not-a-url")) == "permanent"
    )  # an aiohttp.ClientError, not transient
    assert classify_http_exception(aiohttp.TooManyRedirects(None, ())) == "permanent"
    # litellm reports a refused connection as a 500 whose cause is the refusal
    wrapped = litellm.InternalServerError("Connection error.", llm_provider="openai", model="x")
    wrapped.__cause__ = refused
    assert classify_exception(wrapped) == "unreachable"
    assert classify_exception(litellm.InternalServerError("boom", llm_provider="openai", model="x")) == "transient"
    assert classify_exception(litellm.NotFoundError("no such model", llm_provider="openai", model="x")) == "fatal"
    assert classify_exception(litellm.BadRequestError("bad", llm_provider="openai", model="x")) == "refused"
    assert classify_exception(litellm.AuthenticationError("no key", llm_provider="openai", model="x")) == "fatal"
    assert classify_exception(litellm.RateLimitError("slow", llm_provider="openai", model="x")) == "transient"
    # the same status rules (retry.classify_status) for litellm's exceptions that carry a status
    too_long = litellm.BadRequestError(
        "This model's maximum context length is 8192 tokens", llm_provider="openai", model="x"
    )
    assert classify_exception(too_long) == kind(400, str(too_long)) == "context"


def test_identity_is_the_litellm_identity_and_cost_uses_the_price_table() -> None:
    base = "http://127.0.0.1:9/v1"
    http_model = make_model("openai/stub", api_bases=[base + "/"])
    lite = make_model("openai/stub", api_bases=[base], model_args={"client": "litellm"})
    assert isinstance(http_model, OpenAIHTTPModel) and isinstance(lite, LiteLLMModel)
    assert http_model.identity() == lite.identity()  # same cache keys and run fingerprints
    known = make_model("openai/gpt-4o", api_bases=[base])
    assert known.context_window() == 128000
    assert known._price is not None and known._price.cost(
        Usage(prompt_tokens=1000, completion_tokens=100)
    ) == pytest.approx(1000 * 2.5e-06 + 100 * 1e-05)


def test_factory_choice() -> None:
    assert isinstance(make_model("openai/x", api_bases=["http://a/v1"]), OpenAIHTTPModel)
    assert isinstance(make_model("openai/x", api_bases=["http://a/v1", "http://b/v1"]), LiteLLMModel)  # Router
    assert isinstance(make_model("gpt-4o"), LiteLLMModel)
    with pytest.raises(UserError, match="client=http"):
        make_model("gpt-4o", model_args={"client": "http"})
    with pytest.raises(UserError, match="client=curl"):
        make_model("openai/x", api_bases=["http://a/v1"], model_args={"client": "curl"})


@pytest.mark.parametrize("client", ["http", "litellm"])
def test_both_clients_count_the_same_attempts(client: str) -> None:
    """The litellm path keeps working through the shared retry loop."""
    plan = FaultPlan(fail_first_n_per_prompt=2, fail_kind="500")
    with StubServer(faults=plan, responder=fixed_responder("Score: 3")) as srv:
        model = make_model(
            "openai/stub", api_bases=[srv.base_url], model_args=parse_model_args(FAST + f",client={client}")
        )

        async def go():
            try:
                return await model.generate(_request())
            finally:
                await model.aclose()

        out = asyncio.run(go())
    assert out.text == "Score: 3" and out.attempts == 3 and out.usage.completion_tokens == 2
