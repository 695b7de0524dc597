"""LiveDiagnosis: the counts it moves status by status are those of the statuses as they are."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from scheduling.engine.framework import Code, Status
from scheduling.engine.simulate.diagnosis import LiveDiagnosis

NODES = [f"n{i}" for i in range(6)]

statuses = st.one_of(
    st.none(),
    st.builds(
        lambda code, reasons, plugin: Status(code, *reasons, plugin=plugin),
        st.sampled_from([Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR]),
        st.lists(st.sampled_from(["Insufficient cpu", "Too many pods", "taint"]), max_size=2),
        st.sampled_from(["", "NodeResourcesFit", "TaintToleration"]),
    ),
)


@given(st.lists(st.tuples(st.integers(0, len(NODES) - 1), statuses), max_size=40))
def test_the_counts_are_those_of_the_statuses_as_they_are(
    changes: list[tuple[int, Status | None]],
) -> None:
    live = LiveDiagnosis(NODES)
    for i, status in changes:
        live.set(i, status)
        now = {NODES[j]: s for j, s in enumerate(live.statuses) if s is not None}
        # The map in node order, as the filter loop fills it.
        assert list(live.node_to_status().items()) == list(now.items())
        assert live.feasible == len(NODES) - len(now)
        assert live.reason_lists == Counter(tuple(s.reasons) for s in now.values())
        assert live.unschedulable_plugins() == frozenset(
            s.plugin for s in now.values() if s.plugin and s.is_rejected()
        )
