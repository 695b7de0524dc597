"""The plugins a profile runs at each extension point, as NewFramework builds them
(pkg/scheduler/framework/runtime/framework.go): each point's own enabled list
(updatePluginList), then MultiPoint expanded into every point a plugin implements
(expandMultiPointPlugins, with its order rules), then the Score weights
(getScoreWeights: a point's own weight over the MultiPoint one, 0 read as 1)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .registry import IN_TREE
from .types import PluginSet

# getExtensionPoints' order (the first error found is the one reported) with the Go
# interface each point's plugins must implement, as the errors name it.
_POINTS: tuple[tuple[str, str], ...] = (
    ("preFilter", "PreFilterPlugin"),
    ("filter", "FilterPlugin"),
    ("postFilter", "PostFilterPlugin"),
    ("reserve", "ReservePlugin"),
    ("preScore", "PreScorePlugin"),
    ("score", "ScorePlugin"),
    ("preBind", "PreBindPlugin"),
    ("bind", "BindPlugin"),
    ("postBind", "PostBindPlugin"),
    ("permit", "PermitPlugin"),
    ("preEnqueue", "PreEnqueuePlugin"),
    ("queueSort", "QueueSortPlugin"),
)


class FrameworkError(ValueError):
    """NewFramework refused the profile: kube-scheduler would not start."""


@dataclass(frozen=True)
class ExtensionPoints:
    """The plugin names run at each extension point, in order, and the Score weights."""

    points: dict[str, tuple[str, ...]] = field(default_factory=dict)
    weights: dict[str, int] = field(default_factory=dict)

    def at(self, point: str) -> tuple[str, ...]:
        return self.points.get(point, ())

    def runs(self, point: str, plugin: str) -> bool:
        return plugin in self.points.get(point, ())


def _own_list(point: str, iface: str, plugin_set: PluginSet) -> list[str]:
    """updatePluginList: the point's explicitly enabled plugins."""
    out: list[str] = []
    for p in plugin_set.enabled:
        implemented = IN_TREE.get(p.name)
        if implemented is None:
            raise FrameworkError(f'{iface} "{p.name}" does not exist')
        if point not in implemented:
            raise FrameworkError(f'plugin "{p.name}" does not extend {iface} plugin')
        if p.name in out:
            raise FrameworkError(f'plugin "{p.name}" already registered as "{iface}"')
        out.append(p.name)
    return out


def _expand(point: str, iface: str, own: list[str], plugins: dict[str, PluginSet]) -> list[str]:
    """expandMultiPointPlugins for one point: explicitly re-configured plugins first
    (in the point's order), then those MultiPoint alone enables, then the point's others."""
    disabled = set(plugins[point].disabled)
    if "*" in disabled:
        return own
    multi: list[str] = []
    overridden: set[str] = set()
    for p in plugins["multiPoint"].enabled:
        implemented = IN_TREE.get(p.name)
        if implemented is None:
            raise FrameworkError(f'{iface} "{p.name}" does not exist')
        if point not in implemented or p.name in disabled:
            continue
        if p.name in own:
            overridden.add(p.name)
            continue
        if p.name in multi:
            raise FrameworkError(f'plugin "{p.name}" already registered as "{iface}"')
        multi.append(p.name)
    first = [n for n in own if n in overridden]
    rest = [n for n in own if n not in overridden]
    return first + multi + rest


# fwk.MaxNodeScore and fwk.MaxTotalScore, as getScoreWeights bounds the weights with them
# (the framework module's MAX_NODE_SCORE is the same 100; imported it would be a circle).
MAX_NODE_SCORE = 100
MAX_TOTAL_SCORE = 2**63 - 1


def build(plugins: dict[str, PluginSet]) -> ExtensionPoints:
    """The framework of a profile's merged plugin sets, or FrameworkError."""
    points: dict[str, tuple[str, ...]] = {}
    for point, iface in _POINTS:
        own = _own_list(point, iface, plugins[point])
        if plugins["multiPoint"].enabled:
            own = _expand(point, iface, own, plugins)
        points[point] = tuple(own)
    weights: dict[str, int] = {}
    total = 0
    for p in (*plugins["score"].enabled, *plugins["multiPoint"].enabled):
        if "score" not in IN_TREE.get(p.name, ()) or p.name in weights:
            continue
        weights[p.name] = p.weight or 1
        # getScoreWeights: the weighted scores must add up within an int64.
        if weights[p.name] * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
            raise FrameworkError("total score of Score plugins could overflow")
        total += weights[p.name] * MAX_NODE_SCORE
    if not points["queueSort"]:
        raise FrameworkError("no queue sort plugin is enabled")
    if not points["bind"]:
        raise FrameworkError("at least one bind plugin is needed")
    return ExtensionPoints(points, weights)
