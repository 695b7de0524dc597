"""Advice: the smallest single changes that stop a what-if from hurting, each proven by
running the engine again (DESIGN.md, flow 9 and "Advice contract").

The package only re-exports: ``advisor`` runs the kinds in order (``advise``), each
kind's module under ``kinds/`` proposes, ``search`` finds the least change, ``question``
answers a changed question again, ``patch`` writes the RFC 6902 operations, ``result``
holds the typed answer. A module imports its siblings by module, never this package.
"""

from .advisor import MAX_RUNS_PER_KIND, advise, usefulness
from .question import PodQuestion, Question, WorkloadQuestion
from .result import (
    Achieves,
    AddNodes,
    Advice,
    AdviceItem,
    AdviceKind,
    Answer,
    Change,
    CreateObjects,
    KindSearch,
    Note,
    ObjectPatch,
    Proof,
    StepLess,
    achieves,
    change_from_dict,
)

__all__ = [
    "MAX_RUNS_PER_KIND",
    "Achieves",
    "AddNodes",
    "Advice",
    "AdviceItem",
    "AdviceKind",
    "Answer",
    "Change",
    "CreateObjects",
    "KindSearch",
    "Note",
    "ObjectPatch",
    "PodQuestion",
    "Proof",
    "Question",
    "StepLess",
    "WorkloadQuestion",
    "achieves",
    "advise",
    "change_from_dict",
    "usefulness",
]
