"""{{ amount|usd }} -> "$1,234.56", "−$538.09" (minus sign before the dollar), "–" for None."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template

register = template.Library()


@register.filter
def usd(value: Any) -> str:
    if value is None or value == "":
        return "–"
    amount = Decimal(str(value)).quantize(Decimal("0.01"))
    sign = "−" if amount < 0 else ""
    return f"{sign}${abs(amount):,.2f}"
