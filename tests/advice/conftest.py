"""Advice on the demo snapshot: analyses run by the services the worker runs, advice
queued without a broker and searched in-process, as the worker would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest

# The snapshots, the API client, the empty per-process caches and the broker left
# alone: as the scheduling tests have them.
from tests.scheduling.conftest import (  # noqa: F401
    _empty_cluster_cache,
    api,
    demo_snapshot,
    no_broker,
)


@pytest.fixture
def no_advice_broker() -> Iterator[Any]:
    """Advice stays queued (the test runs its task in-process): nothing is sent."""
    with mock.patch("advice.tasks.advice_run_task.delay") as delay:
        yield delay
