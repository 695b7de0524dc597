"""The cyclic garbage collector held off while a large object graph is built or read.

Loading, pickling or indexing a 150,000-pod cluster makes millions of objects that all
live on; the collector would walk the growing heap again and again meanwhile, for
nothing (a third of the time, measured). One helper for every such place.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside, back as it was after (a caller that had it off keeps it off)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
