"""Plug-in packages of the tests' own, installed as pip installs them: modules and a ``.dist-info``
folder (``METADATA`` with the name and version, ``entry_points.txt``) in a folder that goes on
``PYTHONPATH`` beside debench. Writing a package again with another version replaces the first (an
upgrade); writing it with the same version and other code is an editable install's edit.

The modules import only ``debench.plugin_types``, the one import a plug-in's author needs."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from debench.core.entry_points import GROUPS


def install(
    site: Path, name: str, version: str, modules: dict[str, str], entry_points: dict[str, dict[str, str]]
) -> None:
    """The distribution ``name`` ``version`` in ``site``: ``modules`` (file path -> source) and its
    entry points (group -> {entry name: ``module:attr``}); any other version of it removed."""
    stem = name.replace("-", "_")
    for old in site.glob(f"{stem}-*.dist-info"):
        shutil.rmtree(old)
    for rel, source in modules.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip())
    info = site / f"{stem}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    assert set(entry_points) <= set(GROUPS)
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
            for group, eps in entry_points.items()
        )
    )


def user_task(folder: Path, name: str, metrics: list[str]) -> Path:
    """A task of the user's own in ``folder``: the shipped debateart_winner with these metrics."""
    folder.mkdir(parents=True, exist_ok=True)
    task = folder / f"{name}.yaml"
    task.write_text(
        f"include: debateart_winner\nname: {name}\nmetrics:\n" + "".join(f"  - name: {m}\n" for m in metrics)
    )
    return task


def env(site: Path, cache: Path) -> dict[str, str]:
    """A command's environment with ``site`` beside debench and a response cache of its own."""
    return {"PYTHONPATH": str(site), "DEBENCH_CACHE_DIR": str(cache)}


ANSWER_KIND = '''
    """``answer/<anything>``: a judge that gives the same answer to every document (offline)."""

    from debench.plugin_types import Model, ModelRequest, ModelResponse, Request

    ANSWER = "{answer}"


    class AnswerModel(Model):
        kind = "answer"
        makes_requests = False

        def __init__(self, name: str):
            self.name = name

        def identity(self) -> dict:
            return {{"name": self.name}}

        async def generate(self, request: Request) -> ModelResponse:
            {generate}
            return ModelResponse(text="Winner: " + ANSWER)


    class AnswerKind:
        description = "answer/<name>: the same verdict on every document"
        keys = frozenset()

        def make(self, request: ModelRequest) -> Model:
            {make}
            return AnswerModel(request.name)


    KIND = AnswerKind()
'''


def answer_kind(answer: str, *, generate: str = "pass", make: str = "pass") -> str:
    """The source of a model kind answering ``Winner: <answer>`` (after running ``generate`` and
    ``make``, one statement each: a test's way to make it fail)."""
    return ANSWER_KIND.format(answer=answer, generate=generate, make=make)
