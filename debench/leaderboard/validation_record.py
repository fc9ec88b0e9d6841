"""Validation done once: ``leaderboard/validated.json`` records, by content, what validating each
merged entry established, so that no refresh and no gate validates it again.

A submission is validated in full once (``debench.leaderboard.validate``: every metric recomputed,
every prediction traced, every prompt rendered again): the refresh job records the outcome under
the entry's **content key** — the sha256 of its results file and of its samples log, the installed
task's hash (its scoring side included: a changed metric re-scores), the real data's hash, this
debench's version, and whether it is one of the job's own runs. A later build that finds the same
key reads the results file (within its caps, checked on its own as always), the task, the real
data and the log's records, and takes the recomputed numbers and provenance from the record
instead of recomputing them; any change to one of those bytes, the task, the data or the debench
version validates the entry in full again. The files of a folder whose sha256 is recorded were
scanned for keys and are not scanned again. The job writes the file and the workflow commits it;
a pull request cannot touch it (it lies outside ``leaderboard/submissions/``), and the gate reads
the base branch's, so it validates only the folder the pull request adds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from debench.data.base import Doc
from debench.data.samples import SampleRecord
from debench.leaderboard.files import sha256_file
from debench.leaderboard.job_files import read_job_file, write_job_file
from debench.leaderboard.provenance import Provenance
from debench.leaderboard.validate import ValidatedSubmission, validate_submission
from debench.scoring.scores import ScoreReport

VALIDATED_FILE = "validated.json"


class RecordedValidation(BaseModel):
    provenance: Provenance
    recomputed: ScoreReport = Field(description="every number as validation recomputed it from the samples")
    rescored: bool


class ValidationRecord(BaseModel):
    schema_version: Literal["1.0"] = "1.0"
    entries: dict[str, RecordedValidation] = Field(
        default_factory=dict,
        description="content key (see debench.leaderboard.validation_record) -> what validation established",
    )
    scanned: list[str] = Field(
        default_factory=list, description="sha256 of submission files scanned for keys and found clean"
    )


@dataclass
class Validations:
    """The record of one build: what it finds is reused, what it validates is added; ``save`` writes
    the entries this build used (a removed submission's record goes with it)."""

    record: ValidationRecord = field(default_factory=ValidationRecord)
    used: set[str] = field(default_factory=set)
    clean: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, path: Path) -> Validations:
        record = read_job_file(path, ValidationRecord, "validation record")
        return cls(record)

    def save(self, path: Path) -> None:
        kept = ValidationRecord(
            entries={k: v for k, v in sorted(self.record.entries.items()) if k in self.used},
            scanned=sorted(self.clean),
        )
        write_job_file(kept, path)

    def scan(self, path: Path, cap: int) -> None:
        """``files.scan_for_keys``, once per content: a file whose sha256 is recorded clean is not read again."""
        from debench.leaderboard.files import scan_for_keys

        digest = sha256_file(path)
        if digest not in self.record.scanned and digest not in self.clean:
            scan_for_keys(path, cap)
        self.clean.add(digest)

    def validate(self, path: Path, *, data_dir: str | Path | None, job_run: bool = False) -> ValidatedSubmission:
        """The entry at ``path``, validated in full unless its content key is recorded (see the module docstring)."""
        from debench.core.version import debench_version
        from debench.leaderboard.real_data import checked_real_data
        from debench.leaderboard.results_file import read_results
        from debench.leaderboard.samples_log import samples_path
        from debench.leaderboard.task_binding import bound_task
        from debench.run.pipeline import select_docs, task_sha

        results = read_results(path)
        task = bound_task(results, path)
        samples = samples_path(results, path)
        real = checked_real_data(task, results, path, data_dir)
        parts = [sha256_file(path), sha256_file(samples), task_sha(task), real.content_hash, debench_version(), job_run]
        key = hashlib.sha256(json.dumps(parts).encode()).hexdigest()
        hit = self.record.entries.get(key)
        if hit is None:
            sub = validate_submission(path, data_dir=data_dir, job_run=job_run)
            self.record.entries[key] = RecordedValidation(
                provenance=sub.provenance, recomputed=sub.recomputed, rescored=sub.rescored
            )
        else:
            docs = select_docs(real, results.config.get("limit"))
            sub = ValidatedSubmission(
                results_path=path,
                samples_path=samples,
                results=results,
                task=task,
                recomputed=hit.recomputed,
                n_docs=len(docs),
                n_docs_total=len(real.docs),
                identity=results.model.identity or {},
                provenance=hit.provenance,
                docs=docs,
                records=_records(samples, docs),
                rescored=hit.rescored,
            )
        self.used.add(key)
        return sub


def _records(samples: Path, docs: list[Doc]) -> list[SampleRecord]:
    """A validated log's records of ``docs``, in their order, without prompts and steps."""
    from debench.data.samples import read_records, slim

    by_id = {r.doc_id: r for r in read_records(samples)}
    return [slim(by_id[d.doc_id]) for d in docs]
