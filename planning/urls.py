"""Pages of the planning app."""

from django.urls import path

from planning import views

app_name = "planning"

urlpatterns = [
    path("analyses/compare/", views.analysis_compare, name="analysis-compare"),
    path("snapshots/<int:pk>/plan/", views.snapshot_plan, name="snapshot-plan"),
    path(
        "snapshots/<int:pk>/plan/first-in-line/",
        views.snapshot_first_in_line,
        name="snapshot-first-in-line",
    ),
]
