"""The YAML snippets findings offer as fixes: manifests, with comments saying how to apply."""

from __future__ import annotations

import re
from typing import Any

from ..priority import HIGHEST_USER_DEFINABLE_PRIORITY


def snippet(*documents: dict[str, Any], comment: str = "") -> str:
    """Comment lines (``#``-prefixed) then the documents, separated by ``---``."""
    head = "".join(f"# {line}\n" if line else "#\n" for line in comment.splitlines())
    return head + "---\n".join(to_yaml(d) for d in documents)


# A scalar written bare must read back as the same string: nothing YAML would take for a
# number, a boolean, null, a merge key, a comment, an anchor, a tag or a flow collection.
_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./<>' -]*")
_NOT_PLAIN = re.compile(r"(?i:y|n|yes|no|true|false|on|off|null)|.*(: | #| $)")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and not _NOT_PLAIN.fullmatch(text):
        return text
    return _double_quoted(text)


def _double_quoted(text: str) -> str:
    """A YAML double-quoted scalar with every character outside printable ASCII escaped
    (YAML joins no surrogate pairs, as JSON would need, and refuses some raw ones)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def _emit(value: Any, indent: str, out: list[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            key = _scalar(k)
            if isinstance(v, dict) and v:
                out.append(f"{indent}{key}:\n")
                _emit(v, indent + "  ", out)
            elif isinstance(v, list) and v:
                out.append(f"{indent}{key}:\n")
                _emit(v, indent, out)
            else:
                out.append(f"{indent}{key}: {_inline(v)}\n")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)) and item:
                lines: list[str] = []
                _emit(item, indent + "  ", lines)
                lines[0] = f"{indent}- {lines[0][len(indent) + 2 :]}"
                out.extend(lines)
            else:
                out.append(f"{indent}- {_inline(item)}\n")
    else:
        out.append(f"{indent}{_scalar(value)}\n")


def to_yaml(document: Any) -> str:
    """Block-style YAML of dicts, lists, strings, integers and booleans, as kubectl
    prints manifests. A small emitter rather than PyYAML's: a large cluster's audit
    writes thousands of snippets, and PyYAML's representer costs about 0.2 ms each."""
    out: list[str] = []
    _emit(document, "", out)
    return "".join(out)


def priority_class(
    name: str,
    value: int,
    *,
    global_default: bool = False,
    preemption_policy: str = "PreemptLowerPriority",
    description: str = "",
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": max(-(2**31), min(value, HIGHEST_USER_DEFINABLE_PRIORITY)),
        "globalDefault": global_default,
        "preemptionPolicy": preemption_policy,
    }
    if description:
        obj["description"] = description
    return obj


def pod_disruption_budget(
    namespace: str, name: str, selector: dict[str, Any], *, max_unavailable: int | str = 1
) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"maxUnavailable": max_unavailable, "selector": selector},
    }


def class_scoped_quota(namespace: str, class_name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": f"{class_name}-pods", "namespace": namespace},
        "spec": {
            "hard": {"pods": "10"},
            "scopeSelector": {
                "matchExpressions": [
                    {"scopeName": "PriorityClass", "operator": "In", "values": [class_name]}
                ]
            },
        },
    }


def limited_classes_admission(class_names: list[str]) -> dict[str, Any]:
    """The kube-apiserver admission configuration that admits pods of these classes only
    in namespaces holding a ResourceQuota scoped to them ("Limit Priority Class
    consumption by default")."""
    return {
        "apiVersion": "apiserver.config.k8s.io/v1",
        "kind": "AdmissionConfiguration",
        "plugins": [
            {
                "name": "ResourceQuota",
                "configuration": {
                    "apiVersion": "apiserver.config.k8s.io/v1",
                    "kind": "ResourceQuotaConfiguration",
                    "limitedResources": [
                        {
                            "resource": "pods",
                            "matchScopes": [
                                {
                                    "scopeName": "PriorityClass",
                                    "operator": "In",
                                    "values": list(class_names),
                                }
                            ],
                        }
                    ],
                },
            }
        ],
    }


def template_patch(app: str, pod_spec: dict[str, Any]) -> dict[str, Any]:
    """A strategic-merge patch of an app's pod template (``kubectl patch``'s body), or
    of the pod itself when the app is a bare pod."""
    kind, _, ref = app.partition(" ")
    namespace, _, name = ref.partition("/")
    meta = {"name": name, "namespace": namespace}
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
    group = "batch/v1" if kind in ("Job", "CronJob") else "apps/v1"
    spec: dict[str, Any] = {"template": {"spec": pod_spec}}
    if kind == "CronJob":
        spec = {"jobTemplate": {"spec": spec}}
    return {"apiVersion": group, "kind": kind, "metadata": meta, "spec": spec}


def recreate_command(app: str) -> str:
    """The kubectl command that replaces an app's pods (new pods go through admission)."""
    kind, _, ref = app.partition(" ")
    namespace, _, name = ref.partition("/")
    if kind in ("Deployment", "StatefulSet", "DaemonSet"):
        return f"kubectl -n {namespace} rollout restart {kind.lower()}/{name}"
    if kind == "Pod":
        return f"kubectl -n {namespace} delete pod {name}  # and create it again"
    return f"kubectl -n {namespace} delete pods -l <the {kind}'s selector>  # {kind} {name} recreates them"
