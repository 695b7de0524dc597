"""A workload's outcome says how many of its replicas run (all-run, some-run, none-run),
not one pod's word: the stored runs are read again to set it; backwards, the old words
(unschedulable when a replica was left pending, else preempts when anything was
evicted, else fits) are read from the same runs."""

from typing import Any

from django.db import migrations, models

# The rule as it stands when this migration was written (scheduling.constants.
# WorkloadOutcome.of and the old WorkloadRun.outcome): a migration keeps its own copy,
# as the application's code may change after it.


def _counts(simulation: dict[str, Any]) -> tuple[int, int, bool]:
    """(replicas running, replicas asked, any victim) of a stored WorkloadRun."""
    own = {k for o in simulation.get("objects") or [] for k in o.get("pod_keys") or []}
    pods = [p for p in (simulation.get("contract") or {}).get("pods") or [] if p["pod"] in own]
    running = sum(1 for p in pods if p.get("final") == "bound")
    return running, len(pods), bool(simulation.get("victims"))


def _new_word(simulation: dict[str, Any]) -> str:
    running, asked, _ = _counts(simulation)
    if running >= asked:
        return "all-run"
    return "some-run" if running else "none-run"


def _old_word(simulation: dict[str, Any]) -> str:
    running, asked, victims = _counts(simulation)
    if running < asked:
        return "unschedulable"
    return "preempts" if victims else "fits"


def _rewrite(apps: Any, word: Any) -> None:
    Analysis = apps.get_model("scheduling", "Analysis")
    rows = Analysis.objects.filter(kind="workload", simulation__isnull=False).exclude(outcome="")
    for row in rows.only("pk", "simulation", "outcome").iterator(chunk_size=200):
        outcome = word(row.simulation)
        if outcome != row.outcome:
            Analysis.objects.filter(pk=row.pk).update(outcome=outcome)


def forwards(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, _new_word)


def backwards(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, _old_word)


class Migration(migrations.Migration):
    dependencies = [
        ("scheduling", "0011_stopping_run"),
    ]

    operations = [
        migrations.AlterField(
            model_name="analysis",
            name="outcome",
            field=models.CharField(
                blank=True,
                choices=[
                    ("fits", "Fits"),
                    ("preempts", "Preempts"),
                    ("unschedulable", "Unschedulable"),
                    ("all-run", "All replicas run"),
                    ("some-run", "Some replicas run"),
                    ("none-run", "No replica runs"),
                ],
                default="",
                max_length=16,
            ),
        ),
        migrations.RunPython(forwards, backwards),
    ]
