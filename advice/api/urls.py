"""Routes of the advice API under /api/ (DESIGN.md, "Advice contract")."""

from django.urls import path

from advice.api import views

app_name = "advice-api"

urlpatterns = [
    path("analyses/<int:pk>/advice/", views.AnalysisAdvice.as_view(), name="analysis-advice"),
]
