"""Counting and listing in sentences, beside the engine (no Django): the plan's audit,
the pure comparison (planning.compare), the pages and the CLI text word theirs alike."""

from __future__ import annotations

from collections.abc import Sequence

# How many names a sentence lists before "and N more".
NAMES_IN_A_SENTENCE = 3


def plural(n: int, word: str, plural_form: str | None = None) -> str:
    """ "1 pod", "3 PriorityClasses", "2 NetworkPolicies"."""
    return f"{n:,} {word if n == 1 else (plural_form or plural_of(word))}"


def plural_of(word: str) -> str:
    """English's plural of a noun or a kind: class -> classes, policy -> policies."""
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1].lower() not in ("a", "e", "i", "o", "u", ""):
        return word[:-1] + "ies"
    return word + "s"


def join_names(names: Sequence[str], *, conjunction: str = "and", limit: int | None = None) -> str:
    """ "a, b and c"; with a limit, "a, b, c and 4 more"."""
    names = list(names)
    if limit is not None and len(names) > limit:
        return f"{', '.join(names[:limit])} and {len(names) - limit:,} more"
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"
