"""A pure-Python model of kube-scheduler v1.35's filters, scoring and DefaultPreemption.

Imports nothing of Django: the web layer adapts, the engine decides.
"""

from .analysis import analyze
from .cluster import Cluster, NodeInfo, load_cluster
from .config import EngineConfig
from .documents import read_documents
from .errors import InvalidInput
from .objects import PDB, Node, Pod, PriorityClass
from .result import Result
from .simulate import Simulation, simulate

ENGINE_VERSION = "1.0 (kube-scheduler v1.35)"

__all__ = [
    "ENGINE_VERSION",
    "PDB",
    "Cluster",
    "EngineConfig",
    "InvalidInput",
    "Node",
    "NodeInfo",
    "Pod",
    "PriorityClass",
    "Result",
    "Simulation",
    "analyze",
    "load_cluster",
    "read_documents",
    "simulate",
]
