"""What the pages and the reports say and draw of an answer, one module per kind: a
pod's (pod), a workload's run (workload), the run on a clock (timeline), how many
replicas fit (capacity). Django's escaping, no models."""
