"""The node chart: requests stacked by priority band against allocatable, as SVG geometry."""

from __future__ import annotations

from typing import Any

from clusters.templatetags.clusters_tags import cpu, memory

BAR_WIDTH = 240


def node_bars(node: Any, bands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One bar per resource (cpu, memory): segments in band order, scaled to allocatable."""
    bars = []
    for y, (resource, allocatable, fmt) in enumerate(
        (("cpu", node.cpu_allocatable, cpu), ("memory", node.memory_allocatable, memory))
    ):
        x = 0.0
        segments = []
        for band in bands:
            amount = (node.band_requests.get(band["key"]) or {}).get(resource, 0)
            if not amount:
                continue
            width = BAR_WIDTH * amount / allocatable if allocatable else 0.0
            width = min(width, BAR_WIDTH - x)
            segments.append(
                {
                    "x": round(x, 1),
                    "width": round(max(width, 0.0), 1),
                    "color": band["color"],
                    "title": f"{band['label']}: {fmt(amount)} {resource}",
                }
            )
            x += width
        requested = node.cpu_requested if resource == "cpu" else node.memory_requested
        bars.append(
            {
                "resource": resource,
                "y": y * 16,
                "segments": segments,
                "over": bool(allocatable) and requested > allocatable,
                "label": f"{resource} {fmt(requested)} / {fmt(allocatable)}",
            }
        )
    return bars
