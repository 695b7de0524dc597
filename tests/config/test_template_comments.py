"""Django's ``{# #}`` comment ends on its own line: one that spans lines is not a comment
and is printed on the page, as a comment in base.html once was on every page."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_template_has_a_comment_that_spans_lines() -> None:
    spanning = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "{#" in line and "#}" not in line.split("{#", 1)[1]
    ]
    assert not spanning, "use {% comment %} for these: " + ", ".join(spanning)
