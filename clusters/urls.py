from django.urls import path

from clusters import views

app_name = "clusters"

urlpatterns = [
    path("", views.snapshot_list, name="snapshot-list"),
    path("new/", views.snapshot_upload, name="snapshot-upload"),
    path("demo/", views.snapshot_demo, name="snapshot-demo"),
    path("<int:pk>/", views.snapshot_detail, name="snapshot-detail"),
    path("<int:pk>/delete/", views.snapshot_delete, name="snapshot-delete"),
    path("<int:pk>/team/", views.snapshot_team, name="snapshot-team"),
    path("<int:pk>/pin/", views.snapshot_pin, name="snapshot-pin"),
    path("<int:pk>/nodes/", views.snapshot_nodes, name="snapshot-nodes"),
    path("<int:pk>/pods/", views.snapshot_pods, name="snapshot-pods"),
    path("<int:pk>/pdbs/", views.snapshot_pdbs, name="snapshot-pdbs"),
]
