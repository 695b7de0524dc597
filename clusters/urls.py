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
    path("<int:pk>/volumes/", views.snapshot_volumes, name="snapshot-volumes"),
    path("<int:pk>/volumes/attachments/", views.snapshot_attachments, name="snapshot-attachments"),
    path("<int:pk>/devices/", views.snapshot_devices, name="snapshot-devices"),
]
