"""Routes of the planning API under /api/ (DESIGN.md, REST API)."""

from django.urls import path

from planning.api import views

app_name = "planning-api"

urlpatterns = [
    path("analyses/compare/", views.AnalysisCompare.as_view(), name="analysis-compare"),
    path("snapshots/<int:pk>/plan/", views.SnapshotPlanView.as_view(), name="snapshot-plan"),
]
