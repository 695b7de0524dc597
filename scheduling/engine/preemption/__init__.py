"""PostFilter: the generic preemption evaluator and DefaultPreemption's policy."""
