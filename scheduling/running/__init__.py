"""How an analysis runs on a worker, whatever its kind: what one run may take and how many
one user may have waiting (budgets.py), a deleted run stopped and its slot freed
(cancellation.py), the parsed clusters a worker process keeps (cluster_cache.py).
Imports nothing itself: import the module you need."""
