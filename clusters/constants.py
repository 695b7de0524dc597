"""States and limits of snapshots."""

from django.db import models

# Uploads larger than this (all files together) are ingested by a Celery
# worker while the page shows progress; smaller ones finish in the request.
ASYNC_INGEST_BYTES = 5 * 1024 * 1024

# A queued upload is stored in parts of this size (SnapshotUpload rows), so the web
# process never holds a whole upload.
UPLOAD_PART_BYTES = 8 * 1024 * 1024

# Rows per INSERT when storing the browse tables.
BULK_BATCH_SIZE = 2000

# Objects per stored chunk of a snapshot (SnapshotChunk): "clone this pod"
# decompresses and decodes one chunk, about 1 MB of JSON at this size.
OBJECTS_PER_CHUNK = 500

# How many matched pods a PDB row lists by name (the count is always exact).
PDB_MATCHED_NAMES = 50

# The kinds a snapshot keeps; every other kind is skipped and counted.
KIND_NODE = "Node"
KIND_POD = "Pod"
KIND_PDB = "PodDisruptionBudget"
KIND_PRIORITY_CLASS = "PriorityClass"
# Kept for the priority plan: quota scoped by PriorityClass, per class.
KIND_RESOURCE_QUOTA = "ResourceQuota"
# What the volume plugins read (VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
# VolumeZone) and the Volumes tab shows.
KIND_PVC = "PersistentVolumeClaim"
KIND_PV = "PersistentVolume"
KIND_STORAGE_CLASS = "StorageClass"
KIND_CSI_NODE = "CSINode"
KIND_CSI_DRIVER = "CSIDriver"
KIND_VOLUME_ATTACHMENT = "VolumeAttachment"
KIND_CSI_STORAGE_CAPACITY = "CSIStorageCapacity"
STORAGE_KINDS = frozenset(
    {
        KIND_PVC,
        KIND_PV,
        KIND_STORAGE_CLASS,
        KIND_CSI_NODE,
        KIND_CSI_DRIVER,
        KIND_VOLUME_ATTACHMENT,
        KIND_CSI_STORAGE_CAPACITY,
    }
)
# What DynamicResources reads (resource.k8s.io/v1) and the Devices tab shows.
KIND_DEVICE_CLASS = "DeviceClass"
KIND_RESOURCE_SLICE = "ResourceSlice"
KIND_RESOURCE_CLAIM = "ResourceClaim"
KIND_RESOURCE_CLAIM_TEMPLATE = "ResourceClaimTemplate"
DRA_KINDS = frozenset(
    {KIND_DEVICE_CLASS, KIND_RESOURCE_SLICE, KIND_RESOURCE_CLAIM, KIND_RESOURCE_CLAIM_TEMPLATE}
)
KEPT_KINDS = (
    frozenset({KIND_NODE, KIND_POD, KIND_PDB, KIND_PRIORITY_CLASS, KIND_RESOURCE_QUOTA})
    | STORAGE_KINDS
    | DRA_KINDS
)

# Kinds dropped whole by the scrubber: their payload is secret or config data.
SCRUBBED_KINDS = frozenset({"Secret", "ConfigMap"})
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"


class SnapshotStatus(models.TextChoices):
    INGESTING = "ingesting", "Ingesting"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


# Priority bands for the node charts: the first whose floor the priority
# reaches. Kubernetes reserves values above 1,000,000,000 for system classes.
PRIORITY_BANDS: tuple[tuple[str, str, int], ...] = (
    ("system", "system (≥ 1,000,000,000)", 1_000_000_000),
    ("high", "high (≥ 1,000,000)", 1_000_000),
    ("mid", "mid (≥ 1,000)", 1_000),
    ("low", "low (0 to 999)", 0),
    ("negative", "negative (< 0)", -(2**31)),
)
# When a snapshot has at most this many distinct pod priorities, each gets a
# band of its own (labelled with its classes), which reads better on small
# clusters such as the demo than the fixed ranges above.
MAX_PER_VALUE_BANDS = 6

# The Celery task that ingests a snapshot: services enqueue it by this name
# (operations.faults.publish), the tasks module registers under it.
SNAPSHOT_INGEST_TASK = "clusters.snapshot_ingest"
