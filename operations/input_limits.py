"""What no stored value may hold: the limits every input path checks before the database.

PostgreSQL refuses a NUL character in text and in jsonb, JSON holds no NaN or
infinity (YAML does), the engine and the browse columns hold 64-bit integers,
and a structure nested thousands deep overflows Python's recursion when it is
encoded again. Kubernetes itself never
writes any of these, so they are refused with a 400 naming where they are.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpRequest

# Deeper than any Kubernetes object (a pod spec is about a dozen levels deep).
MAX_DEPTH = 100
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def unstorable_value(value: Any, path: str = "") -> str | None:
    """The first thing in ``value`` (decoded JSON or YAML) that cannot be stored, as
    "<path>: <why>", or None. Iterative, so any depth is examined without recursion."""
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{where or 'the object'}: nested more than {MAX_DEPTH} levels deep"
        if isinstance(item, str):
            if "\x00" in item:
                return f"{where or 'a value'}: contains a NUL character (\\u0000)"
        elif isinstance(item, float):
            # YAML's .nan and .inf (and 1e309, which overflows to inf): neither JSON nor
            # jsonb can hold them, and Kubernetes never writes them.
            if not math.isfinite(item):
                return f"{where or 'a value'}: {item} is not a finite number"
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                return f"{where or 'a value'}: the integer {short_number(item)} is outside the 64-bit range"
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and "\x00" in key:
                    return f"{where or 'the object'}: a key contains a NUL character (\\u0000)"
                stack.append((child, f"{where}.{key}" if where else str(key), depth + 1))
        elif isinstance(item, list):
            for i, child in enumerate(item):
                stack.append((child, f"{where}[{i}]", depth + 1))
    return None


def short_number(number: int) -> str:
    text = str(number)
    return text if len(text) <= 30 else f"{text[:12]}…({len(text)} digits)"


# apimachinery's ValidateAnnotationsSize: all annotations of one object together, each
# entry counted as len(key) + len(value) in bytes (TotalAnnotationSizeLimitB).
TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024

# Where an object of a what-if carries annotations: its own metadata and the pod
# template a controller stamps its pods from (a CronJob's inside its job template).
_ANNOTATED = (
    ("metadata",),
    ("spec", "template", "metadata"),
    ("spec", "jobTemplate", "spec", "template", "metadata"),
)


def annotations_too_long(obj: Any) -> str | None:
    """The API server's refusal of an object whose annotations are too large, as
    "<path>.annotations: Too long: must have at most 262144 bytes", or None."""
    for path in _ANNOTATED:
        meta = obj
        for key in path:
            meta = meta.get(key) if isinstance(meta, dict) else None
        annotations = meta.get("annotations") if isinstance(meta, dict) else None
        if not isinstance(annotations, dict):
            continue
        total = sum(
            len(str(k).encode()) + (len(v.encode()) if isinstance(v, str) else len(str(v)))
            for k, v in annotations.items()
        )
        if total > TOTAL_ANNOTATION_SIZE_LIMIT_B:
            where = ".".join(path)
            return (
                f"{where}.annotations: Too long: must have at most "
                f"{TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes"
            )
    return None


def submission_too_large(size: int, limit: int, what: str = "The submission") -> str | None:
    """The refusal of a what-if (a request body, a manifest) beyond ``limit`` bytes."""
    if size <= limit:
        return None
    return (
        f"{what} is {size:,} bytes; at most {limit:,} are accepted "
        "(the PREEMPTLAB_SUBMISSION_MAX_BYTES setting). Leave out what the scheduler does "
        "not read (large annotations, status, managedFields) or submit fewer objects."
    )


# What a request body may hold beyond the submission itself: the form's other fields and
# multipart boundaries, the JSON around a manifest (its escaped newlines).
BODY_FRAMING_BYTES = 64 * 1024

View = TypeVar("View", bound=Callable[..., Any])


def submission_body(view: View) -> View:
    """Marks a view that takes a what-if: its request body is held to the submission
    limit (operations.middleware.SubmissionBodyMiddleware) before anything reads it."""
    view.submission_body = True  # type: ignore[attr-defined]
    return view


def body_too_large(request: HttpRequest) -> str | None:
    """The refusal of a request whose declared body is beyond what a what-if may send,
    judged by its Content-Length alone: a WSGI server hands Django no more than that,
    so the body is never read, let alone parsed."""
    try:
        size = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None  # Django reads such a body as empty
    limit = int(settings.PREEMPTLAB_SUBMISSION_MAX_BYTES)
    return submission_too_large(size, limit + BODY_FRAMING_BYTES, "The request body")
