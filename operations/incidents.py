"""Unexpected errors: logged in full for the admin, shown to users as a reference only.

Python's exception text names modules, columns and values of the input; a page that
prints it tells a user nothing they can act on and tells a stranger how the code is
built. So the log keeps the traceback under a short reference, and the page says
what happened in the product's words with that reference.
"""

from __future__ import annotations

import logging
import secrets

log = logging.getLogger("preemptlab.incidents")


def record_incident(what: str, *args: object) -> str:
    """Logs the exception being handled (``what`` % ``args`` says where) and returns the
    reference the page shows: grep the log for it."""
    reference = secrets.token_hex(4)
    log.exception("incident %s: " + what, reference, *args)
    return reference
