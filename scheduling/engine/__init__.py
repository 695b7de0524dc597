"""A pure-Python model of kube-scheduler v1.35's filters, scoring and DefaultPreemption.

Imports nothing of Django: the web layer adapts, the engine decides.
"""

from . import workload_kinds as workload_kinds  # registers DaemonSet, CronJob, ...
from .analysis import analyze
from .cluster import Cluster, NodeInfo, load_cluster
from .config import EngineConfig
from .documents import read_documents
from .errors import InvalidInput
from .explanation import (
    SCHEMA_VERSION,
    CandidateRecord,
    CannotHelp,
    Explanation,
    FilterSampling,
    InputEffect,
    InputNotice,
    NodeResources,
    NodeScores,
    NodeVerdict,
    Outcome,
    PDBState,
    PreemptionSampling,
    Scores,
    StatusRecord,
    VictimDetail,
    cannot_help,
    requested_after,
)
from .objects import PDB, Node, Pod, PriorityClass, ResourceQuota
from .preemption.candidate import Criterion
from .priority import HypotheticalClass
from .profile import (
    OPENSHIFT_PROFILES,
    Preset,
    Profile,
    SchedulerConfiguration,
    SchedulerProfileRef,
    analysis_difference,
    load_scheduler_config,
    preset_config,
    presets,
    simulation_difference,
)
from .result import Result
from .schedule import HostSelection
from .simulate import Simulation, simulate
from .version import ENGINE_VERSION

__all__ = [
    "ENGINE_VERSION",
    "OPENSHIFT_PROFILES",
    "PDB",
    "SCHEMA_VERSION",
    "CandidateRecord",
    "CannotHelp",
    "Cluster",
    "Criterion",
    "EngineConfig",
    "Explanation",
    "FilterSampling",
    "HostSelection",
    "HypotheticalClass",
    "InputEffect",
    "InputNotice",
    "InvalidInput",
    "Node",
    "NodeInfo",
    "NodeResources",
    "NodeScores",
    "NodeVerdict",
    "Outcome",
    "PDBState",
    "Pod",
    "PreemptionSampling",
    "Preset",
    "PriorityClass",
    "Profile",
    "ResourceQuota",
    "Result",
    "SchedulerConfiguration",
    "SchedulerProfileRef",
    "Scores",
    "Simulation",
    "StatusRecord",
    "VictimDetail",
    "analysis_difference",
    "analyze",
    "cannot_help",
    "load_cluster",
    "load_scheduler_config",
    "preset_config",
    "presets",
    "read_documents",
    "requested_after",
    "simulate",
    "simulation_difference",
]
