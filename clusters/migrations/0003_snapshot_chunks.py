"""Store each snapshot's objects in chunks, and each pod's place in them on its row.

The manifest column on the pods (the wide JSON that made ingesting and the deep
pods pages slow) goes; so does the single-blob SnapshotObjects table, whose blob
becomes its snapshot's only chunk. Pods of snapshots stored before this point to
no chunk, and "clone this pod" finds them by decoding the snapshot's objects.
"""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def blobs_to_chunks(apps: Any, schema_editor: Any) -> None:
    SnapshotObjects = apps.get_model("clusters", "SnapshotObjects")
    SnapshotChunk = apps.get_model("clusters", "SnapshotChunk")
    for pk in SnapshotObjects.objects.values_list("pk", flat=True):
        stored = SnapshotObjects.objects.get(pk=pk)
        SnapshotChunk.objects.create(
            snapshot_id=pk, position=0, data=stored.data, raw_size=stored.raw_size
        )


def chunks_to_blobs(apps: Any, schema_editor: Any) -> None:
    import zlib

    import orjson

    SnapshotObjects = apps.get_model("clusters", "SnapshotObjects")
    SnapshotChunk = apps.get_model("clusters", "SnapshotChunk")
    snapshots = SnapshotChunk.objects.values_list("snapshot_id", flat=True).distinct()
    for snapshot_id in list(snapshots):
        objects: list[Any] = []
        chunks = SnapshotChunk.objects.filter(snapshot_id=snapshot_id).order_by("position")
        for data in chunks.values_list("data", flat=True):
            objects.extend(orjson.loads(zlib.decompress(data)))
        raw = orjson.dumps(objects)
        SnapshotObjects.objects.create(
            snapshot_id=snapshot_id, data=zlib.compress(raw, 1), raw_size=len(raw)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("clusters", "0002_pod_manifest"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="pod",
            name="manifest",
        ),
        migrations.AddField(
            model_name="pod",
            name="object_chunk",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="pod",
            name="object_index",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name="SnapshotChunk",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("position", models.PositiveIntegerField()),
                ("data", models.BinaryField()),
                ("raw_size", models.BigIntegerField(default=0)),
                (
                    "snapshot",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chunks",
                        to="clusters.snapshot",
                    ),
                ),
            ],
            options={
                "ordering": ("snapshot", "position"),
                "constraints": [
                    models.UniqueConstraint(
                        fields=("snapshot", "position"), name="chunk_snapshot_position"
                    )
                ],
            },
        ),
        migrations.RunPython(blobs_to_chunks, chunks_to_blobs),
        migrations.DeleteModel(
            name="SnapshotObjects",
        ),
    ]
