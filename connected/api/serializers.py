"""API representation of connected clusters; every field documented."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from connected.alert_rules import DEFAULT_RULES, rules_of
from connected.models import Cluster


class ClusterSerializer(serializers.ModelSerializer[Cluster]):
    url = serializers.SerializerMethodField(help_text="This cluster in the API.")
    page_url = serializers.SerializerMethodField(help_text="This cluster's page in the browser.")
    snapshots = serializers.SerializerMethodField(
        help_text="Its snapshots (GET /api/snapshots/?cluster=ID), newest first."
    )
    every = serializers.SerializerMethodField(help_text='The schedule in words ("15m").')
    owner = serializers.SlugRelatedField(
        slug_field="username",
        queryset=get_user_model().objects.all(),
        required=False,
        help_text="The username of the owner of its snapshots (default: who defines it).",
    )
    team = serializers.SlugRelatedField(
        slug_field="name",
        queryset=Group.objects.all(),
        required=False,
        allow_null=True,
        help_text="A group whose members read the cluster; null: none.",
    )
    webhook_urls = serializers.ListField(
        child=serializers.URLField(),
        required=False,
        help_text="Where alerts about it are sent (shown to staff only).",
    )
    alert_rules = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        allow_null=True,
        help_text="Its alert rules (preemption, preemption>=PRIORITY, pdb-at-zero, "
        "finding>=info|warning|error, unreadable>=DURATION); null: the defaults "
        f"({', '.join(DEFAULT_RULES)}). Staff change them.",
    )
    alert_rules_in_effect = serializers.SerializerMethodField(
        help_text="The rules that apply (the defaults spelled out when alert_rules is null)."
    )
    webhook_secret = serializers.CharField(
        write_only=True,
        required=False,
        help_text="Staff: the secret alerts are signed with (16 characters or more), or "
        '"generate" for a new one, returned once as new_webhook_secret. Never shown.',
    )
    new_webhook_secret = serializers.SerializerMethodField(
        help_text="The webhook secret this very request generated (a new cluster, or "
        '"generate"), shown this once; null otherwise.'
    )
    reading = serializers.SerializerMethodField(help_text="A read is under way.")
    failing = serializers.BooleanField(
        read_only=True, help_text="The last attempt failed (see last_failure_reason)."
    )

    class Meta:
        model = Cluster
        fields = [
            "id",
            "url",
            "page_url",
            "name",
            "source",
            "schedule_seconds",
            "every",
            "keep",
            "owner",
            "team",
            "webhook_urls",
            "alert_rules",
            "alert_rules_in_effect",
            "webhook_secret",
            "new_webhook_secret",
            "created",
            "reading",
            "reading_since",
            "last_success_at",
            "last_failure_at",
            "last_failure_reason",
            "failing",
            "snapshots",
        ]
        read_only_fields = [
            "created",
            "reading_since",
            "last_success_at",
            "last_failure_at",
            "last_failure_reason",
        ]
        extra_kwargs = {
            "name": {"help_text": "A short name (letters, digits, - and _)."},
            "source": {
                "help_text": "A context of the workers' kubeconfig, or `in-cluster` (the pod's "
                "ServiceAccount). No credential is ever stored or shown."
            },
            "schedule_seconds": {"help_text": "Seconds between two snapshots.", "min_value": 1},
            "keep": {
                "help_text": "The newest snapshots kept (beside one a day for 30 days).",
                "min_value": 1,
            },
            "last_failure_reason": {
                "help_text": "Why the last attempt failed: unreachable, the forbidden verb "
                "and resource, a timeout, what could not be read."
            },
        }

    def _abs(self, path: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    @extend_schema_field(serializers.URLField())
    def get_url(self, obj: Cluster) -> str:
        return self._abs(reverse("connected-api:cluster-detail", args=[obj.pk]))

    @extend_schema_field(serializers.URLField())
    def get_page_url(self, obj: Cluster) -> str:
        return self._abs(obj.get_absolute_url())

    @extend_schema_field(serializers.URLField())
    def get_snapshots(self, obj: Cluster) -> str:
        return self._abs(f"{reverse('clusters-api:snapshot-list')}?cluster={obj.pk}")

    def get_every(self, obj: Cluster) -> str:
        return obj.every

    def get_alert_rules_in_effect(self, obj: Cluster) -> list[str]:
        return [str(r) for r in rules_of(obj.alert_rules)]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_new_webhook_secret(self, obj: Cluster) -> str | None:
        return getattr(obj, "generated_secret", None)

    def validate_webhook_secret(self, value: str) -> str:
        return "" if value == "generate" else value

    def get_reading(self, obj: Cluster) -> bool:
        return obj.reading_since is not None

    def to_representation(self, instance: Cluster) -> dict[str, Any]:
        data: dict[str, Any] = super().to_representation(instance)
        request = self.context.get("request")
        if request is None or not request.user.is_staff:
            data.pop("webhook_urls", None)  # a Slack or Teams URL is itself a secret
        return data
