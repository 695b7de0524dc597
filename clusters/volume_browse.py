"""The Volumes and Devices pages' queries: the filters a URL asks for, read into one
typed object that both filters the rows and fills the page's controls (as pod_browse)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from django.db.models import QuerySet
from django.http import QueryDict

from clusters import models

HELD_CHOICES = (("", "Every device"), ("held", "Allocated to a claim"), ("free", "Free"))


@dataclass(frozen=True)
class BrowseQuery:
    """``q``: a name contains it (a claim's, a node's); ``namespace``: claims of it only;
    ``held``: devices allocated ("held") or not ("free")."""

    q: str = ""
    namespace: str = ""
    held: str = ""

    @classmethod
    def from_get(cls, params: QueryDict) -> BrowseQuery:
        values = {f.name: (params.get(f.name) or "").strip() for f in fields(cls)}
        if values["held"] not in dict(HELD_CHOICES):
            values["held"] = ""
        return cls(**values)

    @property
    def filtered(self) -> bool:
        return any((self.q, self.namespace, self.held))

    def params(self) -> QueryDict:
        out = QueryDict(mutable=True)
        for f in fields(self):
            if value := getattr(self, f.name):
                out[f.name] = value
        return out


def claims_filter(
    claims: QuerySet[models.VolumeClaim], query: BrowseQuery
) -> QuerySet[models.VolumeClaim]:
    if query.q:
        claims = claims.filter(name__icontains=query.q)
    if query.namespace:
        claims = claims.filter(namespace=query.namespace)
    return claims.order_by("namespace", "name")


def attachments_filter(
    rows: QuerySet[models.NodeAttachments], query: BrowseQuery
) -> QuerySet[models.NodeAttachments]:
    if query.q:
        rows = rows.filter(node__icontains=query.q)
    return rows.order_by("node", "driver")


def devices_filter(rows: QuerySet[models.Device], query: BrowseQuery) -> QuerySet[models.Device]:
    if query.q:
        rows = rows.filter(node__icontains=query.q)
    if query.held == "held":
        rows = rows.exclude(claim="")
    elif query.held == "free":
        rows = rows.filter(claim="")
    return rows.order_by("node", "driver", "pool", "name")
