"""Names and labels as the API server checks them (apimachinery/pkg/util/validation).

No object in a real cluster breaks these rules, so a snapshot or a what-if that does
was written by hand or by someone probing: refused with the object and the field
named. Holding every input to them also means no name can carry markup, a backtick,
a control character or a 10 MB label value into a page, a report or a CI log.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, TypeGuard

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
LABEL_VALUE_MAX = 63
QUALIFIED_NAME_MAX = 63

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
# A qualified name's name part, and a label value (which may also be empty).
_QUALIFIED = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")

# How each kind's metadata.name is checked (ValidatePodName, ValidateNodeName, ...).
_NAME_RULE = {"Namespace": "label"}


def _shown(text: str) -> str:
    text = text if len(text) <= 60 else f"{text[:40]}…"
    return repr(text)


def dns1123_label_problem(value: str) -> str | None:
    if len(value) > DNS1123_LABEL_MAX:
        return f"is {len(value):,} characters; at most {DNS1123_LABEL_MAX} are allowed"
    if not _DNS1123_LABEL.fullmatch(value):
        return (
            f"{_shown(value)} is not a DNS-1123 label: lower-case letters, digits and '-', "
            "starting and ending with a letter or digit"
        )
    return None


def dns1123_subdomain_problem(value: str) -> str | None:
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        return f"is {len(value):,} characters; at most {DNS1123_SUBDOMAIN_MAX} are allowed"
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        return (
            f"{_shown(value)} is not a DNS-1123 subdomain: lower-case letters, digits, '-' "
            "and '.', starting and ending with a letter or digit"
        )
    return None


@lru_cache(maxsize=65536)
def label_problem(key: str, value: str) -> str | None:
    """IsQualifiedName(key) and IsValidLabelValue(value); cached, as clusters repeat
    the same few labels on thousands of pods."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or dns1123_subdomain_problem(prefix)):
        return f"the key {_shown(key)} has an invalid prefix (a DNS-1123 subdomain before '/')"
    if len(name) > QUALIFIED_NAME_MAX or not _QUALIFIED.fullmatch(name):
        return (
            f"the key {_shown(key)} is not a qualified name: at most {QUALIFIED_NAME_MAX} "
            "letters, digits, '-', '_' and '.', starting and ending with a letter or digit"
        )
    if len(value) > LABEL_VALUE_MAX:
        return f"the value of {_shown(key)} is {len(value):,} characters; at most {LABEL_VALUE_MAX}"
    if value and not _QUALIFIED.fullmatch(value):
        return (
            f"the value of {_shown(key)}, {_shown(value)}, is not a label value: letters, "
            "digits, '-', '_' and '.', starting and ending with a letter or digit"
        )
    return None


# Labels known to be valid, as (key, value): the pods of one workload repeat the same
# few, so most maps are checked by one set operation instead of a call per label.
_VALID_LABELS: set[tuple[str, str]] = set()
_VALID_LABELS_MAX = 65536


def labels_problem(labels: Any) -> str | None:
    if not _is_mapping(labels):
        return None  # not a map: the engine names the field and the type
    try:
        if _VALID_LABELS.issuperset(labels.items()):
            return None
    except TypeError:  # an unhashable value: checked label by label below
        pass
    for key, value in labels.items():
        if isinstance(key, str) and isinstance(value, str):
            problem = label_problem(key, value)
            if problem is not None:
                return problem
            if type(key) is str and type(value) is str:
                if len(_VALID_LABELS) >= _VALID_LABELS_MAX:
                    _VALID_LABELS.clear()
                _VALID_LABELS.add((key, value))
    return None


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    # A dict or nothing (a pod has no template), nearly always: spares the ABC's check.
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


# Clusters hold a few namespaces, each named by thousands of objects.
_namespace_problem = lru_cache(maxsize=4096)(dns1123_label_problem)


def metadata_problem(obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """(field, why) for the first name, namespace or label of ``obj`` (and of its pod
    template, for a workload) the API server would refuse; None when all are valid."""
    meta = obj.get("metadata")
    if _is_mapping(meta):
        name = meta.get("name")
        if isinstance(name, str) and name:
            check = (
                dns1123_label_problem
                if _NAME_RULE.get(str(obj.get("kind"))) == "label"
                else dns1123_subdomain_problem
            )
            problem = check(name)
            if problem is not None:
                return "metadata.name", problem
        namespace = meta.get("namespace")
        if isinstance(namespace, str) and namespace:
            problem = _namespace_problem(namespace)
            if problem is not None:
                return "metadata.namespace", problem
        problem = labels_problem(meta.get("labels"))
        if problem is not None:
            return "metadata.labels", problem
    spec = obj.get("spec")
    template = spec.get("template") if _is_mapping(spec) else None
    template_meta = template.get("metadata") if _is_mapping(template) else None
    if _is_mapping(template_meta):
        problem = labels_problem(template_meta.get("labels"))
        if problem is not None:
            return "spec.template.metadata.labels", problem
    return None
