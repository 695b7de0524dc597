"""ImageLocality: prefer nodes that already hold the pod's images, scaled by spread."""

from __future__ import annotations

from ..cluster import NodeInfo
from ..framework import MAX_NODE_SCORE, CycleState, Handle
from ..objects import Pod
from . import names

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """Images without a tag are pulled as ":latest"."""
    if name.rfind(":") <= name.rfind("/"):
        name += ":latest"
    return name


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality:
    name = names.IMAGE_LOCALITY

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        cluster = self.handle.cluster
        total = len(cluster.nodes)
        images = node_info.node.images
        s = 0
        for image in pod.images:
            img = normalized_image_name(image)
            if img in images:
                spread = cluster.image_num_nodes[img] / total
                s += int(cluster.image_size[img] * spread)
        return calculate_priority(s, pod.num_containers)
