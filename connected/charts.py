"""Small line charts of a cluster's history, drawn as SVG on the server (no script)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

WIDTH = 300
HEIGHT = 70
PAD = 4


@dataclass(frozen=True)
class Series:
    name: str
    color: str
    values: Sequence[int | None]  # None: not known for that snapshot (a gap)


def line_chart(title: str, labels: Sequence[str], series: Sequence[Series]) -> SafeString:
    """One small chart: each series a line over the snapshots (oldest left), a dot per
    known value with its value and snapshot as a tooltip, the largest value written."""
    top = max((v for s in series for v in s.values if v is not None), default=0)
    n = len(labels)

    def x(i: int) -> float:
        return PAD if n <= 1 else PAD + i * (WIDTH - 2 * PAD) / (n - 1)

    def y(v: int) -> float:
        return HEIGHT - PAD - (v / top * (HEIGHT - 2 * PAD - 10) if top else 0)

    parts: list[SafeString] = []
    for s in series:
        points = [(i, v) for i, v in enumerate(s.values) if v is not None]
        if len(points) > 1:
            parts.append(
                format_html(
                    '<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>',
                    s.color,
                    " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in points),
                )
            )
        parts.append(
            format_html_join(
                "",
                '<circle cx="{}" cy="{}" r="2.5" fill="{}"><title>{}: {} {}</title></circle>',
                ((f"{x(i):.1f}", f"{y(v):.1f}", s.color, labels[i], v, s.name) for i, v in points),
            )
        )
    legend = format_html_join(
        " ", '<tspan fill="{}">■ {}</tspan>', ((s.color, s.name) for s in series)
    )
    return format_html(
        '<svg class="history-chart" role="img" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        'aria-label="{title}"><title>{title}</title>'
        '<text x="{p}" y="10" font-size="9">{legend} (max {top})</text>{body}</svg>',
        w=WIDTH,
        h=HEIGHT,
        p=PAD,
        title=title,
        legend=legend,
        top=top,
        body=SafeString("".join(parts)),
    )
