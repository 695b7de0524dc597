"""Loading remembers what pods repeat (containers, label maps, start times): a pod read
through a remembered answer must equal one read afresh, and any difference in what
those answers are derived from must be told apart."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from scheduling.engine import InvalidInput
from scheduling.engine import objects as engine_objects
from scheduling.engine.objects import Pod

from .builders import make_pod


def _forget() -> None:
    engine_objects._CONTAINER_FACTS.clear()
    engine_objects._STR_MAPS.clear()
    engine_objects._TIMES_NS.clear()


def _fields(pod: Pod) -> dict[str, Any]:
    return {name: getattr(pod, name) for name in Pod.__slots__}


def _afresh(obj: dict[str, Any]) -> dict[str, Any]:
    _forget()
    return _fields(Pod.from_dict(copy.deepcopy(obj)))


def _base() -> dict[str, Any]:
    obj = (
        make_pod("web-1")
        .labels(app="web", tier="api")
        .node_selector(zone="a")
        .start_time("2025-06-01T00:00:00.123456789Z")
        .req(cpu="500m", memory="1Gi")
        .host_port(8080)
        .init_container(cpu="100m", memory="64Mi")
        .obj()
    )
    # Limits equal to requests everywhere: Guaranteed, which any changed limit undoes.
    for container in (_container(obj), _init(obj)):
        container["resources"]["limits"] = dict(container["resources"]["requests"])
    return obj


def _container(obj: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = obj["spec"]["containers"][0]
    return container


def _init(obj: dict[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = obj["spec"]["initContainers"][0]
    return container


# One change each to a field the container parsing reads.
VARIANTS: dict[str, Callable[[dict[str, Any]], None]] = {
    "request": lambda o: _container(o)["resources"]["requests"].update(cpu="501m"),
    "request as a number": lambda o: _container(o)["resources"]["requests"].update(cpu=1),
    "limit": lambda o: _container(o)["resources"]["limits"].update(memory="2Gi"),
    "host port": lambda o: _container(o)["ports"][0].update(hostPort=8081),
    "host port protocol": lambda o: _container(o)["ports"][0].update(protocol="UDP"),
    "image": lambda o: _container(o).update(image="app:2"),
    "init restartPolicy": lambda o: _init(o).update(restartPolicy="Always"),
    "init request": lambda o: _init(o)["resources"]["requests"].update(cpu="2"),
    "overhead": lambda o: o["spec"].update(overhead={"cpu": "100m"}),
    "pod-level requests": lambda o: o["spec"].update(resources={"requests": {"cpu": "3"}}),
    "labels": lambda o: o["metadata"]["labels"].update(tier="web"),
    "node selector": lambda o: o["spec"]["nodeSelector"].update(zone="b"),
    "start time": lambda o: o["status"].update(startTime="2025-06-01T00:00:01.123456789Z"),
}


@pytest.mark.parametrize("change", sorted(VARIANTS))
def test_a_changed_field_is_not_answered_from_memory(change: str) -> None:
    changed = _base()
    VARIANTS[change](changed)
    want = _afresh(changed)
    assert want != _afresh(_base())
    _forget()
    Pod.from_dict(_base())  # remembered first
    got = _fields(Pod.from_dict(changed))
    assert got == want


def test_a_pod_read_from_memory_equals_one_read_afresh() -> None:
    want = _afresh(_base())
    Pod.from_dict(_base())
    got = Pod.from_dict(_base())
    assert _fields(got) == want


def test_values_of_another_type_are_not_answered_from_memory() -> None:
    # Equal in Python (1 == 1.0 == True) or written the same way in JSON, but read apart.
    _forget()
    Pod.from_dict(_base())
    as_tuple = _base()
    as_tuple["spec"]["containers"] = tuple(as_tuple["spec"]["containers"])
    with pytest.raises(InvalidInput, match="must be a list"):
        Pod.from_dict(as_tuple)
    flag = _base()
    _container(flag)["ports"][0]["hostPort"] = True
    with pytest.raises(InvalidInput, match="must be an integer"):
        Pod.from_dict(flag)
    number_label = _base()
    number_label["metadata"]["labels"]["tier"] = 1
    with pytest.raises(InvalidInput, match="value of 'tier' must be a string"):
        Pod.from_dict(number_label)
