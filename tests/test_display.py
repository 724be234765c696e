"""The one display rule: expected strings are written out by hand."""

import numpy as np

from lesson_data.display import PLACES, fmt, fmt_int, fmt_pct, fmt_sci


def test_default_places_is_three():
    assert PLACES == 3
    assert fmt(1.0) == "1.000"
    assert fmt(4.879036790187178) == "4.879"  # 6.9 / sqrt(2) = 4.87903...


def test_rounds_half_even_on_exact_binary_halves():
    # 0.125 and 0.375 are exact in binary, so these are true ties: half-even picks the even digit.
    assert fmt(0.125, 2) == "0.12"
    assert fmt(0.375, 2) == "0.38"
    assert fmt(2.5, 0) == "2"
    assert fmt(3.5, 0) == "4"


def test_negative_zero_reads_as_zero():
    assert fmt(-0.0) == "0.000"
    assert fmt(-0.0004) == "0.000"  # rounds to zero: no sign without magnitude
    assert fmt(-0.0004, 1) == "0.0"
    assert fmt(-0.4, 0) == "0"


def test_negatives_use_ascii_hyphen_minus():
    text = fmt(-0.0179)
    assert text == "-0.018"
    assert text[0] == "\u002d" and "\u2212" not in text


def test_accepts_numpy_scalars():
    assert fmt(np.float64(2.3)) == "2.300"
    assert fmt(np.float32(0.5), 1) == "0.5"


def test_fmt_int_thousands_separators():
    assert fmt_int(2332832) == "2,332,832"
    assert fmt_int(16) == "16"
    assert fmt_int(1000) == "1,000"
    assert fmt_int(np.int64(4096)) == "4,096"


def test_fmt_pct_scales_a_fraction():
    assert fmt_pct(0.1234) == "12.3%"
    assert fmt_pct(1.0) == "100.0%"
    assert fmt_pct(0.5, 0) == "50%"
    assert fmt_pct(-0.00001) == "0.0%"


def test_fmt_sci_tiny_measured_differences():
    # expected strings written by hand: one mantissa decimal, exponent without "+" or zero padding
    assert fmt_sci(8.881784197001252e-16) == "8.9e-16"
    assert fmt_sci(3.3306690738754696e-16) == "3.3e-16"
    assert fmt_sci(2.220446049250313e-16) == "2.2e-16"
    assert fmt_sci(1.0e-5) == "1.0e-5"
    assert fmt_sci(1234.0, 2) == "1.23e3"
    assert fmt_sci(-0.00025) == "-2.5e-4"
    assert fmt_sci(np.float64(9.96e-16)) == "1.0e-15"   # mantissa rounding carries into the exponent


def test_fmt_sci_zero_and_non_finite():
    assert fmt_sci(0.0) == "0"
    assert fmt_sci(-0.0) == "0"
    assert fmt_sci(float("inf")) == "inf"
    assert fmt_sci(float("nan")) == "nan"


def test_places_for_gives_each_table_its_own_precision():
    from lesson_data.display import places_for
    from lesson_data.worksheet import compute_worksheet
    ws = compute_worksheet("river")
    assert places_for([2.3, 0.0, -0.1]) == 1          # hand-chosen inputs: one decimal
    assert places_for([1.0, 4.0, 0.0]) == 0
    assert places_for([0.5, 0.25]) == 2
    assert places_for([0.7181, 1.0]) == 3             # anything finer: the display rule's three
    assert places_for(ws.E) == 1                      # E = token rows + position rows, tenths
    assert places_for(ws.heads[0].weights[-1]) == 3   # computed weights
    assert places_for([]) == 0


def test_the_voice_rounds_after_about_by_one_rule():
    from lesson_data.display import fmt_about
    # by hand: one decimal from 1 up, two places below; the display rule's half-up and no "-0"
    assert fmt_about(2.2247) == "2.2" and fmt_about(2.617) == "2.6" and fmt_about(2.023) == "2.0"
    assert fmt_about(0.718) == "0.72" and fmt_about(0.0528) == "0.05" and fmt_about(-0.0718) == "-0.07"
    assert fmt_about(-0.001) == "0.00"
