"""manage.py cluster add|list|remove|snapshot: connected clusters, defined by staff."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.template.defaultfilters import pluralize

from connected import selectors, services
from connected.every import parse_every
from connected.models import IN_CLUSTER, Cluster


class Command(BaseCommand):
    help = (
        "Connected clusters: read on a schedule, with the workers' kubectl (a context of "
        "their kubeconfig, or in-cluster), into snapshots. No credential is stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="Define a cluster (or change the one of that name).")
        add.add_argument("name")
        where = add.add_mutually_exclusive_group(required=True)
        where.add_argument("--context", help="A context of the workers' kubeconfig.")
        where.add_argument("--in-cluster", action="store_true", help="The pod's ServiceAccount.")
        add.add_argument("--every", default="15m", help="Schedule: 90s, 15m, 2h (default 15m).")
        add.add_argument("--keep", type=int, default=96, help="Newest snapshots kept (96).")
        add.add_argument(
            "--webhook", action="append", default=[], help="Alert URL (repeat for more)."
        )
        add.add_argument("--owner", help="Owner's username (default: the first superuser).")
        add.add_argument("--team", help="A group whose members read the cluster.")
        sub.add_parser("list", help="The clusters, their schedule and last read.")
        remove = sub.add_parser("remove", help="Remove a cluster (its snapshots stay).")
        remove.add_argument("name")
        take = sub.add_parser("snapshot", help="Read a cluster now, in this process.")
        take.add_argument("name")

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")(options)

    def _cluster(self, name: str) -> Cluster:
        try:
            return Cluster.objects.get(name=name)
        except Cluster.DoesNotExist:
            raise CommandError(f"No cluster named {name!r}.") from None

    def _add(self, options: dict[str, Any]) -> None:
        try:
            every = parse_every(options["every"])
        except ValueError as e:
            raise CommandError(str(e)) from None
        cluster = Cluster.objects.filter(name=options["name"]).first() or Cluster(
            name=options["name"]
        )
        cluster.source = IN_CLUSTER if options["in_cluster"] else options["context"]
        cluster.schedule_seconds, cluster.keep = every, options["keep"]
        cluster.webhook_urls = options["webhook"]
        cluster.owner = (
            _owner(options["owner"]) if options["owner"] or not cluster.pk else cluster.owner
        )
        if options["team"]:
            try:
                cluster.team = Group.objects.get(name=options["team"])
            except Group.DoesNotExist:
                raise CommandError(f"No group named {options['team']!r}.") from None
        try:
            services.cluster_save(cluster)
        except services.ClusterInvalid as e:
            raise CommandError(f"{e.field}: {e.message}") from None
        self.stdout.write(
            self.style.SUCCESS(
                f"Cluster {cluster.name} ({cluster.source}) is read every "
                f"{cluster.every}, keeping {cluster.keep}; "
                f"owned by {cluster.owner.get_username()}."
            )
        )

    def _list(self, options: dict[str, Any]) -> None:
        for c in Cluster.objects.select_related("owner", "team"):
            last = (
                f"last read {c.last_success_at:%Y-%m-%d %H:%M}"
                if c.last_success_at
                else "never read"
            )
            failing = f"; failing: {c.last_failure_reason}" if c.failing else ""
            self.stdout.write(
                f"{c.name}\t{c.source}\tevery {c.every}\tkeep {c.keep}\t"
                f"{c.owner.get_username()}{'/' + c.team.name if c.team else ''}\t{last}{failing}"
            )

    def _remove(self, options: dict[str, Any]) -> None:
        services.cluster_delete(cluster=self._cluster(options["name"]))
        self.stdout.write(f"Cluster {options['name']} removed; its snapshots stay.")

    def _snapshot(self, options: dict[str, Any]) -> None:
        cluster = self._cluster(options["name"])
        snapshot = services.cluster_snapshot_take(cluster_id=cluster.pk)
        if snapshot is None:
            cluster.refresh_from_db()
            raise CommandError(cluster.last_failure_reason or "Another read is under way.")
        count = selectors.cluster_snapshots(cluster=cluster).count()
        self.stdout.write(
            self.style.SUCCESS(
                f"Snapshot {snapshot.pk} of {cluster.name}: {snapshot.node_count} nodes, "
                f"{snapshot.pod_count} pods, {len(snapshot.events)} "
                f"event{pluralize(len(snapshot.events))} of the last hour ({count} kept)."
            )
        )


def _owner(username: str | None) -> Any:
    User = get_user_model()
    if username:
        try:
            return User.objects.get_by_natural_key(username)
        except User.DoesNotExist:
            raise CommandError(f"No user named {username!r}.") from None
    first = User.objects.filter(is_superuser=True).order_by("pk").first()
    if first is None:
        raise CommandError("There is no superuser to own the cluster; pass --owner.")
    return first
