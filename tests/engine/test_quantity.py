from fractions import Fraction

import pytest

from scheduling.engine import quantity
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
    "text", ["", "abc", "1.2.3", "1Ki2", "1 Gi", "1KI", "1ki", "--1", "1e", "0x10", "1.5.Gi"]
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


# More of TestQuantityParse's table (apimachinery quantity_test.go): each input with the
# value of its expected decQuantity(mantissa, scale).
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8Ki", Fraction(8 * 1024)),
        ("3Ei", Fraction(3 * 2**60)),
        ("50k", Fraction(5 * 10**4)),
        ("40T", Fraction(4 * 10**13)),
        ("1e14", Fraction(10**14)),
        ("100.035k", Fraction(100035)),
        ("0.0005k", Fraction(5, 10)),
        ("0.00050k", Fraction(5, 10)),
        ("0.5e-2", Fraction(5, 1000)),
        ("10.035M", Fraction(10035 * 10**3)),
        ("1.3E+6", Fraction(13 * 10**5)),
        ("1.53E12", Fraction(153 * 10**10)),
        ("6.987654321G", Fraction(6987654321)),
        ("1.01E", Fraction(101 * 10**16)),
        ("100.035Ki", Fraction(10243584, 100)),
        ("0.05Gi", Fraction(536870912, 10)),
        ("0.025Ti", Fraction(274877906944, 10)),
        (".0001k", Fraction(100, 1000)),
        ("1.", Fraction(1)),
        ("1.G", Fraction(10**9)),
        # Saturation: maxAllowed is the int64 maximum.
        ("9Ei", Fraction(2**63 - 1)),
        ("9223372036854775807Ki", Fraction(2**63 - 1)),
        # TestParseQuantityString: "." and "-." scan as zero; a bare suffix has a zero
        # numerator ("if we stripped all numerator positions, always return 0").
        (".", Fraction(0)),
        ("-.", Fraction(0)),
        ("-", Fraction(0)),
        ("Mi", Fraction(0)),
    ],
)
def test_parse_more_golden(text: str, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


# TestQuantityParse's "Things that saturate/round": parsing rounds up to 1n, so every
# coarser rounding (MilliValue, Value) sees the value rounded up too.
@pytest.mark.parametrize(
    ("text", "nanos"),
    [
        ("3.001n", 4),
        ("1.1E-9", 2),
        ("0.0000000001", 1),
        ("0.0000000005", 1),
        ("0.5e-9", 1),
        ("0.9n", 1),
        ("0.00000012345", 124),
        ("0.000000000001Ki", 2),
        ("1e-1000000", 1),
    ],
)
def test_rounds_up_to_nano(text: str, nanos: int) -> None:
    assert _ceil_nanos(parse_quantity(text)) == nanos
    assert milli_value(text) == 1
    assert value(text) == 1


def _ceil_nanos(v: Fraction) -> int:
    return -((-v.numerator * 10**9) // v.denominator)


# TestQuantityParse's invalid list (the ones that do not depend on later releases).
@pytest.mark.parametrize(
    "text", ["1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-"]
)
def test_parse_rejects_golden(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


def test_huge_exponents_saturate_instead_of_failing() -> None:
    assert parse_quantity("1e1001") == Fraction(2**63 - 1)
    assert parse_quantity("-1e1001") == -Fraction(2**63 - 1)
    assert parse_quantity(10**30) == Fraction(2**63 - 1)


MAX_INT64 = 2**63 - 1


# Thousands of digits: Python refuses int() of more than 4,300, and is quadratic long
# before that. ParseQuantity reads any length exactly (inf.Dec), rounding up to 1n.
@pytest.mark.parametrize(
    ("text", "expected_value", "expected_milli"),
    [
        ("9" * 5001, MAX_INT64, MAX_INT64 * 1000),
        ("0." + "0" * 5000 + "1", 1, 1),
        ("1." + "0" * 5000 + "1", 2, 1001),
        ("0" * 5000 + "250m", 1, 250),
        ("2" + "0" * 5000 + "e-5000", 2, 2000),
        ("1" + "0" * 30 + "Ki", MAX_INT64, MAX_INT64 * 1000),
    ],
)
def test_quantities_of_thousands_of_digits_are_read_exactly(
    text: str, expected_value: int, expected_milli: int
) -> None:
    assert quantity.value(text) == expected_value
    assert quantity.milli_value(text) == expected_milli


def test_a_binary_quantity_of_too_many_significant_digits_is_refused_with_the_count() -> None:
    with pytest.raises(quantity.QuantityError, match="65 significant digits; at most 64"):
        quantity.value("1." + "1" * 64 + "Ki")


def test_an_exponent_beyond_int64_is_refused_without_reading_it() -> None:
    with pytest.raises(quantity.QuantityError, match="characters"):
        quantity.value("1e" + "9" * 5000)


@pytest.mark.parametrize("raw", [float("nan"), float("inf"), float("-inf")])
def test_a_non_finite_number_is_not_a_quantity(raw: float) -> None:
    with pytest.raises(quantity.QuantityError, match="not a finite number"):
        quantity.value(raw)
