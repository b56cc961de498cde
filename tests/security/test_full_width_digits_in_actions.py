"""An amount is read from the ASCII digits 0-9 only: Python's int() also reads full-width and other scripts'
digits, a sign, spaces inside and underscores, so 'bet:２５' was a bet of 25 cents."""

from __future__ import annotations

import pytest

from games.forms import act_request_parse
from kernel.errors import DomainError


@pytest.mark.parametrize("typed", ["２５", "٢٥", "२५", "2５", "𝟐𝟓"])
def test_other_digits_are_refused_with_a_clear_error(typed) -> None:
    with pytest.raises(DomainError, match="The amount must be written with the digits 0 to 9."):
        act_request_parse(hand="", version="0", action=f"bet:{typed}")
    with pytest.raises(DomainError, match="The amount must be written with the digits 0 to 9."):
        act_request_parse(hand="", version="0", action="bet", amount=typed)


@pytest.mark.parametrize("typed", ["2_5", "+25", "2 5", "25.0", "-25", "0x19"])
def test_other_spellings_of_a_number_are_refused(typed) -> None:
    with pytest.raises(DomainError, match="The amount must be a whole number of cents."):
        act_request_parse(hand="", version="0", action=f"bet:{typed}")


def test_ascii_digits_still_read() -> None:
    assert act_request_parse(hand="", version="0", action="bet:25").action.amount == 25
    assert act_request_parse(hand="", version="0", action="raise", amount=" 50 ").action.amount == 50
