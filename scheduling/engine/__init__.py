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

# Part of the key of stored (pickled) clusters: bump it whenever Cluster or the objects
# it holds change shape, or an answer stored before would now read differently (1.1:
# ResourceQuotas and pods naming a deleted class kept; 1.2: each node's victim order kept
# across what-ifs, the advice's per-namespace pod index, and a timed run's time zero the
# second after the latest pod start; 1.3: the storage objects and pods' volumes, read by
# the four volume plugins; 1.4: with them, the DRA objects and pods' resource claims,
# read by DynamicResources).
ENGINE_VERSION = "1.4 (kube-scheduler v1.35)"

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
