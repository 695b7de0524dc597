"""deploy/kubernetes rendered by the real `kubectl kustomize` (the base and every
overlay) and read as the API server would get it: the ServiceAccount's permissions are
exactly the live read's, every container is locked down, probed and bounded, the
settings come from a Secret and a ConfigMap, and checkov finds nothing left unexplained
(deploy/kubernetes/checkov-skips.yaml). The image's Dockerfile too."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from preemptlab.kube import OPENSHIFT_SCHEDULER, OPTIONAL_RESOURCES, RESOURCES

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
OVERLAYS = sorted(p.parent.name for p in (KUBERNETES / "overlays").glob("*/kustomization.yaml"))
RENDERINGS = ["base", *(f"overlays/{name}" for name in OVERLAYS)]
CHECKOV = ROOT / ".venv-checkov" / "bin" / "checkov"
SKIPS = KUBERNETES / "checkov-skips.yaml"
APP_IMAGE = "ghcr.io/preemptlab/preemptlab"
READ_VERBS = {"get", "list", "watch"}

# What the live read asks for (preemptlab/kube.py): the snapshot's resources, the quotas
# and the events beside them, the volume and device objects (each names its group), and
# OpenShift's Scheduler by name. API group of each.
GROUPS = {
    "nodes": "",
    "pods": "",
    "resourcequotas": "",
    "events": "",
    "poddisruptionbudgets": "policy",
    "priorityclasses": "scheduling.k8s.io",
}


def _kubectl() -> str:
    found = shutil.which("kubectl")
    assert found, "kubectl is needed to render the manifests (kubectl kustomize)"
    return found


@cache
def rendered_text(where: str) -> str:
    proc = subprocess.run(
        [_kubectl(), "kustomize", str(KUBERNETES / where)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"kubectl kustomize {where}: {proc.stderr}"
    return proc.stdout


def rendered(where: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(rendered_text(where)) if d]


def of_kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def one(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [o for o in of_kind(objects, kind) if o["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} found"
    return found[0]


def app_deployments(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """preemptlab's own Deployments (the image's), by component."""
    return {
        d["metadata"]["labels"]["app.kubernetes.io/component"]: d
        for d in of_kind(objects, "Deployment")
        if any(
            c["image"].startswith(APP_IMAGE + ":")
            for c in d["spec"]["template"]["spec"]["containers"]
        )
    }


def containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [*pod.get("initContainers", []), *pod["containers"]]


def expected_rules() -> set[tuple[str, str, frozenset[str], tuple[str, ...]]]:
    """(apiGroup, resource, verbs, resourceNames) the live read needs, and no more."""
    asked = {*RESOURCES, "resourcequotas", "events"}  # read_quotas, read_events
    rules = {(GROUPS[r], r, frozenset(READ_VERBS), ()) for r in asked}
    rules |= {
        (r.group, r.plural, frozenset(READ_VERBS), ())
        for resources in OPTIONAL_RESOURCES.values()
        for r in resources
    }
    resource, _, name = OPENSHIFT_SCHEDULER.partition("/")  # get schedulers.config... cluster
    plural, _, group = resource.partition(".")
    rules.add((group, plural, frozenset({"get"}), (name,)))
    return rules


@pytest.mark.parametrize("where", RENDERINGS)
def test_the_service_account_may_read_exactly_what_the_live_read_asks(where: str) -> None:
    objects = rendered(where)
    (role,) = of_kind(objects, "ClusterRole")
    assert not of_kind(objects, "Role") and not of_kind(objects, "RoleBinding")
    got = set()
    for rule in role["rules"]:
        assert set(rule) <= {"apiGroups", "resources", "verbs", "resourceNames"}, rule
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                got.add(
                    (
                        group,
                        resource,
                        frozenset(rule["verbs"]),
                        tuple(rule.get("resourceNames", ())),
                    )
                )
    assert got == expected_rules()
    # Said another way, so that a change to the read cannot widen it unnoticed.
    resources = {r for _, r, _, _ in got}
    assert not resources & {"secrets", "configmaps", "*", "pods/exec", "pods/log"}
    assert set().union(*(verbs for _, _, verbs, _ in got)) <= READ_VERBS
    assert "*" not in {g for g, _, _, _ in got}

    (binding,) = of_kind(objects, "ClusterRoleBinding")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": role["metadata"]["name"],
    }
    (account,) = of_kind(objects, "ServiceAccount")
    assert binding["subjects"] == [
        {
            "kind": "ServiceAccount",
            "name": account["metadata"]["name"],
            "namespace": account["metadata"]["namespace"],
        }
    ]
    # Every app pod runs as that account; its token is mounted only where it reads.
    assert account.get("automountServiceAccountToken") is False
    for component, deployment in app_deployments(objects).items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["serviceAccountName"] == account["metadata"]["name"]
        assert pod["automountServiceAccountToken"] is (component == "worker"), component


@pytest.mark.parametrize("where", RENDERINGS)
def test_web_worker_and_beat_run_as_the_manifests_say(where: str) -> None:
    deployments = app_deployments(rendered(where))
    assert set(deployments) == {"web", "worker", "beat"}
    commands = {
        name: [c["command"] for c in d["spec"]["template"]["spec"]["containers"]]
        for name, d in deployments.items()
    }
    assert commands["web"][0][0] == "gunicorn" and "config.wsgi:application" in commands["web"][0]
    assert commands["worker"][0][:4] == ["celery", "-A", "config", "worker"]
    assert commands["beat"][0][:6] == [
        "celery",
        "-A",
        "config",
        "beat",
        "-S",
        "django_celery_beat.schedulers:DatabaseScheduler",
    ]
    # Exactly one beat, never two alive during a rollout.
    beat = deployments["beat"]["spec"]
    assert beat["replicas"] == 1 and beat["strategy"] == {"type": "Recreate"}
    # The web pods migrate before they serve.
    init = deployments["web"]["spec"]["template"]["spec"]["initContainers"]
    assert [c["command"] for c in init] == [["python", "manage.py", "migrate", "--no-input"]]
    # The Service reaches the web pods' port.
    objects = rendered(where)
    (service,) = [s for s in of_kind(objects, "Service") if s["metadata"]["name"] == "preemptlab"]
    web_labels = deployments["web"]["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= web_labels.items()
    web = deployments["web"]["spec"]["template"]["spec"]["containers"][0]
    assert service["spec"]["ports"][0]["targetPort"] in {p["name"] for p in web["ports"]}


@pytest.mark.parametrize("where", RENDERINGS)
def test_every_container_is_locked_down_bounded_and_writes_only_to_its_volumes(
    where: str,
) -> None:
    objects = rendered(where)
    for deployment in of_kind(objects, "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        pod_security = pod["securityContext"]
        assert pod_security["runAsNonRoot"] is True and pod_security["runAsUser"] > 10000
        assert pod_security["seccompProfile"] == {"type": "RuntimeDefault"}
        assert not pod.get("hostNetwork") and not pod.get("hostPID") and not pod.get("hostIPC")
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        for c in containers(pod):
            name = f"{where}: {deployment['metadata']['name']}/{c['name']}"
            security = c["securityContext"]
            assert security["runAsNonRoot"] is True, name
            assert security["allowPrivilegeEscalation"] is False, name
            assert security["readOnlyRootFilesystem"] is True, name
            assert security["capabilities"] == {"drop": ["ALL"]}, name
            assert not security.get("privileged"), name
            assert security.get("seccompProfile", pod_security["seccompProfile"]) == {
                "type": "RuntimeDefault"
            }, name
            for bound in ("requests", "limits"):
                assert set(c["resources"][bound]) == {"cpu", "memory"}, name
            # Pinned: a tag that is not latest, or a digest.
            assert re.search(r"(:[\w.-]+|@sha256:[0-9a-f]{64})$", c["image"]), name
            assert not c["image"].endswith(":latest"), name
            mounts = {m["mountPath"]: volumes[m["name"]] for m in c.get("volumeMounts", [])}
            if c["image"].startswith(APP_IMAGE + ":"):
                env = app_environment(objects, c)
                for path in ("/tmp", env["PREEMPTLAB_VAR_DIR"]):
                    assert "emptyDir" in mounts[path], f"{name}: {path}"


@pytest.mark.parametrize("where", RENDERINGS)
def test_web_is_probed_on_healthz_and_readyz_and_the_worker_is_pinged(where: str) -> None:
    deployments = app_deployments(rendered(where))
    (web,) = deployments["web"]["spec"]["template"]["spec"]["containers"]
    port = web["ports"][0]
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = web[probe]["httpGet"]
        assert get["path"] == path and get["port"] in (port["name"], port["containerPort"])
        # The probes' Host is one the app answers (ALLOWED_HOSTS), not the pod's IP.
        host = {h["name"]: h["value"] for h in get["httpHeaders"]}["Host"]
        allowed = app_environment(rendered(where), web)["ALLOWED_HOSTS"].split(",")
        assert host in allowed
    (worker,) = deployments["worker"]["spec"]["template"]["spec"]["containers"]
    assert "inspect ping" in " ".join(worker["livenessProbe"]["exec"]["command"])


def app_environment(objects: list[dict[str, Any]], container: dict[str, Any]) -> dict[str, Any]:
    """The variables a container is given: its ConfigMaps' keys (envFrom) and its env, a
    secretKeyRef as ("secret", name, key)."""
    env: dict[str, Any] = {}
    for source in container.get("envFrom", []):
        config = one(objects, "ConfigMap", source["configMapRef"]["name"])
        env |= config.get("data", {})
    for var in container.get("env", []):
        ref = var.get("valueFrom", {}).get("secretKeyRef")
        env[var["name"]] = ("secret", ref["name"], ref["key"]) if ref else var.get("value", "")
    return env


@pytest.mark.parametrize("where", RENDERINGS)
def test_database_broker_and_key_come_from_the_secret(where: str) -> None:
    objects = rendered(where)
    for deployment in app_deployments(objects).values():
        for c in containers(deployment["spec"]["template"]["spec"]):
            env = app_environment(objects, c)
            refs = {name: env[name] for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY")}
            assert all(isinstance(v, tuple) and v[0] == "secret" for v in refs.values()), refs
            assert {v[2] for v in refs.values()} == set(refs)  # each key named as itself
            assert len({v[1] for v in refs.values()}) == 1
            secret_name = next(iter(refs.values()))[1]
            # In-cluster reads need no kubeconfig; DEBUG is off.
            assert env["CONNECTED_KUBECONFIG"] == "" and env["DEBUG"] == "0"
            assert env["CONNECTED_SERVICEACCOUNT_DIR"] == (
                "/var/run/secrets/kubernetes.io/serviceaccount"
            )
    secrets = of_kind(objects, "Secret")
    if where.endswith("with-postgres-redis"):
        # The demo generates the Secret it names, with every key it reads.
        secret = one(objects, "Secret", secret_name)
        assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY"} <= set(secret["data"])
        # ... and the PostgreSQL and Redis it names are there.
        services = {s["metadata"]["name"] for s in of_kind(objects, "Service")}
        assert {"postgres", "redis"} <= services
    else:
        # Anywhere else the Secret is the operator's, made beside, never committed.
        assert secrets == []


def test_the_web_pod_gets_the_namespace_file_and_no_token() -> None:
    objects = rendered("base")
    pod = app_deployments(objects)["web"]["spec"]["template"]["spec"]
    (web,) = pod["containers"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    folder = app_environment(objects, web)["CONNECTED_SERVICEACCOUNT_DIR"]
    (mount,) = [m for m in web["volumeMounts"] if m["mountPath"] == folder]
    sources = volumes[mount["name"]]["projected"]["sources"]
    assert sources == [
        {
            "downwardAPI": {
                "items": [{"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}]
            }
        }
    ]


# -- checkov ---------------------------------------------------------------------------


def skip_list() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = yaml.safe_load(SKIPS.read_text())
    return entries


def test_every_skipped_check_says_why() -> None:
    for entry in skip_list():
        assert re.fullmatch(r"CKV2?_K8S_\d+", entry["id"]), entry
        assert len(str(entry.get("reason") or "").split()) >= 8, f"{entry['id']}: no reason"
        assert entry.get("resources"), f"{entry['id']}: which resources it may fail on"


def checkov(path: Path, framework: str) -> subprocess.CompletedProcess[str]:
    """checkov's JSON report on one file (offline: nothing downloaded); exit 1 when a
    check failed."""
    assert CHECKOV.exists(), f"{CHECKOV}: make install puts checkov in a venv of its own"
    command = [str(CHECKOV), "-f", str(path), "--framework", framework, "-o", "json"]
    return subprocess.run(
        [*command, "--skip-download", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@cache
def checkov_failures(where: str, tmp: Path) -> list[tuple[str, str]]:
    """(check id, resource name) of every failed Kubernetes check of the rendering."""
    path = tmp / f"{where.replace('/', '-')}.yaml"
    path.write_text(rendered_text(where))
    proc = checkov(path, "kubernetes")
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    reports = json.loads(proc.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    failed = []
    for report in reports:
        # "--quiet" with nothing failed prints the summary alone.
        for check in report.get("results", {}).get("failed_checks", []):
            failed.append((check["check_id"], check["resource"].rpartition(".")[2]))
    return failed


@pytest.fixture(scope="module")
def checkov_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("checkov")


@pytest.mark.parametrize("where", RENDERINGS)
def test_checkov_finds_nothing_left_unexplained(where: str, checkov_tmp: Path) -> None:
    allowed = {(e["id"], r) for e in skip_list() for r in e["resources"]}
    unexplained = sorted(set(checkov_failures(where, checkov_tmp)) - allowed)
    assert unexplained == [], f"checkov on {where}: failed and not in {SKIPS.name}"


def test_checkov_fails_what_the_skip_list_explains_and_nothing_is_skipped_for_nothing(
    checkov_tmp: Path,
) -> None:
    failed = set().union(*(set(checkov_failures(w, checkov_tmp)) for w in RENDERINGS))
    stale = [
        (e["id"], r) for e in skip_list() for r in e["resources"] if (e["id"], r) not in failed
    ]
    assert stale == [], f"{SKIPS.name} explains checks that no longer fail"


# -- the image -------------------------------------------------------------------------


def test_the_image_is_built_in_stages_runs_unprivileged_and_collects_its_static_files(
    tmp_path: Path,
) -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    instructions = [
        line.split(None, 1) for line in dockerfile.splitlines() if line and line[0].isupper()
    ]
    stages = [rest for word, rest in instructions if word == "FROM"]
    assert len(stages) >= 2 and any("COPY --from=build" in line for line in dockerfile.splitlines())
    users = [rest.strip() for word, rest in instructions if word == "USER"]
    assert users and users[-1].split(":")[0] == "10001"
    # The manifests run it as that user.
    for deployment in app_deployments(rendered("base")).values():
        assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == 10001
    after_user = dockerfile[dockerfile.rindex("USER ") :]
    assert "collectstatic" in after_user
    assert "PREEMPTLAB_STATIC_ROOT=/app/staticfiles" in dockerfile
    proc = checkov(ROOT / "Dockerfile", "dockerfile")
    assert proc.returncode == 0, proc.stdout[-3000:]


# -- the README ------------------------------------------------------------------------


def settings_table() -> set[str]:
    """The variables the README's settings table names (each backticked name of a row's
    first cell; a ``_SUFFIX`` continues the name before it)."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Settings", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        previous = ""
        for name in re.findall(r"`([A-Z_][A-Z0-9_]*)`", line.split(" | ", 1)[0]):
            name = previous.rsplit("_", 2)[0] + name if name.startswith("_") else name
            names.add(name)
            previous = name
    return names


def test_the_readme_settings_table_names_every_variable_the_manifests_set() -> None:
    table = settings_table()
    assert {"DATABASE_URL", "PREEMPTLAB_LOGIN_FAILURES_PER_ADDRESS"} <= table  # read right
    for where in RENDERINGS:
        objects = rendered(where)
        for deployment in app_deployments(objects).values():
            for c in containers(deployment["spec"]["template"]["spec"]):
                missing = sorted(set(app_environment(objects, c)) - table)
                assert missing == [], f"{where}: {c['name']} sets {missing}, not in the README"
    # The image's own too.
    image_env = re.findall(r"\b(PREEMPTLAB_[A-Z_]+)=", (ROOT / "Dockerfile").read_text())
    assert sorted(set(image_env) - table) == []
