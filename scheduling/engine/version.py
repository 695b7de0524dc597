"""The engine's version, part of every stored answer's and stored cluster's key."""

# Part of the key of stored (pickled) clusters: bump it whenever Cluster or the objects
# it holds change shape, or an answer stored before would now read differently (1.1:
# ResourceQuotas and pods naming a deleted class kept; 1.2: each node's victim order kept
# across what-ifs, the advice's per-namespace pod index, and a timed run's time zero the
# second after the latest pod start; 1.3: the storage objects and pods' volumes, read by
# the four volume plugins; 1.4: with them, the DRA objects and pods' resource claims,
# read by DynamicResources).
ENGINE_VERSION = "1.4 (kube-scheduler v1.35)"
