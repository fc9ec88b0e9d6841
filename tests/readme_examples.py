"""The README's examples: ```console blocks of ``$ debench ...`` commands, each followed by the
lines of output it printed.

A shown line must still appear in the command's stdout, the shown lines in the order they were
printed; lines left out between them are allowed (the README trims its output), ``…`` inside a
line stands for any text, and a line that is only ``…`` marks omitted output. Trailing spaces do
not count. Commands run one after the other in one working folder (a later command may read what
an earlier one wrote), and each must exit 0.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ELLIPSIS = "…"
FENCE = re.compile(r"^```console\n(.*?)^```$", re.MULTILINE | re.DOTALL)
EMBEDDED_MODELS = ("local/", "gguf/")
"""Model strings served by the embedded llama.cpp: their examples run in the embedded model's tests."""


@dataclass(frozen=True)
class Command:
    args: list[str]
    """The arguments after ``debench``."""
    shown: list[str]
    """The output lines the README shows (``…`` lines left out)."""


@dataclass(frozen=True)
class Example:
    path: Path
    line: int
    commands: list[Command]

    @property
    def name(self) -> str:
        return f"{self.path.name}:{self.line}:" + " ".join(self.commands[0].args[:1])

    @property
    def uses_embedded_model(self) -> bool:
        return any(arg.startswith(EMBEDDED_MODELS) for c in self.commands for arg in c.args)

    @property
    def needs_data(self) -> bool:
        """Reads a data set (its shown numbers are facts of the real data)."""
        return any(c.args[0] in ("eval", "score", "probe", "compare", "view", "validate") for c in self.commands)


def examples(path: Path) -> list[Example]:
    text = path.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        commands: list[Command] = []
        for raw in m.group(1).splitlines():
            if raw.startswith("$ "):
                argv = shlex.split(raw[2:])
                assert argv[0] == "debench", f"{path.name}: a console example runs debench only, not {raw!r}"
                commands.append(Command(args=argv[1:], shown=[]))
            else:
                assert commands, f"{path.name}: a console block starts with a '$ debench ...' line"
                line = raw.rstrip()
                if line and line != ELLIPSIS:
                    commands[-1].shown.append(line)
        found.append(Example(path=path, line=text.count("\n", 0, m.start()) + 1, commands=commands))
    return found


def _pattern(shown: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in shown.split(ELLIPSIS)) + r"\Z")


def missing_lines(shown: list[str], output: str) -> list[str]:
    """The shown lines that are not in ``output`` in the order shown (empty when all are)."""
    printed = [line.rstrip() for line in output.splitlines()]
    at = 0
    for i, line in enumerate(shown):
        pattern = _pattern(line)
        while at < len(printed) and not pattern.match(printed[at]):
            at += 1
        if at == len(printed):
            return shown[i:]
        at += 1
    return []


Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def check_example(example: Example, cwd: Path, run: Runner) -> None:
    """Run the example's commands in ``cwd`` with ``run`` (``run_cli`` or ``run_cli_process``) and
    assert each exits 0 and prints the lines shown."""
    for command in example.commands:
        proc = run(*command.args, cwd=cwd)
        where = f"{example.path.name}, the example at line {example.line}: debench {shlex.join(command.args)}"
        assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{proc.stderr}"
        missing = missing_lines(command.shown, proc.stdout)
        assert not missing, (
            f"{where} no longer prints (in this order):\n" + "\n".join(missing) + f"\n--- it printed:\n{proc.stdout}"
        )


def working_folder(tmp_path: Path, repo: Path) -> Path:
    """A folder that looks like the repository root to the examples (they name ``docs/...`` files)
    and keeps their outputs out of the repository."""
    if not (tmp_path / "docs").exists():
        (tmp_path / "docs").symlink_to(repo / "docs", target_is_directory=True)
    return tmp_path
