"""What makes a report safe to paste: names from a snapshot or a manifest the reports
did not write, so none of them may add a line, a heading, a link, raw HTML or an HTML
comment to a pull-request comment, or a forged line or a terminal escape to a CI log.

The app refuses such names on the way in, but ``manage.py whatif`` reads files
straight from disk, and snapshots stored before that check are still read: so every
report escapes on the way out as well. One helper per need:

- ``plain``: one line of a terminal or a CI log;
- ``md_text``: words in a Markdown line (sentences that mention names);
- ``md_code``: a name in Markdown, as a code span.
"""

from __future__ import annotations

import re
import unicodedata

# Characters that start Markdown inside a line: code spans, emphasis, links and images
# (without "[" no "(" or "!" means anything), strikethrough, tables, backslash escapes.
_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")
# Characters that start HTML (tags, comments, entities), written as entities: an entity
# is text in a Markdown line and in an HTML block alike (such as the <summary> of a
# folded section), where a backslash means nothing.
_HTML = re.compile("[&<>]")
_ENTITY = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Inside a code span nothing is escaped by Markdown: these are shown as escapes instead,
# like control characters, so that no reader of the source (a renderer that splits table
# cells at every pipe, an HTML block, a notification e-mail) meets markup there either.
_CODE_UNSAFE = re.compile("[<>&|]")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _shown(ch: str) -> str:
    # str.isprintable is False for the categories that move, break, hide or reorder
    # text: controls (Cc: CR, LF, ESC, NEL...), format characters (Cf: bidi overrides
    # and isolates, zero-width characters, tags), line and paragraph separators
    # (Zl, Zp: U+2028, U+2029, which some log viewers break lines at), surrogates,
    # private use and unassigned code points. It is False for spaces other than
    # U+0020 as well (Zs): those only look like a space, and stay.
    if ch.isprintable() or unicodedata.category(ch) == "Zs":
        return ch
    return _escape(ch)


def plain(text: object) -> str:
    """``text`` on one line of a terminal or a CI log: every control, format or line
    separator character shown as an escape (\\x0a, \\x1b, \\u202e, \\u2028), so nothing
    can start a new line or colour, move, hide or reorder what follows."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(map(_shown, s))


def md_text(text: object) -> str:
    """``text`` as Markdown text that shows exactly those characters: no emphasis, link,
    image, code span, HTML tag, comment or entity can come out of it."""
    # A backslash before any ASCII punctuation makes it a literal (CommonMark 2.4): "\\["
    # opens no link, "\\`" no code span. "<", ">" and "&" become entities ("&lt;!--"
    # opens no comment), so the Markdown holds no "<" the report did not write.
    escaped = _MARKDOWN.sub(r"\\\1", plain(text))
    return _HTML.sub(lambda m: _ENTITY[m.group(0)], escaped)


def md_code(text: object) -> str:
    """``text`` as a Markdown code span no backtick in it can end: the fence is one
    backtick longer than the longest run inside (CommonMark 6.1). ``<``, ``>``, ``&``
    and ``|`` are shown as escapes (\\x3c) as control characters are: a code span shows
    its text literally only where a Markdown parser reads it as one, and GitHub splits
    table cells at a pipe before it reads code spans."""
    body = _CODE_UNSAFE.sub(lambda m: _escape(m.group(0)), plain(text))
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    # A body that starts or ends with a backtick would join the fence; one space each
    # side is stripped again by the parser (CommonMark 6.1).
    if body.startswith("`") or body.endswith("`") or not body.strip():
        body = f" {body} "
    return f"{fence}{body}{fence}"
