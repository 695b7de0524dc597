"""How the service runs: health checks, throttling, request limits and faults, incident
records, durable work (leases and the reconciler), the memo of expensive answers and the
API's plumbing (body parser, schema hooks). The configuration that wires them in stays
in config/."""
