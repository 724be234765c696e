"""Data decisions for chapter 2's scenes 16-17 (the library layer and the recap): how a measured
tiny difference is said aloud, the token IDs the inference loop starts from, which words of a
long prefix fit on one line, and the word the training beat shows as an example target. No Manim
imports."""
from __future__ import annotations

import math

from lesson_data.display import PLACES, fmt
from lesson_data.worksheet import VOCAB


def said_sci(value: float) -> str:
    """A measured difference as a person says it: 'exactly' for 0, else one significant digit,
    'about 9 times ten to the minus 16' (narration.spoken reads the digits as words)."""
    if value == 0.0:
        return "exactly"
    mantissa, exponent = f"{abs(value):.0e}".split("e")
    power = int(exponent)
    sign = "minus " if power < 0 else ""
    if mantissa == "1":
        return f"about ten to the {sign}{abs(power)}"
    return f"about {mantissa} times ten to the {sign}{abs(power)}"


def said_all(values, *, each: bool = False) -> str:
    """Several measured differences in one phrase: 'exactly' when all are 0; 'both about …' (or
    'all about …'; with `each`, 'about … each') when they read alike at one digit; else each in turn
    joined by 'and'."""
    values = list(values)
    if not values:
        raise ValueError("no values")
    said = [said_sci(v) for v in values]
    if all(s == "exactly" for s in said):
        return "exactly"
    if len(set(said)) == 1:
        return f"{said[0]} each" if each else f"{'both' if len(values) == 2 else 'all'} {said[0]}"
    return " and ".join(said)


def example_target(ranked) -> str:
    """A word to show as an example of a training target (the word that really came next in some
    training text): the most probable candidate that is *not* the model's prediction, so target
    and prediction can be told apart on screen. `ranked`: [(word, p), ...], most probable first."""
    ranked = list(ranked)
    if len(ranked) < 2:
        raise ValueError("need the prediction and at least one other ranked word")
    return ranked[1][0]


def target_loss(ranked, word: str) -> tuple[float, float]:
    """(p, loss) for a training target: the probability the model gives `word` and the cross-entropy
    loss -ln p it pays for it (natural log). `ranked`: [(word, p), ...] over the vocabulary."""
    p = dict(ranked).get(word)
    if p is None:
        raise ValueError(f"target {word!r} is not a vocabulary word; allowed: {', '.join(w for w, _ in ranked)}")
    if not 0 < p <= 1:
        raise ValueError(f"need 0 < p <= 1 for {word!r}, got {p}")
    return p, -math.log(p)


def loss_operand_places(p: float, most: int = 6) -> int:
    """The decimals to show p with in "−ln p = loss" so that the shown p gives the shown loss: three
    (the lesson's rule) unless −ln of the rounded p rounds to another loss (−ln 0.192 = 1.650, but the
    unrounded 0.1924… gives 1.648), then the fewest more that agree."""
    shown = fmt(-math.log(p))
    for places in range(PLACES, most + 1):
        rounded = float(fmt(p, places))
        if rounded > 0 and fmt(-math.log(rounded)) == shown:
            return places
    return most


def token_ids(tokens) -> list[int]:
    """The toy's token IDs: each token's index in the 20-word vocabulary (the logits' order)."""
    return [VOCAB.index(t) for t in tokens]


def next_row(tokens) -> int:
    """The row (counted from 1, as the lesson's rows are) the appended token takes: one past the
    prefix. On the next run it is the receiver, the row whose last-row update predicts again."""
    return len(list(tokens)) + 1


def last_words_that_fit(widths, space: float, limit: float) -> int:
    """How many words from the end of a line fit in `limit` (word widths, one `space` between two
    words, and room for a leading ellipsis word of width `space` when not all fit); at least one."""
    widths = list(widths)
    total = sum(widths) + space * max(len(widths) - 1, 0)
    if total <= limit:
        return len(widths)
    used, count = 2 * space, 0          # the ellipsis and its gap
    for w in reversed(widths):
        extra = w + (space if count else 0)
        if used + extra > limit:
            break
        used += extra
        count += 1
    return max(count, 1)


__all__ = ["said_sci", "said_all", "token_ids", "next_row", "last_words_that_fit"]
