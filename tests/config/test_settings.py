"""Settings come from the environment, and production refuses unsafe ones."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _settings(env: dict[str, str], expr: str) -> subprocess.CompletedProcess[str]:
    code = (
        "import os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'\n"
        "from django.conf import settings\n"
        f"print(({expr}))\n"
    )
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL")
    }
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True
    )


def test_it_refuses_to_start_without_a_secret_key_when_debug_is_off(tmp_path):
    run = _settings({"DEBUG": "0", "PREEMPTLAB_VAR_DIR": str(tmp_path)}, "settings.SECRET_KEY")
    assert run.returncode != 0
    assert "SECRET_KEY must be set" in run.stderr


def test_it_uses_secure_cookies_when_debug_is_off(tmp_path):
    run = _settings(
        {"DEBUG": "0", "SECRET_KEY": "x" * 50, "PREEMPTLAB_VAR_DIR": str(tmp_path)},
        "settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "(True, True)"


def test_it_defaults_to_sqlite_and_the_filesystem_broker(tmp_path):
    run = _settings(
        {"DEBUG": "1", "PREEMPTLAB_VAR_DIR": str(tmp_path)},
        "settings.DATABASES['default']['ENGINE'], settings.DATABASES['default']['NAME'], settings.CELERY_BROKER_URL",
    )
    assert run.returncode == 0, run.stderr
    assert "sqlite3" in run.stdout
    assert str(tmp_path) in run.stdout
    assert "filesystem://" in run.stdout


def test_it_reads_database_and_redis_urls(tmp_path):
    run = _settings(
        {
            "DEBUG": "1",
            "PREEMPTLAB_VAR_DIR": str(tmp_path),
            "DATABASE_URL": "postgres://u:p@db.example:5433/pl",
            "REDIS_URL": "redis://cache.example:6380/2",
        },
        "settings.DATABASES['default']['HOST'], settings.DATABASES['default']['PORT'], settings.CELERY_BROKER_URL",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "('db.example', 5433, 'redis://cache.example:6380/2')"


def test_it_reads_the_upload_limit_in_megabytes(tmp_path):
    run = _settings(
        {"DEBUG": "1", "PREEMPTLAB_VAR_DIR": str(tmp_path), "MAX_UPLOAD_MB": "3"},
        "settings.MAX_UPLOAD_BYTES",
    )
    assert run.stdout.strip() == str(3 * 1024 * 1024)


def test_it_reads_the_secret_key_kept_under_var(tmp_path):
    (tmp_path / "secret_key").write_text("k" * 50 + "\n")
    run = _settings({"DEBUG": "0", "PREEMPTLAB_VAR_DIR": str(tmp_path)}, "settings.SECRET_KEY")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "k" * 50


def test_a_pods_own_address_is_a_host_it_answers(tmp_path):
    """Prometheus scrapes /metrics by the pod's address (POD_IP, the downward API's)."""
    for pod_ip, host in (("10.1.2.3", "10.1.2.3"), ("fd00::7", "[fd00::7]")):
        run = _settings(
            {"DEBUG": "1", "PREEMPTLAB_VAR_DIR": str(tmp_path), "POD_IP": pod_ip,
             "ALLOWED_HOSTS": "preemptlab.example.com,localhost"},
            "settings.ALLOWED_HOSTS",
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == str(["preemptlab.example.com", "localhost", host])
