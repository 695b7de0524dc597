"""What the page benchmarks share: the size arguments, and a logged-in client over a
large snapshot ingested into a throwaway PostgreSQL database."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def size_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=150000)
    ap.add_argument("--pdbs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)


@contextmanager
def large_snapshot_client(args: argparse.Namespace) -> Iterator[tuple[Any, Any]]:
    """(client logged in as the owner, the ingested snapshot); the database goes after."""
    from bench.analysis_bench import _cluster_file, ingest_cluster_file

    path = _cluster_file(args.nodes, args.pods, args.pdbs, args.seed)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]
    if connection.vendor != "postgresql":
        raise SystemExit("Run the benchmark on PostgreSQL.")
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        owner, snapshot = ingest_cluster_file(path)
        client = Client()
        client.force_login(owner)
        yield client, snapshot
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
