"""CronJob: one run of its job template, as the CronJob controller creates the Job
(pkg/controller/cronjob: ``<cronjob>-<scheduled time in minutes>``) and the Job
controller its pods. The what-if asks "what if it fired now", so the schedule itself
is not read; a suspended CronJob is refused (it would start nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..workload import _Context, _expand_job, fnv32a


def job_name(name: str) -> str:
    """getJobName's shape, ``<cronjob>-<minutes>``: the minutes derived from the name so
    a run is repeatable (a real one is the scheduled time's Unix minutes)."""
    return f"{name}-{29_000_000 + fnv32a(name.encode()) % 1_000_000}"


def expand_cron_job(
    ctx: _Context, obj: Mapping[str, Any], namespace: str, name: str
) -> tuple[str, list[dict[str, Any]]]:
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        raise InvalidInput("Required value", field="spec")
    if spec.get("suspend") is True:
        raise InvalidInput(
            "Invalid value: true: a suspended CronJob starts no Job; unset it to ask",
            field="spec.suspend",
        )
    template = spec.get("jobTemplate")
    if not isinstance(template, Mapping) or not isinstance(template.get("spec"), Mapping):
        raise InvalidInput("Required value: a job template", field="spec.jobTemplate")
    job = {"metadata": {"name": job_name(name), "namespace": namespace}, "spec": template["spec"]}
    try:
        return _expand_job(ctx, job, namespace, job_name(name))
    except InvalidInput as e:
        e.field = f"spec.jobTemplate.{e.field}" if e.field else "spec.jobTemplate"
        raise
