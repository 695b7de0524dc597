"""The controller kinds beyond apps/v1 and batch/v1's Job, one module a kind, each
registered with workload.register_kind when this package is imported (the engine's
package imports it): DaemonSet, CronJob, OpenShift's DeploymentConfig, Argo Rollouts'
Rollout."""

from __future__ import annotations

from ..workload import register_kind
from .cronjob import expand_cron_job
from .daemonset import expand_daemon_set
from .deploymentconfig import expand_deployment_config
from .rollout import expand_rollout

register_kind("DaemonSet", expand_daemon_set)
register_kind("CronJob", expand_cron_job)
register_kind("DeploymentConfig", expand_deployment_config)
register_kind("Rollout", expand_rollout)

__all__ = [
    "expand_cron_job",
    "expand_daemon_set",
    "expand_deployment_config",
    "expand_rollout",
]
