"""Counting and listing in sentences, beside the engine (no Django): the plan's audit,
the pure comparison (planning.compare), the pages and the CLI text word theirs alike."""

from __future__ import annotations

from collections.abc import Sequence

# How many names a sentence lists before "and N more".
NAMES_IN_A_SENTENCE = 3


def plural(n: int, word: str, plural_form: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (plural_form or word + 's')}"


def join_names(names: Sequence[str], *, conjunction: str = "and", limit: int | None = None) -> str:
    """ "a, b and c"; with a limit, "a, b, c and 4 more"."""
    names = list(names)
    if limit is not None and len(names) > limit:
        return f"{', '.join(names[:limit])} and {len(names) - limit:,} more"
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"
