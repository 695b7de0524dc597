"""Snapshots of a cluster and the rows their pages browse.

A Snapshot keeps what the engine needs (the scrubbed objects, compressed, in
SnapshotChunks) apart from what the pages browse (Node/Pod/PDB/PriorityClass
rows with values computed once at ingest). The browse rows are written in one
transaction together with the snapshot turning ready: all or nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models
from django.urls import reverse

from clusters.constants import SnapshotStatus
from operations.leases import LeasedWork


class Snapshot(LeasedWork):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="snapshots"
    )
    # Members of the team read it, ask what-ifs on it and see each other's analyses of it
    # (clusters/access.py); null: its owner's alone.
    team = models.ForeignKey(
        Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="snapshots"
    )
    name = models.CharField(max_length=200)
    created = models.DateTimeField(auto_now_add=True)
    ingested_at = models.DateTimeField(null=True, blank=True)
    # When the dump was taken, as near as its objects say: their latest timestamp (a
    # node's last heartbeat, a pod's start). Ages on the pages are counted from it.
    taken_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=SnapshotStatus.choices, default=SnapshotStatus.INGESTING
    )
    error = models.TextField(blank=True, default="")
    # Progress while ingesting: a percentage and what is being done.
    progress = models.PositiveSmallIntegerField(default=0)
    progress_note = models.CharField(max_length=200, blank=True, default="")
    # [{"name": "snap.json", "size": 1234}, ...] in upload order.
    source_files = models.JSONField(default=list, blank=True)
    total_bytes = models.BigIntegerField(default=0)
    node_count = models.PositiveIntegerField(default=0)
    pod_count = models.PositiveIntegerField(default=0)
    pdb_count = models.PositiveIntegerField(default=0)
    priority_class_count = models.PositiveIntegerField(default=0)
    # Rows of the Volumes and Devices tabs (VolumeClaim, Device).
    volume_claim_count = models.PositiveIntegerField(default=0)
    device_count = models.PositiveIntegerField(default=0)
    # {"Deployment": 12, ...}: kinds in the input the snapshot does not keep.
    skipped = models.JSONField(default=dict, blank=True)
    # Admission warnings ("no globalDefault PriorityClass", ...).
    warnings = models.JSONField(default=list, blank=True)
    # {"managedFields": n, "Secret": n, ...}: what the scrubber removed.
    scrubbed = models.JSONField(default=dict, blank=True)
    # [{"key", "label", "color"}]: the priority bands of the node charts.
    bands = models.JSONField(default=list, blank=True)
    # {"namespace": [...], "phase": [...]}: the pods' distinct values, for filter menus.
    facets = models.JSONField(default=dict, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    # The cluster's kube-scheduler configuration (scheduling.scheduler_config): a
    # KubeSchedulerConfiguration (null: none) or a preset's name, and where it came from
    # ("uploaded with the dump (sched.yaml)", "set on the snapshot", OpenShift's profile).
    scheduler_config = models.JSONField(null=True, blank=True)
    scheduler_preset = models.CharField(max_length=64, blank=True, default="")
    scheduler_origin = models.CharField(max_length=300, blank=True, default="")
    # The connected cluster it was read from (null: uploaded). A removed cluster leaves
    # its snapshots as ordinary ones of their owner.
    cluster = models.ForeignKey(
        "connected.Cluster",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="snapshots",
        db_index=False,  # the (cluster, -taken_at) index serves it
    )
    # The cluster's events of the hour before the read (connected clusters only), scrubbed:
    # [{"type", "reason", "message", "namespace", "involved": {"kind", "namespace",
    # "name", "uid"}, "source", "count", "first_at", "last_at"}], oldest first.
    events = models.JSONField(default=list, blank=True)
    # Pinned by its owner or a team admin: a connected cluster's retention never deletes
    # it (connected/services.py). Null: not pinned.
    pinned_at = models.DateTimeField(null=True, blank=True)
    pinned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="pinned_snapshots",
    )

    class Meta:
        ordering = ("-created", "-id")
        indexes = [
            models.Index(fields=["owner", "-created"], name="snapshot_owner_created"),
            models.Index(fields=["status", "enqueued_at"], name="snapshot_status_enqueued"),
            models.Index(fields=["cluster", "-taken_at"], name="snapshot_cluster_taken"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("clusters:snapshot-detail", args=[self.pk])

    @property
    def is_pinned(self) -> bool:
        return self.pinned_at is not None

    @property
    def is_ingesting(self) -> bool:
        return self.status == SnapshotStatus.INGESTING

    @property
    def is_ready(self) -> bool:
        return self.status == SnapshotStatus.READY

    @property
    def is_failed(self) -> bool:
        return self.status == SnapshotStatus.FAILED


class SnapshotChunk(models.Model):
    """A run of the scrubbed Kubernetes objects of a ready snapshot: zlib-compressed JSON.

    The objects, in order, are the chunks' lists one after another (each chunk
    holds OBJECTS_PER_CHUNK of them, the last fewer). The engine reads them all;
    "clone this pod" reads the one chunk its browse row points to. A separate
    table so that listing snapshots or browsing rows never reads the blobs.
    """

    # No index of its own: the (snapshot, position) constraint serves it.
    snapshot = models.ForeignKey(
        Snapshot, on_delete=models.CASCADE, related_name="chunks", db_index=False
    )
    position = models.PositiveIntegerField()
    data = models.BinaryField()
    raw_size = models.BigIntegerField(default=0)

    class Meta:
        ordering = ("snapshot", "position")
        constraints = [
            models.UniqueConstraint(fields=["snapshot", "position"], name="chunk_snapshot_position")
        ]

    def __str__(self) -> str:
        return f"objects {self.position} of snapshot {self.snapshot_id}"


class SnapshotUpload(models.Model):
    """An uploaded file waiting for the ingest task; deleted once ingested.

    Kept in the database (not on a disk the web and worker containers would
    have to share), in the same transaction as the snapshot it belongs to.
    """

    snapshot = models.ForeignKey(Snapshot, on_delete=models.CASCADE, related_name="uploads")
    position = models.PositiveSmallIntegerField()
    # The file's bytes are the data of its parts 0, 1, ... (UPLOAD_PART_BYTES each).
    part = models.PositiveIntegerField(default=0)
    name = models.CharField(max_length=255)
    data = models.BinaryField()

    class Meta:
        ordering = ("position", "part")

    def __str__(self) -> str:
        return self.name


class Node(models.Model):
    # No index of its own: the (snapshot, name) index serves it.
    snapshot = models.ForeignKey(
        Snapshot, on_delete=models.CASCADE, related_name="nodes", db_index=False
    )
    name = models.CharField(max_length=253)
    labels = models.JSONField(default=dict)
    taints = models.JSONField(default=list)
    unschedulable = models.BooleanField(default=False)
    # {resource: int} — cpu in millicores, memory in bytes, pods, extended resources.
    allocatable = models.JSONField(default=dict)
    # The sum of the requests of the pods bound to the node that still hold resources.
    requested = models.JSONField(default=dict)
    # {band key: {"cpu": m, "memory": bytes}}: requested, split by priority band.
    band_requests = models.JSONField(default=dict)
    pod_count = models.PositiveIntegerField(default=0)
    cpu_allocatable = models.BigIntegerField(default=0)
    cpu_requested = models.BigIntegerField(default=0)
    memory_allocatable = models.BigIntegerField(default=0)
    memory_requested = models.BigIntegerField(default=0)

    class Meta:
        ordering = ("name",)
        indexes = [models.Index(fields=["snapshot", "name"], name="node_snapshot_name")]

    def __str__(self) -> str:
        return self.name

    def other_resources(self) -> list[tuple[str, int, int]]:
        """(resource, requested, allocatable) beyond cpu, memory and pods, without those
        the node has none of and no pod asks for: a node lists hugepages-1Gi at 0."""
        return [
            (name, int(self.requested.get(name) or 0), int(amount or 0))
            for name, amount in self.allocatable.items()
            if name not in ("cpu", "memory", "pods") and (amount or self.requested.get(name))
        ]


class Pod(models.Model):
    # No index of its own: every index below starts with it.
    snapshot = models.ForeignKey(
        Snapshot, on_delete=models.CASCADE, related_name="pods", db_index=False
    )
    namespace = models.CharField(max_length=253)
    name = models.CharField(max_length=253)
    # metadata.uid, or the engine's "uid-<namespace>/<name>" for a pod without one: any length.
    uid = models.TextField(blank=True, default="")
    node_name = models.CharField(max_length=253, blank=True, default="")
    phase = models.CharField(max_length=32, blank=True, default="")
    priority = models.IntegerField(default=0)
    priority_class = models.CharField(max_length=253, blank=True, default="")
    preemption_policy = models.CharField(max_length=32, blank=True, default="")
    qos_class = models.CharField(max_length=16, blank=True, default="")
    cpu_request = models.BigIntegerField(default=0)
    memory_request = models.BigIntegerField(default=0)
    # Every computed request, including extended resources: {resource: int}.
    requests = models.JSONField(default=dict)
    owner = models.CharField(max_length=300, blank=True, default="")
    start_time = models.DateTimeField(null=True, blank=True)
    terminating = models.BooleanField(default=False)
    nominated_node_name = models.CharField(max_length=253, blank=True, default="")
    # Where the pod's stored object is: item object_index of SnapshotChunk
    # object_chunk. What "clone this pod" starts from, read without decoding the
    # whole snapshot. Null for pods of snapshots ingested before it was kept.
    object_chunk = models.PositiveIntegerField(null=True, blank=True)
    object_index = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("namespace", "name")
        # Each filter has an index that also serves the page's ordering, so a
        # filtered page reads its 50 rows without sorting the snapshot's pods.
        indexes = [
            models.Index(fields=["snapshot", "namespace", "name"], name="pod_snapshot_ns_name"),
            models.Index(fields=["snapshot", "node_name", "namespace", "name"], name="pod_node"),
            models.Index(
                fields=["snapshot", "priority_class", "namespace", "name"], name="pod_class"
            ),
            models.Index(fields=["snapshot", "phase", "namespace", "name"], name="pod_phase"),
            # The pods page's sorts: by priority (highest first, the usual question) and
            # by start time. Lowest priority first reads this one backwards.
            models.Index(
                fields=["snapshot", "-priority", "namespace", "name"], name="pod_priority_desc"
            ),
            models.Index(fields=["snapshot", "start_time", "namespace", "name"], name="pod_start"),
        ]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class PodDisruptionBudget(models.Model):
    snapshot = models.ForeignKey(Snapshot, on_delete=models.CASCADE, related_name="pdbs")
    namespace = models.CharField(max_length=253)
    name = models.CharField(max_length=253)
    selector = models.JSONField(null=True, blank=True)
    selector_text = models.TextField(blank=True, default="")
    min_available = models.CharField(max_length=32, blank=True, default="")
    max_unavailable = models.CharField(max_length=32, blank=True, default="")
    disruptions_allowed = models.IntegerField(default=0)
    current_healthy = models.IntegerField(null=True, blank=True)
    desired_healthy = models.IntegerField(null=True, blank=True)
    expected_pods = models.IntegerField(null=True, blank=True)
    matched_pod_count = models.PositiveIntegerField(default=0)
    # The first PDB_MATCHED_NAMES matched pods by name, sorted.
    matched_pods = models.JSONField(default=list)

    class Meta:
        ordering = ("namespace", "name")
        indexes = [models.Index(fields=["snapshot", "namespace", "name"], name="pdb_snapshot_ns")]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class PriorityClass(models.Model):
    snapshot = models.ForeignKey(
        Snapshot, on_delete=models.CASCADE, related_name="priority_classes"
    )
    name = models.CharField(max_length=253)
    value = models.IntegerField()
    global_default = models.BooleanField(default=False)
    preemption_policy = models.CharField(max_length=32)
    description = models.TextField(blank=True, default="")
    created = models.DateTimeField(null=True, blank=True)
    # True for the system classes Kubernetes always has, added when the input lacks them.
    builtin = models.BooleanField(default=False)
    pod_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ("-value", "name")
        indexes = [models.Index(fields=["snapshot", "name"], name="pc_snapshot_name")]

    def __str__(self) -> str:
        return self.name


class VolumeClaim(models.Model):
    """A PersistentVolumeClaim as the Volumes tab shows it: its class, modes, the volume
    it is bound to and where that volume lives, and the pods that use it."""

    snapshot = models.ForeignKey(
        Snapshot, on_delete=models.CASCADE, related_name="volume_claims", db_index=False
    )
    namespace = models.CharField(max_length=253)
    name = models.CharField(max_length=253)
    phase = models.CharField(max_length=32, blank=True, default="")
    storage_class = models.CharField(max_length=253, blank=True, default="")
    # "WaitForFirstConsumer" / "Immediate", from the class ("" when the class is absent).
    binding_mode = models.CharField(max_length=32, blank=True, default="")
    access_modes = models.JSONField(default=list)
    requested = models.CharField(max_length=64, blank=True, default="")
    volume_name = models.CharField(max_length=253, blank=True, default="")
    # spec.volumeName set and the PV controller's bind-completed annotation: what the
    # volume plugins take for bound.
    bound = models.BooleanField(default=False)
    # Where the volume can be used: zones, a node, "any node" (text, as shown).
    where = models.TextField(blank=True, default="")
    driver = models.CharField(max_length=253, blank=True, default="")
    # The pods that use it (by name, in its namespace): [[pod, node], ...], the first
    # PDB_MATCHED_NAMES of them; pod_count is exact.
    pods = models.JSONField(default=list)
    pod_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ("namespace", "name")
        indexes = [
            models.Index(fields=["snapshot", "namespace", "name"], name="claim_snapshot_ns_name")
        ]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class NodeAttachments(models.Model):
    """A node's CSI volumes of one driver against the limit its CSINode publishes
    (NodeVolumeLimits' count: the node's pods' volumes and its VolumeAttachments, each
    volume once)."""

    snapshot = models.ForeignKey(
        Snapshot, on_delete=models.CASCADE, related_name="node_attachments", db_index=False
    )
    node = models.CharField(max_length=253)
    driver = models.CharField(max_length=253)
    in_use = models.PositiveIntegerField(default=0)
    # spec.drivers[].allocatable.count of the node's CSINode; null: no limit published.
    limit = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("node", "driver")
        indexes = [models.Index(fields=["snapshot", "node", "driver"], name="attach_snapshot_node")]

    def __str__(self) -> str:
        return f"{self.node} {self.driver}"


class Device(models.Model):
    """A device a ResourceSlice publishes, with the claim it is allocated to (from the
    ResourceClaims' status.allocation) and the pods that claim is reserved for."""

    snapshot = models.ForeignKey(
        Snapshot, on_delete=models.CASCADE, related_name="devices", db_index=False
    )
    # spec.nodeName of its slice; "" for a slice of all nodes or of a node selector
    # (``reach`` then says which).
    node = models.CharField(max_length=253, blank=True, default="")
    reach = models.CharField(max_length=64, blank=True, default="")
    driver = models.CharField(max_length=253)
    pool = models.CharField(max_length=253)
    name = models.CharField(max_length=253)
    # [[name, value], ...] as kubectl would print the typed values, sorted by name.
    attributes = models.JSONField(default=list)
    capacity = models.JSONField(default=list)
    # "namespace/name" of the claim it is allocated to ("": free).
    claim = models.TextField(blank=True, default="")
    pods = models.JSONField(default=list)

    class Meta:
        ordering = ("node", "driver", "pool", "name")
        indexes = [
            models.Index(fields=["snapshot", "node", "driver", "pool", "name"], name="device_node")
        ]

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.name}"


class ParsedCluster(models.Model):
    """The snapshot as the engine holds it (scheduling.engine.Cluster), pickled at ingest
    so that a worker loads it in about a second instead of decoding and parsing every
    object again. Only this app writes it, from objects it has validated; ``version``
    names the engine and the Python that wrote it, and a row of another version is
    ignored (and written again by the next load)."""

    snapshot = models.OneToOneField(
        Snapshot, on_delete=models.CASCADE, primary_key=True, related_name="parsed"
    )
    version = models.CharField(max_length=128)
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"parsed cluster of snapshot {self.snapshot_id} ({self.version})"


class TeamAdmin(models.Model):
    """A member of a team who may delete what the team was given (its other members only
    read and ask): a row per user and team, set in the admin site."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_admin_of"
    )
    team = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="admins")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "team"], name="team_admin_once")]

    def __str__(self) -> str:
        return f"{self.user} admins {self.team}"
