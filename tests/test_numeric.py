"""How debench writes numbers (one formatter) and compares a submitted number with a recomputed one."""

from __future__ import annotations


def test_one_number_formatter_for_tables_the_report_and_the_page() -> None:
    """``numeric.fmt``: terminal tables and the run report write 4 decimals, the leaderboard page
    3 / 2 / 1 by magnitude with a real minus sign; intervals and estimates go through it."""
    from debench.core.numeric import fmt, fmt_ci, fmt_estimate

    assert [fmt(None), fmt(0.123456), fmt(-2.0)] == ["—", "0.1235", "-2.0000"]
    assert [fmt(x, "auto", typographic=True) for x in (-0.12345, 12.345, -123.45, None)] == [
        "−0.123",
        "12.35",
        "−123.5",
        "—",
    ]
    assert fmt_ci([0.1, 0.25]) == "[0.1000, 0.2500]" and fmt_ci(None) == "—" and fmt_ci([], none="") == ""
    assert (
        fmt_estimate(0.5, [0.25, 0.75]) == "0.50 [0.25, 0.75]"
        and fmt_estimate(0.5, None, "+.3f") == "+0.500"
        and fmt_estimate(None, [0, 1]) == "—"
    )


def test_submitted_and_recomputed_values_are_equal_within_the_tolerance() -> None:
    from debench.core.numeric import close, same, shown

    assert close(0.1 + 0.2, 0.3) and not close(0.3, 0.3001) and close(None, None) and not close(None, 0.0)
    assert (
        same({"a": [1, 2.0000000001]}, {"a": [1.0, 2]}) and not same(True, 1) and not same({"a": 1}, {"a": 1, "b": 2})
    )
    assert shown(None) == "null" and shown(1 / 3) == "0.3333333333" and shown("x") == '"x"'
