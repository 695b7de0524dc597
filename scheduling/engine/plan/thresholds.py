"""The audit's thresholds, in one place so the page can state them beside the findings."""

from __future__ import annotations

# long-grace-low-priority: a victim's terminationGracePeriodSeconds above this delays
# its preemptor noticeably (the API default is 30 s).
LONG_GRACE_SECONDS = 60

# equal-priority-block: one priority value holding at least this many pods and at
# least this share of the cluster's pods below the system range.
EQUAL_PRIORITY_BLOCK_PODS = 100
EQUAL_PRIORITY_BLOCK_SHARE = 0.5

# high-class-without-quota: a cluster with at least this many namespaces is taken to be
# shared between teams, where an unlimited high class is one team's lever over others.
MANY_NAMESPACES = 10
