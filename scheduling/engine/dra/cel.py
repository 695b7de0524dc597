"""CEL device selectors, evaluated by cel-python (celpy) with the Kubernetes
extensions DRA selectors use: ``quantity()`` values with ``compareTo``,
``isGreaterThan``, ``isLessThan``, ``asInteger``, ``asApproximateFloat``, ``sign``,
``isInteger``; and semantic versions (``semver()`` and the ``version`` attributes) with
``compareTo``, ``isGreaterThan``, ``isLessThan``, ``major``, ``minor``, ``patch``.

The device a selector sees is kube's ``cel.Device``: ``device.driver``,
``device.attributes[domain][name]`` and ``device.capacity[domain][name]`` (a short
attribute name belongs to the driver's domain).

Bounds: an expression longer than the API server accepts (CELSelectorExpressionMaxLength)
or whose estimated cost is above CELSelectorExpressionMaxCost (each operand costs 1, a
comprehension's body as many times as a device has attributes at most) is refused, and
so is one the library cannot compile or evaluate (an unknown function,
a missing attribute, a type error): the error names the expression, it is never read as
true or false.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any

import celpy
from celpy import celtypes

from ..quantity import QuantityError, parse_quantity
from .objects import AttrValue, Device

# resourceapi.CELSelectorExpressionMaxLength and CELSelectorExpressionMaxCost.
MAX_EXPRESSION_LENGTH = 10 * 1024
MAX_EXPRESSION_COST = 1_000_000
# The most elements a comprehension walks in a device (ResourceSliceMaxAttributesAndCapacitiesPerDevice):
# what the cost estimate multiplies a macro's body by, as CEL's estimator uses a
# collection's declared maximum size.
MAX_ELEMENTS = 32
_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
# How many device views the evaluation cache keeps per process.
_CACHE_SIZE = 1 << 16


class CelError(Exception):
    """An expression that cannot be compiled or evaluated (the scheduler's Error)."""


class Quantity:
    """A resource.Quantity inside CEL (compared exactly, as a fraction)."""

    __slots__ = ("value",)

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Quantity({self.value})"


_SEMVER = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?")


class Semver:
    """A semantic version (blang/semver's order: pre-releases before the release)."""

    __slots__ = ("key", "text")

    def __init__(self, text: str) -> None:
        m = _SEMVER.fullmatch(text)
        if m is None:
            raise CelError(f"invalid semantic version {text!r}")
        self.text = text
        pre = m.group(4)
        pre_key: tuple[Any, ...] = (1,)
        if pre:
            pre_key = (
                0,
                *((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")),
            )
        self.key = (int(m.group(1)), int(m.group(2)), int(m.group(3)), pre_key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def _cmp(a: Any, b: Any) -> int:
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        x, y = a.value, b.value
    elif isinstance(a, Semver) and isinstance(b, Semver):
        x, y = a.key, b.key  # type: ignore[assignment]
    else:
        raise CelError(f"compareTo: cannot compare {type(a).__name__} and {type(b).__name__}")
    return (x > y) - (x < y)


def _quantity(text: Any) -> Quantity:
    try:
        return Quantity(parse_quantity(str(text)))
    except QuantityError as e:
        raise CelError(str(e)) from None


def _q(a: Any, name: str) -> Quantity:
    if not isinstance(a, Quantity):
        raise CelError(f"{name}: not a quantity")
    return a


def _v(a: Any, name: str) -> Semver:
    if not isinstance(a, Semver):
        raise CelError(f"{name}: not a semantic version")
    return a


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "quantity": _quantity,
    "semver": lambda text: Semver(str(text)),
    "isSemver": lambda text: celtypes.BoolType(_SEMVER.fullmatch(str(text)) is not None),
    "isQuantity": lambda text: celtypes.BoolType(_is_quantity(str(text))),
    "compareTo": lambda a, b: celtypes.IntType(_cmp(a, b)),
    "isGreaterThan": lambda a, b: celtypes.BoolType(_cmp(a, b) > 0),
    "isLessThan": lambda a, b: celtypes.BoolType(_cmp(a, b) < 0),
    "asInteger": lambda a: celtypes.IntType(int(_q(a, "asInteger").value)),
    "asApproximateFloat": lambda a: celtypes.DoubleType(float(_q(a, "asApproximateFloat").value)),
    "isInteger": lambda a: celtypes.BoolType(_q(a, "isInteger").value.denominator == 1),
    "sign": lambda a: celtypes.IntType((_q(a, "sign").value > 0) - (_q(a, "sign").value < 0)),
    "add": lambda a, b: Quantity(_q(a, "add").value + (b.value if isinstance(b, Quantity) else b)),
    "sub": lambda a, b: Quantity(_q(a, "sub").value - (b.value if isinstance(b, Quantity) else b)),
    "major": lambda a: celtypes.IntType(_v(a, "major").key[0]),
    "minor": lambda a: celtypes.IntType(_v(a, "minor").key[1]),
    "patch": lambda a: celtypes.IntType(_v(a, "patch").key[2]),
}


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


_ENV = celpy.Environment()


@lru_cache(maxsize=1024)
def compile_selector(expression: str) -> Any:
    """The compiled program (CelError when the expression is refused)."""
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise CelError(
            f"expression is {len(expression)} characters long, more than the "
            f"{MAX_EXPRESSION_LENGTH} the API server accepts"
        )
    try:
        tree = _ENV.compile(expression)
    except Exception as e:  # celpy raises its own parse errors
        raise CelError(f"compilation failed: {e}") from None
    cost = estimated_cost(tree)
    if cost > MAX_EXPRESSION_COST:
        raise CelError(
            f"estimated cost {cost} is above the limit of {MAX_EXPRESSION_COST} the API "
            "server accepts"
        )
    return _ENV.program(tree, functions=_FUNCTIONS)


def estimated_cost(tree: Any) -> int:
    """An upper bound of the evaluation's cost: every operand 1, a comprehension's
    predicate times MAX_ELEMENTS."""
    children = getattr(tree, "children", None)
    if children is None:
        return 1  # a token
    if getattr(tree, "data", "") == "member_dot_arg" and len(children) >= 2:
        method = str(children[1])
        if method in _MACROS:
            target = estimated_cost(children[0])
            body = sum(estimated_cost(c) for c in children[2:])
            return target + MAX_ELEMENTS * body
    return sum(estimated_cost(c) for c in children) or 1


# A selector can only read a map entry by a name written in it, unless it walks or
# measures the maps (macros, size) or builds names: then the whole device counts.
_WALKS = re.compile(r"\b(exists|exists_one|all|map|filter|size|string|dyn)\s*\(|\+")


def _attr_cel(v: AttrValue) -> Any:
    if v.kind == "string":
        return celtypes.StringType(str(v.value))
    if v.kind == "int":
        return celtypes.IntType(int(v.value))
    if v.kind == "bool":
        return celtypes.BoolType(bool(v.value))
    return Semver(str(v.value))


def _split(name: str, driver: str) -> tuple[str, str]:
    domain, sep, short = name.rpartition("/")
    return (domain, short) if sep else (driver, name)


def _view(device: Device, expression: str) -> tuple[Any, ...]:
    """What of the device the expression can read: the cache key of its answer."""
    walks = _WALKS.search(expression) is not None
    attrs = tuple(
        sorted(
            (k, v.kind, v.value)
            for k, v in device.attributes.items()
            if walks or _split(k, device.driver)[1] in expression
        )
    )
    caps = tuple(
        sorted(
            (k, v)
            for k, v in device.capacity.items()
            if walks or _split(k, device.driver)[1] in expression
        )
    )
    return (device.driver, attrs, caps)


def _activation(
    driver: str, attrs: tuple[tuple[str, str, Any], ...], caps: tuple[tuple[str, Fraction], ...]
) -> dict[str, Any]:
    attributes: dict[Any, Any] = {celtypes.StringType(driver): celtypes.MapType({})}
    for name, kind, value in attrs:
        domain, short = _split(name, driver)
        attributes.setdefault(celtypes.StringType(domain), celtypes.MapType({}))[
            celtypes.StringType(short)
        ] = _attr_cel(AttrValue(kind, value))
    capacity: dict[Any, Any] = {celtypes.StringType(driver): celtypes.MapType({})}
    for name, value in caps:
        domain, short = _split(name, driver)
        capacity.setdefault(celtypes.StringType(domain), celtypes.MapType({}))[
            celtypes.StringType(short)
        ] = Quantity(value)
    return {
        "device": celtypes.MapType(
            {
                celtypes.StringType("driver"): celtypes.StringType(driver),
                celtypes.StringType("attributes"): celtypes.MapType(attributes),
                celtypes.StringType("capacity"): celtypes.MapType(capacity),
                celtypes.StringType("allowMultipleAllocations"): celtypes.BoolType(False),
            }
        )
    }


@lru_cache(maxsize=_CACHE_SIZE)
def _evaluate(expression: str, view: tuple[Any, ...]) -> bool | str:
    """True/False, or the error's words."""
    try:
        program = compile_selector(expression)
    except CelError as e:
        return str(e)
    try:
        result = program.evaluate(_activation(*view))
    except CelError as e:
        return str(e)
    except Exception as e:  # celpy's CELEvalError and the like
        return f"CEL runtime error: {e.args[0] if e.args else e}"
    if not isinstance(result, (bool, celtypes.BoolType)):
        return f"CEL runtime error: the expression returned {type(result).__name__}, not a bool"
    return bool(result)


def selector_matches(expression: str, device: Device) -> bool:
    """Whether the device satisfies the selector; CelError when it cannot be told."""
    got = _evaluate(expression, _view(device, expression))
    if isinstance(got, str):
        raise CelError(got)
    return got
