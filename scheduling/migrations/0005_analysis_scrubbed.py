"""What-if submissions are scrubbed as snapshots are: a column for what was removed,
and the submissions stored before it scrubbed now."""

from collections import Counter
from typing import Any

from django.db import migrations, models

from clusters.ingest.scrub import scrub_object


def _scrub(pod: Any, report: Counter[str]) -> Any:
    if isinstance(pod, dict) and isinstance(pod.get("objects"), list):
        pod["objects"] = [
            o for o in pod["objects"] if not isinstance(o, dict) or scrub_object(o, report)
        ]
        for o in pod.get("pods") or []:
            if isinstance(o, dict):
                scrub_object(o, Counter())
    elif isinstance(pod, dict):
        scrub_object(pod, report)
    return pod


def scrub_stored_submissions(apps: Any, schema_editor: Any) -> None:
    Analysis = apps.get_model("scheduling", "Analysis")
    for analysis in Analysis.objects.only("pk", "pod").iterator(chunk_size=200):
        report: Counter[str] = Counter()
        pod = _scrub(analysis.pod, report)
        if report:
            Analysis.objects.filter(pk=analysis.pk).update(pod=pod, scrubbed=dict(report))


class Migration(migrations.Migration):
    dependencies = [("scheduling", "0004_i8_workload")]

    operations = [
        migrations.AddField(
            model_name="analysis",
            name="scrubbed",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(scrub_stored_submissions, migrations.RunPython.noop),
    ]
