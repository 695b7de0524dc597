"""The scheduling framework: status codes, CycleState and the plugin protocol.

Plugin protocol (mirrors k8s.io/kube-scheduler/framework):

* A plugin is a class with a ``name`` (see ``plugins/names.py``) built as
  ``Plugin(handle)``; ``handle`` is a :class:`Handle` (the snapshot being analysed,
  the EngineConfig, the nominated pods). Plugins never mutate the Cluster.
* ``pre_filter(state, pod, nodes) -> (PreFilterResult | None, Status)``: called once per
  cycle before any filter. Compute whatever per-cycle data the filter needs and store it
  with ``state.write(KEY, data)`` where KEY is a module-level string such as
  ``"PreFilterInterPodAffinity"``. ``data`` must have a ``clone()`` method returning an
  independent copy: ``CycleState.clone()`` calls it when preemption dry-runs a node.
  Return ``Status(Code.SKIP)`` when the plugin has nothing to check for this pod: its
  filter is then not run at all in this cycle (the real SkipFilterPlugins).
  A non-None ``PreFilterResult`` restricts the nodes evaluated (NodeAffinity matchFields).
* ``add_pod(state, pod_to_schedule, pod_to_add, node_info) -> Status`` and
  ``remove_pod(state, pod_to_schedule, pod_to_remove, node_info) -> Status`` (the
  PreFilterExtensions): update the data stored by pre_filter incrementally. The framework
  calls them (1) while adding nominated pods of priority >= the pod's to a *cloned*
  state and node_info before filtering a node (two-pass check), and (2) during victim
  selection, after removing/adding a candidate victim on the node's cloned NodeInfo.
  ``node_info`` has already been updated when they run. A plugin without state may omit them.
* ``filter(state, pod, node_info) -> Status``: Success, or Unschedulable /
  UnschedulableAndUnresolvable with kube-scheduler's reason strings. Read the data the
  pre_filter stored via ``state.read(KEY)``.
* ``pre_score(state, pod, nodes) -> Status``: called once with the feasible NodeInfos;
  ``Status(Code.SKIP)`` excludes the plugin from scoring for this pod.
* ``score(state, pod, node_info) -> int`` for every feasible node, then
  ``normalize_score(state, pod, scores)`` (optional) receives the list of
  :class:`NodeScore` for all feasible nodes and rewrites ``.score`` in place (0..100).
  The framework multiplies by the plugin weight afterwards.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .cluster import Cluster, NodeInfo
    from .config import EngineConfig
    from .objects import Pod

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


class Code(enum.IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def label(self) -> str:
        return _CODE_LABELS[self]


_CODE_LABELS = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


class Status:
    """fwk.Status: a code, reason strings and the plugin that produced it."""

    __slots__ = ("code", "plugin", "reasons")

    def __init__(self, code: Code = Code.SUCCESS, *reasons: str, plugin: str = "") -> None:
        self.code = code
        self.reasons = list(reasons)
        self.plugin = plugin

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def is_rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def message(self) -> str:
        return ", ".join(self.reasons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code.label,
            "plugin": self.plugin or None,
            "reasons": list(self.reasons),
        }

    def __repr__(self) -> str:
        return f"Status({self.code.label}, {self.reasons!r}, plugin={self.plugin!r})"


SUCCESS = Status()


def unschedulable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, *reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)


class CycleState:
    """Per-cycle data written by PreFilter/PreScore, read by Filter/Score.

    Values stored with ``write`` should implement ``clone()``; values without it are
    treated as immutable and shared between clones.
    """

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def read(self, key: str) -> Any:
        """The value under key; KeyError if the plugin's pre_filter did not write it."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def clone(self) -> CycleState:
        c = CycleState()
        for k, v in self._data.items():
            clone = getattr(v, "clone", None)
            c._data[k] = clone() if callable(clone) else v
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        return c


class PreFilterResult:
    """Restricts the nodes to evaluate; ``node_names=None`` means all nodes."""

    __slots__ = ("node_names",)

    def __init__(self, node_names: set[str] | None) -> None:
        self.node_names = node_names

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        assert self.node_names is not None and other.node_names is not None
        return PreFilterResult(self.node_names & other.node_names)


class NodeScore:
    __slots__ = ("name", "score")

    def __init__(self, name: str, score: int) -> None:
        self.name = name
        self.score = score

    def __repr__(self) -> str:
        return f"NodeScore({self.name!r}, {self.score})"


class Handle:
    """What plugins may look at: the snapshot, the config and the nominator."""

    def __init__(self, cluster: Cluster, config: EngineConfig) -> None:
        self.cluster = cluster
        self.config = config

    @property
    def node_infos(self) -> list[NodeInfo]:
        """Every node of the snapshot, as loaded (do not mutate; clone first)."""
        return self.cluster.node_infos

    def node_info(self, name: str) -> NodeInfo | None:
        return self.cluster.node_info_by_name.get(name)

    def nominated_pods_for_node(self, name: str) -> list[Pod]:
        return self.cluster.nominated.get(name, [])

    def any_nominated_pods(self) -> bool:
        """False when no node has a pod nominated to it (the PodNominator is empty):
        then every nominated_pods_for_node is empty, and the per-node look-ups of a
        scan over thousands of nodes can be left out. True may still mean none (a node
        whose list was emptied keeps its key): callers then look per node as before."""
        return bool(self.cluster.nominated)


@runtime_checkable
class Plugin(Protocol):
    name: str


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]: ...


@runtime_checkable
class PreFilterExtensions(Plugin, Protocol):
    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status: ...

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int: ...


@runtime_checkable
class ScoreExtensions(Plugin, Protocol):
    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None: ...


def default_normalize_score(max_priority: int, reverse: bool, scores: Iterable[NodeScore]) -> None:
    """helper.DefaultNormalizeScore: scale to [0, max_priority], optionally reversed."""
    scores = list(scores)
    max_count = max((s.score for s in scores), default=0)
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        score = max_priority * s.score // max_count
        s.score = max_priority - score if reverse else score
