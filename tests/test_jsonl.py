"""The one reader of user JSONL files (predictions, generic data, a submission's samples log):
line numbers count every line of the file, blank ones included, each problem is one line, a key
given twice is refused and a byte-order mark is accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from debench.core.errors import DataError, UserError
from debench.core.jsonl import iter_jsonl_objects


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_objects_with_the_file_line_numbers(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.jsonl", b'{"a": 1}\n\n   \n{"a": 2}\r\n{"a": 3}')
    assert list(iter_jsonl_objects(path, "predictions")) == [(1, {"a": 1}), (4, {"a": 2}), (5, {"a": 3})]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"a": 1}\n\n{"a": \n', "line 3: not valid JSON (EOF while parsing a value at column 5)"),
        (b'{"a": 1}\n[1, 2]\n', "line 2: expected a JSON object"),
        (b"null\n", "line 1: expected a JSON object"),
        (b'{"a": 1}\n{"a": "\xff"}\n', "line 2: not UTF-8 text"),
        (b'{"a": 1}\n{"a": null, "a": 1}\n', "field 'a': line 2: the key is given twice in one object"),
        (b"[" * 300 + b"]" * 300 + b"\n", "line 1: nested more than 200 levels deep"),
    ],
)
def test_each_problem_names_the_file_and_the_line(tmp_path: Path, data: bytes, message: str) -> None:
    path = _write(tmp_path / "p.jsonl", data)
    with pytest.raises(UserError) as exc:
        list(iter_jsonl_objects(path, "predictions"))
    assert str(exc.value) == f"{path}: {message}"


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.jsonl", b'\xef\xbb\xbf{"a": 1}\n{"a": 2}\n')
    assert list(iter_jsonl_objects(path, "predictions")) == [(1, {"a": 1}), (2, {"a": 2})]


def test_missing_file_and_the_callers_error_class(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="predictions file not found"):
        list(iter_jsonl_objects(tmp_path / "nowhere.jsonl", "predictions"))
    with pytest.raises(DataError, match="line 1: not valid JSON"):
        list(iter_jsonl_objects(_write(tmp_path / "d.jsonl", b"{x\n"), "data", error=DataError))


def test_lines_from_a_capped_source_are_read_one_at_a_time(tmp_path: Path) -> None:
    """A source that refuses its third line (a size cap) stops the reading there, after the
    first two objects were handed out."""

    def capped():
        yield 1, b'{"a": 1}\n'
        yield 2, b'{"a": 2}\n'
        raise UserError("line 3 is longer than the cap", path="s.jsonl")

    got = []
    with pytest.raises(UserError, match="line 3 is longer than the cap"):
        for n, obj in iter_jsonl_objects(Path("s.jsonl"), "samples file", lines=capped()):
            got.append((n, obj["a"]))
    assert got == [(1, 1), (2, 2)]
