"""kube-scheduler's default in-tree plugins, one module per plugin."""
