"""What the what-if forms share: a quantity field read as the API server reads it, with
a hint in the form's words."""

from __future__ import annotations

from django import forms

from scheduling.engine.quantity import QuantityError, parse_quantity

# How to write each request, said once: the hint under its box and in its error.
QUANTITY_HINTS = {
    "cpu": "Write cores or millicores: 2, 0.5 or 500m.",
    "memory": "Write a number and a unit: 512Mi or 4Gi (powers of 1024), 500M or 4G (powers of 1000).",
    "ephemeral_storage": "Write a number and a unit: 10Gi or 500Mi.",
    "gpu": "Write a whole number of GPUs: 1, 2, 4.",
}


QUANTITY_WHAT = {
    "cpu": "an amount of CPU",
    "memory": "an amount of memory",
    "ephemeral_storage": "an amount of ephemeral storage",
    "gpu": "a number of GPUs",
}


def quantity_field(field: str, raw: str) -> str:
    """A request box's text checked as Kubernetes reads quantities, the error in plain words."""
    text = raw.strip()
    if not text:
        return ""
    hint = QUANTITY_HINTS[field]
    try:
        amount = parse_quantity(text)
    except QuantityError:
        raise forms.ValidationError(
            f"“{text}” is not {QUANTITY_WHAT[field]} Kubernetes can read. {hint}"
        ) from None
    if amount < 0:
        raise forms.ValidationError(f"A request cannot be negative. {hint}")
    if field == "gpu" and amount.denominator != 1:
        raise forms.ValidationError(f"GPUs come whole: “{text}” is a fraction. {hint}")
    return text
