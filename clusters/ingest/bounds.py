"""What the browse tables can hold: each row's values checked against their columns.

A value longer than Kubernetes allows (a 300-character node name) or an integer beyond
its column is refused naming the object, the field and the limit, instead of failing
the insert with the database's own words.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import Field, Model

from clusters import models
from operations.input_limits import short_number
from scheduling.engine import InvalidInput

# The Kubernetes field each bounded browse column is read from, for the error message.
_COLUMN_FIELDS = {
    "allocatable": "status.allocatable",
    "requested": "spec.containers[*].resources.requests",
    "requests": "spec.containers[*].resources.requests",
    "cpu_allocatable": "status.allocatable.cpu",
    "cpu_request": "spec.containers[*].resources.requests.cpu",
    "memory_request": "spec.containers[*].resources.requests.memory",
    "memory_allocatable": "status.allocatable.memory",
    "labels": "metadata.labels",
    "name": "metadata.name",
    "namespace": "metadata.namespace",
    "node_name": "spec.nodeName",
    "nominated_node_name": "status.nominatedNodeName",
    "phase": "status.phase",
    "priority_class": "spec.priorityClassName",
    "preemption_policy": "preemptionPolicy",
    "qos_class": "status.qosClass",
    "owner": "metadata.ownerReferences",
    "min_available": "spec.minAvailable",
    "max_unavailable": "spec.maxUnavailable",
    "storage_class": "spec.storageClassName",
    "binding_mode": "volumeBindingMode",
    "volume_name": "spec.volumeName",
    "driver": "spec.driver",
    "node": "spec.nodeName",
    "pool": "spec.pool.name",
}
_KINDS = {
    models.Node: "Node",
    models.Pod: "Pod",
    models.PodDisruptionBudget: "PodDisruptionBudget",
    models.PriorityClass: "PriorityClass",
    models.VolumeClaim: "PersistentVolumeClaim",
    models.NodeAttachments: "CSINode",
    models.Device: "ResourceSlice",
}


def column(field: Field[Any, Any]) -> str:
    """The database column of a concrete field (only non-concrete fields have none)."""
    if field.column is None:
        raise TypeError(f"{field!r} has no database column")
    return field.column


def _bounded(model: type[Model]) -> list[tuple[str, int]]:
    return [
        (f.attname, f.max_length)
        for f in model._meta.concrete_fields
        if f.max_length and f.get_internal_type() == "CharField"
    ]


def _integers(model: type[Model]) -> list[tuple[str, tuple[int, int]]]:
    # The range each integer column declares, the same on every database: SQLite would
    # store 64 bits in an IntegerField that PostgreSQL keeps in 32.
    ranges = BaseDatabaseOperations.integer_field_ranges
    return [
        (f.attname, ranges[f.get_internal_type()])
        for f in model._meta.concrete_fields
        if f.get_internal_type() in ranges
    ]


def within_columns(
    model: type[Model], rows_iter: Iterable[dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """The rows, each checked against its bounded columns."""
    bounded = _bounded(model)
    integers = _integers(model)
    for row in rows_iter:
        for attname, (low, high) in integers:
            number = row.get(attname)
            if isinstance(number, int) and not low <= number <= high:
                raise _out_of_range(model, row, attname, low, high)
        for attname, limit in bounded:
            value = row.get(attname)
            if isinstance(value, str) and len(value) > limit:
                raise _too_long(model, row, attname, limit)
        yield row


def check_columns(model: type[Model], columns: Mapping[str, Sequence[Any]]) -> None:
    """The same checks on rows held as columns (a list of values per attribute name):
    one pass per column at C speed, the first offending row looked for only on failure."""
    for attname, (low, high) in _integers(model):
        values = [v for v in columns.get(attname, ()) if isinstance(v, int)]
        if values and not (low <= min(values) and max(values) <= high):
            i = next(
                i
                for i, v in enumerate(columns[attname])
                if isinstance(v, int) and not low <= v <= high
            )
            raise _out_of_range(model, row_at(columns, i), attname, low, high)
    for attname, limit in _bounded(model):
        texts: Sequence[str] = columns.get(attname, ())
        if texts and max(map(len, texts)) > limit:
            i = next(i for i, v in enumerate(texts) if len(v) > limit)
            raise _too_long(model, row_at(columns, i), attname, limit)


def row_at(columns: Mapping[str, Sequence[Any]], i: int) -> dict[str, Any]:
    """Row ``i`` of rows held as columns."""
    return {name: values[i] for name, values in columns.items()}


def _refusal(model: type[Model], row: dict[str, Any], attname: str, message: str) -> InvalidInput:
    """``message`` about a row's value, naming its object and Kubernetes field."""
    return InvalidInput(
        message,
        kind=_KINDS.get(model, model.__name__),
        namespace=row.get("namespace") or None,
        name=str(row.get("name") or "")[:80] or None,
        field=_COLUMN_FIELDS.get(attname, attname),
    )


def _too_long(model: type[Model], row: dict[str, Any], attname: str, limit: int) -> InvalidInput:
    message = f"is {len(row[attname]):,} characters; at most {limit} are allowed"
    return _refusal(model, row, attname, message)


def _out_of_range(
    model: type[Model], row: dict[str, Any], attname: str, low: int, high: int
) -> InvalidInput:
    bits = "32-bit" if high < 2**32 else "64-bit"
    number = short_number(row[attname])
    message = f"{number} is beyond the {bits} range this field holds ({low:,} to {high:,})"
    return _refusal(model, row, attname, message)


def beyond_64_bits(model: type[Model], row: dict[str, Any], attname: str) -> InvalidInput:
    return _refusal(model, row, attname, "holds a number beyond the 64-bit range")
