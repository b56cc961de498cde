"""Money in words: integer cents shown in currency units, and back.

The one place every app formats an amount (pages, template filters, CSV,
error messages). Amounts are integer cents everywhere else.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

CURRENCY_SYMBOLS = {
    "USD": "$",
    "EUR": "€",
    "GBP": "£",
    "AUD": "A$",
    "CAD": "C$",
    "NZD": "NZ$",
    "JPY": "¥",
    "CHF": "CHF ",
    "SEK": "SEK ",
    "NOK": "NOK ",
    "DKK": "DKK ",
}


def format_cents(amount: int, currency: str = "", *, grouping: bool = True) -> str:
    """12345 -> "123.45" ("1,234.56" with thousands grouped; ``grouping=False`` for machine-read CSV).

    With a currency the code follows the number: "123.45 EUR".
    """
    sign = "-" if amount < 0 else ""
    whole, cents = divmod(abs(int(amount)), 100)
    text = f"{sign}{whole:,}.{cents:02d}" if grouping else f"{sign}{whole}.{cents:02d}"
    return f"{text} {currency}".strip()


def money(cents: int | None, currency: str = "USD") -> str:
    """'$0.25', '-$5.00', '€1.00'; other currencies as 'PLN 2.50'; None as ''."""
    if cents is None:
        return ""
    sign = "-" if cents < 0 else ""
    symbol = CURRENCY_SYMBOLS.get(currency.upper(), f"{currency.upper()} ")
    return f"{sign}{symbol}{format_cents(abs(int(cents)))}"


def cents_from_units(value: Decimal | str | int) -> int:
    """0.25 -> 25. Raises ValueError for more than two decimal places or a non-number."""
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError("Not an amount") from None
    if not amount.is_finite():
        raise ValueError("Not an amount")
    cents = amount * 100
    if cents != cents.to_integral_value():
        raise ValueError("Use at most two decimal places")
    return int(cents)


def units_from_cents(cents: int) -> Decimal:
    """25 -> Decimal('0.25'), for form initial values."""
    return (Decimal(cents) / 100).quantize(Decimal("0.01"))
