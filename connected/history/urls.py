"""The history pages and API of a connected cluster, and /metrics."""

from django.urls import path

from connected import metrics
from connected.api.preemptions import PreemptionList
from connected.history import views

app_name = "connected_history"

urlpatterns = [
    path("clusters/<int:pk>/drift/", views.cluster_drift_page, name="drift"),
    path(
        "clusters/<int:pk>/preemptions/<int:preemption>/explain/",
        views.preemption_explain,
        name="explain",
    ),
    path(
        "api/clusters/<int:id>/drift/",
        views.ClusterDriftView.as_view(),
        name="api-drift",
    ),
    path("api/clusters/<int:id>/preemptions/", PreemptionList.as_view(), name="api-preemptions"),
    path(
        "api/clusters/<int:id>/preemptions/<int:preemption_id>/explain/",
        views.PreemptionExplainView.as_view(),
        name="api-explain",
    ),
    path("metrics", metrics.metrics, name="metrics"),
]
