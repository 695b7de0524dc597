"""An analysis as data, in and out: what a what-if submits, read and checked before
anything is stored (submission.py); what a finished one stored, read back (explanations.py
for a pod's explanation, workloads.py for a workload's run); and a finished answer
rendered once per process (rendered_cache.py). Imports nothing itself: import the module
you need."""
