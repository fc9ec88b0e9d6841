"""The results file: versioned, documented by ``debench/schema/results.schema.json``."""

from __future__ import annotations

import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from debench.core.atomic import write_json_record
from debench.core.entry_points import PluginIdentity
from debench.core.json_schema import document_schema, read_json_model, schema_path, validate_with_schema_file
from debench.scoring.scores import MetricValue

SCHEMA_VERSION = "1.1"
READABLE_VERSIONS = ("1.0", "1.1")
"""1.1 added ``task.identity_sha256`` and ``task.scored_with``; a 1.0 file is still read (its run
fingerprint binds it to the task's identity)."""
SCHEMA_PATH = schema_path("results.schema.json")


class TaskInfo(BaseModel):
    name: str
    version: int
    method: str
    description: str
    config_sha256: str = Field(description="sha256 of the validated task definition (all of it, metrics included)")
    identity_sha256: str | None = Field(
        default=None,
        description="sha256 of what changes the answers: the task without description, metrics, "
        "scoring and baselines (added in 1.1)",
    )
    scored_with: dict[str, Any] | None = Field(
        default=None,
        description="the task's metrics (name, args) and scoring settings the metrics of this file "
        "were computed with (added in 1.1)",
    )


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    kind: str = Field(description="litellm | openai-http | local | gguf | vllm | baseline | ensemble | predictions")
    identity: dict[str, Any] | None = Field(
        default=None,
        description="everything about the model that changes its answers; with the task, data hash and "
        "method it gives config.fingerprint",
    )


class DatasetInfo(BaseModel):
    source: str = Field(description="hub | local | sample | predictions")
    location: str
    revision: str | None = None
    content_hash: str
    is_sample: bool
    n_docs_total: int


class UsageInfo(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    cached_prompt_tokens: int = Field(
        default=0,
        description="of prompt_tokens, those the provider reported as served from its prompt "
        "cache (priced at its cached rate)",
    )
    cost_usd: float | None = Field(description="null when a price is unknown (local models, custom servers)")
    n_requests: int = Field(description="HTTP requests made in this invocation, retries included")
    n_cached: int = Field(description="samples answered from the response cache")


class Results(BaseModel):
    schema_version: str = SCHEMA_VERSION
    task: TaskInfo
    model: ModelInfo
    metrics: dict[str, MetricValue]
    n_samples: int
    n_parse_failures: int
    n_errors: int
    n_not_completed: int
    usage: UsageInfo
    config: dict[str, Any] = Field(description="everything needed to reproduce the run")
    dataset: DatasetInfo
    reports: dict[str, Any] = Field(default_factory=dict)
    samples_file: str | None = Field(default=None, description="per-sample JSONL, relative to this file")
    plots: list[str] = Field(default_factory=list, description="SVG plots written beside this file (file names)")
    versions: dict[str, str | None] = Field(
        description="python, debench, the packages that change its numbers, and each plug-in's package the run used"
    )
    created_at: str


def package_versions(plugins: Sequence[PluginIdentity] = ()) -> dict[str, str | None]:
    """The versions of Python, debench and the packages that change its numbers, and of each
    plug-in's package the run used (``plugins``: by its distribution name)."""
    from debench.core.version import debench_version, package_version

    out: dict[str, str | None] = {"python": platform.python_version(), "debench": debench_version()}
    for name in ("litellm", "numpy", "scipy", "krippendorff", "datasets", "xllamacpp"):
        out[name] = package_version(name)
    out.update({p.distribution: p.version for p in plugins})
    return out


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_results(results: Results, path: Path) -> None:
    write_json_record(path, results)


def results_json_schema() -> dict[str, Any]:
    return document_schema(Results, slug="results", version="1.0", title="debench results file")


def validate_results_dict(data: dict[str, Any]) -> None:
    validate_with_schema_file(data, SCHEMA_PATH)


def load_results(path: str | Path) -> Results:
    """A results file, validated (``debench.core.json_schema.read_json_model``: read within bounds,
    a refusal names the first field that is wrong, ``metrics.kendall_tau_c.ci95: …``)."""
    return read_json_model(path, Results, "results file")


def samples_log_path(results: Results, results_path: str | Path) -> Path:
    """The samples log a results file names, which sits in the results file's folder: a name
    leading out of it (``../../etc/passwd``, an absolute path, a link pointing out) or a log that
    is not there is a one-line ``UserError``."""
    from debench.core.errors import UserError

    if not results.samples_file:
        raise UserError("the results name no samples file", path=str(results_path), field="samples_file")
    folder = Path(results_path).parent.resolve()
    samples_path = (folder / results.samples_file).resolve()
    if not samples_path.is_relative_to(folder) or samples_path == folder:
        raise UserError(
            f"'{results.samples_file}' is not a file in the results file's folder: "
            "a samples log sits beside its results",
            path=str(results_path),
            field="samples_file",
        )
    if not samples_path.exists():
        raise UserError("samples log not found (it must sit beside the results file)", path=str(samples_path))
    return samples_path
