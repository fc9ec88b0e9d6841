"""Reading a task YAML file (``debench.core.user_files``: within bounds, no YAML alias, no key given
twice), ``include:`` bases, prompt files, validation
against ``debench.task.config.TaskConfig``, and the names it uses (metrics, reports) checked against their
registries. Any problem is one ``UserError`` naming the file and the field."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from debench.core.errors import UserError, first_problem
from debench.core.user_files import PROMPT_FILE, TASK_FILE, load_yaml, read_text

if TYPE_CHECKING:  # imported where used: listing tasks (``read_summary``) needs no pydantic model
    from debench.metrics.params import MetricArgs
    from debench.task.config import TaskConfig


def _read_yaml(path: Path) -> dict[str, Any]:
    """A task file's fields: through ``debench.core.user_files`` (a regular file within its ceiling,
    YAML without aliases or a key given twice)."""
    raw = load_yaml(path, TASK_FILE)
    if not isinstance(raw, dict):
        raise UserError("a task file must be a mapping of fields", path=str(path))
    return raw


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def tasks_dir() -> Path:
    """debench's own task files (``tasks/``; ``debench/_tasks`` inside the wheel)."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "_tasks", package.parent / "tasks"):
        if candidate.is_dir():
            return candidate
    raise UserError("debench's task directory is missing from the installation")


def _own_tasks() -> Path | None:
    try:
        return tasks_dir().resolve()
    except UserError:
        return None


def _inside(name: Any, base: Path, root: Path, path: Path, field: str, what: str) -> tuple[Path, Path]:
    """The file ``name`` (as written in the task file ``path``, relative to ``base``) names, and the
    folder that file's own includes and prompt files must stay in. It must lie, once every symlink
    is followed, in ``root`` (the named task file's folder) or among debench's own task files
    (``tasks/``). A task file is data: it may not read (and so send to a model) any other file — an
    absolute path elsewhere, a ``..`` escape or a symlink pointing out is one line naming the file
    and field."""
    if not isinstance(name, str) or not name.strip():
        raise UserError(f"{what} must be a file name", path=str(path), field=field)
    target = (base / name).resolve()
    if target.is_relative_to(root):
        return target, root
    own = _own_tasks()
    if own is not None and target.is_relative_to(own):
        return target, own
    how = (
        "is an absolute path outside"
        if Path(name).is_absolute()
        else "leads out of"
        if ".." in Path(name).parts
        else "is a symlink out of"
    )
    raise UserError(
        f"'{name}' {how} the task file's folder ({root}); a task file may only name files in its own "
        "folder (or debench's own task files)",
        path=str(path),
        field=field,
    )


def _shipped_include(name: Any, path: Path) -> Path | None:
    """The shipped task an ``include:`` names by its name (``include: debateart_winner``, no file
    suffix, no folder), when no file of that name is beside the task file."""
    if not isinstance(name, str) or Path(name).suffix in (".yaml", ".yml") or "/" in name or "\\" in name:
        return None
    if (path.parent / name).exists():
        return None
    own = tasks_dir()
    shipped = own / f"{name}.yaml"
    if not shipped.is_file():
        known = sorted(p.stem for p in own.glob("*.yaml") if not p.name.startswith("_"))
        raise UserError(
            f"include '{name}' is neither a file beside the task file nor one of debench's tasks "
            f"({', '.join(known)}); name a file with its .yaml suffix",
            path=str(path),
            field="include",
        )
    return shipped


def _resolve_includes(path: Path, root: Path | None = None, depth: int = 0) -> tuple[dict[str, Any], dict[str, Path]]:
    """The task file's fields, with ``include: other.yaml`` (a file in the task file's folder, or
    one of debench's own task files, by its path or by its task's name: ``include: debateart_winner``)
    read first and overridden key by key; and the file each ``prompt.files`` entry names, resolved
    against the folder of the file that declares it. ``root``: the folder every file named may lie
    in — the named task file's own (for debench's own task files, ``tasks/``)."""
    root = path.parent.resolve() if root is None else root
    raw = _read_yaml(path)
    own_files = _prompt_file_paths(raw, path, root)
    inc = raw.pop("include", None)
    if inc is None:
        return raw, own_files
    if depth >= 3:
        raise UserError("includes nested more than 3 deep", path=str(path), field="include")
    shipped = _shipped_include(inc, path)
    if shipped is not None:
        base, base_files = _resolve_includes(shipped, tasks_dir().resolve(), depth + 1)
        return _merge(base, raw), {**base_files, **own_files}
    base_path, base_root = _inside(inc, path.parent, root, path, "include", "include")
    base, base_files = _resolve_includes(base_path, base_root, depth + 1)
    return _merge(base, raw), {**base_files, **own_files}


def _prompt_file_paths(raw: dict[str, Any], path: Path, root: Path) -> dict[str, Path]:
    prompt = raw.get("prompt")
    if not isinstance(prompt, dict) or not isinstance(prompt.get("files"), dict):
        return {}
    return {
        str(name): _inside(rel, path.parent, root, path, f"prompt.files.{name}", "a prompt file")[0]
        for name, rel in prompt["files"].items()
    }


def _read_prompt_files(raw: dict[str, Any], files: dict[str, Path], path: Path) -> None:
    """``prompt.files`` contents copied into ``prompt.variables``."""
    prompt = raw.get("prompt")
    if not isinstance(prompt, dict) or not files:
        return
    variables = dict(prompt.get("variables") or {})
    for name, file in files.items():
        try:
            variables[name] = read_text(file, PROMPT_FILE)
        except UserError as exc:
            raise UserError(f"cannot read prompt file {exc}", path=str(path), field=f"prompt.files.{name}") from None
    prompt["variables"] = variables


def load_task_file(path: str | Path) -> TaskConfig:
    """Read and validate one task YAML file; any problem is a one-line ``UserError``."""
    from pydantic import ValidationError

    from debench.task.config import TaskConfig

    path = Path(path)
    raw, files = _resolve_includes(path)
    _read_prompt_files(raw, files, path)
    try:
        task = TaskConfig.model_validate(raw)
    except ValidationError as exc:
        where, msg = first_problem(exc)
        extra = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise UserError(f"{msg}{extra}", path=str(path), field=where or "<root>") from None
    check_names(task, path)
    check_parser_groups(task, path)
    task.dataset._base_dir = path.parent  # the generic adapter's dataset.file is relative to the task file
    return task


class TaskSummary(NamedTuple):
    """What ``debench tasks`` lists about a task file."""

    name: str
    group: str | None
    description: str
    """The first line of the description."""
    path: Path


def read_summary(path: Path) -> TaskSummary:
    """A task file's name, group and description, read without validating it (``debench tasks``:
    YAML only, no plug-in registry, no template engine)."""
    raw, _ = _resolve_includes(Path(path))
    lines = str(raw.get("description") or "").strip().splitlines()
    group = raw.get("group")
    return TaskSummary(
        str(raw.get("name") or Path(path).stem), str(group) if group else None, lines[0] if lines else "", Path(path)
    )


def check_names(task: TaskConfig, path: Path) -> None:
    """The data adapter and every metric and report the task names exist."""
    from debench.data.base import ADAPTERS

    if task.dataset.adapter not in ADAPTERS:
        raise UserError(ADAPTERS.unknown_message(task.dataset.adapter), path=str(path), field="dataset.adapter")
    # debench's own metric and report names are known without importing their code (numpy,
    # scipy): a run starts sooner; another package's metric is loaded and checked here, before any
    # document is judged; any other name loads the registry
    from debench.core.entry_points import check_clash, declared
    from debench.metrics.names import BUILTIN_REPORTS, STATUS_METRICS

    for i, m in enumerate(task.metrics):
        entry = declared("debench.metrics").get(m.name)
        if m.name not in STATUS_METRICS and (entry is None or not entry.ours):
            from debench.metrics.base import METRICS

            if entry is not None:
                METRICS.get(m.name)
            else:
                check_clash("debench.metrics", m.name)
                if m.name not in METRICS:
                    raise UserError(
                        METRICS.unknown_message(m.name, f", {', '.join(STATUS_METRICS)}"),
                        path=str(path),
                        field=f"metrics.{i}.name",
                    )
        check_metric_args(task, i, path)
    from debench.metrics.names import ALT_TEST_METRICS

    alt = [(i, m) for i, m in enumerate(task.metrics) if m.name in ALT_TEST_METRICS]
    for i, m in alt[1:]:
        if m.args != alt[0][1].args:
            raise UserError(
                f"the alt-test metrics must share their args (epsilon, alpha, min_docs): {m.name} has {m.args}, "
                f"{alt[0][1].name} {alt[0][1].args}",
                path=str(path),
                field=f"metrics.{i}.args",
            )
    for i, r in enumerate(task.reports):
        if r in BUILTIN_REPORTS:
            continue
        from debench.metrics.reports import REPORTS

        if r not in REPORTS:
            raise UserError(REPORTS.unknown_message(r), path=str(path), field=f"reports.{i}")


def check_metric_args(task: TaskConfig, i: int, path: Path) -> None:
    """The task's ``i``-th metric's arguments against the metric's declaration
    (``debench.metrics.params``): an unknown argument, a value of the wrong type or out of range is
    one line naming the field, before any request (a status metric takes none)."""
    from debench.metrics.names import STATUS_METRICS
    from debench.metrics.params import refuse_bad_args

    m = task.metrics[i]
    params = None if m.name in STATUS_METRICS else metric_params(m.name)
    refuse_bad_args(m.name, params, m.args, field=f"metrics.{i}.args", path=str(path))


def metric_params(name: str) -> type[MetricArgs] | None:
    """The declaration of metric ``name``'s arguments: debench's own from
    ``debench.metrics.params.BUILTIN_PARAMS`` (none of its code imported: no numpy before the first
    request), an installed plug-in's from its ``Metric`` (its module is imported)."""
    from debench.core.entry_points import declared
    from debench.metrics.params import BUILTIN_PARAMS

    item = declared("debench.metrics").get(name)
    if item is not None and item.distribution == "debench":
        return BUILTIN_PARAMS.get(name)
    from debench.metrics.base import METRICS

    return METRICS.get(name).params


def check_parser_groups(task: TaskConfig, path: Path) -> None:
    """The groups the parser reads exist in its patterns (``parser.group: 99`` with a one-group
    pattern would make every answer a parse failure): one line naming the field, at load."""
    from debench.task.parsing import group_problem

    problem = group_problem(task.parser)
    if problem is not None:
        field, why = problem
        raise UserError(why, path=str(path), field=f"parser.{field}")
