from django.urls import path

from connected import views

app_name = "connected"

urlpatterns = [
    path("", views.cluster_list, name="cluster-list"),
    path("<int:pk>/", views.cluster_detail, name="cluster-detail"),
    path("<int:pk>/snapshot/", views.cluster_snapshot_take, name="cluster-snapshot-take"),
]
