"""The cost curve's layout: no label over another, however many replicas and marks."""

from __future__ import annotations

import itertools
import re

import pytest

from scheduling.engine.capacity import Capacity, CurvePoint, Placement, Template
from scheduling.presenters.capacity import curve_svg
from scheduling.presenters.workload import text_width


def _answer(limit: int, placed: int) -> Capacity:
    # Every replica preempts one pod and takes one more PDB past its budget: a mark a
    # replica, the worst case for the marks' labels.
    curve = tuple(
        CurvePoint(
            replica=i,
            pod=f"default/web-{i}",
            node="ip-10-0-130-41.eu-west-1.compute.internal",
            cycle=i,
            placement=Placement.PREEMPTING,
            preempted=(f"default/old-{i}",),
            victims_total=i,
            victims_by_class={"low": i},
            apps_hit=i,
            pdbs_exceeded=i,
        )
        for i in range(1, placed + 1)
    )
    return Capacity(
        template=Template("default/web", 1000, "high", "PreemptLowerPriority", {"cpu": 1000}),
        limit=limit,
        fit_now=0,
        fit_by_preempting=placed,
        unplaced=limit - placed,
        stop_reason="no-progress-after-flush",
        cycles=placed,
        curve=curve,
        victims=(),
        victim_classes=("low",),
        pdb_budgets={},
    )


def _labels(svg: str, cls: str) -> list[tuple[float, str]]:
    return [
        (float(x), text)
        for x, text in re.findall(rf'<text class="{cls}" x="([\d.]+)"[^>]*>([^<]*)</text>', svg)
    ]


def test_a_mark_a_replica_keeps_its_line_and_labels_only_where_they_fit() -> None:
    svg = str(curve_svg(_answer(500, 400)))
    assert len(re.findall(r'<line class="pdb-mark"', svg)) == 400
    labels = _labels(svg, "pdb-mark")
    assert 1 < len(labels) < 400
    for (x0, _), (x1, text) in itertools.pairwise(labels):
        assert x1 - x0 >= text_width(text)  # never printed over the previous one
    # Under the x axis: the first replica, the last placed, the limit.
    x_ticks = re.findall(
        r'<text class="tick" x="[\d.]+" y="[\d.]+" text-anchor="middle">(\d+)<', svg
    )
    assert x_ticks == ["1", "400", "500"]


def test_columns_span_the_limit() -> None:
    svg = str(curve_svg(_answer(10, 4)))
    assert len(re.findall(r'<g class="replica"', svg)) == 4
    # Four columns of ten: the placed bar ends where the unplaced one starts.
    placed = [
        float(w)
        for w in re.findall(r'<rect class="placed" x="[\d.]+" y="[\d.]+" width="([\d.]+)"', svg)
    ]
    unplaced = re.search(r'<rect class="unplaced" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)
    assert unplaced is not None
    assert float(unplaced.group(2)) == pytest.approx(sum(placed) * 6 / 4, abs=0.05)
