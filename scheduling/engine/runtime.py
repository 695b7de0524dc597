"""frameworkImpl: runs the profile's plugins at each extension point."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from .cluster import NodeInfo
from .framework import (
    SUCCESS,
    Code,
    CycleState,
    FilterPlugin,
    Handle,
    NodeScore,
    Plugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
    Status,
)
from .objects import Pod
from .plugins import names as plugin_names
from .plugins.dynamicresources import NO_NEW_CLAIMS, DynamicResources, PostFilterAnswer
from .plugins.registry import PluginFactory, default_plugins, profile_plugins

if TYPE_CHECKING:
    from .profile.extension_points import ExtensionPoints

# isinstance() against a runtime_checkable protocol inspects every member each time
# (about 20 us); which extension points a plugin class implements never changes.
_IMPLEMENTS: dict[tuple[type, type], bool] = {}


def implements(plugin: Plugin, protocol: type) -> bool:
    key = (type(plugin), protocol)
    hit = _IMPLEMENTS.get(key)
    if hit is None:
        hit = _IMPLEMENTS[key] = isinstance(plugin, protocol)
    return hit


class Framework:
    def __init__(
        self, handle: Handle, plugins: list[tuple[str, PluginFactory]] | None = None
    ) -> None:
        self.handle = handle
        points = handle.config.points
        if plugins is None:
            plugins = default_plugins() if points is None else profile_plugins(points)
        self.plugins: list[Plugin] = [factory(handle) for _, factory in plugins]
        # Each extension point runs the plugins implementing it, in the profile's order;
        # a configured profile names its plugins point by point (one may filter and not
        # score).
        self.pre_filter_plugins = cast(
            list[PreFilterPlugin], self._at(points, "preFilter", PreFilterPlugin)
        )
        self.filter_plugins = cast(list[FilterPlugin], self._at(points, "filter", FilterPlugin))
        # AddPod/RemovePod are PreFilterExtensions: they run for the PreFilter plugins.
        self.extension_plugins = cast(
            list[PreFilterExtensions], self._at(points, "preFilter", PreFilterExtensions)
        )
        self.pre_score_plugins = cast(
            list[PreScorePlugin], self._at(points, "preScore", PreScorePlugin)
        )
        self.score_plugins = cast(list[ScorePlugin], self._at(points, "score", ScorePlugin))
        self.weights = handle.config.weights
        # The PostFilter plugins: DynamicResources (its message only, offline) and
        # DefaultPreemption; without the latter a pod that fits nowhere stays pending.
        self.preemption = points is None or points.runs(
            "postFilter", plugin_names.DEFAULT_PREEMPTION
        )
        self.dynamic_resources_post_filter = points is None or points.runs(
            "postFilter", plugin_names.DYNAMIC_RESOURCES
        )
        self.dynamic_resources = next(
            (p for p in self.plugins if p.name == plugin_names.DYNAMIC_RESOURCES), None
        )

    def run_dynamic_resources_post_filter(
        self, state: CycleState, pod: Pod
    ) -> PostFilterAnswer | None:
        """DynamicResources' PostFilter (the first PostFilter plugin); None when the
        profile does not run it."""
        if not self.dynamic_resources_post_filter:
            return None
        plugin = self.dynamic_resources
        if not isinstance(plugin, DynamicResources):
            return PostFilterAnswer(NO_NEW_CLAIMS)
        return plugin.post_filter(state, pod)

    def _at(self, points: ExtensionPoints | None, point: str, protocol: type) -> list[Plugin]:
        if points is None:
            return [p for p in self.plugins if implements(p, protocol)]
        by_name = {p.name: p for p in self.plugins}
        return [
            by_name[n]
            for n in points.at(point)
            if n in by_name and implements(by_name[n], protocol)
        ]

    # PreFilter ---------------------------------------------------------------
    def run_pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, list[str]]:
        """RunPreFilterPlugins: (merged result, status, plugins that narrowed the nodes)."""
        result: PreFilterResult | None = None
        narrowed: list[str] = []
        # An Unschedulable status does not stop the other PreFilter plugins (preemption
        # may still run, and they must have written their state); it is returned at the end.
        return_status = SUCCESS
        for pl in self.pre_filter_plugins:
            r, s = pl.pre_filter(state, pod, nodes)
            if s.is_skip():
                state.skip_filter_plugins.add(pl.name)
                continue
            if not s.is_success():
                s.plugin = pl.name
                if s.code == Code.UNSCHEDULABLE:
                    return_status = s
                    continue
                if s.code != Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    s = Status(Code.ERROR, *s.reasons, plugin=pl.name)
                return None, s, []
            if r is not None and not r.all_nodes():
                narrowed.append(pl.name)
                result = r if result is None else result.merge(r)
                if result.node_names is not None and not result.node_names:
                    names = sorted(narrowed)
                    if len(names) == 1:
                        msg = f"node(s) didn't satisfy plugin {names[0]}"
                    else:
                        msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                    return result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg), narrowed
        return result, return_status, narrowed

    def run_add_pod(self, state: CycleState, pod: Pod, to_add: Pod, node_info: NodeInfo) -> Status:
        for pl in self.extension_plugins:
            if pl.name in state.skip_filter_plugins:
                continue
            s = pl.add_pod(state, pod, to_add, node_info)
            if not s.is_success():
                return Status(Code.ERROR, *s.reasons, plugin=pl.name)
        return SUCCESS

    def run_remove_pod(
        self, state: CycleState, pod: Pod, to_remove: Pod, node_info: NodeInfo
    ) -> Status:
        for pl in self.extension_plugins:
            if pl.name in state.skip_filter_plugins:
                continue
            s = pl.remove_pod(state, pod, to_remove, node_info)
            if not s.is_success():
                return Status(Code.ERROR, *s.reasons, plugin=pl.name)
        return SUCCESS

    # Filter ------------------------------------------------------------------
    def run_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """RunFilterPlugins: the first plugin that rejects decides; its name is recorded."""
        skip = state.skip_filter_plugins
        for pl in self.filter_plugins:
            if pl.name in skip:
                continue
            s = pl.filter(state, pod, node_info)
            if not s.is_success():
                if not s.is_rejected():
                    return Status(Code.ERROR, *s.reasons, plugin=pl.name)
                return Status(s.code, *s.reasons, plugin=pl.name)
        return SUCCESS

    def ge_nominated_pods(self, pod: Pod, node_name: str) -> list[Pod]:
        """The pods nominated to the node that addGENominatedPods adds before filtering:
        those of priority >= the pod's, other than the pod itself."""
        nominated = self.handle.nominated_pods_for_node(node_name)
        if not nominated:
            return nominated
        return [
            np
            for np in nominated
            if np.priority >= pod.priority and np.uid != pod.uid and np.key != pod.key
        ]

    def add_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> tuple[bool, CycleState, NodeInfo]:
        """addGENominatedPods: the ge_nominated_pods added to copies of the state and node."""
        nominated = self.ge_nominated_pods(pod, node_info.name)
        if not nominated:
            return False, state, node_info
        state_out = state.clone()
        info_out = node_info.clone()
        for np in nominated:
            info_out.add_pod(np)
            s = self.run_add_pod(state_out, pod, np, info_out)
            if not s.is_success():
                raise RuntimeError(f"add nominated pod {np.key}: {s.message()}")
        return True, state_out, info_out

    def run_filter_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status:
        """RunFilterPluginsWithNominatedPods: with nominated pods first, then (if that
        passed and some were added) without them, so a nominated pod that would not come
        can't make the pod fit through affinity to it."""
        added, state_with, info_with = self.add_nominated_pods(state, pod, node_info)
        status = self.run_filter(state_with, pod, info_with)
        if not status.is_success() and not status.is_rejected():
            return status
        if added and status.is_success():
            status = self.run_filter(state, pod, node_info)
        return status

    # Score -------------------------------------------------------------------
    def run_score(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> dict[str, dict[str, int]]:
        """RunPreScorePlugins + RunScorePlugins: node -> plugin -> weighted score."""
        for pre in self.pre_score_plugins:
            if pre.pre_score(state, pod, nodes).is_skip():
                state.skip_score_plugins.add(pre.name)
        active = [pl for pl in self.score_plugins if pl.name not in state.skip_score_plugins]
        out: dict[str, dict[str, int]] = {ni.name: {} for ni in nodes}
        for pl in active:
            scores = [NodeScore(ni.name, pl.score(state, pod, ni)) for ni in nodes]
            if implements(pl, ScoreExtensions):
                cast(ScoreExtensions, pl).normalize_score(state, pod, scores)
            weight = self.weights.get(pl.name, 1)
            for ns in scores:
                out[ns.name][pl.name] = ns.score * weight
        return out
