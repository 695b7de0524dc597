import django_filters

from clusters import models


class NodeFilter(django_filters.FilterSet):  # type: ignore[misc]  # django-filter ships no types
    name = django_filters.CharFilter(help_text="Exact node name.")
    name_contains = django_filters.CharFilter(
        field_name="name", lookup_expr="icontains", help_text="Part of the node name."
    )
    unschedulable = django_filters.BooleanFilter(help_text="Cordoned nodes only (or not).")

    class Meta:
        model = models.Node
        fields = ["name", "name_contains", "unschedulable"]


class PodFilter(django_filters.FilterSet):  # type: ignore[misc]  # django-filter ships no types
    namespace = django_filters.CharFilter(help_text="metadata.namespace.")
    node = django_filters.CharFilter(field_name="node_name", help_text="spec.nodeName.")
    priority_class = django_filters.CharFilter(help_text="The pod's PriorityClass name.")
    phase = django_filters.CharFilter(help_text="status.phase (Running, Pending, ...).")
    qos_class = django_filters.CharFilter(help_text="Guaranteed, Burstable or BestEffort.")
    priority_min = django_filters.NumberFilter(
        field_name="priority", lookup_expr="gte", help_text="Priority at least this."
    )
    priority_max = django_filters.NumberFilter(
        field_name="priority", lookup_expr="lte", help_text="Priority at most this."
    )

    class Meta:
        model = models.Pod
        fields = [
            "namespace",
            "node",
            "priority_class",
            "phase",
            "qos_class",
            "priority_min",
            "priority_max",
        ]


class PodDisruptionBudgetFilter(django_filters.FilterSet):  # type: ignore[misc]  # django-filter ships no types
    namespace = django_filters.CharFilter(help_text="metadata.namespace.")

    class Meta:
        model = models.PodDisruptionBudget
        fields = ["namespace"]


class PriorityClassFilter(django_filters.FilterSet):  # type: ignore[misc]  # django-filter ships no types
    name = django_filters.CharFilter(help_text="Exact class name.")
    global_default = django_filters.BooleanFilter(help_text="The default class only (or not).")

    class Meta:
        model = models.PriorityClass
        fields = ["name", "global_default"]
