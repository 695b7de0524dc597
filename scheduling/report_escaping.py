"""What makes a report safe to paste: names from a snapshot or a manifest the reports
did not write, so none of them may add a line, a heading, a link, raw HTML or an HTML
comment to a pull-request comment, or a forged line or a terminal escape to a CI log.

The app refuses such names on the way in, but ``manage.py whatif`` reads files
straight from disk, and snapshots stored before that check are still read: so every
report escapes on the way out as well.
"""

from __future__ import annotations

import re

# C0 controls (CR, LF, ESC, ...), DEL, C1 controls, and the Unicode format characters
# that reorder or hide text (bidi overrides and isolates, zero-width characters).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
# Characters that start Markdown or HTML inside a line: code spans, emphasis, links and
# images (without "[" no "(" or "!" means anything), tags, comments, entities, tables.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~&])")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(text: object) -> str:
    """``text`` on one line of a terminal or a CI log: every control or format character
    shown as an escape (\\x0a, \\x1b, \\u202e), so nothing can start a new line or
    colour, move or hide what follows."""
    return _CONTROL.sub(_escape, str(text))


def md_text(text: object) -> str:
    """``text`` as Markdown text that shows exactly those characters: no emphasis, link,
    image, HTML tag or comment can come out of it."""
    # A backslash before any ASCII punctuation makes it a literal (CommonMark 2.4): "\\<!--"
    # opens no comment, "\\[" no link, "\\`" no code span.
    return _MARKDOWN.sub(r"\\\1", plain(text))


def md_code(text: object) -> str:
    """``text`` as a Markdown code span no backtick in it can end: the fence is one
    backtick longer than the longest run inside (CommonMark 6.1). A table cell's pipe
    is escaped too (GitHub splits cells before it reads code spans)."""
    body = plain(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    if body.startswith("`") or body.endswith("`") or not body.strip():
        body = f" {body} "
    return f"{fence}{body}{fence}"
