from django.urls import path

from connected.api import views

app_name = "connected-api"

urlpatterns = [
    path("clusters/", views.ClusterListCreate.as_view(), name="cluster-list"),
    path("clusters/<int:pk>/", views.ClusterDetail.as_view(), name="cluster-detail"),
    path(
        "clusters/<int:pk>/snapshots/",
        views.ClusterSnapshotTake.as_view(),
        name="cluster-snapshot-take",
    ),
]
