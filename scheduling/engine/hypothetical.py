"""A PriorityClass before it exists: classes a what-if carries, for that run only.

"What if we add cat-3 = 30000?" A what-if may carry PriorityClass objects beside its
pod or workload: new classes, or new values for classes the snapshot has. They are
checked as the API server checks a PriorityClass it is asked to create
(ValidatePriorityClass and the Priority admission plugin's admitPriorityClass):

- ``value`` an int32, at most HighestUserDefinablePriority (1,000,000,000);
- a name starting with ``system-`` is reserved: the two built-in classes cannot be
  changed, and no other may be made;
- at most one globalDefault among the classes in effect: a hypothetical class marked
  globalDefault is refused when another class in effect is one too.

A new value for an existing class is taken as the class deleted and created again
(the API server keeps ``value`` immutable on update). The pending pods are admitted
against the classes in effect, globalDefault included; the snapshot's pods keep the
priority admission gave them when they were created, as running pods do when their
class changes. The cluster passed in is never changed: :func:`with_priority_classes`
gives a view of it whose admission knows the new classes.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .cluster import Cluster
from .errors import InvalidInput
from .objects import PriorityClass
from .priority import (
    HIGHEST_USER_DEFINABLE_PRIORITY,
    SYSTEM_PRIORITY_CLASS_PREFIX,
    HypotheticalClass,
    PriorityResolver,
    builtin_classes,
)

PRIORITY_CLASS_KIND = "PriorityClass"
# A PriorityClass's name is a DNS subdomain (NameIsDNSSubdomain).
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def is_priority_class(obj: Any) -> bool:
    return isinstance(obj, Mapping) and obj.get("kind") == PRIORITY_CLASS_KIND


def split_priority_classes(objects: Iterable[Any]) -> tuple[list[Any], list[Any]]:
    """(the PriorityClass objects, the other objects), each in the order given: what a
    what-if's documents hold beside its pod or workload."""
    classes: list[Any] = []
    others: list[Any] = []
    for obj in objects:
        (classes if is_priority_class(obj) else others).append(obj)
    return classes, others


def priority_class_object(
    name: str, value: int, *, preemption_policy: str = "", global_default: bool = False
) -> dict[str, Any]:
    """A PriorityClass as kubectl would apply it (a short form's, an option's)."""
    obj: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": PRIORITY_CLASS_KIND,
        "metadata": {"name": name},
        "value": value,
    }
    if global_default:
        obj["globalDefault"] = True
    if preemption_policy:
        obj["preemptionPolicy"] = preemption_policy
    return obj


def _parse(obj: Any) -> PriorityClass:
    if not isinstance(obj, Mapping):
        raise InvalidInput("must be an object")
    if obj.get("kind", PRIORITY_CLASS_KIND) != PRIORITY_CLASS_KIND:
        raise InvalidInput(f"expected a PriorityClass, got {obj.get('kind')}", field="kind")
    pc = PriorityClass.from_dict(obj)
    if len(pc.name) > 253 or not _DNS_SUBDOMAIN.match(pc.name):
        raise InvalidInput(
            f"Invalid value: {pc.name!r}: a lowercase RFC 1123 subdomain must consist of lower "
            "case alphanumeric characters, '-' or '.', and must start and end with an "
            "alphanumeric character",
            field="metadata.name",
        )
    builtin = {c.name: c for c in builtin_classes()}
    if pc.name in builtin:
        raise InvalidInput(
            f"Forbidden: {pc.name} is a built-in system class (value "
            f"{builtin[pc.name].value}); it cannot be changed",
            field="metadata.name",
        )
    if pc.name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        raise InvalidInput(
            f"Forbidden: priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are "
            "reserved for system use only",
            field="metadata.name",
        )
    if pc.value > HIGHEST_USER_DEFINABLE_PRIORITY:
        raise InvalidInput(
            f"Forbidden: maximum allowed value of a user defined priority is "
            f"{HIGHEST_USER_DEFINABLE_PRIORITY}",
            field="value",
        )
    return pc


def hypothetical_classes(
    objects: Sequence[Any], existing: Iterable[PriorityClass]
) -> tuple[list[PriorityClass], list[HypotheticalClass]]:
    """The what-if's classes parsed and checked against the classes ``existing`` (the
    snapshot's): the engine's PriorityClass objects and their records for the result.
    InvalidInput, located at the object and naming the field, for what the API server
    would refuse."""
    before = {c.name: c for c in existing if not c.builtin}
    parsed: list[PriorityClass] = []
    records: list[HypotheticalClass] = []
    seen: set[str] = set()
    for index, obj in enumerate(objects):
        meta = obj.get("metadata") if isinstance(obj, Mapping) else None
        raw_name = meta.get("name") if isinstance(meta, Mapping) else None
        name = raw_name if isinstance(raw_name, str) and raw_name else None
        try:
            pc = _parse(obj)
            if pc.name in seen:
                raise InvalidInput(
                    "Duplicate value: the what-if gives this class twice", field="metadata.name"
                )
        except InvalidInput as e:
            # Named by its name; by its place among the classes when it has none.
            raise e.located(
                index=None if name else index, kind=PRIORITY_CLASS_KIND, name=name
            ) from None
        seen.add(pc.name)
        old = before.get(pc.name)
        parsed.append(pc)
        records.append(
            HypotheticalClass(
                name=pc.name,
                value=pc.value,
                preemption_policy=pc.preemption_policy,
                global_default=pc.global_default,
                replaces=old.value if old is not None else None,
            )
        )
    _one_default(parsed, before)
    return parsed, records


def _one_default(parsed: list[PriorityClass], before: Mapping[str, PriorityClass]) -> None:
    """admitPriorityClass: a class marked globalDefault is refused while another class in
    effect is the default ("Only one default can exist")."""
    replaced = {pc.name for pc in parsed}
    defaults: list[tuple[str | None, PriorityClass]] = [
        (None, c) for c in before.values() if c.global_default and c.name not in replaced
    ]
    for pc in parsed:
        if not pc.global_default:
            continue
        if defaults:
            where, other = defaults[0]
            said = "in the snapshot" if where is None else "in this what-if"
            raise InvalidInput(
                f"Forbidden: PriorityClass {other.name} ({said}) is already marked as default. "
                "Only one default can exist",
                field="globalDefault",
            ).located(kind=PRIORITY_CLASS_KIND, name=pc.name)
        defaults.append((pc.name, pc))


def overlaid(resolver: PriorityResolver, classes: list[PriorityClass]) -> PriorityResolver:
    """A resolver that also knows ``classes``, each replacing the class of its name;
    ``resolver`` is left as it is. The built-in classes come back on their own."""
    names = {c.name for c in classes}
    kept = [c for c in resolver.by_name.values() if not c.builtin and c.name not in names]
    return PriorityResolver([*kept, *classes])


def with_priority_classes(cluster: Cluster, objects: Sequence[Any]) -> Cluster:
    """A view of ``cluster`` whose admission knows the what-if's PriorityClass objects
    (see the module's docstring); ``cluster`` itself, cached and shared between
    analyses, is not changed. The view shares its nodes, pods and indexes."""
    if not objects:
        return cluster
    parsed, records = hypothetical_classes(objects, cluster.priority_classes)
    view = copy.copy(cluster)
    names = {pc.name for pc in parsed}
    view.priority_classes = [c for c in cluster.priority_classes if c.name not in names] + parsed
    view.resolver = overlaid(cluster.resolver, parsed)
    view.hypothetical_classes = tuple(records)
    return view
