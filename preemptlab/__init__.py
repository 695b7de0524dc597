"""The preemptlab command: what-ifs on snapshot files or the current kubectl context,
with no server and no database (``preemptlab --help``; also ``kubectl preemptlab``)."""
