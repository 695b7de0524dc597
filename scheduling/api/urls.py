"""Routes of the analyses API under /api/ (DESIGN.md, REST API): submit, follow, share."""

from django.urls import path

from scheduling import converters  # noqa: F401 - registers <share_token:...>
from scheduling.api import profiles, views

app_name = "scheduling-api"

urlpatterns = [
    path(
        "snapshots/<int:snapshot_id>/analyses/",
        views.SnapshotAnalyses.as_view(),
        name="snapshot-analyses",
    ),
    path(
        "snapshots/<int:snapshot_id>/scheduler-config/",
        profiles.SnapshotSchedulerConfig.as_view(),
        name="snapshot-scheduler-config",
    ),
    path("scheduler-presets/", profiles.SchedulerPresets.as_view(), name="scheduler-presets"),
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
