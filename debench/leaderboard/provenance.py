"""Where each prediction came from: every record of a submission must be traceable.

* A **baseline** (deterministic, no model) is re-run here: every prediction must be the one the
  baseline gives (same name, seed and documents). It calls no model, so it never ends in error.
* A **model** (litellm, openai-http, local) record with a prediction carries its raw
  ``response``, and its prediction (or parse failure) is what the task's parser reads from that
  response (a parse failure may have a null response: a provider can return no text). A Debatrix
  run also carries its ``steps``, the last being the verdict step whose answer is the response,
  each with the hash of its prompt: the chain is replayed with the recorded answers
  (``debench.leaderboard.replay``) and every prompt it asks must be one of the record's.
* An **ensemble** record carries one ``member`` step per member, in the identity's order, each
  traced like a model's (or re-run, for a baseline member), and the ensemble's prediction is its
  rule re-applied to the members' parsed answers.
* A model **was asked what the task asks** (``direct`` method, ensembles included): every answered
  record carries its ``messages``, and they are exactly what the installed task renders for that
  document — a prompt edited to show the model the answers is refused even when the results file's
  ``config_sha256``, version and fingerprint were patched to the installed task's.
* An ``error`` or ``not_completed`` record carries its error text. A run whose error plus
  not-completed share is above ``MAX_INCOMPLETE_SHARE`` (5%) is refused: metrics leave those
  documents out, so dropping the hard ones that way would flatter a judge.

What this cannot establish is that the responses came from the named model: that takes the
leaderboard's own run of every document through an endpoint the maintainers trust
(``debench.leaderboard.reproduce``), whose numbers are the ones ranked (``debench.leaderboard.verify``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from debench.core.errors import UserError
from debench.core.numeric import same, shown
from debench.data.base import Doc
from debench.data.prompts import build_messages
from debench.data.samples import SampleRecord
from debench.data.transcript import debate_text
from debench.leaderboard.replay import replay
from debench.scoring.results import Results
from debench.task.config import TaskConfig
from debench.task.parsing import parse_answer

MAX_INCOMPLETE_SHARE = 0.05
"""Largest share of a run's documents that may end in ``error`` or ``not_completed``."""


class Provenance(BaseModel):
    basis: Literal["recomputed", "responses"] = Field(
        description="recomputed: a deterministic baseline, every prediction re-derived by running it; "
        "responses: every prediction follows from the recorded raw model answer (the answers are not regenerated)"
    )
    checks: list[str] = Field(description="what validation established, in words")


def _err(path: Path, line: int, field: str, message: str) -> UserError:
    return UserError(f"line {line}: {message}", path=str(path), field=field)


class _Baseline:
    """A baseline prepared on the run's documents, answering as it did in the run."""

    def __init__(self, identity: dict[str, Any], docs: list[Doc], task: TaskConfig):
        from debench.models.baselines import BASELINES, make_baseline

        self.model = make_baseline(str(identity["name"]).removeprefix("baseline/"), int(identity.get("seed", 0)))
        self.model.prepare(docs, task)
        self.spec = BASELINES[self.model.short]
        self.task = task

    def predict(self, doc: Doc) -> Any:
        return json.loads(json.dumps(self.spec.predict(self.model, doc, self.task)))


def _is_baseline(identity: dict[str, Any]) -> bool:
    return str(identity.get("name", "")).startswith("baseline/")


class RecordChecker:
    """Checks each record of one submission's samples log (see the module docstring)."""

    def __init__(self, results: Results, task: TaskConfig, docs: list[Doc], samples: Path):
        identity = results.model.identity or {}
        self.kind = results.model.kind
        self.method = results.task.method
        self.task = task
        self.samples = samples
        self.docs = {d.doc_id: d for d in docs}
        self.baseline = _Baseline(identity, docs, task) if self.kind == "baseline" else None
        self.aggregate = str(identity.get("aggregate", ""))
        self.members: list[tuple[str, _Baseline | None]] = (
            [
                (str(m.get("name")), _Baseline(m, docs, task) if _is_baseline(m) else None)
                for m in identity.get("members", [])
            ]
            if self.kind == "ensemble"
            else []
        )

    def check(self, rec: SampleRecord, line: int) -> None:
        if rec.status in ("error", "not_completed"):
            self._check_failed(rec, line)
            return
        self._check_messages(rec, line)
        if self.baseline is not None:
            self._check_baseline(rec, line)
        elif self.kind == "ensemble":
            self._check_ensemble(rec, line)
        else:
            if self.method.startswith("debatrix"):
                self._check_debatrix(rec, line)
            else:
                self._check_response(rec.response, rec.status, rec.prediction, rec.doc_id, line, "")

    def _check_messages(self, rec: SampleRecord, line: int) -> None:
        """The prompt of an answered ``direct`` record is the installed task's for its document (a
        baseline, which reads no prompt, may leave it out)."""
        if self.method != "direct":
            return
        if rec.messages is None:
            if self.baseline is None:
                raise _err(
                    self.samples,
                    line,
                    "messages",
                    f"'{rec.doc_id}' carries no messages: a model's record keeps the prompt it was asked with",
                )
            return
        prompt = self.task.prompt
        expected = build_messages(prompt.system, prompt.user, self.docs[rec.doc_id], prompt.variables)
        if rec.messages != expected:
            where, detail = _first_difference(rec.messages, expected)
            raise _err(
                self.samples,
                line,
                f"messages{where}",
                f"'{rec.doc_id}' was asked with messages that differ from what the installed task {self.task.name} "
                f"renders ({detail}): a submission's prompts are the task's",
            )

    def _check_failed(self, rec: SampleRecord, line: int) -> None:
        if self.baseline is not None:
            raise _err(
                self.samples,
                line,
                "status",
                f"'{rec.doc_id}' is '{rec.status}', but a baseline calls no model and cannot fail",
            )
        if not (rec.error or "").strip():
            raise _err(self.samples, line, "error", f"'{rec.doc_id}' is '{rec.status}' without its error text")

    def _check_baseline(self, rec: SampleRecord, line: int) -> None:
        assert self.baseline is not None
        if rec.response is not None:
            raise _err(
                self.samples,
                line,
                "response",
                f"'{rec.doc_id}' carries a response, but a baseline writes no response: it answers without text",
            )
        expected = self.baseline.predict(self.docs[rec.doc_id])
        if rec.status != "ok" or not same(rec.prediction, expected):
            raise _err(
                self.samples,
                line,
                "prediction",
                f"{shown(rec.prediction)} (status {rec.status}) for '{rec.doc_id}' is not what "
                f"{self.baseline.model.name} (seed {self.baseline.model.seed}) answers: {shown(expected)}",
            )

    def _check_response(self, response: Any, status: str, prediction: Any, doc_id: str, line: int, where: str) -> None:
        """A raw answer that is there, and the prediction (or parse failure) the parser reads from it.
        A parse failure may have a null answer (a provider can return no text); a prediction cannot."""
        if response is None and status == "parse_failure" and prediction is None:
            return
        if not isinstance(response, str):
            raise _err(
                self.samples,
                line,
                f"{where}response",
                f"'{doc_id}' has no raw response: a model's prediction must come with the answer it was parsed from",
            )
        parsed = parse_answer(response, self.task.parser, debate_text(self.docs[doc_id]))
        if status == "parse_failure" and prediction is not None:
            raise _err(
                self.samples,
                line,
                f"{where}prediction",
                f"'{doc_id}' is a parse failure but carries the prediction {shown(prediction)}",
            )
        if parsed.ok != (status == "ok") or (parsed.ok and not same(parsed.value, prediction)):
            read = shown(parsed.value) if parsed.ok else "a parse failure"
            raise _err(
                self.samples,
                line,
                f"{where}prediction",
                f"prediction {shown(prediction)} (status {status}) for '{doc_id}' does not follow from its response: "
                f"the task's parser reads {read}",
            )

    def _check_debatrix(self, rec: SampleRecord, line: int) -> None:
        """Ends with the verdict step, and every prompt of the chain is the installed task's: the chain,
        replayed with the recorded answers, asks only prompts the record holds (``replay``); each
        score is what its answer says, and the verdicts and the prediction follow from the steps."""
        self._check_debatrix_steps(rec, line)
        self._check_replay(rec, line)
        self._check_step_scores(rec, line)
        by_scores = self._check_verdicts(rec, line)
        self._check_debatrix_prediction(rec, line, by_scores)

    def _check_debatrix_steps(self, rec: SampleRecord, line: int) -> None:
        """The last step is the verdict, whose answer is the response; every step keeps its prompt's hash."""
        last = rec.steps[-1] if rec.steps else {}
        if last.get("step") != "verdict" or last.get("answer") != rec.response:
            raise _err(
                self.samples,
                line,
                "steps",
                f"'{rec.doc_id}': a {self.method} record ends with its verdict step, whose answer is the response",
            )
        missing = next((i for i, st in enumerate(rec.steps) if not isinstance(st.get("prompt_sha256"), str)), None)
        if missing is not None:
            raise _err(
                self.samples,
                line,
                f"steps.{missing}.prompt_sha256",
                f"'{rec.doc_id}': a {self.method} step keeps the hash of the prompt it was asked "
                "(written by an older debench: rerun)",
            )

    def _check_replay(self, rec: SampleRecord, line: int) -> None:
        """Replayed with the recorded answers, the chain asks only prompts the record holds and ends
        with the recorded response."""
        got = replay(self.task, self.method, self.docs[rec.doc_id], rec)
        if isinstance(got, list):
            asked = json_excerpt(got[-1].get("content", "") if got else "")
            raise _err(
                self.samples,
                line,
                "steps",
                f"'{rec.doc_id}' was not asked what the installed task {self.task.name} asks: replayed with the "
                "recorded answers, the chain asks a prompt no step of the record holds (its last message begins "
                f"{asked}); a submission's prompts are debench's",
            )
        if got.response != rec.response:
            raise _err(
                self.samples,
                line,
                "response",
                f"'{rec.doc_id}': replayed with the recorded answers, the chain ends with "
                f"{shown(got.response)}, not the recorded response",
            )

    def _check_step_scores(self, rec: SampleRecord, line: int) -> None:
        """Each speech or debater score is the one its answer says."""
        from debench.judging.debatrix import read_score

        for i, step in enumerate(rec.steps):
            if step.get("step") in ("speech_score", "debater_score") and step.get("score") != read_score(
                str(step.get("answer") or "")
            ):
                raise _err(
                    self.samples,
                    line,
                    f"steps.{i}.score",
                    f"'{rec.doc_id}': score {shown(step.get('score'))} is not what its answer says",
                )

    def _check_verdicts(self, rec: SampleRecord, line: int) -> Any:
        """The recorded verdicts are the summary the response gives and the score verdict the steps
        give; returns the score verdict."""
        from debench.judging.debatrix import debater_scores, score_verdict, sides_of

        doc = self.docs[rec.doc_id]
        by_scores, _ = score_verdict(self.task, debater_scores(rec.steps, sides_of(doc)))
        parsed = (
            parse_answer(rec.response, self.task.parser, debate_text(doc)) if isinstance(rec.response, str) else None
        )
        summary = parsed.value if parsed is not None and parsed.ok else None
        verdicts = rec.verdicts or {}
        if not same(verdicts.get("summary"), summary) or not same(verdicts.get("scores"), by_scores):
            raise _err(
                self.samples,
                line,
                "verdicts",
                f"'{rec.doc_id}': verdicts {shown(verdicts)} are not the summary {shown(summary)} and the score "
                f"verdict {shown(by_scores)} its steps give",
            )
        return by_scores

    def _check_debatrix_prediction(self, rec: SampleRecord, line: int, by_scores: Any) -> None:
        """A method that predicts by scores predicts the score verdict; the others what the response says."""
        from debench.judging.debatrix import uses_scores

        if not uses_scores(self.task, self.method):
            self._check_response(rec.response, rec.status, rec.prediction, rec.doc_id, line, "")
            return
        if rec.status != ("ok" if by_scores is not None else "parse_failure") or not same(rec.prediction, by_scores):
            raise _err(
                self.samples,
                line,
                "prediction",
                f"prediction {shown(rec.prediction)} (status {rec.status}) for '{rec.doc_id}' is not the "
                f"score verdict {shown(by_scores)}",
            )

    def _check_ensemble(self, rec: SampleRecord, line: int) -> None:
        parts = [(i, s) for i, s in enumerate(rec.steps) if s.get("step") == "member"]
        names = [str(s.get("member")) for _, s in parts]
        if names != [n for n, _ in self.members]:
            raise _err(
                self.samples,
                line,
                "steps",
                f"'{rec.doc_id}': member answers {names} are not the ensemble's members {[n for n, _ in self.members]}",
            )
        values = []
        for (i, step), (name, baseline) in zip(parts, self.members, strict=True):
            status = step.get("status")
            if status == "not_completed":
                continue
            if baseline is not None:
                expected = baseline.predict(self.docs[rec.doc_id])
                if status != "ok" or not same(step.get("prediction"), expected):
                    raise _err(
                        self.samples,
                        line,
                        f"steps.{i}.prediction",
                        f"{shown(step.get('prediction'))} is not what {name} answers for "
                        f"'{rec.doc_id}': {shown(expected)}",
                    )
            else:
                self._check_response(
                    step.get("response"), str(status), step.get("prediction"), rec.doc_id, line, f"steps.{i}."
                )
            if status == "ok":
                values.append(step.get("prediction"))
        self._check_aggregate(rec, line, values)

    def _check_aggregate(self, rec: SampleRecord, line: int, values: list[Any]) -> None:
        from debench.models.aggregate import combine

        if not values:
            if rec.status != "parse_failure" or rec.prediction is not None:
                raise _err(
                    self.samples,
                    line,
                    "prediction",
                    f"'{rec.doc_id}': no member's answer parsed, so the ensemble's answer is a parse failure",
                )
            return
        expected, _ = combine(self.aggregate, values, self.task)
        if rec.status != "ok" or not same(rec.prediction, expected):
            raise _err(
                self.samples,
                line,
                "prediction",
                f"{shown(rec.prediction)} for '{rec.doc_id}' is not the {self.aggregate} of the "
                f"members' answers ({shown(expected)})",
            )

    def provenance(self) -> Provenance:
        if self.baseline is not None:
            return Provenance(
                basis="recomputed",
                checks=[
                    f"every prediction re-derived by running {self.baseline.model.name} "
                    f"(seed {self.baseline.model.seed})"
                ],
            )
        if self.kind == "ensemble":
            traced = f"every member's prediction follows from its raw answer; the {self.aggregate} rule re-applied"
        elif self.method.startswith("debatrix"):
            from debench.judging.debatrix import uses_scores

            traced = (
                "every prediction is the score verdict recomputed from the recorded debater scores "
                "(each read again from its answer)"
                if uses_scores(self.task, self.method)
                else "every prediction follows from the recorded verdict (the last Debatrix "
                "step) through the task's parser"
            )
        else:
            traced = "every prediction follows from the recorded raw response through the task's parser"
        return Provenance(basis="responses", checks=[traced])


def json_excerpt(text: str, n: int = 60) -> str:
    return json.dumps(text[:n] + ("…" if len(text) > n else ""), ensure_ascii=False)


def _first_difference(got: list[dict[str, str]], expected: list[dict[str, str]]) -> tuple[str, str]:
    """(field suffix, words) locating the first difference between two message lists."""
    if len(got) != len(expected):
        return "", f"{len(got)} messages instead of {len(expected)}"
    for i, (a, b) in enumerate(zip(got, expected, strict=True)):
        for key in sorted(set(a) | set(b)):
            x, y = str(a.get(key, "")), str(b.get(key, ""))
            if x != y:
                at = next((j for j, (c, d) in enumerate(zip(x, y, strict=False)) if c != d), min(len(x), len(y)))
                return (
                    f".{i}.{key}",
                    f"message {i} {key} differs from character {at}: {json.dumps(x[at : at + 40])} instead "
                    f"of {json.dumps(y[at : at + 40])}",
                )
    return "", "the messages differ"


def check_incomplete_share(records: list[SampleRecord], n_docs: int, path: Path) -> str:
    """Refuse a run with too many documents in error or not completed; returns what was found."""
    n_err = sum(1 for r in records if r.status == "error")
    n_nc = sum(1 for r in records if r.status == "not_completed")
    share = (n_err + n_nc) / n_docs if n_docs else 0.0
    if share > MAX_INCOMPLETE_SHARE:
        raise UserError(
            f"{n_err} error and {n_nc} not-completed records are {share:.1%} of {n_docs} documents; the leaderboard "
            f"accepts at most {MAX_INCOMPLETE_SHARE:.0%} (rerun: a resumed run retries errors; a model with a larger "
            "context window completes more)",
            path=str(path),
            field="n_errors+n_not_completed",
        )
    return (
        f"{n_err + n_nc} of {n_docs} documents ended in error or not completed (at most "
        f"{MAX_INCOMPLETE_SHARE:.0%} allowed)"
    )
