"""The lines a report adds for what a whole manifest carried beside its workloads: the
budgets that joined the snapshot for the run, and the kinds skipped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def manifest_lines(manifest: Mapping[str, Any]) -> list[str]:
    """One line a budget ("PDB ns/web from the manifest (replaces the snapshot's): 1
    disruption allowed over 3 running pods"), then the note of the kinds skipped."""
    lines = []
    for b in manifest.get("budgets") or []:
        allowed = b["disruptions_allowed"]
        replaced = " (replaces the snapshot's)" if b["replaces"] else ""
        lines.append(
            f"PDB {b['pdb']} from the manifest{replaced}: {allowed} "
            f"disruption{'s' if allowed != 1 else ''} allowed over {b['matching_pods']} "
            f"running pod{'s' if b['matching_pods'] != 1 else ''}."
        )
    if manifest.get("note"):
        lines.append(str(manifest["note"]))
    return lines
