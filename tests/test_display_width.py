"""Terminal text measured in display columns: a CJK character takes two, a combining mark none."""

from __future__ import annotations

from labtools.render import columns, fit, pad


def test_padding_counts_display_columns():
    assert columns("Zoë 学生") == 8 and columns("Zoe\u0308") == 3 and columns("plain") == 5
    assert columns(pad("Zoë 学生", 12) + "|") == 13 and columns(pad("Ann", 12) + "|") == 13
    assert pad("学生", 6, ">") == "  学生"


def test_fit_wraps_wide_text_within_80_columns():
    text = "note: a folder named " + "学生" * 10 + " holds no lesson file; " + "名前 " * 30
    lines = fit(text).splitlines()
    assert len(lines) > 2 and all(columns(line) <= 80 for line in lines)
    assert " ".join(" ".join(lines).split()) == " ".join(text.split())
