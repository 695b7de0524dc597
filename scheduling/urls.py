"""Pages of the what-if analyses, and the public share links under /s/."""

from django.urls import path

from scheduling import converters  # noqa: F401 - registers <share_token:...>
from scheduling.scheduler_config import views as scheduler_config_views
from scheduling.views import actions, cycles, lists, results, share, whatif

app_name = "scheduling"

urlpatterns = [
    path("snapshots/<int:snapshot_id>/analyses/new/", whatif.analysis_new, name="analysis-new"),
    path("snapshots/<int:snapshot_id>/analyses/", lists.analysis_list, name="analysis-list"),
    path("snapshots/<int:snapshot_id>/room/", whatif.snapshot_room, name="snapshot-room"),
    path(
        "snapshots/<int:snapshot_id>/take-nodes-away/",
        whatif.snapshot_take_nodes_away,
        name="snapshot-take-nodes-away",
    ),
    path(
        "snapshots/<int:snapshot_id>/scheduler/",
        scheduler_config_views.snapshot_scheduler,
        name="snapshot-scheduler",
    ),
    path(
        "snapshots/<int:snapshot_id>/pods/<int:pod_id>/what-if/",
        whatif.analysis_clone,
        name="analysis-clone",
    ),
    path(
        "snapshots/<int:snapshot_id>/pods/<int:pod_id>/scale-up/",
        whatif.analysis_scale_up,
        name="analysis-scale-up",
    ),
    path("analyses/", lists.analysis_list, name="analysis-index"),
    path("analyses/demo/", whatif.demo_whatif, name="demo-whatif"),
    path("analyses/<int:analysis_id>/", results.analysis_detail, name="analysis-detail"),
    path(
        "analyses/<int:analysis_id>/rejected/<int:group>/",
        results.analysis_rejected_nodes,
        name="analysis-rejected-nodes",
    ),
    path(
        "analyses/<int:analysis_id>/cycles/<int:cycle>/explain/",
        cycles.analysis_cycle_explain,
        name="analysis-cycle-explain",
    ),
    path("analyses/<int:analysis_id>/retry/", results.analysis_retry, name="analysis-retry"),
    path("analyses/<int:analysis_id>/delete/", actions.analysis_delete, name="analysis-delete"),
    path("analyses/<int:analysis_id>/rerun/", actions.analysis_rerun, name="analysis-rerun"),
    path(
        "analyses/<int:analysis_id>/export.<str:fmt>",
        actions.analysis_export,
        name="analysis-export",
    ),
    path(
        "analyses/<int:analysis_id>/share-links/",
        share.share_link_create,
        name="share-link-create",
    ),
    path(
        "analyses/<int:analysis_id>/share-links/<share_token:token>/revoke/",
        share.share_link_revoke,
        name="share-link-revoke",
    ),
    path("s/<share_token:token>/", share.shared_analysis, name="share"),
    path(
        "s/<share_token:token>/rejected/<int:group>/",
        share.shared_rejected_nodes,
        name="share-rejected-nodes",
    ),
]
