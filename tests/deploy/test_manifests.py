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
# No watch: the live read lists, it never watches.
READ_VERBS = {"get", "list"}

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
    accounts = {a["metadata"]["name"]: a for a in of_kind(objects, "ServiceAccount")}
    (subject,) = binding["subjects"]
    reader_account = accounts[subject["name"]]
    assert subject == {
        "kind": "ServiceAccount",
        "name": reader_account["metadata"]["name"],
        "namespace": reader_account["metadata"]["namespace"],
    }
    # No account mounts its token unless its pod asks.
    assert all(a.get("automountServiceAccountToken") is False for a in accounts.values())
    # Exactly one Deployment mounts a token: the reader, which consumes only the queue of
    # cluster reads, and runs as the one bound account. Every other pod runs as an
    # account no binding names, with no token.
    mounting = {
        name: d
        for name, d in app_deployments(objects).items()
        if d["spec"]["template"]["spec"].get("automountServiceAccountToken") is not False
    }
    assert list(mounting) == ["reader"], list(mounting)
    reader = mounting["reader"]["spec"]["template"]["spec"]
    assert reader["serviceAccountName"] == subject["name"]
    assert consumed_queues(objects, reader["containers"][0]) == ["cluster-reads"]
    for component, deployment in app_deployments(objects).items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["serviceAccountName"] in accounts, component
        if component != "reader":
            assert pod["serviceAccountName"] != subject["name"], component
            assert pod["automountServiceAccountToken"] is False, component


def consumed_queues(objects: list[dict[str, Any]], container: dict[str, Any]) -> list[str]:
    """The queues a Celery worker container consumes (its -Q); every worker names them."""
    command = container["command"]
    assert command[:4] == ["celery", "-A", "config", "worker"], command
    assert "-Q" in command, f"{container['name']}: a worker names its queues"
    return str(command[command.index("-Q") + 1]).split(",")


@pytest.mark.parametrize("where", RENDERINGS)
def test_web_worker_and_beat_run_as_the_manifests_say(where: str) -> None:
    deployments = app_deployments(rendered(where))
    assert set(deployments) == {"web", "worker", "reader", "alerts", "beat"}
    commands = {
        name: [c["command"] for c in d["spec"]["template"]["spec"]["containers"]]
        for name, d in deployments.items()
    }
    assert commands["web"][0][0] == "gunicorn" and "config.wsgi:application" in commands["web"][0]
    # Each worker Deployment consumes one queue: the one the settings route its tasks to
    # (config/queues.py), so no task is left on a queue nobody consumes.
    objects = rendered(where)
    setting = {
        "worker": "CELERY_QUEUE",
        "reader": "PREEMPTLAB_CLUSTER_READS_QUEUE",
        "alerts": "PREEMPTLAB_ALERTS_QUEUE",
    }
    for component, name in setting.items():
        (c,) = deployments[component]["spec"]["template"]["spec"]["containers"]
        assert consumed_queues(objects, c) == [app_environment(objects, c)[name]], component
    assert app_environment(objects, c)["PREEMPTLAB_CLUSTER_READS_QUEUE"] == "cluster-reads"
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
        assert pod_security["runAsNonRoot"] is True
        # The app's pods fix no user, group or fsGroup: the platform picks them (the
        # image's 10001 on Kubernetes; the namespace's range under OpenShift's
        # restricted-v2). A demo database of an overlay may fix a high one.
        app = any(c["image"].startswith(APP_IMAGE + ":") for c in containers(pod))
        for fixed in ("runAsUser", "runAsGroup", "fsGroup"):
            assert not (app or where.endswith("openshift")) or fixed not in pod_security
            assert pod_security.get(fixed, 10001) > 10000
        assert pod_security["seccompProfile"] == {"type": "RuntimeDefault"}
        assert not pod.get("hostNetwork") and not pod.get("hostPID") and not pod.get("hostIPC")
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        for c in containers(pod):
            name = f"{where}: {deployment['metadata']['name']}/{c['name']}"
            security = c["securityContext"]
            assert security["runAsNonRoot"] is True, name
            assert not {"runAsUser", "runAsGroup"} & set(security), name
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
    # Liveness asks nothing of the database or the broker: the web's /healthz, and each
    # worker's own heartbeat file (operations/alive.py), which its thread touches.
    objects = rendered(where)
    for component in ("worker", "reader", "alerts"):
        (c,) = deployments[component]["spec"]["template"]["spec"]["containers"]
        command = c["livenessProbe"]["exec"]["command"]
        assert command[:3] == ["python", "-m", "operations.alive"], component
        heartbeat_file = app_environment(objects, c).get(
            "PREEMPTLAB_HEARTBEAT_FILE", "/tmp/preemptlab-worker-alive"
        )
        assert command[3] == heartbeat_file and command[3].startswith("/tmp/"), component
        assert float(command[4]) >= 4 * 15  # a few heartbeats (every 15 s) may be missed


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
    # /metrics' bearer token: the web's, from the same Secret (optional: without it
    # /metrics answers 401, the pods still start).
    (web,) = app_deployments(objects)["web"]["spec"]["template"]["spec"]["containers"]
    token = next(v for v in web["env"] if v["name"] == "METRICS_TOKEN")
    assert token["valueFrom"]["secretKeyRef"] == {
        "name": secret_name,
        "key": "METRICS_TOKEN",
        "optional": True,
    }
    secrets = of_kind(objects, "Secret")
    if where.endswith("with-postgres-redis"):
        # The demo generates the Secret it names, with every key it reads.
        secret = one(objects, "Secret", secret_name)
        assert {"DATABASE_URL", "REDIS_URL", "SECRET_KEY", "METRICS_TOKEN"} <= set(secret["data"])
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
    assert CHECKOV.exists(), (
        f"{CHECKOV}: make test (install-test) puts checkov in a venv of its own"
    )
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


# -- OpenShift, egress, and what production needs ------------------------------------------


def pod_selected(policy: dict[str, Any], labels: dict[str, str]) -> bool:
    selector = policy["spec"]["podSelector"]
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for e in selector.get("matchExpressions", []):
        assert e["operator"] == "In", e
        if labels.get(e["key"]) not in e["values"]:
            return False
    return True


def egress_ports(objects: list[dict[str, Any]], labels: dict[str, str]) -> set[int]:
    """Every port the pod may connect to (the union of the Egress policies selecting it)."""
    ports: set[int] = set()
    for policy in of_kind(objects, "NetworkPolicy"):
        if "Egress" in policy["spec"]["policyTypes"] and pod_selected(policy, labels):
            for rule in policy["spec"].get("egress", []):
                ports |= {p["port"] for p in rule["ports"]}
    return ports


def test_the_openshift_overlay_fixes_no_user_and_serves_through_an_edge_route() -> None:
    objects = rendered("overlays/openshift")
    text = rendered_text("overlays/openshift")
    assert not re.search(r"\b(runAsUser|runAsGroup|fsGroup)\b", text)
    for deployment in of_kind(objects, "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert all(c["securityContext"]["runAsNonRoot"] is True for c in containers(pod))
    assert of_kind(objects, "Ingress") == []
    (route,) = of_kind(objects, "Route")
    assert route["apiVersion"] == "route.openshift.io/v1"
    assert route["spec"]["tls"] == {
        "termination": "edge",
        "insecureEdgeTerminationPolicy": "Redirect",
    }
    (service,) = [s for s in of_kind(objects, "Service") if s["metadata"]["name"] == "preemptlab"]
    assert route["spec"]["to"] == {"kind": "Service", "name": "preemptlab", "weight": 100}
    assert route["spec"]["port"]["targetPort"] in {p["name"] for p in service["spec"]["ports"]}
    config = one(objects, "ConfigMap", "preemptlab-settings")["data"]
    assert route["spec"]["host"] in config["ALLOWED_HOSTS"].split(",")
    assert config["PREEMPTLAB_BASE_URL"] == f"https://{route['spec']['host']}"
    # OpenShift's DNS pods listen on 5353.
    web = app_deployments(objects)["web"]["spec"]["template"]["metadata"]["labels"]
    assert {53, 5353} <= egress_ports(objects, web)


@pytest.mark.parametrize("where", RENDERINGS)
def test_every_pod_is_held_by_an_egress_policy_to_what_it_needs(where: str) -> None:
    objects = rendered(where)
    policies = [
        p for p in of_kind(objects, "NetworkPolicy") if "Egress" in p["spec"]["policyTypes"]
    ]
    store = {53, 5353, 5432, 6379, 6380}  # DNS, PostgreSQL, Redis
    for deployment in of_kind(objects, "Deployment"):
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        name = f"{where}: {deployment['metadata']['name']}"
        assert any(pod_selected(p, labels) for p in policies), f"{name}: no egress policy"
        ports = egress_ports(objects, labels)
        component = labels["app.kubernetes.io/component"]
        if component in ("web", "worker", "beat"):
            assert ports <= store and {53, 5432, 6379} <= ports, (name, ports)
        elif component == "reader":
            assert ports - store == {443, 6443}, (name, ports)  # the API server
        elif component == "alerts":
            assert ports - store == {443, 80}, (name, ports)  # the receivers
        else:  # the demo's PostgreSQL and Redis connect to nothing
            assert ports == set(), (name, ports)
    (alerts,) = [p for p in policies if p["metadata"]["name"] == "preemptlab-alerts-egress"]
    for block in (t["ipBlock"] for rule in alerts["spec"]["egress"] for t in rule["to"]):
        if block["cidr"] == "0.0.0.0/0":
            assert {"10.0.0.0/8", "169.254.0.0/16", "127.0.0.0/8"} <= set(block["except"])


@pytest.mark.parametrize("where", RENDERINGS)
def test_the_namespace_enforces_restricted_and_the_pods_have_their_own_priority(
    where: str,
) -> None:
    objects = rendered(where)
    (namespace,) = of_kind(objects, "Namespace")
    labels = namespace["metadata"]["labels"]
    for mode in ("enforce", "audit", "warn"):
        assert labels[f"pod-security.kubernetes.io/{mode}"] == "restricted"
    (priority,) = of_kind(objects, "PriorityClass")
    # Above ordinary workloads (0), far below the platform's critical classes (10^9).
    assert 0 < priority["value"] < 10**9 and priority["globalDefault"] is False
    assert priority["preemptionPolicy"] == "Never"
    for component, deployment in app_deployments(objects).items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["priorityClassName"] == priority["metadata"]["name"], component
    # The web replicas spread over nodes, on the web pods' own labels.
    web = app_deployments(objects)["web"]["spec"]["template"]
    keys = {c["topologyKey"] for c in web["spec"]["topologySpreadConstraints"]}
    assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}
    for c in web["spec"]["topologySpreadConstraints"]:
        assert c["labelSelector"]["matchLabels"].items() <= web["metadata"]["labels"].items()


def package_version() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    found = re.search(r'(?m)^version = "([^"]+)"', text)
    assert found
    return found.group(1)


@pytest.mark.parametrize("where", RENDERINGS)
def test_the_image_tag_is_the_packages_version(where: str) -> None:
    version = package_version()
    for deployment in app_deployments(rendered(where)).values():
        for c in containers(deployment["spec"]["template"]["spec"]):
            if c["image"].startswith(APP_IMAGE + ":"):
                assert c["image"] == f"{APP_IMAGE}:{version}"
    assert f'org.opencontainers.image.version="{version}"' in (ROOT / "Dockerfile").read_text()


def test_production_names_its_ingress_class_and_believes_no_wide_network() -> None:
    import ipaddress

    objects = rendered("overlays/production")
    (ingress,) = of_kind(objects, "Ingress")
    assert ingress["spec"]["ingressClassName"]
    config = one(objects, "ConfigMap", "preemptlab-settings")["data"]
    proxies = [ipaddress.ip_network(a) for a in config["PREEMPTLAB_PROXY_ADDRESSES"].split(",")]
    assert proxies and all(n.prefixlen >= 24 for n in proxies), proxies
    assert config["PREEMPTLAB_BASE_URL"].startswith("https://")


def test_the_monitoring_component_scrapes_with_the_secrets_token() -> None:
    objects = rendered("overlays/openshift")
    (monitor,) = of_kind(objects, "ServiceMonitor")
    (service,) = [s for s in of_kind(objects, "Service") if s["metadata"]["name"] == "preemptlab"]
    assert (
        monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    )
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] in {p["name"] for p in service["spec"]["ports"]}
    assert endpoint["path"] == "/metrics"
    assert endpoint["authorization"] == {
        "type": "Bearer",
        "credentials": {"name": "preemptlab", "key": "METRICS_TOKEN"},
    }
    (rule,) = of_kind(objects, "PrometheusRule")
    exprs = " ".join(r["expr"] for g in rule["spec"]["groups"] for r in g["rules"])
    for metric in (
        "preemptlab_cluster_read_failing",
        "preemptlab_cluster_last_read_success_timestamp_seconds",
        "preemptlab_pdbs_at_zero",
        "preemptlab_preemptions_total",
    ):
        assert metric in exprs
    # The web pod answers a scrape by its address (Host: the pod's IP).
    (web,) = app_deployments(objects)["web"]["spec"]["template"]["spec"]["containers"]
    pod_ip = next(v for v in web["env"] if v["name"] == "POD_IP")
    assert pod_ip["valueFrom"] == {"fieldRef": {"fieldPath": "status.podIP"}}


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
    # A numeric user (the kubelet checks runAsNonRoot on it) in group 0: OpenShift runs
    # the image as any UID of the namespace's range, always in group 0.
    assert users and users[-1] == "10001"
    assert "useradd --system --uid 10001 --gid 0" in dockerfile
    assert "-g 0 -m 0770 /app/var /app/staticfiles" in dockerfile
    assert "chmod -R g=u /app/staticfiles" in dockerfile
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
