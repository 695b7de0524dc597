from django.urls import path

from clusters.api import views

app_name = "clusters-api"

urlpatterns = [
    path("snapshots/", views.SnapshotListCreate.as_view(), name="snapshot-list"),
    path("snapshots/<int:pk>/", views.SnapshotDetail.as_view(), name="snapshot-detail"),
    path("snapshots/<int:pk>/pin/", views.SnapshotPin.as_view(), name="snapshot-pin"),
    path("snapshots/<int:pk>/nodes/", views.SnapshotNodes.as_view(), name="snapshot-nodes"),
    path("snapshots/<int:pk>/pods/", views.SnapshotPods.as_view(), name="snapshot-pods"),
    path("snapshots/<int:pk>/pdbs/", views.SnapshotPDBs.as_view(), name="snapshot-pdbs"),
    path(
        "snapshots/<int:pk>/priorityclasses/",
        views.SnapshotPriorityClasses.as_view(),
        name="snapshot-priorityclasses",
    ),
]
