"""Share links: a read-only link to one analysis, revoked by its maker or the owner."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from scheduling.models import Analysis, ShareLink


def share_link_create(*, analysis: Analysis, created_by: Any = None) -> ShareLink:
    """A new link; ``created_by`` (None: the snapshot's owner) may revoke it later."""
    return ShareLink.objects.create(
        analysis=analysis, created_by=created_by or analysis.snapshot.owner
    )


def share_link_revoke(*, share_link: ShareLink) -> ShareLink:
    if share_link.revoked_at is None:
        share_link.revoked_at = timezone.now()
        share_link.save(update_fields=["revoked_at"])
    return share_link
