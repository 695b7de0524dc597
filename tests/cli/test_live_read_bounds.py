"""The CLI's and the MCP server's live reads are bounded as a worker's is: an endless
pods list from the API server fails fast naming the size (MAX_UPLOAD_MB from the
environment), and the MCP server's read has a time limit."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from preemptlab.kube import DEFAULT_TIMEOUT, Kubectl
from tests.cli.conftest import POD, ROOT, user_env
from tests.cli.fake_apiserver import FakeAPIServer
from tests.cli.test_cli import _demo_objects


def test_the_cli_stops_an_endless_list_at_max_upload_mb(tmp_path: Path) -> None:
    with FakeAPIServer(_demo_objects(), endless={"pods"}).running(tmp_path) as kubeconfig:
        t0 = time.monotonic()
        r = subprocess.run(
            [sys.executable, "-m", "preemptlab", "whatif", "-f", str(POD),
             "--kubeconfig", str(kubeconfig)],
            cwd=ROOT, env=user_env(tmp_path, MAX_UPLOAD_MB="16"), capture_output=True,
            timeout=120, check=False,
        )  # fmt: skip
        took = time.monotonic() - t0
    assert r.returncode == 2, r.stderr
    assert "the cluster's pods list is larger than 16 MB" in r.stderr.decode()
    assert took < 30


def test_the_mcp_servers_read_has_a_time_limit_and_the_bounds(tmp_path: Path) -> None:
    assert Kubectl().timeout == DEFAULT_TIMEOUT and Kubectl().max_bytes
    with FakeAPIServer(_demo_objects(), endless={"pods"}).running(tmp_path) as kubeconfig:
        code = (
            "from preemptlab.mcp_server import _said, snapshot_summary\n"
            "try:\n    _said(snapshot_summary)()\nexcept Exception as e:\n    print(e)\n"
        )
        r = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=120,
            env=user_env(tmp_path, MAX_UPLOAD_MB="16", KUBECONFIG=str(kubeconfig)), check=False,
        )  # fmt: skip
    assert "the cluster's pods list is larger than 16 MB" in r.stdout.decode(), r.stderr
