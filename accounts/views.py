"""The login page: the local form, and "Sign in with <provider>" when OpenID Connect is on."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views


class LoginView(auth_views.LoginView):
    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        if settings.OIDC_ENABLED:
            context["oidc_provider"] = settings.OIDC_PROVIDER_NAME
        return context
