"""Pages of the advice app: the result pages' section and Apply."""

from django.urls import path

from advice import views
from scheduling import converters  # noqa: F401 - registers <share_token:...>

app_name = "advice"

urlpatterns = [
    path("analyses/<int:analysis_id>/advice/", views.advice_section, name="section"),
    path(
        "analyses/<int:analysis_id>/advice/<int:index>/apply/",
        views.advice_apply,
        name="apply",
    ),
    path("s/<share_token:token>/advice/", views.shared_advice_section, name="share-section"),
]
