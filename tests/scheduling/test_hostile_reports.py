"""A cluster whose every name is hostile (pod, namespace, node, PriorityClass,
PodDisruptionBudget, owner, labels), asked through every format of `manage.py whatif`
(which reads files straight from disk, without the app's name checks) for one pod and
for a workload: the pull-request comment holds no HTML, comment or link that the
report did not write and every name stays in its code span; the text and the gate line
hold no line break or terminal escape from a name, so no "Gate OK" line can be forged
in a CI log; JSON carries the names exactly."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command

from clusters.demo import demo_cat3_pod
from clusters.services import snapshot_load_demo
from scheduling import services
from tests.clusters.builders import (
    as_list,
    make_deployment,
    make_node,
    make_pdb,
    make_pod,
    make_priority_class,
)

pytestmark = pytest.mark.django_db

NODE = "node-a\r\nGate OK: all gates passed\x1b[2K"
NODE_B = "node-b<!--"
# U+2028: str.splitlines and some log viewers start a new line there.
NODE_C = "www.evil.example\u2028Gate OK"
NAMESPACE = "ns`](http://evil.example/)`"
LOW = "low``<b>bold</b>``\x85Gate OK"
HIGH = "high\nGate OK"
PDB = "pdb-->\x1b[31m<script>alert(1)</script>"
LABEL = ("app\u202e<i>", "web<!--\r\nGate OK")
OWNER = "rs<img src=x onerror=alert(1)>\u2029Gate OK"
POD = "orange\x1b[32mGate OK\u202e`"
VICTIMS = ("victim<!--a", "v`b`<i>x</i>")
DEPLOYMENT = "web\u2029Gate OK"

# Every way a name could break a line: what str.splitlines breaks at, and ESC.
LINE_BREAKERS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
HIDDEN = "\x1b\u202e"
GATES = ("--fail-on-preempt", "--fail-on-pdb-violation", "--protect")


def _victim(name: str, node: str) -> dict[str, Any]:
    pod = make_pod(
        name, namespace=NAMESPACE, node=node, cpu="1", priority_class=LOW, labels=dict([LABEL])
    )
    pod["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": OWNER,
            "uid": "rs-1",
            "controller": True,
        }
    ]
    return pod


def _files(tmp_path: Path) -> dict[str, Path]:
    """Three one-CPU nodes: two with one low-priority victim each (a tie between two
    candidates), one full of a high-priority pod; a PDB with no disruption left that
    selects the victims by a hostile label (so "violated" is said of a hostile name)."""
    pdb = make_pdb(PDB, app="x", namespace=NAMESPACE, allowed=0)
    pdb["spec"]["selector"] = {"matchLabels": dict([LABEL])}
    objects = [
        make_priority_class(LOW, 100, default=True),
        make_priority_class(HIGH, 1000),
        make_node(NODE, cpu="1"),
        make_node(NODE_B, cpu="1"),
        make_node(NODE_C, cpu="1"),
        _victim(VICTIMS[0], NODE),
        _victim(VICTIMS[1], NODE_B),
        make_pod("big", node=NODE_C, cpu="1", priority_class=HIGH),
        pdb,
    ]
    pod = make_pod(POD, node=None, cpu="1", priority_class=HIGH, phase="Pending")
    del pod["status"]
    requests = {"requests": {"cpu": "1"}}
    spec = {"priorityClassName": HIGH, "containers": [{"name": "m", "resources": requests}]}
    files = {
        "snapshot": tmp_path / "snap.json",
        "pod": tmp_path / "pod.yaml",
        "workload": tmp_path / "deployment.yaml",
    }
    files["snapshot"].write_text(json.dumps(as_list(objects)))
    files["pod"].write_text(yaml.safe_dump(pod))
    files["workload"].write_text(yaml.safe_dump(make_deployment(DEPLOYMENT, spec, replicas=3)))
    return files


def _whatif(tmp_path: Path, what: str, fmt: str) -> tuple[str, str]:
    files = _files(tmp_path)
    extra = ["--recreate-victims"] if what == "workload" else []
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as failed:
        call_command(
            "whatif",
            str(files["snapshot"]),
            str(files[what]),
            "--format",
            fmt,
            "--fail-on-preempt",
            "--fail-on-pdb-violation",
            "--protect",
            LOW,
            *extra,
            stdout=out,
            stderr=err,
        )
    # manage.py prints the gate's reason as "GateFailed: <reason>" on stderr.
    return out.getvalue(), err.getvalue() + str(failed.value)


def _assert_no_forged_line(text: str) -> None:
    assert not set(text) & set(LINE_BREAKERS + HIDDEN), repr(
        sorted(set(text) & set(LINE_BREAKERS + HIDDEN))
    )
    lines = text.split("\n")
    assert text.splitlines() == (lines[:-1] if lines[-1] == "" else lines)
    assert not [line for line in lines if line.lstrip().startswith("Gate OK")]


@pytest.mark.parametrize("what", ["pod", "workload"])
@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_no_format_lets_a_name_forge_a_line(tmp_path: Path, what: str, fmt: str) -> None:
    out, reason = _whatif(tmp_path, what, fmt)
    _assert_no_forged_line(out)
    # The gate's reason is one line, however many names it gives.
    _assert_no_forged_line(reason)
    assert "\n" not in reason and all(gate in reason for gate in GATES)


@pytest.mark.parametrize("what", ["pod", "workload"])
def test_the_text_report_still_says_every_name_shown_escaped(tmp_path: Path, what: str) -> None:
    out, reason = _whatif(tmp_path, what, "text")
    assert "node-a\\x0d\\x0aGate OK: all gates passed\\x1b[2K" in out
    assert "\\x1b[31m<script>" in out  # the PDB: HTML means nothing in a terminal
    assert "rs<img src=x onerror=alert(1)>\\u2029Gate OK" in out
    assert "low``<b>bold</b>``\\x85Gate OK" in reason
    if what == "pod":
        assert out.startswith("default/orange\\x1b[32mGate OK\\u202e` (priority 1000, class ")
        assert "www.evil.example\\u2028Gate OK" in out


def test_the_text_tables_stay_aligned_with_escaped_names(tmp_path: Path) -> None:
    # Widths are taken of the names as shown (\x0d is four characters), so the verdict
    # column still ends at one place on every row of the candidates table.
    out, _ = _whatif(tmp_path, "pod", "text")
    lines = out.split("\n")
    start = lines.index("Candidates (best first):") + 1
    table = lines[start : start + 3]
    assert table[0].lstrip().startswith("Node") and table[1].endswith("chosen")
    assert len({len(line) for line in table}) == 1, table


@pytest.mark.parametrize("what", ["pod", "workload"])
def test_json_carries_every_name_exactly(tmp_path: Path, what: str) -> None:
    out, _ = _whatif(tmp_path, what, "json")
    assert out.isascii()  # every control character is a JSON escape
    result = json.loads(out)
    first = result if what == "pod" else result["pods"][0]
    assert first["pod"].startswith(f"default/{POD if what == 'pod' else DEPLOYMENT}")
    assert first["priority_class"] == HIGH
    assert f"{NAMESPACE}/{VICTIMS[0]}" in json.dumps(result, ensure_ascii=False)


# --- the pull-request comment ---------------------------------------------------------

OUR_HTML = re.compile(r"</?(details|summary)>")
OUR_BLOCK = re.compile(r"<details><summary>[^<>]*</summary>|</details>")
# The table columns that hold names: each cell holds code spans and these words only.
NAME_COLUMNS = {"Pod", "Node", "Class", "PodDisruptionBudget", "Namespace", "Owner", "Victims"}
SEPARATORS = {", ", " (violated)", "—", "none", ""}


def _parse(markdown: str) -> list[Any]:
    markdown_it = pytest.importorskip("markdown_it")
    # CommonMark with GitHub's tables, raw HTML allowed as GitHub allows it.
    return list(markdown_it.MarkdownIt("commonmark").enable("table").parse(markdown))


def _name_cells(tokens: list[Any]) -> list[list[Any]]:
    """The inline contents of every cell under a name column."""
    cells: list[list[Any]] = []
    header: list[str] = []
    column = 0
    for i, tok in enumerate(tokens):
        if tok.type == "thead_open":
            header = []
        elif tok.type == "th_open":
            header.append(tokens[i + 1].content)
        elif tok.type == "tr_open":
            column = 0
        elif tok.type == "td_open":
            if header[column] in NAME_COLUMNS:
                cells.append(tokens[i + 1].children or [])
            column += 1
    return cells


@pytest.mark.parametrize("what", ["pod", "workload"])
def test_the_pull_request_comment_holds_no_markup_from_a_name(tmp_path: Path, what: str) -> None:
    md, _ = _whatif(tmp_path, what, "markdown")
    # No "<" in the source but the folded sections' own tags: no comment that could hide
    # the failed gates, no tag, from any name, inside a code span or out of one.
    assert "<" not in OUR_HTML.sub("", md)
    tokens = _parse(md)
    inline = [child for tok in tokens for child in (tok.children or [])]
    kinds = {t.type for t in inline} | {t.type for t in tokens}
    assert not kinds & {"html_inline", "link_open", "image", "autolink"}
    blocks = [t.content.strip() for t in tokens if t.type == "html_block"]
    assert blocks and all(OUR_BLOCK.fullmatch(b) for b in blocks), blocks
    # Every gate that failed is still listed, after the names that tried to hide them.
    gates_list = [t.content for t in inline if t.type == "text" and t.content.startswith(":x: ")]
    assert [g.removeprefix(":x: ").split(" ")[0].rstrip(":") for g in gates_list] == list(GATES)


@pytest.mark.parametrize("what", ["pod", "workload"])
def test_every_name_in_a_table_stays_in_its_code_span(tmp_path: Path, what: str) -> None:
    md, _ = _whatif(tmp_path, what, "markdown")
    cells = _name_cells(_parse(md))
    assert cells
    for cell in cells:
        assert {t.type for t in cell} <= {"code_inline", "text"}, cell
        assert {t.content for t in cell if t.type == "text"} <= SEPARATORS, cell
    spans = {t.content for cell in cells for t in cell if t.type == "code_inline"}
    # Backtick runs did not end their spans; "<", ">", "&", "|" and controls are shown
    # as escapes.
    assert "low``\\x3cb\\x3ebold\\x3c/b\\x3e``\\x85Gate OK" in spans
    assert (
        "ns`](http://evil.example/)`/pdb--\\x3e\\x1b[31m\\x3cscript\\x3ealert(1)\\x3c/script\\x3e"
        in spans
    )
    if what == "pod":
        assert "node-a\\x0d\\x0aGate OK: all gates passed\\x1b[2K" in spans
    else:
        assert "ns`](http://evil.example/)`/v`b`\\x3ci\\x3ex\\x3c/i\\x3e" in spans
        assert "ns`](http://evil.example/)`" in spans
        assert "ReplicaSet/rs\\x3cimg src=x onerror=alert(1)\\x3e\\u2029Gate OK" in spans


def test_the_exported_comment_escapes_the_snapshot_name(owner: Any, owner_client: Any) -> None:
    # The snapshot's name is free text the user typed, in the heading of the comment.
    snapshot = snapshot_load_demo(owner=owner)
    snapshot.name = "demo<!--\r\n`Gate OK` [x](http://evil.example/)"
    snapshot.save(update_fields=["name"])
    analysis = services.analysis_run(
        analysis_id=services.analysis_create(snapshot=snapshot, pod=demo_cat3_pod()).pk
    )
    md = owner_client.get(f"/analyses/{analysis.pk}/export.md").content.decode()
    heading = md.split("\n", 1)[0]
    assert "\r" not in md and "<" not in OUR_HTML.sub("", md)
    assert heading.endswith(
        "“demo&lt;!--\\\\x0d\\\\x0a\\`Gate OK\\` \\[x\\](http://evil.example/)”"
    )
    assert "link_open" not in {c.type for t in _parse(md) for c in (t.children or [])}
