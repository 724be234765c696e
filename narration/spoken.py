"""Spoken forms: what the voice says for what the screen writes.

    spoken_form("Head 1 puts 0.718 on river.")     -> "Head one puts zero point seven one eight on river."
    spoken_form("E [10, 4] times W_Q [4, 2]")      -> "E ten by four times W Q four by two"
    spoken_form("α¹₁₀,ⱼ")                          -> "alpha, head one, row ten, source j"

The one place where symbols become words (docs/NARRATION.md, "Spoken forms"), so every scene, every voice
and the speech-length estimate agree. The lesson's own conventions decide the reading: superscripts
label heads, not powers (q¹ is "q, head one"); subscripts label tokens ("row ten"); a decimal is read
digit by digit after the point, without the display's trailing zeros ("2.400" -> "two point four");
shapes are read "ten by four". Where a sentence needs a reading these rules cannot know (P² as a
power, say), the beat passes its own spoken text. Pure text in, text out: no Manim, no voice.
"""
from __future__ import annotations

import re

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
         "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = ((10 ** 12, "trillion"), (10 ** 9, "billion"), (10 ** 6, "million"), (1000, "thousand"))


def number_words(n: int) -> str:
    """A whole number in words: 64 -> 'sixty-four', 1321120 -> 'one million three hundred
    twenty-one thousand one hundred twenty', -3 -> 'minus three'."""
    n = int(n)
    if n < 0:
        return "minus " + number_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("-" + _ONES[ones] if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return _ONES[hundreds] + " hundred" + (" " + number_words(rest) if rest else "")
    for scale, name in _SCALES:
        if n >= scale:
            high, rest = divmod(n, scale)
            return number_words(high) + " " + name + (" " + number_words(rest) if rest else "")
    raise AssertionError(n)  # pragma: no cover


def digits_words(digits: str) -> str:
    """Digits read one by one: '718' -> 'seven one eight'."""
    return " ".join(_ONES[int(d)] for d in digits)


def decimal_words(text: str) -> str:
    """A written decimal read aloud: '0.718' -> 'zero point seven one eight', '-2.400' -> 'minus two
    point four', '1.000' -> 'one', '.5' -> 'point five'. Trailing zeros are the display's padding."""
    sign = ""
    if text[0] in "-−":
        sign, text = "minus ", text[1:]
    whole, _, frac = text.partition(".")
    whole = whole.replace(",", "")
    frac = frac.rstrip("0")
    words = number_words(int(whole)) if whole else ""
    if frac:
        words = (words + " point " if words else "point ") + digits_words(frac)
    return sign + (words or "zero")


_SUPERSCRIPT = {c: str(i) for i, c in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")}
_SUBSCRIPT = {c: str(i) for i, c in enumerate("₀₁₂₃₄₅₆₇₈₉")}
_SUB_LETTERS = {"ᵢ": "i", "ⱼ": "j", "ₐ": "a", "ₑ": "e", "ₒ": "o", "ₙ": "n", "ₜ": "t", "ₖ": "k"}
_GREEK = {"α": "alpha", "β": "beta", "μ": "mu", "σ": "sigma", "Σ": "the sum of", "π": "pi",
          "θ": "theta", "λ": "lambda"}


def _index_words(chars: str) -> str:
    """'₁₀' -> 'ten', 'ⱼ' -> 'j'."""
    if all(c in _SUBSCRIPT for c in chars):
        return number_words(int("".join(_SUBSCRIPT[c] for c in chars)))
    return " ".join(_SUB_LETTERS.get(c, _SUBSCRIPT.get(c, c)) for c in chars)


_SUB_CHARS = "".join(_SUBSCRIPT) + "".join(_SUB_LETTERS)
_SUP_CHARS = "".join(_SUPERSCRIPT)
# A symbol with a head superscript and/or token subscripts: q¹₁₀, α¹₁₀,ⱼ, k²ⱼ, m₁₀, H¹, αᵢⱼ.
# A following transpose mark (Kᵀ) is left for the ᵀ rule.
_INDEXED = re.compile(rf"(?<![\w′])([A-Za-zα-ωΔ]+(?:_[A-Za-z]+)?)([{_SUP_CHARS}]*)"
                      rf"([{_SUB_CHARS}]*)(?:,([{_SUB_CHARS}]+))?(?=[^\w]|$)")


def _indexed(m: re.Match) -> str:
    name, head, row, col = m.group(1), m.group(2), m.group(3), m.group(4)
    if not head and not row:
        return m.group(0)
    parts = [_GREEK.get(name, name.replace("_", " "))]
    if head:
        parts.append("head " + number_words(int("".join(_SUPERSCRIPT[c] for c in head))))
    if len(name) > 2 and name.isalpha() and not head and col is None:
        # a word with its position: river₆ -> river at position six
        return f"{name} at position {_index_words(row)}"
    if row and col is None and len(row) == 2 and not any(c in _SUBSCRIPT for c in row):
        # αᵢⱼ: a receiver and a source index written together
        parts += ["row " + _index_words(row[0]), "source " + _index_words(row[1])]
    elif row and name in ("k", "v") and not any(c in _SUBSCRIPT for c in row):
        parts.append("source " + _index_words(row))      # a key or value of source j
    elif row:
        parts.append("row " + _index_words(row))
    if col:
        parts.append("source " + _index_words(col))
    return ", ".join(parts)


def _shape(m: re.Match) -> str:
    dims = [d.strip() for d in m.group(1).split(",")]
    if any(re.fullmatch(r"[−-]?\d*\.\d+", d) for d in dims):   # a row of values, not a shape
        return ", ".join(dims)
    return " by ".join(_dimension(d) for d in dims)


def _dimension(d: str) -> str:
    if re.fullmatch(r"\d+", d):
        return number_words(int(d))
    d = d.replace("×", " times ").replace("·", " times ")
    return " ".join(d.replace("_", " ").split())


# Written forms the rules below would misread, and code names read as a person says them.
_WORDS = [
    (r"<UNK>", "unknown"), (r"<BOS>", "begin"), (r"<EOS>", "end"), (r"<PAD>", "pad"),
    (r"\be\.g\.", "for example"), (r"\bi\.e\.", "that is"), (r"\bvs\.?", "versus"),
    (r"\bet al\.", "and colleagues"), (r"§\s*", "section "),
    (r"\b3Blue1Brown\b", "three blue one brown"), (r"[−-]\s?log\b", "minus the log of"),
    (r"(?<=\w) \. (?=[A-Z])", ". "),
    (r"\bMLP\b", "M L P"), (r"\bMLPs\b", "M L Ps"), (r"\bCLS\b", "C L S"), (r"\bReLU\b", "relu"),
    (r"\bMFU\b", "M F U"), (r"\bCPU\b", "C P U"), (r"\bGPU\b", "G P U"), (r"\bRGB\b", "R G B"),
    (r"\bsoftmax\b", "soft max"), (r"\bTinyStories\b", "Tiny Stories"), (r"\bPyTorch\b", "Pie Torch"),
    (r"\bFixedWindowMLP\b", "Fixed Window M L P"), (r"\bnn\.MultiheadAttention\b", "N N dot multi-head attention"),
    (r"\bMultiheadAttention\b", "multi-head attention"), (r"\bQKᵀ", "Q K transpose"),
    (r"\bAV\b", "A V"), (r"\bQ/K\b", "Q and K"), (r"\bQ, K, V\b", "Q, K, V"),
    (r"\bin_proj_bias\b", "in proj bias"), (r"\bout_proj\.bias\b", "out proj bias"),
    (r"\bbias=True\b", "bias equals true"), (r"\bbias=False\b", "bias equals false"),
    (r"\badd_bias_kv\b", "add bias k v"), (r"\battn_mask\b", "attn mask"), (r"\baverage_attn_weights=False\b", "average attn weights equals false"),
    (r"\bd_model\b", "d model"), (r"\bd_k\b", "d k"), (r"\bd_v\b", "d v"), (r"\bn_heads\b", "n heads"),
    (r"\bH/P\b", "H over P"), (r"\bW/P\b", "W over P"),
]


def spoken_form(text: str) -> str:
    """The sentence as the voice should read it (see the module doc for the rules)."""
    s = text
    for pattern, words in _WORDS:
        s = re.sub(pattern, words, s)
    # a row of a matrix: A[10, :] -> A, row ten
    s = re.sub(r"(\w)\[\s*(\d+)\s*,\s*:\s*\]", lambda m: f"{m.group(1)}, row {number_words(int(m.group(2)))}", s)
    # section numbers: 3.2.2 -> three point two point two; years in parentheses: (2019) -> twenty nineteen
    s = re.sub(r"\b\d+(?:\.\d+){2,}\b", lambda m: " point ".join(number_words(int(p)) for p in m.group(0).split(".")), s)
    s = re.sub(r"\((1[89]|20)(\d\d)\)", lambda m: f"({number_words(int(m.group(1)))} {number_words(int(m.group(2))) if m.group(2) != '00' else 'hundred'})", s)
    # a bare year of this era: 2019 -> twenty nineteen (the lesson's citations)
    s = re.sub(r"(?<![\w.,])(19[5-9]\d|20[0-2]\d)(?![\w.,%×])",
               lambda m: f"{number_words(int(m.group(1)[:2]))} "
                         f"{number_words(int(m.group(1)[2:])) if m.group(1)[2:] != '00' else 'hundred'}"
                         if not m.group(1)[2] == '0' else number_words(int(m.group(1))), s)
    # a sum over a token index: Σⱼ -> the sum over j of
    s = re.sub(rf"Σ([{_SUB_CHARS}]+)", lambda m: f"the sum over {_index_words(m.group(1))} of ", s)
    # a concatenation: [H¹ | H²] -> H, head one joined to H, head two
    s = re.sub(r"\[([^\[\]|]+)\|([^\[\]|]+)\]", lambda m: f"{m.group(1).strip()} joined to {m.group(2).strip()}", s)
    # a quoted word inside a sentence keeps a pause around it: The receiver “the” brings -> ..., the, ...
    s = re.sub(r"(?<=\w) “([^”]{1,40})” (?=\w)", r", \1, ", s)
    # a primed symbol with a token index: e′₁₀ -> e prime, row ten
    s = re.sub(rf"(\w)′([{_SUB_CHARS}]+)", lambda m: f"{m.group(1)} prime, row {_index_words(m.group(2))}", s)
    # a dot product of two vectors: q¹·k¹ -> q, head one dot k, head one (between matrices: "times")
    s = re.sub(rf"(?<=[a-z][{_SUP_CHARS}{_SUB_CHARS}])\s*·\s*(?=[a-z])|(?<=[a-z])\s*·\s*(?=[a-z][{_SUP_CHARS}{_SUB_CHARS}])",
               " dot ", s)
    # numbered weights and biases: W1, b2 -> W one, b two
    s = re.sub(r"\b([Wb])([1-9])\b", lambda m: f"{m.group(1)} {number_words(int(m.group(2)))}", s)
    # shapes: [10, 4] -> ten by four, [n_heads × d_v, d_model] -> n heads times d v by d model
    s = re.sub(r"\[([^\[\]]+?,[^\[\]]+?)\]", _shape, s)
    # a row times a matrix written together: e₁₀W_Q¹ -> e₁₀ times W_Q¹ (then both read as symbols)
    s = re.sub(rf"(?<![\w′])([a-z][{_SUB_CHARS}]+)(?=[A-Z])", r"\1 times ", s)
    # matrix names with subscript letters: W_Q -> W Q, W_O¹ -> W O, head one
    s = _INDEXED.sub(_indexed, s)
    s = re.sub(r"\b([A-Z])_([A-Za-z]+)\b", r"\1 \2", s)
    s = re.sub(r"(\w)′", r"\1 prime", s)
    s = s.replace("ΔE", "delta E").replace("Δe", "delta e").replace("Δ", "delta ")
    s = re.sub(r"ᵀ", " transpose", s)
    # roots and operators
    s = re.sub(r"÷\s*√\s*(\d+)", lambda m: "divided by root " + number_words(int(m.group(1))), s)
    s = re.sub(r"√\s*(\d+)", lambda m: "root " + number_words(int(m.group(1))), s)
    s = re.sub(r"√\s*(\w)", r"root \1", s)
    # × between whole numbers is a size (8×8: "eight by eight"), between decimals a product
    s = re.sub(r"(?<![\d.])(\d+)\s*×\s*(\d+)(?![\d.])", r"\1 by \2", s)
    s = re.sub(r"(\d+(?:\.\d+)?)\s*%", r"\1 percent", s)
    s = re.sub(r"(\d(?:\.\d+)?)e([-−+]?)(\d+)\b",
               lambda m: f"{m.group(1)} times ten to the {'minus ' if m.group(2) in '-−' and m.group(2) else ''}"
                         f"{number_words(int(m.group(3)))}", s)
    s = (s.replace("±", " plus or minus ").replace("≈", " about ").replace("→", " to ")
          .replace("÷", " divided by ").replace("×", " times ").replace("·", " times ")
          .replace("=", " equals ").replace("+", " plus ").replace("≤", " at most ")
          .replace("≥", " at least "))
    s = re.sub(r"(?<=\s)[−-](?=\s)", "minus", s)
    # numbers: decimals digit by digit, whole numbers in words, a leading minus sign said
    s = re.sub(r"(?<![\w.])[−-]?(?:\d{1,3}(?:,\d{3})+|\d+)?\.\d+\b", lambda m: decimal_words(m.group(0)), s)
    s = re.sub(r"(?<![\w.])[−-]?\d{1,3}(?:,\d{3})+\b|(?<![\w.])[−-]?\d+\b",
               lambda m: number_words(int(m.group(0).replace(",", "").replace("−", "-"))), s)
    s = re.sub(r"(?<=\w)_(?=\w)", " ", s)
    s = s.replace("“", "").replace("”", "").replace("‘", "'").replace("’", "'")
    return " ".join(s.split())


def spoken_words(text: str) -> int:
    """How many words the voice says for `text` (the pace figures count these)."""
    return len(spoken_form(text).split())


__all__ = ["spoken_form", "spoken_words", "number_words", "decimal_words", "digits_words"]
