"""Hostile names through every report format of `manage.py whatif` (which reads files
straight from disk, without the app's name checks): no raw HTML, no comment, no link
and no broken code span in the markdown; no CR, LF or terminal escape in the text, so
no line such as "Gate OK" can be forged in a CI log."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from clusters.demo import demo_cat3_pod, demo_objects
from scheduling.reports.escaping import md_code, md_text, plain

NODE = "node-5\r\nGate OK: nothing preempted"
NAMESPACE = "ns`](http://evil.example/)`"
VICTIM = "victim<!--"
POD = "orange\x1b[32mOK\u202e"


def _hostile_files(tmp_path: Path) -> tuple[Path, Path]:
    objects = demo_objects()
    items = objects["items"] if isinstance(objects, dict) else objects
    for obj in items:
        meta = obj.get("metadata", {})
        if obj.get("kind") == "Node" and meta.get("name") == "node-5":
            meta["name"] = NODE
        if obj.get("kind") == "Pod" and obj.get("spec", {}).get("nodeName") == "node-5":
            obj["spec"]["nodeName"] = NODE
            meta["name"] = VICTIM + meta["name"]
            meta["namespace"] = NAMESPACE
    pod = demo_cat3_pod()
    pod["metadata"]["name"] = POD
    snap, pod_file = tmp_path / "demo.json", tmp_path / "pod.yaml"
    snap.write_text(json.dumps(objects))
    pod_file.write_text(yaml.safe_dump(pod))
    return snap, pod_file


def _run(tmp_path: Path, fmt: str, *gates: str) -> tuple[str, str]:
    snap, pod = _hostile_files(tmp_path)
    out, err = StringIO(), StringIO()
    try:
        call_command(
            "whatif",
            str(snap),
            str(pod),
            "--format",
            fmt,
            *gates,
            stdout=out,
            stderr=err,
        )
    except CommandError as e:
        err.write(str(e))
    return out.getvalue(), err.getvalue()


def _outside_code_spans(markdown: str) -> str:
    """The text that is not inside a code span, found as CommonMark finds them: a run of
    n backticks opens one, the next run of exactly n closes it."""
    out, i = [], 0
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", markdown)]
    k = 0
    while k < len(runs):
        start, end = runs[k]
        n = end - start
        close = next((j for j in range(k + 1, len(runs)) if runs[j][1] - runs[j][0] == n), None)
        if close is None:
            k += 1
            continue
        out.append(markdown[i:start])
        i = runs[close][1]
        k = close + 1
    out.append(markdown[i:])
    return "".join(out)


def _no_forged_lines(text: str) -> None:
    assert "\r" not in text and "\x1b" not in text and "\u202e" not in text
    assert not any(line.lstrip().startswith("Gate OK") for line in text.split("\n"))


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_hostile_names_forge_nothing_in_any_format(tmp_path: Path, fmt: str) -> None:
    out, err = _run(tmp_path, fmt, "--fail-on-preempt")
    assert "preempt" in out.lower() or fmt == "json"
    _no_forged_lines(out)
    _no_forged_lines(err)  # the gate's one-line reason names the node and the victim
    assert "node-5" in err and "Gate OK" in err  # said, escaped, on the one line
    if fmt == "json":
        assert json.loads(out)  # JSON escapes what it carries by itself
    if fmt == "markdown":
        outside = _outside_code_spans(out)
        # Outside code spans nothing opens a comment, a tag or a link...
        assert "<!--" not in outside.replace("\\<", "")
        assert "](" not in outside.replace("\\](", "")
        # ...and the hostile names stayed inside theirs.
        assert NAMESPACE not in outside and VICTIM not in outside.replace("\\<", "<!")


def test_a_code_span_holds_any_run_of_backticks() -> None:
    assert md_code("a`b") == "``a`b``"
    assert md_code("``x") == "``` ``x ```"


def test_a_code_span_holds_no_markup_and_no_line_break() -> None:
    # Literal inside a code span, but raw HTML wherever the span is not read as one
    # (an HTML block, a notification e-mail): shown as escapes, as controls are.
    assert md_code("<!--a&b>") == r"`\x3c!--a\x26b\x3e`"
    assert md_code("a\r\nb") == r"`a\x0d\x0ab`"
    # A pipe too, not as "\|": only GitHub's table cells take that back, and a renderer
    # that splits cells at every pipe would cut the span in two.
    assert md_code("p|q") == r"`p\x7cq`"


def test_markdown_text_makes_every_active_character_literal() -> None:
    # Entities, not backslashes, for HTML: they are text in an HTML block as well, and
    # leave no "<" in the source at all.
    assert md_text("<!-- hide -->") == "&lt;!-- hide --&gt;"
    assert md_text("a & b | c") == r"a &amp; b \| c"
    assert md_text("[x](http://e) ![i](http://t) *b* _i_") == (
        r"\[x\](http://e) !\[i\](http://t) \*b\* \_i\_"
    )


def test_plain_shows_control_and_format_characters_as_escapes() -> None:
    assert plain("a\r\nb\x1b[1m\u202ec\x85") == r"a\x0d\x0ab\x1b[1m\u202ec\x85"


def test_plain_shows_unicode_line_separators_and_invisible_characters() -> None:
    # Line and paragraph separators break lines in some log viewers; a soft hyphen and
    # a tag character are invisible.
    assert plain("a\u2028b\u2029c\u00add\U000e0041") == r"a\u2028b\u2029c\xadd\U000e0041"


def test_plain_keeps_what_prints() -> None:
    assert plain("né — 3 nodes… cpu\u00a01") == "né — 3 nodes… cpu\u00a01"


@pytest.mark.django_db
def test_the_text_report_keeps_one_line_per_line_it_means(tmp_path: Path) -> None:
    # The text report: one line per line it means, whatever the names hold.
    out, _ = _run(tmp_path, "text")
    assert all("Gate OK" not in line or "\\x0a" in line for line in out.split("\n"))
