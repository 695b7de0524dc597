"""Who an OpenID Connect sign-in is, and which teams the provider manages."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models


class OidcIdentity(models.Model):
    """The provider's account behind a user: its issuer and `sub` claim, the one stable
    identifier (an email address changes hands; a local account with the same email
    address is never taken over)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identity"
    )
    issuer = models.CharField(max_length=500)
    subject = models.CharField(max_length=255)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="oidc_identity_unique")
        ]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"


class OidcGroup(models.Model):
    """A team (Django group) the provider's groups claim created: its members are set
    at each sign-in. A group made by hand has no such row and is never touched."""

    group = models.OneToOneField(Group, on_delete=models.CASCADE, related_name="oidc")

    def __str__(self) -> str:
        return self.group.name
