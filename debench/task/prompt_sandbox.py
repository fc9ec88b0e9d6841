"""The sandboxed Jinja2 environment task prompts are rendered in, and the syntax check task files
get. Task templates are data: Jinja's immutable sandbox refuses unsafe attributes and mutation, and
without a loader a template can include no file. (The HTML pages' templates are
``debench/templates/``, rendered by ``debench.view.pages``.)

A template is also bounded (docs/errors.md, "Ceilings"): its ``range`` calls together yield at
most ``MAX_RANGE_ITEMS`` numbers per rendering, a text or list repeated with ``*`` (or a power
``**``) may not exceed ``MAX_OUTPUT_CHARS``, neither may a text or list joined with ``+`` or ``~``,
nor what a filter or a text method is asked to build (``center(10**9)``, ``"%0999999999d" % 1``,
``indent``, ``replace`` or ``join`` whose result would be past it: checked before it is built),
and a rendering stops past ``MAX_OUTPUT_CHARS`` characters or ``MAX_RENDER_S`` seconds. Past a
bound the rendering raises ``TemplateBoundError`` (a ``UserError``: one line, exit code 2) instead
of holding the machine.

These checks bound what each step builds; they cannot bound how many steps a template takes or how
much it keeps (a loop that prints nothing, values kept in a ``namespace``). ``plain`` tells the
templates whose every step runs once and is one of the checked ones: those render here
(``render_here``); every other template renders in a process of its own with hard limits
(``debench.task.bounded_render``)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from contextvars import ContextVar
from functools import lru_cache, wraps
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.sandbox import ImmutableSandboxedEnvironment

from debench.core.errors import UserError

MAX_RANGE_ITEMS = 100_000
MAX_OUTPUT_CHARS = 2_000_000
MAX_RENDER_S = 5.0
MAX_EXPONENT = 1000


class TemplateBoundError(UserError):
    """A prompt template went past one of the sandbox's bounds."""


_range_used: ContextVar[int] = ContextVar("range_used", default=0)


def _bounded_range(*args: int) -> range:
    numbers = range(*args)
    used = _range_used.get() + len(numbers)
    if used > MAX_RANGE_ITEMS:
        raise TemplateBoundError(f"the prompt template's range() calls yield more than {MAX_RANGE_ITEMS} numbers")
    _range_used.set(used)
    return numbers


def _size(value: Any) -> int | None:
    return len(value) if isinstance(value, (str, list, tuple)) else None


_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\d*)(?:\.(\d*))?")
_BRACE_SPEC = re.compile(r"\{[^{}]*?:([^{}]*)\}")


def _spec_widths(text: str) -> list[int]:
    """The widths and precisions a ``%`` or ``str.format`` format string asks for."""
    found = [int(n) for m in _PERCENT_SPEC.finditer(text) for n in m.groups() if n]
    found += [int(n) for m in _BRACE_SPEC.finditer(text) for n in re.findall(r"\d+", m.group(1))]
    return found


_WIDTH_ARGS = frozenset({"center", "ljust", "rjust", "zfill", "batch"})
"""Filters and text methods whose whole-number argument is the size of what they build."""


def _result_size(name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """What ``value.name(*args)`` (or the filter ``name``) would build, estimated before it is built;
    0 for what builds nothing larger than its inputs."""
    numbers = [abs(a) for a in (*args, *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool)]
    if name in _WIDTH_ARGS:
        return max([0, *numbers])
    if name == "join":
        return _joined_size(value, args, kwargs)
    if not isinstance(value, str):
        return 0
    if name in ("format", "format_map", "%"):
        return _formatted_size(name, value, numbers)
    if name == "replace":
        return _replaced_size(value, args)
    if name == "indent":
        return _indented_size(value, args, kwargs)
    if name == "expandtabs":
        return int(len(value) + (numbers[0] if numbers else 8) * value.count("\t"))
    return 0


def _formatted_size(name: str, text: str, numbers: list[int]) -> int:
    """The widest field a ``%`` (``name`` "%") or ``str.format`` format string asks for, counting
    the whole-number arguments when a width is taken from them (``%*d``, ``{:{}}``)."""
    star = "*" in text if name == "%" else re.search(r"\{[^{}]*\{", text) is not None
    return max([0, *_spec_widths(text), *(numbers if star else [])])


def _replaced_size(text: str, args: tuple[Any, ...]) -> int:
    """``text.replace(old, new)``'s length (an empty ``old`` matches between every character)."""
    if len(args) < 2 or not isinstance(args[0], str) or not isinstance(args[1], str):
        return 0
    old, new = args[0], args[1]
    return len(text) + (text.count(old) if old else len(text) + 1) * max(0, len(new) - len(old))


def _joined_size(value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """A join's length: ``sep.join(seq)`` (a text's method) or the filter ``seq|join(d)``; 0 when
    the sequence cannot be counted."""
    if isinstance(value, str):
        sep, seq = value, args[0] if args else ()
    else:
        sep, seq = args[0] if args else kwargs.get("d", ""), value
    return sum(len(str(x)) for x in seq) + len(str(sep)) * len(seq) if hasattr(seq, "__len__") else 0


def _indented_size(text: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """The filter ``indent``'s length: its width (a number, or a text) before every line."""
    width = args[0] if args else kwargs.get("width", 4)
    return int(len(text) + (len(width) if isinstance(width, str) else abs(int(width))) * (text.count("\n") + 1))


def _check_size(name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    if _result_size(name, value, args, kwargs) > MAX_OUTPUT_CHARS:
        raise TemplateBoundError(f"the prompt template asks {name} for more than {MAX_OUTPUT_CHARS} characters")


def _counted(name: str, args: tuple[Any, ...], at: int) -> tuple[Any, ...]:
    """``args`` with the sequence ``join`` is given at ``at`` made a list if it is a generator, so
    that its items can be counted before they are joined."""
    if name == "join" and len(args) > at and not hasattr(args[at], "__len__"):
        return (*args[:at], list(args[at]), *args[at + 1 :])
    return args


def _bounded_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(fn)  # keeps Jinja's pass_context / pass_environment marks
    def bounded(*args: Any, **kwargs: Any) -> Any:
        lead = (
            1 if getattr(fn, "jinja_pass_arg", None) is not None else 0
        )  # the context or environment Jinja passes first
        args = _counted(name, args, lead)
        if len(args) > lead:
            _check_size(name, args[lead], tuple(args[lead + 1 :]), kwargs)
        return fn(*args, **kwargs)

    return bounded


def _check_joined(what: str, parts: list[Any]) -> None:
    """Texts or lists joined with ``+`` or ``~`` may not be longer together than ``MAX_OUTPUT_CHARS``."""
    if sum(len(p) for p in parts if isinstance(p, (str, list, tuple))) > MAX_OUTPUT_CHARS:
        raise TemplateBoundError(
            f"the prompt template joins more than {MAX_OUTPUT_CHARS} characters or items with {what}"
        )


class _BoundedCodeGenerator(CodeGenerator):
    """Jinja's compiler, with ``a ~ b`` made a call of ``BoundedSandbox.concat_bounded`` (Jinja
    joins the parts itself, with no hook)."""

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.concat_bounded((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class BoundedSandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "%", "+"})
    code_generator_class = _BoundedCodeGenerator

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.filters = {name: _bounded_filter(name, fn) for name, fn in self.filters.items()}

    @staticmethod
    def concat_bounded(values: tuple[Any, ...]) -> str:
        parts = [v if isinstance(v, str) else str(v) for v in values]
        _check_joined("~", parts)
        return "".join(parts)

    def call(
        __self, __context: Any, __obj: Any, *args: Any, **kwargs: Any
    ) -> Any:  # Jinja's own signature (names it cannot clash with)
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, (str, list, tuple)):  # a method of a text or a list: "a".center(10**9)
            name = getattr(__obj, "__name__", "a method")
            args = _counted(name, args, 0)
            _check_size(name, owner, args, kwargs)
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapper = super().wrap_str_format(value)  # Jinja's own sandboxed str.format / format_map
        if wrapper is None:
            return None
        text, name = value.__self__, value.__name__

        def bounded(*args: Any, **kwargs: Any) -> str:
            _check_size(name, text, args, kwargs)
            return wrapper(*args, **kwargs)

        return bounded

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "%" and isinstance(left, str):
            _check_size("%", left, right if isinstance(right, tuple) else (right,), {})
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                size = _size(seq)
                if size is not None and isinstance(times, int) and size * times > MAX_OUTPUT_CHARS:
                    raise TemplateBoundError(f"the prompt template repeats a value past {MAX_OUTPUT_CHARS} items")
        if operator == "+" and type(left) is type(right):
            _check_joined("+", [left, right])
        if operator == "**" and isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
            raise TemplateBoundError(f"the prompt template raises a number to a power above {MAX_EXPONENT}")
        return super().call_binop(context, operator, left, right)


ENV = BoundedSandbox(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)
ENV.globals["range"] = _bounded_range


def check_template(text: str) -> str | None:
    """An error message if ``text`` is not a valid template, else None."""
    try:
        ENV.parse(text)
    except TemplateSyntaxError as exc:
        return f"template syntax error at line {exc.lineno}: {exc.message}"
    return None


@lru_cache(maxsize=256)
def compiled(text: str) -> Template:
    return ENV.from_string(text)


PLAIN_NODES = (
    nodes.Template, nodes.Output, nodes.TemplateData, nodes.Const, nodes.Name, nodes.Getattr, nodes.Getitem,
    nodes.Slice, nodes.If, nodes.CondExpr, nodes.And, nodes.Or, nodes.Not, nodes.Compare, nodes.Operand,
    nodes.Concat, nodes.Test, nodes.Filter, nodes.Keyword, nodes.Add, nodes.Sub, nodes.Mul, nodes.Div,
    nodes.FloorDiv, nodes.Neg, nodes.Pos,
)  # fmt: skip
"""What a plain template is made of: text, variables and their items, conditions, ``~`` and
arithmetic — no loop, macro, call, assignment, block, ``%`` or ``**``, nothing that runs twice."""
PLAIN_FILTERS = frozenset(
    [
        "abs",
        "capitalize",
        "center",
        "count",
        "d",
        "default",
        "e",
        "escape",
        "first",
        "float",
        "indent",
        "int",
        "join",
        "last",
        "length",
        "lower",
        "replace",
        "round",
        "safe",
        "string",
        "title",
        "trim",
        "truncate",
        "upper",
        "wordcount",
    ]
)
"""The filters a plain template may use: each linear in its input, or checked before it builds."""


@lru_cache(maxsize=256)
def plain(text: str) -> bool:
    """Every step of the template runs at most once and is one the checks above bound (its literal
    lists only of constants): its rendering here costs at most what its text and its variables
    are long."""
    tree = ENV.parse(text)
    for node in tree.find_all(nodes.Node):
        if not isinstance(node, PLAIN_NODES) and not (
            isinstance(node, (nodes.List, nodes.Tuple)) and all(isinstance(n, nodes.Const) for n in node.items)
        ):
            return False
        if isinstance(node, nodes.Filter) and node.name not in PLAIN_FILTERS:
            return False
    return True


def render_here(text: str, context: dict[str, Any]) -> str:
    """``text`` rendered with ``context`` in this process, within the bounds above (a template
    that is not ``plain`` is rendered by ``debench.task.bounded_render`` instead)."""
    token = _range_used.set(0)
    try:
        parts: list[str] = []
        size = 0
        stop_at = time.monotonic() + MAX_RENDER_S
        for chunk in compiled(text).generate(**context):
            parts.append(chunk)
            size += len(chunk)
            if size > MAX_OUTPUT_CHARS:
                raise TemplateBoundError(f"the prompt template renders more than {MAX_OUTPUT_CHARS} characters")
            if time.monotonic() > stop_at:
                raise TemplateBoundError(f"the prompt template takes more than {MAX_RENDER_S:g} s to render")
        return "".join(parts)
    except RecursionError:
        raise TemplateBoundError("the prompt template recurses too deeply") from None
    finally:
        _range_used.reset(token)
