"""A stand-in for ``vllm serve`` in tests: serves the OpenAI-compatible stub
(``debench.testing.stub_server``) on the host and port it is given, under the served model name.

Tests put an executable named ``vllm`` on PATH that runs ``python -m debench.testing.fake_vllm``
(``write_fake_vllm``). It accepts vLLM's flags (``--host``, ``--port``, ``--served-model-name`` are
used; the others only recorded) and is steered by environment variables:

* ``FAKE_VLLM_RECORD``: a file to which it appends one JSON line ``{"argv", "pid", "pgid"}``
  (and ``"child"``: the pid of its worker, with ``FAKE_VLLM_CHILD``);
* ``FAKE_VLLM_DIE``: print a few log lines, then exit with code 3 before listening;
* ``FAKE_VLLM_DELAY``: seconds to "load the model" before listening;
* ``FAKE_VLLM_LATENCY``: seconds the stub sleeps before every answer;
* ``FAKE_VLLM_CHILD``: start a worker process (``sleep``) in its process group, as vLLM does;
* ``FAKE_VLLM_IGNORE_TERM``: ignore SIGTERM while "loading" (only SIGKILL stops it then).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def write_fake_vllm(folder: Path) -> Path:
    """An executable ``vllm`` in ``folder`` running this module with this interpreter."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "vllm"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m debench.testing.fake_vllm "$@"\n')
    exe.chmod(0o755)
    return exe


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="vllm")
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("model")
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--served-model-name", default=None)
    args, _ = parser.parse_known_args(argv)
    env = os.environ
    record: dict[str, object] = {"argv": ["vllm", *argv], "pid": os.getpid(), "pgid": os.getpgid(0)}
    if env.get("FAKE_VLLM_CHILD"):
        child = subprocess.Popen(["sleep", "600"])  # a stand-in worker
        record["child"] = child.pid
    if env.get("FAKE_VLLM_RECORD"):
        with open(env["FAKE_VLLM_RECORD"], "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
    if env.get("FAKE_VLLM_IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print(f"INFO fake vllm: loading {args.model}", flush=True)
    if env.get("FAKE_VLLM_DIE"):
        print("ERROR fake vllm: CUDA out of memory while loading the weights", flush=True)
        print("RuntimeError: engine core initialization failed", file=sys.stderr, flush=True)
        return 3
    time.sleep(float(env.get("FAKE_VLLM_DELAY", "0")))
    from debench.testing.stub_server import main as stub_main

    stub = [
        "--port",
        str(args.port),
        "--model",
        args.served_model_name or args.model,
        "--latency",
        env.get("FAKE_VLLM_LATENCY", "0"),
    ]
    return stub_main(stub)


if __name__ == "__main__":
    sys.exit(main())
