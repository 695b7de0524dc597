"""The ways to submit a what-if by form, a module per kind of analysis as services/ is
split: a manifest (pod or workload, manifest.py), the short form and a clone of a pod
(pod.py), a controller scaled up (workload.py), a size in every class (capacity.py), nodes
taken away (take_nodes_away.py), and what they share (common.py).

Each form builds what the API would be given and has scheduling/analyses/submission.py read it, so
a bad quantity or an unknown class is shown next to the field it came from, in the
engine's own words. This package only re-exports; its modules import each other by
module.
"""

from .capacity import RoomForm
from .manifest import ManifestForm
from .pod import CloneForm, PodForm
from .take_nodes_away import TakeNodesAwayForm
from .workload import ScaleUpForm

__all__ = [
    "CloneForm",
    "ManifestForm",
    "PodForm",
    "RoomForm",
    "ScaleUpForm",
    "TakeNodesAwayForm",
]
