"""Routes of the analyses API under /api/ (DESIGN.md, REST API): submit, follow, share."""

from django.urls import path

from scheduling import converters  # noqa: F401 - registers <share_token:...>
from scheduling.api import views
from scheduling.scheduler_config import api as scheduler_config_api

app_name = "scheduling-api"

urlpatterns = [
    path(
        "snapshots/<int:snapshot_id>/analyses/",
        views.SnapshotAnalyses.as_view(),
        name="snapshot-analyses",
    ),
    path(
        "snapshots/<int:snapshot_id>/scheduler-config/",
        scheduler_config_api.SnapshotSchedulerConfig.as_view(),
        name="snapshot-scheduler-config",
    ),
    path(
        "scheduler-presets/",
        scheduler_config_api.SchedulerPresets.as_view(),
        name="scheduler-presets",
    ),
    path("analyses/<int:pk>/", views.AnalysisDetail.as_view(), name="analysis-detail"),
    path(
        "analyses/<int:pk>/rejected-nodes/",
        views.AnalysisRejectedNodes.as_view(),
        name="analysis-rejected-nodes",
    ),
    path(
        "analyses/<int:pk>/share-links/",
        views.AnalysisShareLinks.as_view(),
        name="analysis-share-links",
    ),
    path(
        "share-links/<share_token:token>/",
        views.ShareLinkDetail.as_view(),
        name="share-link-detail",
    ),
]
