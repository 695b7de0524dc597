"""The pods page's query: the filters, name search and sort a URL asks for.

One typed object read from the query string is both what filters the rows and
what the page's controls show, so the controls always equal the URL (and the
URL the table) however the page was reached: a link, Back, or the form.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from django.db.models import QuerySet
from django.http import QueryDict

from clusters import models

# sort value -> (label, ordering); each ordering starts with a column an index of
# Pod covers together with the snapshot, so a page of 50 rows needs no full sort.
POD_SORTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "": ("Namespace and name", ("namespace", "name")),
    "-priority": ("Priority, highest first", ("-priority", "namespace", "name")),
    "priority": ("Priority, lowest first", ("priority", "namespace", "name")),
    "node": ("Node", ("node_name", "namespace", "name")),
    "-start": ("Start time, newest first", ("-start_time", "namespace", "name")),
    "start": ("Start time, oldest first", ("start_time", "namespace", "name")),
}


@dataclass(frozen=True)
class PodQuery:
    q: str = ""
    namespace: str = ""
    node: str = ""
    priority_class: str = ""
    phase: str = ""
    sort: str = ""

    @classmethod
    def from_get(cls, params: QueryDict) -> PodQuery:
        values = {f.name: (params.get(f.name) or "").strip() for f in fields(cls)}
        if values["sort"] not in POD_SORTS:
            values["sort"] = ""
        return cls(**values)

    @property
    def filtered(self) -> bool:
        """Whether any row is left out (the sort alone leaves every row in)."""
        return any((self.q, self.namespace, self.node, self.priority_class, self.phase))

    @property
    def changed(self) -> bool:
        """Whether the page differs from the plain list: "Clear" then has something to do."""
        return self.filtered or bool(self.sort)

    def params(self, **override: str) -> QueryDict:
        """The query string of this query with some values replaced; empty values left out."""
        out = QueryDict(mutable=True)
        for f in fields(self):
            value = override.get(f.name, getattr(self, f.name))
            if value:
                out[f.name] = value
        return out


def node_is_exact(*, snapshot: models.Snapshot, node: str) -> bool:
    """A node filter that names a node exactly shows that node's pods only (node-1, not
    node-10); anything else matches node names containing it (a pool's prefix)."""
    return models.Node.objects.filter(snapshot=snapshot, name=node).exists()


def pods_filter(
    pods: QuerySet[models.Pod], query: PodQuery, *, node_exact: bool
) -> QuerySet[models.Pod]:
    if query.q:
        pods = pods.filter(name__icontains=query.q)
    if query.namespace:
        pods = pods.filter(namespace=query.namespace)
    if query.node:
        pods = (
            pods.filter(node_name=query.node)
            if node_exact
            else pods.filter(node_name__icontains=query.node)
        )
    if query.priority_class:
        pods = pods.filter(priority_class=query.priority_class)
    if query.phase:
        pods = pods.filter(phase=query.phase)
    return pods.order_by(*POD_SORTS[query.sort][1])
