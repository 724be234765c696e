"""The ONE display rule for every number the lesson shows.

The data layer keeps full float64 precision; scenes round only here, at display time.
"""

from __future__ import annotations

PLACES = 3


def _drop_negative_zero(text: str) -> str:
    # "-0.000" (a tiny negative rounded away) must read as "0.000": a sign with no magnitude misleads.
    if text.startswith("-") and not any(ch in "123456789" for ch in text):
        return text[1:]
    return text


def fmt(x: float, places: int = PLACES) -> str:
    """Round `x` to `places` decimals with Python's f-string rounding (half-even on the binary value).

    Negatives use the ASCII hyphen-minus; "-0.000" becomes "0.000".
    """
    return _drop_negative_zero(f"{float(x):.{places}f}")


def places_for(values, most: int = PLACES) -> int:
    """The fewest decimals (0..most) that show every value exactly, else `most`: a hand-chosen
    one-decimal input reads 2.3, not 2.300, and a computed weight keeps three places. One count for
    a whole table, so its decimal points line up.

    >>> places_for([2.3, 0.0, -0.1]), places_for([1.0, 4.0]), places_for([0.7181])
    (1, 0, 3)
    """
    import numpy as np

    arr = np.asarray(values, dtype=float).ravel()
    arr = arr[np.isfinite(arr)]
    for places in range(most + 1):
        if np.all(np.abs(np.round(arr, places) - arr) <= 1e-9 * np.maximum(1.0, np.abs(arr))):
            return places
    return most


def fmt_about(x: float) -> str:
    """A number as the voice rounds it after "about": one decimal from 1 up, two below (0.718 -> 0.72,
    2.2247 -> 2.2, -0.0718 -> -0.07); the screen keeps fmt's places."""
    return fmt(x, 1 if abs(x) >= 1 else 2)


def fmt_int(n: int) -> str:
    """Integer with thousands separators: 2332832 -> "2,332,832"."""
    return f"{int(n):,}"


def fmt_pct(p: float, places: int = 1) -> str:
    """A fraction shown as a percentage: 0.1234 -> "12.3%" (same rounding rule as `fmt`)."""
    return fmt(100.0 * float(p), places) + "%"


def fmt_sci(x: float, places: int = 1) -> str:
    """Scientific notation for tiny measured values: 8.881784197001252e-16 -> "8.9e-16".

    The mantissa is rounded by the same f-string rule as `fmt` (`places` decimals); the exponent
    is written without "+" or leading zeros ("1.0e-5", "1.2e3"). Exactly zero reads "0" (a sign or
    an exponent with no magnitude misleads); negatives use the ASCII hyphen-minus. nan/inf read
    "nan"/"inf"/"-inf".
    """
    x = float(x)
    if x == 0.0:
        return "0"
    if x != x or x in (float("inf"), float("-inf")):
        return f"{x}"
    mantissa, exponent = f"{x:.{places}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


__all__ = ["PLACES", "fmt", "fmt_int", "fmt_pct", "fmt_sci", "places_for"]
