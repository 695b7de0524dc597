"""The house's floors, read from the source with ``ast``: every import counts, those
under ``if TYPE_CHECKING:`` and inside functions included (a circle that only a type
or a late import hides is still a circle).

- ``scheduling/engine`` is the ground floor: no import circle among its modules
  (packages' ``__init__`` included), and nothing of Django nor of the apps above it;
- the apps (every top-level package but the tests and the benchmarks) have no circle
  among their modules, across apps too: a service never imports a tasks module (it
  enqueues by task name, operations.faults.publish), the tasks module imports the service;
- the installed CLI's modules (``preemptlab/``) have no circle, and only the entry
  point (``preemptlab/__main__.py`` and the console scripts) imports ``preemptlab.cli``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The project's own top-level packages (the apps, config, the CLI, the tests): the engine
# imports none of them but itself.
PACKAGES = tuple(sorted(p.parent.name for p in ROOT.glob("*/__init__.py")))


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(path: Path, root: Path = ROOT) -> str:
    name = module_name(path, root)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported(path: Path, root: Path = ROOT) -> Iterator[str]:
    """Every module name ``path`` imports, wherever the import statement stands; for
    ``from m import n``, ``m`` (a package's ``__init__`` runs and counts as the package)
    and ``m.n`` too when that is a module of the tree: ``from . import patch`` imports
    the package as much as its sibling, ``from .patch import apply`` the sibling only."""
    tree = ast.parse(path.read_text(), filename=str(path))
    here = package_of(path, root)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if is_module(sub, root):
                    yield sub


def is_module(name: str, root: Path = ROOT) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def graph(*packages: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports."""
    files = sorted(f for p in packages for f in root.joinpath(*p.split(".")).rglob("*.py"))
    nodes = {module_name(f, root): f for f in files}
    return {
        name: {m for m in imported(f, root) if m in nodes and m != name}
        for name, f in nodes.items()
    }


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_circles_are_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_imports_under_type_checking_and_in_functions_count(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from ..a import A\n")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n"
    )
    (pkg / "b.py").write_text("def f():\n    from pkg import sub\n")
    edges = graph("pkg", root=tmp_path)
    assert edges["pkg.a"] == {"pkg.b"}
    assert edges["pkg.b"] == {"pkg", "pkg.sub"}
    assert edges["pkg.sub"] == {"pkg.a"}
    assert circles(edges) == [["pkg.a", "pkg.b", "pkg.sub"]]


def test_a_package_imported_by_its_own_module_is_a_circle(tmp_path):
    # The facade imports its child, the child takes a sibling through the facade: the
    # package's __init__ runs on both sides, a circle the child's "from . import" hides.
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .question import ask\n")
    (pkg / "question.py").write_text("from . import patch\n")
    (pkg / "patch.py").write_text("")
    edges = graph("pkg", root=tmp_path)
    assert edges["pkg.question"] == {"pkg", "pkg.patch"}
    assert circles(edges) == [["pkg", "pkg.question"]]
    # Importing the sibling by its module leaves the package out.
    (pkg / "question.py").write_text("from .patch import apply\n")
    edges = graph("pkg", root=tmp_path)
    assert edges["pkg.question"] == {"pkg.patch"}
    assert circles(edges) == []


def test_the_project_packages_are_found():
    assert {"config", "operations", "clusters", "scheduling", "planning", "preemptlab"} <= set(
        PACKAGES
    )


def test_no_import_circle_in_the_engine():
    assert circles(graph("scheduling.engine")) == []


def test_the_engine_imports_nothing_above_it():
    above = {
        f"{module_name(f)}: {m}"
        for f in sorted((ROOT / "scheduling" / "engine").rglob("*.py"))
        for m in imported(f)
        if m.split(".")[0] in ("django", "rest_framework", "celery", *PACKAGES)
        and not m.startswith("scheduling.engine")
    }
    assert above == set()


# Not the house: the tests and the benchmarks, which import what they measure.
APPS = tuple(p for p in PACKAGES if p not in ("tests", "bench"))


def test_no_import_circle_in_the_apps():
    assert circles(graph(*APPS)) == []


def is_services(name: str) -> bool:
    return "services" in name.split(".")


def is_tasks(name: str) -> bool:
    return name.rpartition(".")[2].endswith("tasks")


def test_services_never_import_tasks():
    edges = graph(*APPS)
    assert {
        f"{m}: {t}" for m, ts in edges.items() if is_services(m) for t in ts if is_tasks(t)
    } == set()
    # The rule's other half, so the check above has something to hold: tasks call services.
    assert "scheduling.services" in edges["scheduling.tasks"] or any(
        is_services(t) for t in edges["scheduling.tasks"]
    )


def test_no_import_circle_in_the_cli():
    assert circles(graph("preemptlab")) == []


def test_only_the_entry_point_imports_the_cli():
    importers = {
        module_name(f)
        for package in PACKAGES
        if package != "tests"  # the tests call the entry point as a user does
        for f in sorted((ROOT / package).rglob("*.py"))
        if "preemptlab.cli" in imported(f)
    }
    assert importers <= {"preemptlab.__main__"}


def test_the_scheduling_app_keeps_only_entry_points_at_its_top():
    # Django's entry points, the app's states and its URL converters; everything else
    # lives in a room of its own (README, Layout).
    top = {p.stem for p in (ROOT / "scheduling").glob("*.py")}
    assert top <= {
        "__init__",
        "admin",
        "apps",
        "constants",
        "converters",
        "models",
        "selectors",
        "tasks",
        "urls",
    }
    assert (ROOT / "scheduling" / "scheduler_config" / "__init__.py").is_file()
