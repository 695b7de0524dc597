"""Connected clusters: sources staff define, read on a schedule into ordinary snapshots."""
