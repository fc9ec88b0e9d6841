"""lm-evaluation-harness on the same workload, in a throw-away virtual environment.

The environment (``benchmarks/.lmeval-venv`` by default, git-ignored) gets ``lm-eval[api]`` from
PyPI (no torch: the API models do not need it) and is reused by later runs. The task is an
lm-eval YAML written into a temp dir over a JSONL of the same documents, with the same rendered
messages debench sends (system prompt through ``--system_instruction``, user prompt as the
document text, ``--apply_chat_template``), run with ``local-chat-completions`` and
``num_concurrent=C`` against the same stub. Nothing reaches the Hub: no tokenizer
(``tokenizer_backend=None``, ``tokenized_requests=False``), offline flags, a local data file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.proc import ProcResult, run_measured

LM_EVAL_REQUIREMENT = "lm-eval[api]==0.4.13"
TASK_NAME = "debench_bench_likert"


def ensure_venv(path: Path) -> Path:
    """The venv's python, creating the venv and installing lm-eval on first use."""
    python = path / "bin" / "python"
    marker = path / ".debench-installed"
    if marker.exists() and marker.read_text().strip() == LM_EVAL_REQUIREMENT and python.exists():
        return python
    print(f"creating {path} and installing {LM_EVAL_REQUIREMENT} (first run only, ~1 min)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(path)], check=True)
    pip = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", LM_EVAL_REQUIREMENT],
        capture_output=True,
        text=True,
    )
    if pip.returncode != 0:
        raise RuntimeError(f"pip install {LM_EVAL_REQUIREMENT} failed:\n{pip.stderr[-3000:]}")
    marker.write_text(LM_EVAL_REQUIREMENT + "\n")
    return python


def write_task(directory: Path, rows: list[dict[str, str]], max_tokens: int) -> Path:
    """An lm-eval task over ``rows`` (``user`` = the rendered user prompt, ``label`` = the gold)."""
    directory.mkdir(parents=True, exist_ok=True)
    data = directory / "docs.jsonl"
    with open(data, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    task = {
        "task": TASK_NAME,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(data)}},
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_text": "{{user}}",
        "doc_to_target": "{{label}}",
        "generation_kwargs": {"until": [], "max_gen_toks": max_tokens, "temperature": 0.0, "do_sample": False},
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 1},
    }
    # JSON is valid YAML, and needs no YAML writer in this process.
    (directory / f"{TASK_NAME}.yaml").write_text(json.dumps(task, indent=1), encoding="utf-8")
    return directory


def run_lmeval(
    python: Path,
    task_dir: Path,
    *,
    base_url: str,
    system: str,
    concurrency: int,
    limit: int,
    out_dir: Path,
    max_retries: int = 3,
) -> ProcResult:
    model_args = ",".join(
        [
            "model=stub",
            f"base_url={base_url}/chat/completions",
            f"num_concurrent={concurrency}",
            f"max_retries={max_retries}",
            "tokenized_requests=False",
            "tokenizer_backend=None",
        ]
    )
    cmd = [
        str(python), "-m", "lm_eval",
        "--model", "local-chat-completions",
        "--model_args", model_args,
        "--tasks", TASK_NAME,
        "--include_path", str(task_dir),
        "--apply_chat_template",
        "--system_instruction", system,
        "--limit", str(limit),
        "--output_path", str(out_dir),
    ]  # fmt: skip
    env = dict(os.environ)
    env.update(
        {
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_HOME": str(out_dir / "hf-home"),
            "HF_DATASETS_CACHE": str(out_dir / "hf-datasets"),
            "OPENAI_API_KEY": "sk-no-key-needed",
            "TOKENIZERS_PARALLELISM": "false",
        }
    )
    return run_measured(cmd, env=env)
