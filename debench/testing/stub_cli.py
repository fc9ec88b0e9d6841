"""The stub server's command line (``python -m debench.testing.stub_server --help``): it serves in
the foreground until SIGINT / SIGTERM, and the first line it prints is the base URL."""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Sequence

from debench.testing.stub_answers import Responder, cycle_responder, fixed_responder, likert_responder
from debench.testing.stub_app import HOST, StubCore
from debench.testing.stub_faults import FaultPlan


def _parse_responder(spec: str, seed: int, unparseable_rate: float) -> Responder:
    if spec == "likert":
        return likert_responder(seed, unparseable_rate)
    if spec.startswith("fixed:"):
        return fixed_responder(spec.removeprefix("fixed:"))
    if spec.startswith("cycle:"):
        return cycle_responder(spec.removeprefix("cycle:").split("|"))
    raise argparse.ArgumentTypeError(f"unknown responder {spec!r} (likert | fixed:TEXT | cycle:A|B|...)")


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m debench.testing.stub_server",
        description="Run the debench OpenAI-compatible stub server on 127.0.0.1 in the foreground. "
        "Prints the base URL on the first line of stdout.",
    )
    p.add_argument("--port", type=int, default=0, help="port to bind (0 = a free port)")
    p.add_argument("--latency", type=float, default=0.0, help="seconds slept before every completion")
    p.add_argument("--model", default="stub", help="model id listed by /v1/models")
    p.add_argument("--responder", default="likert", help="likert | fixed:TEXT | cycle:A|B|... (default likert)")
    p.add_argument("--seed", type=int, default=0, help="seed of the likert responder and of the faults")
    p.add_argument("--unparseable-rate", type=float, default=0.1, help="likert answers without a score")
    p.add_argument("--fault-rate-429", type=float, default=0.0, help="fraction answered 429")
    p.add_argument("--fault-rate-500", type=float, default=0.0, help="fraction answered 500")
    p.add_argument("--fault-rate-drop", type=float, default=0.0, help="fraction of aborted connections")
    p.add_argument("--fault-rate-slow", type=float, default=0.0, help="fraction answered after --slow-seconds")
    p.add_argument("--retry-after", default="1", help="Retry-After header of 429s ('' omits it)")
    p.add_argument("--slow-seconds", type=float, default=30.0)
    p.add_argument("--script", default="", help="comma-separated outcomes for the first requests, e.g. 429,ok,drop")
    p.add_argument("--fail-first-n", type=int, default=0, help="first N attempts of each prompt fail")
    p.add_argument("--fail-kind", default="429", choices=["429", "500", "drop", "slow"])
    p.add_argument("--record-requests", action="store_true", help="keep request bodies (memory grows)")
    p.add_argument(
        "--prefix-cache", action="store_true", help="report cached prompt tokens from a simulated prompt cache"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stub in the foreground until SIGINT / SIGTERM."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        responder = _parse_responder(args.responder, args.seed, args.unparseable_rate)
        faults = FaultPlan(
            rate_limit=args.fault_rate_429,
            server_error=args.fault_rate_500,
            drop=args.fault_rate_drop,
            slow=args.fault_rate_slow,
            seed=args.seed,
            retry_after=args.retry_after or None,
            slow_seconds=args.slow_seconds,
            script=[s.strip() for s in args.script.split(",") if s.strip()],
            fail_first_n_per_prompt=args.fail_first_n,
            fail_kind=args.fail_kind,
        )
        core = StubCore(
            latency=args.latency,
            responder=responder,
            faults=faults,
            model=args.model,
            record_requests=args.record_requests,
            prefix_cache=args.prefix_cache,
        )
    except (ValueError, argparse.ArgumentTypeError) as exc:
        parser.error(str(exc).replace("\n", " "))
    asyncio.run(_serve_until_signalled(core, args.port))
    return 0


async def _serve_until_signalled(core: StubCore, port: int) -> None:
    runner, bound = await core.start(port)
    print(f"http://{HOST}:{bound}/v1", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await core.close(runner)
