"""Prints the sequence scenarios' agreement figures after the run."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from .test_sequences import VERDICTS

    if not VERDICTS:
        return
    v = list(VERDICTS.values())

    def share(a: int, b: int) -> str:
        return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "0/0"

    terminalreporter.write_sep("-", "sequence scenarios vs the real scheduling loop")
    terminalreporter.write_line(
        f"agree: {share(sum(x.agrees for x in v), len(v))} "
        f"(same outcome {sum(x.how == 'outcome' for x in v)}, "
        f"another option at a choice point {sum(x.how == 'choice point' for x in v)})"
    )
    terminalreporter.write_line(
        "cycles: "
        + share(sum(x.cycles_agreeing for x in v), sum(x.cycles_total for x in v))
        + ", FailedScheduling messages: "
        + share(sum(x.messages_agreeing for x in v), sum(x.messages_total for x in v))
        + ", PDB reports: "
        + share(sum(x.pdb_agreeing for x in v), sum(x.pdb_total for x in v))
    )
