"""One column for the explanation: the three columns of older analyses move into it.

The rows are moved as they are (``{"result", "details", "node_view"}``, which
scheduling.analyses.explanations reads as schema 1), so nothing is recomputed and no
snapshot is needed. Backwards, schema 1 rows get their three columns back; rows
stored in schema 2 get the contract back from it.
"""

from typing import Any

from django.db import migrations, models

LEGACY_KEYS = ("result", "details", "node_view")


def forwards(apps: Any, schema_editor: Any) -> None:
    Analysis = apps.get_model("scheduling", "Analysis")
    for row in Analysis.objects.filter(result__isnull=False).only("pk", *LEGACY_KEYS).iterator():
        row.explanation = {key: getattr(row, key) for key in LEGACY_KEYS}
        row.save(update_fields=["explanation"])


def backwards(apps: Any, schema_editor: Any) -> None:
    from scheduling.engine import Explanation

    Analysis = apps.get_model("scheduling", "Analysis")
    for row in Analysis.objects.filter(explanation__isnull=False).iterator():
        data = row.explanation
        if "schema_version" in data:
            row.result = Explanation.from_json(data).to_contract()
        else:
            for key in LEGACY_KEYS:
                setattr(row, key, data.get(key))
        row.save(update_fields=list(LEGACY_KEYS))


class Migration(migrations.Migration):
    dependencies = [("scheduling", "0002_i10_lease")]

    operations = [
        migrations.AddField(
            model_name="analysis",
            name="explanation",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(model_name="analysis", name="result"),
        migrations.RemoveField(model_name="analysis", name="details"),
        migrations.RemoveField(model_name="analysis", name="node_view"),
    ]
