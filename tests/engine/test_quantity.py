from fractions import Fraction

import pytest

from scheduling.engine.quantity import (
    QuantityError,
    milli_value,
    parse_quantity,
    resource_value,
    value,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Golden cases of apimachinery's quantity_test.go (TestQuantityParse).
        ("0", Fraction(0)),
        ("0n", Fraction(0)),
        ("0Ki", Fraction(0)),
        ("1", Fraction(1)),
        ("1n", Fraction(1, 10**9)),
        ("1u", Fraction(1, 10**6)),
        ("1m", Fraction(1, 1000)),
        ("1k", Fraction(1000)),
        ("1M", Fraction(10**6)),
        ("1G", Fraction(10**9)),
        ("1T", Fraction(10**12)),
        ("1P", Fraction(10**15)),
        ("1E", Fraction(10**18)),
        ("1Ki", Fraction(1024)),
        ("1Mi", Fraction(2**20)),
        ("1Gi", Fraction(2**30)),
        ("1Ti", Fraction(2**40)),
        ("1Pi", Fraction(2**50)),
        ("1Ei", Fraction(2**60)),
        ("1e3", Fraction(1000)),
        ("1E6", Fraction(10**6)),
        ("1e-3", Fraction(1, 1000)),
        ("1.5", Fraction(3, 2)),
        (".5", Fraction(1, 2)),
        ("5.", Fraction(5)),
        ("1.5Gi", Fraction(3 * 2**29)),
        ("0.25", Fraction(1, 4)),
        ("-1", Fraction(-1)),
        ("+1", Fraction(1)),
        ("15242340Ki", Fraction(15242340 * 1024)),
        ("128974848", Fraction(128974848)),
        ("512M", Fraction(512 * 10**6)),
        ("3920m", Fraction(3920, 1000)),
    ],
)
def test_parse_golden(text: str, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    "text", ["", "abc", "1.2.3", "1Ki2", "1 Gi", "Mi", "1KI", "1ki", "--1", "1e", "0x10", "1.5.Gi"]
)
def test_parse_rejects(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


def test_value_rounds_up_away_from_zero() -> None:
    assert value("0.5") == 1
    assert value("1n") == 1
    assert value("-0.5") == -1
    assert milli_value("0.1m") == 1
    assert milli_value("1.5") == 1500
    assert milli_value("100m") == 100


def test_resource_value_uses_millicores_for_cpu_only() -> None:
    assert resource_value("cpu", "2") == 2000
    assert resource_value("memory", "1Gi") == 2**30
    assert resource_value("nvidia.com/gpu", "1") == 1
    assert resource_value("pods", 110) == 110
