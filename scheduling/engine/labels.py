"""Label selectors (metav1.LabelSelector) and node selectors (v1.NodeSelector)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import InvalidInput

_LABEL_OPS = {"In", "NotIn", "Exists", "DoesNotExist"}
_NODE_OPS = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}

# A requirement is (key, operator, values); values is a frozenset for In/NotIn.
Requirement = tuple[str, str, frozenset[str]]


class LabelSelector:
    """A parsed ``metav1.LabelSelector``, as ``LabelSelectorAsSelector`` builds it.

    ``None`` input is "nothing" (matches no object); ``{}`` is "everything".
    """

    __slots__ = ("empty", "nothing", "requirements")

    def __init__(self, requirements: list[Requirement], *, nothing: bool = False) -> None:
        self.requirements = requirements
        self.nothing = nothing
        self.empty = not requirements and not nothing

    @classmethod
    def parse(cls, raw: Any, field: str) -> LabelSelector:
        if raw is None:
            return cls([], nothing=True)
        if not isinstance(raw, Mapping):
            raise InvalidInput("must be an object", field=field)
        reqs: list[Requirement] = []
        match_labels = raw.get("matchLabels") or {}
        if not isinstance(match_labels, Mapping):
            raise InvalidInput("must be an object", field=f"{field}.matchLabels")
        for key, val in match_labels.items():
            reqs.append((str(key), "In", frozenset([str(val)])))
        for i, expr in enumerate(raw.get("matchExpressions") or []):
            where = f"{field}.matchExpressions[{i}]"
            if not isinstance(expr, Mapping):
                raise InvalidInput("must be an object", field=where)
            op = expr.get("operator")
            key = expr.get("key")
            values = expr.get("values") or []
            if op not in _LABEL_OPS:
                raise InvalidInput(f"invalid operator {op!r}", field=f"{where}.operator")
            if not isinstance(key, str) or not key:
                raise InvalidInput("key is required", field=f"{where}.key")
            if op in ("In", "NotIn") and not values:
                raise InvalidInput(f"values required for operator {op}", field=f"{where}.values")
            if op in ("Exists", "DoesNotExist") and values:
                raise InvalidInput(f"values must be empty for {op}", field=f"{where}.values")
            reqs.append((key, op, frozenset(str(v) for v in values)))
        return cls(reqs)

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for key, op, values in self.requirements:
            if op == "In":
                if labels.get(key) not in values:
                    return False
            elif op == "NotIn":
                if key in labels and labels[key] in values:
                    return False
            elif op == "Exists":
                if key not in labels:
                    return False
            elif key in labels:  # DoesNotExist
                return False
        return True


# strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, nothing else
# (Python's int() would also take spaces and underscores).
_INT64 = re.compile(r"[+-]?[0-9]+")


def _parse_int64(text: str) -> int | None:
    if _INT64.fullmatch(text) is None:
        return None
    n = int(text)
    return n if -(2**63) <= n < 2**63 else None


def _node_requirement_matches(op: str, value: str | None, values: list[str]) -> bool:
    """One requirement of a node selector term. A requirement labels.NewRequirement
    refuses (In/NotIn without values, Exists/DoesNotExist with values, Gt/Lt without
    exactly one integer) is a parse error: its term then matches no node."""
    if op == "In":
        return bool(values) and value is not None and value in values
    if op == "NotIn":
        return bool(values) and (value is None or value not in values)
    if op == "Exists":
        return not values and value is not None
    if op == "DoesNotExist":
        return not values and value is None
    # Gt / Lt compare integers; a label value that does not parse does not match.
    if len(values) != 1:
        return False
    rhs = _parse_int64(values[0])
    if rhs is None or value is None:
        return False
    lhs = _parse_int64(value)
    if lhs is None:
        return False
    return lhs > rhs if op == "Gt" else lhs < rhs


class NodeSelectorTerm:
    """One ``v1.NodeSelectorTerm``: matchExpressions on labels AND matchFields."""

    __slots__ = ("expressions", "fields")

    def __init__(
        self,
        expressions: list[tuple[str, str, list[str]]],
        fields: list[tuple[str, str, list[str]]],
    ) -> None:
        self.expressions = expressions
        self.fields = fields

    @classmethod
    def parse(cls, raw: Any, field: str) -> NodeSelectorTerm:
        if not isinstance(raw, Mapping):
            raise InvalidInput("must be an object", field=field)
        parts: dict[str, list[tuple[str, str, list[str]]]] = {}
        for part in ("matchExpressions", "matchFields"):
            out: list[tuple[str, str, list[str]]] = []
            for i, expr in enumerate(raw.get(part) or []):
                where = f"{field}.{part}[{i}]"
                if not isinstance(expr, Mapping):
                    raise InvalidInput("must be an object", field=where)
                op = expr.get("operator")
                if op not in _NODE_OPS:
                    raise InvalidInput(f"invalid operator {op!r}", field=f"{where}.operator")
                key = expr.get("key")
                if not isinstance(key, str):
                    raise InvalidInput("key is required", field=f"{where}.key")
                out.append((key, op, [str(v) for v in expr.get("values") or []]))
            parts[part] = out
        return cls(parts["matchExpressions"], parts["matchFields"])

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        # An empty term selects no node (nodeaffinity's "nil or empty term matches no objects").
        if not self.expressions and not self.fields:
            return False
        for key, op, values in self.expressions:
            if not _node_requirement_matches(op, labels.get(key), values):
                return False
        for key, op, values in self.fields:
            # Field selectors only know metadata.name with In/NotIn and exactly one value;
            # anything else makes the whole term invalid, and an invalid term matches nothing.
            if key != "metadata.name" or op not in ("In", "NotIn") or len(values) != 1:
                return False
            if not _node_requirement_matches(op, node_name, values):
                return False
        return True


class NodeSelector:
    """``v1.NodeSelector``: the terms are ORed."""

    __slots__ = ("terms",)

    def __init__(self, terms: list[NodeSelectorTerm]) -> None:
        self.terms = terms

    @classmethod
    def parse(cls, raw: Any, field: str) -> NodeSelector:
        if not isinstance(raw, Mapping):
            raise InvalidInput("must be an object", field=field)
        return cls(
            [
                NodeSelectorTerm.parse(t, f"{field}.nodeSelectorTerms[{i}]")
                for i, t in enumerate(raw.get("nodeSelectorTerms") or [])
            ]
        )

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        return any(t.matches(labels, node_name) for t in self.terms)


# kubectl's -l syntax (apimachinery labels.Parse): "k=v", "k==v", "k!=v",
# "k in (a,b)", "k notin (a,b)", "k" (exists) and "!k" (does not exist), comma-separated.
_SET_REQUIREMENT = re.compile(r"^\s*([^\s=!(),]+)\s+(in|notin)\s*\(([^()]*)\)\s*", re.I)
_EQUALITY = re.compile(r"^\s*([^\s=!(),]+)\s*(==|=|!=)\s*([^\s,()=!]*)\s*")
_EXISTS = re.compile(r"^\s*(!?)\s*([^\s=!(),]+)\s*")


def parse_selector_text(text: str, field: str = "selector") -> LabelSelector:
    """A label selector written as kubectl's -l flag takes it. InvalidInput says where it
    stopped making sense."""
    reqs: list[Requirement] = []
    rest = text.strip()
    if not rest:
        raise InvalidInput("is empty: give key=value, key in (a,b), key or !key", field=field)
    while rest:
        m = _SET_REQUIREMENT.match(rest)
        if m:
            values = frozenset(v.strip() for v in m.group(3).split(",") if v.strip())
            if not values:
                raise InvalidInput(f"{m.group(1)} {m.group(2)} (): no values", field=field)
            op = "In" if m.group(2).lower() == "in" else "NotIn"
            reqs.append((m.group(1), op, values))
        else:
            m = _EQUALITY.match(rest)
            if m:
                op = "NotIn" if m.group(2) == "!=" else "In"
                reqs.append((m.group(1), op, frozenset([m.group(3)])))
            else:
                m = _EXISTS.match(rest)
                if not m:
                    raise InvalidInput(f"cannot read {rest!r}", field=field)
                reqs.append((m.group(2), "DoesNotExist" if m.group(1) else "Exists", frozenset()))
        rest = rest[m.end() :]
        if rest:
            if not rest.startswith(","):
                raise InvalidInput(f"expected a comma before {rest!r}", field=field)
            rest = rest[1:]
            if not rest.strip():
                raise InvalidInput("ends with a comma", field=field)
    return LabelSelector(reqs)
