from __future__ import annotations

from typing import Any

import pytest

from clusters import services
from tests.clusters.builders import dump, small_cluster


@pytest.fixture
def snapshot(owner: Any) -> Any:
    """The owner's ready snapshot of a small cluster (2 nodes, 4 pods, 1 PDB)."""
    return services.snapshot_create(
        owner=owner,
        name="small",
        files=[services.UploadedFile(name="small.json", data=dump(small_cluster()))],
    )


@pytest.fixture
def demo(owner: Any) -> Any:
    return services.snapshot_load_demo(owner=owner)
