"""Runs one plugin alone over a small cluster, for the per-plugin tests."""

from __future__ import annotations

from typing import Any

from scheduling.engine import EngineConfig, load_cluster
from scheduling.engine.analysis import parse_pending_pod
from scheduling.engine.cluster import Cluster
from scheduling.engine.framework import Code, CycleState, Handle
from tests.engine.builders import as_list

OK = "ok"


def setup(
    plugin_cls: Any, objects: list[dict[str, Any]], pod: dict[str, Any]
) -> tuple[Cluster, Any, Any]:
    """The cluster, the plugin built on it with default arguments, and the admitted pod."""
    cluster = load_cluster(as_list(*objects))
    return cluster, plugin_cls(Handle(cluster, EngineConfig())), parse_pending_pod(cluster, pod)


def filter_all(
    plugin_cls: Any, objects: list[dict[str, Any]], pod: dict[str, Any]
) -> dict[str, Any]:
    """node -> OK or (code, first reason); {"skip": True} when PreFilter skipped the plugin."""
    cluster, pl, pending = setup(plugin_cls, objects, pod)
    state = CycleState()
    _, status = pl.pre_filter(state, pending, cluster.node_infos)
    if status.code == Code.SKIP:
        return {"skip": True}
    assert status.is_success(), status
    out: dict[str, Any] = {}
    for ni in cluster.node_infos:
        s = pl.filter(state, pending, ni)
        out[ni.name] = OK if s.is_success() else (s.code, s.reasons[0])
    return out
