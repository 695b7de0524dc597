"""manage.py cluster add|edit|list|remove|snapshot: connected clusters, defined by staff."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.template.defaultfilters import pluralize

from connected import selectors, services
from connected.alert_rules import DEFAULT_RULES, rules_of
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
        edit = sub.add_parser("edit", help="Change a cluster: only what is given changes.")
        for command, required in ((add, True), (edit, False)):
            command.add_argument("name")
            where = command.add_mutually_exclusive_group(required=required)
            where.add_argument(
                "--context", help="A context of the workers' kubeconfig (checked there)."
            )
            where.add_argument(
                "--in-cluster", action="store_true", help="The pod's ServiceAccount."
            )
            command.add_argument(
                "--every", default="15m" if required else None, help="Schedule: 90s, 15m, 2h."
            )
            command.add_argument(
                "--keep", type=int, default=96 if required else None, help="Newest kept (96)."
            )
            command.add_argument(
                "--webhook",
                action="append",
                default=[] if required else None,
                help="Alert URL (repeat for more; edit: replaces them; 'none': no webhook).",
            )
            command.add_argument(
                "--alert",
                action="append",
                metavar="RULE",
                help="An alert rule (repeat): preemption, preemption>=PRIORITY, pdb-at-zero, "
                "finding>=SEVERITY, unreadable>=DURATION; 'default': the defaults "
                f"({', '.join(DEFAULT_RULES)}); 'none': no alert.",
            )
            command.add_argument(
                "--webhook-secret",
                metavar="SECRET",
                help="Sign alerts with this secret (16 characters or more), or 'generate' "
                "a new one (printed once). A new cluster gets one generated.",
            )
            command.add_argument("--owner", help="Owner's username (default: the first superuser).")
            command.add_argument("--team", help="A group whose members read the cluster.")
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
        cluster = Cluster.objects.filter(name=options["name"]).first() or Cluster(
            name=options["name"]
        )
        self._save(cluster, options)

    def _edit(self, options: dict[str, Any]) -> None:
        self._save(self._cluster(options["name"]), options)

    def _save(self, cluster: Cluster, options: dict[str, Any]) -> None:
        if options["in_cluster"]:
            cluster.source = IN_CLUSTER
        elif options["context"] is not None:
            try:
                services.context_check(options["context"])
            except services.ClusterInvalid as e:
                raise CommandError(f"{e.field}: {e.message}") from None
            cluster.source = options["context"]
        if options["every"] is not None:
            try:
                cluster.schedule_seconds = parse_every(options["every"])
            except ValueError as e:
                raise CommandError(str(e)) from None
        if options["keep"] is not None:
            cluster.keep = options["keep"]
        if options["webhook"] is not None:
            cluster.webhook_urls = [u for u in options["webhook"] if u != "none"]
        if options["alert"] is not None:
            cluster.alert_rules = _rules(options["alert"])
        secret = options["webhook_secret"]
        if secret is not None:
            cluster.webhook_secret = "" if secret == "generate" else secret
        generated = not cluster.webhook_secret
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
        rules = ", ".join(str(r) for r in rules_of(cluster.alert_rules)) or "none"
        self.stdout.write(
            self.style.SUCCESS(
                f"Cluster {cluster.name} ({cluster.source}) is read every "
                f"{cluster.every}, keeping {cluster.keep}; "
                f"owned by {cluster.owner.get_username()}; alerts: {rules}."
            )
        )
        if generated:
            self.stdout.write(
                "Webhook secret (shown this once; receivers verify X-Preemptlab-Signature "
                f"with it): {cluster.webhook_secret}"
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


def _rules(given: list[str]) -> list[str] | None:
    """--alert's rules: None for 'default' (the defaults, following future ones), [] for
    'none'; checked by the service."""
    if given == ["default"]:
        return None
    return [] if given == ["none"] else list(given)


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
