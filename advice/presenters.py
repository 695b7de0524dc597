"""The advice in words, for the page: each change, what it then does, and its proof."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scheduling.engine.advice import (
    AddNodes,
    Advice,
    AdviceItem,
    AdviceKind,
    Change,
    CreateObjects,
    ObjectPatch,
)
from scheduling.engine.words import join_names, plural

KIND_LABELS = {
    AdviceKind.SMALLER_REQUEST: "Smaller request",
    AdviceKind.ADD_NODES: "More nodes",
    AdviceKind.FEWER_REPLICAS: "Fewer replicas",
    AdviceKind.WAIT_INSTEAD: "Wait instead",
    AdviceKind.PROTECT: "Protect",
    AdviceKind.RELAX: "Relax",
    AdviceKind.FEWER_DEVICES: "Fewer devices",
    AdviceKind.FIRST_AVAILABLE: "Another device class",
}

OUTCOME_WORDS = {
    "fits": "fits without evicting anyone",
    "preempts": "still preempts",
    "unschedulable": "stays pending",
    "all-run": "every replica runs",
    "some-run": "some replicas stay pending",
    "none-run": "no replica runs",
}


def _path_words(pointer: str) -> str:
    """ "/spec/containers/0/resources/requests/cpu" -> "spec.containers[0].resources.requests.cpu"."""
    out = ""
    for token in pointer.lstrip("/").split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        out += f"[{token}]" if token.isdigit() or token == "-" else f".{token}"
    return out.lstrip(".")


def _value_words(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "))


def _object_name(objects: Sequence[Mapping[str, Any]], index: int) -> str:
    if not 0 <= index < len(objects):
        return f"object {index}"
    obj = objects[index]
    meta = obj.get("metadata") or {}
    return f"{obj.get('kind', 'Pod')} {meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def _made_words(objects: Sequence[Mapping[str, Any]], index: int) -> str:
    """An object to create, with a budget's bound: "PodDisruptionBudget ns/x (maxUnavailable 0)"."""
    spec = objects[index].get("spec") or {}
    bounds = [f"{k} {spec[k]}" for k in ("minAvailable", "maxUnavailable") if k in spec]
    name = _object_name(objects, index)
    return f"{name} ({', '.join(bounds)})" if bounds else name


def change_words(change: Change, objects: Sequence[Mapping[str, Any]]) -> str:
    """One change in words: "Pod default/web: spec.containers[0]...cpu to 400m"."""
    if isinstance(change, AddNodes):
        return f"add {plural(change.add_nodes, 'node')} like {change.like}"
    if isinstance(change, CreateObjects):
        made = list(change.create)
        return "create " + join_names([_made_words(made, i) for i in range(len(made))])
    assert isinstance(change, ObjectPatch)
    ops = []
    for op in change.patch:
        where = _path_words(str(op.get("path", "")))
        if op.get("op") == "remove":
            ops.append(f"remove {where}")
        elif op.get("op") in ("add", "replace"):
            ops.append(f"{where} to {_value_words(op.get('value'))}")
        else:
            ops.append(f"{op.get('op')} {where}")
    return f"{_object_name(objects, change.object)}: {'; '.join(ops)}"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def outcome_words(outcome: str, victims: Sequence[str], pdbs: Sequence[str] = ()) -> str:
    words = OUTCOME_WORDS.get(outcome, outcome)
    if victims:
        words += f", evicting {plural(len(victims), 'pod')}"
    if pdbs:
        words += f", beyond {plural(len(pdbs), 'PodDisruptionBudget')}"
    return words


@dataclass(frozen=True)
class ItemRow:
    """One item as the section shows it; ``index`` is its place in the stored list."""

    index: int
    item: AdviceItem
    label: str
    headline: str
    change: str
    then: str
    proof: str
    one_step_less: str
    applies_to_form: bool


def note_lines(advice: Advice) -> list[str]:
    """The findings that are no change, each once, as sentences."""
    seen: dict[str, None] = {}
    for n in advice.notes:
        seen.setdefault(_upper_first(n.text.rstrip(".")) + ".")
    return list(seen)


def item_rows(advice: Advice, objects: Sequence[Mapping[str, Any]]) -> list[ItemRow]:
    rows = []
    for i, item in enumerate(advice.items):
        less = item.proof.one_step_less
        less_words = ""
        if less is not None:
            step = "as asked" if less.change is None else change_words(less.change, objects)
            less_words = f"One step less ({step}): {outcome_words(less.outcome, less.victims)}."
        rows.append(
            ItemRow(
                index=i,
                item=item,
                label=KIND_LABELS.get(item.kind, str(item.kind)),
                headline=_upper_first(item.summary or change_words(item.change, objects)),
                change=change_words(item.change, objects),
                then=(
                    item.detail or outcome_words(item.outcome, item.victims, item.pdbs_exceeded)
                ).rstrip("."),
                proof=(
                    f"Proven: {plural(item.proof.runs, 'engine run')} in "
                    f"{seconds_words(item.proof.seconds)}."
                ),
                one_step_less=less_words,
                applies_to_form=isinstance(item.change, ObjectPatch),
            )
        )
    return rows


def baseline_words(advice: Advice) -> str:
    """What the question does as asked: what the advice avoids."""
    b = advice.baseline
    words = {"preempts": "preempts", "fits": "fits"}.get(b.outcome) or OUTCOME_WORDS.get(
        b.outcome, b.outcome
    )
    parts = [words]
    if b.victims:
        parts.append(f"evicts {plural(len(b.victims), 'pod')}")
    if b.pdbs_exceeded:
        parts.append(f"exceeds {join_names(list(b.pdbs_exceeded), limit=3)}")
    if b.pending and b.outcome not in ("unschedulable", "none-run"):
        parts.append(f"leaves {plural(len(b.pending), 'pod')} pending")
    return "; ".join(parts)


def seconds_words(seconds: float) -> str:
    """ "3 ms", "0.4 s", "12 s"."""
    if seconds < 0.1:
        return f"{max(seconds * 1000, 1):.0f} ms"
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def search_words(advice: Advice, budget_seconds: float) -> str:
    """How the search went: runs, seconds, and whether the budget stopped it."""
    words = (
        f"{plural(advice.runs, 'engine run')} in {seconds_words(advice.seconds)}, "
        f"each change answered again by kube-scheduler's logic."
    )
    stopped = [s for s in advice.searches if s.stopped]
    if stopped:
        why = {
            "budget": f"the advice's time ({budget_seconds:g} s, PREEMPTLAB_ANALYSIS_SECONDS)",
            "runs": "its most engine runs",
        }
        words += " Stopped early: " + "; ".join(
            f"{KIND_LABELS.get(s.kind, str(s.kind)).lower()} at {why.get(s.stopped, s.stopped)}"
            for s in stopped
        )
        words += ". What is listed is proven; a smaller change may exist beyond the search."
    return words
