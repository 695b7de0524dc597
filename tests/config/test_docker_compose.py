"""No Docker engine runs here, so the compose file is checked as data."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_it_defines_the_five_services_with_health_checks():
    services = _compose()["services"]
    assert set(services) == {"web", "worker", "beat", "redis", "postgres"}
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no health check"
        assert service["healthcheck"]["test"], name


def test_web_and_worker_wait_for_healthy_backing_services():
    services = _compose()["services"]
    for name in ("web", "worker", "beat"):
        depends = services[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://")
        assert env["REDIS_URL"].startswith("redis://redis:")
        assert env["DEBUG"] == "0"


def test_web_migrates_on_start_and_serves_with_gunicorn():
    command = _compose()["services"]["web"]["command"]
    assert "migrate" in command
    assert command.index("migrate") < command.index("gunicorn")


def test_the_database_lives_on_a_volume():
    compose = _compose()
    assert "pgdata" in compose["volumes"]
    assert "pgdata:/var/lib/postgresql/data" in compose["services"]["postgres"]["volumes"]


def test_the_dockerfile_installs_the_lock_file():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "requirements.lock" in dockerfile
    assert "collectstatic" in dockerfile


def test_it_keeps_secure_cookies_and_sets_hsts_by_default():
    env = _compose()["services"]["web"]["environment"]
    assert env["SESSION_COOKIE_SECURE"].endswith(":-true}")
    assert env["CSRF_COOKIE_SECURE"].endswith(":-true}")
    assert int(env["SECURE_HSTS_SECONDS"].split(":-")[1].rstrip("}")) >= 31536000


BEAT = "celery -A config beat -S django_celery_beat.schedulers:DatabaseScheduler"


def test_one_beat_sends_the_schedules_kept_in_the_database():
    services = _compose()["services"]
    assert services["beat"]["command"].startswith(BEAT)
    assert not any("beat" in str(s.get("command")) for n, s in services.items() if n != "beat")
    # The workers read connected clusters with the kubeconfig the environment names.
    assert "CONNECTED_KUBECONFIG" in services["worker"]["environment"]
    assert "install_kubectl.py" in (ROOT / "Dockerfile").read_text()


def test_make_run_runs_beat_beside_the_worker():
    procfile = dict(
        line.split(": ", 1) for line in (ROOT / "Procfile.dev").read_text().splitlines() if line
    )
    assert set(procfile) == {"web", "worker", "beat"}
    assert procfile["beat"].startswith(BEAT)
