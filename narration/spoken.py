"""Spoken forms: what the voice says for what the screen writes.

    spoken_form("Head 1 puts 0.718 on “river”.")   -> "Head one puts zero point seven one eight on river."
    spoken_form("E [10, 4] times W_Q [4, 2]")      -> "E ten by four times W Q four by two"
    spoken_form("q¹₁₀ and V¹")                     -> "head one's query for row ten and head one's V"

The one place where symbols become words (docs/NARRATION.md, "Spoken forms"), so every scene, every
voice and the speech-length estimate agree. The readings are what a teacher says aloud:

- Notation as possessives, never symbol-comma chains: a superscript names the head, a subscript the
  token: q¹₁₀ is "head one's query for row ten", k¹ⱼ "head one's key for source j", V¹ "head one's
  V", A¹ "head one's attention matrix" (a lone A would be heard as the article), e₁₀ "row ten of E".
- A quoted word is heard as a word: “river” is "the word river", or the word alone where the sentence
  already makes it a noun (after on/from/of/for/over/than or "the", or after "word"/"token");
  “the” is always "the word the". A quoted phrase is read as it is. Never a word between bare commas.
  Within a scene a word is introduced once ("the word river") and then said alone (LessonScene.beat
  passes the scene's `named` set); little words and the lesson's verbs always keep "the word".
- No spoken brackets or ellipses: (−0.1) is "minus zero point one", a parenthetical becomes a
  clause between commas, "0.71764…" drops the dots.
- A decimal is read digit by digit after the point, without the display's trailing zeros
  ("2.400" -> "two point four"); shapes are read "ten by four".

Where a sentence needs a reading these rules cannot know (P² as a power, say), the beat passes its
own spoken text. `speech_faults` names what a spoken line must never contain (the per-beat test
over every scene uses it). Pure text in, text out: no Manim, no voice.
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


# What an indexed symbol names, read as a possessive: q¹₁₀ -> "head one's query for row ten".
_SYMBOL_NAMES = {"q": "query", "k": "key", "v": "value", "m": "message", "α": "weight", "s": "score",
                 "A": "attention matrix", "b_Q": "query bias", "b_K": "key bias", "b_V": "value bias"}


def _indexed(m: re.Match) -> str:
    name, head, row, col = m.group(1), m.group(2), m.group(3), m.group(4)
    if not head and not row:
        return m.group(0)
    if len(name) > 2 and name.isalpha() and not head and col is None:
        # a word with its position: river₆ -> river at position six
        return f"{name} at position {_index_words(row)}"
    owner = "head " + number_words(int("".join(_SUPERSCRIPT[c] for c in head))) + "'s " if head else ""
    if name == "e" and not head and row and col is None:
        return f"row {_index_words(row)} of E"                   # e₁₀: a row of E
    letters = row and not any(c in _SUBSCRIPT for c in row)
    where = []
    if row and col is None and len(row) == 2 and letters:
        # αᵢⱼ: a receiver and a source index written together
        where = ["for row " + _index_words(row[0]), "on source " + _index_words(row[1])]
    elif row and name in ("k", "v") and letters:
        where = ["for source " + _index_words(row)]              # a key or value of source j
    elif row:
        where = ["for row " + _index_words(row)]
    if col:
        where.append("on source " + _index_words(col))
    word = _SYMBOL_NAMES.get(name, _GREEK.get(name, name.replace("_", " ")))
    return " ".join([(owner or "the ") + word if (owner or word != name) else word, *where])


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
    (r"\bMLP\b", "M L P"), (r"\bMLPs\b", "M L Ps"), (r"\bCLS\b", "C L S"), (r"\bReLU\b", "ray-loo"), (r"\brelu\b", "ray-loo"),
    (r"\bMFU\b", "M F U"), (r"\bCPU\b", "C P U"), (r"\bEPYC\b", "Epic"), (r"\bGPU\b", "G P U"), (r"\bRGB\b", "R G B"),
    (r"\bsoftmax\b", "soft max"), (r"\bSoftmax\b", "Soft max"), (r"\bTinyStories\b", "Tiny Stories"), (r"\bPyTorch\b", "Pie Torch"),
    (r"\bFixedWindowMLP\b", "Fixed Window M L P"), (r"\bnn\.MultiheadAttention\b", "N N dot multi-head attention"),
    (r"\bMultiheadAttention\b", "multi-head attention"), (r"\bQKᵀ", "Q K transpose"),
    (r"\bAV\b", "A V"), (r"\bQ/K\b", "Q and K"), (r"\bQ, K, V\b", "Q, K, V"),
    (r"\bin_proj_bias\b", "in proj bias"), (r"\bout_proj\.bias\b", "out proj bias"),
    (r"\bbias=True\b", "bias equals true"), (r"\bbias=False\b", "bias equals false"),
    (r"\badd_bias_kv\b", "add bias k v"), (r"\battn_mask\b", "attn mask"), (r"\baverage_attn_weights=False\b", "average attn weights equals false"),
    (r"\bd_model\b", "d model"), (r"\bd_k\b", "d k"), (r"\bd_v\b", "d v"), (r"\bn_heads\b", "n heads"),
    (r"\bH/P\b", "H over P"), (r"\bW/P\b", "W over P"),
    # units a voice would spell out as letters
    (r"(?<=\d) ?ms\b", " milliseconds"),
]


_INDEXED_TOKEN = rf"(?<![\w′])[A-Za-zα-ω]+[{_SUP_CHARS}]*[{_SUB_CHARS}]+(?:,[{_SUB_CHARS}]+)?(?![\w])"
# A as a symbol (followed by a verb, an operator or punctuation), not the article: "so A is", "row of A."
_LONE_A = re.compile(r"\bA\b(?=\s+(?:is|are|has|holds|gives|times|equals|stores)\b|\s*[,.:;)]|\s*$)")

# After these a quoted word is already a noun: "its weight on “river”" -> "its weight on river".
_NOUN_CUES = {"on", "from", "of", "for", "over", "than", "the", "word", "words", "token", "tokens", "marked",
              "labelled", "called"}
# Quoted words that are never read bare: little words and the lesson's verbs would be heard as grammar
# ("to usually", "reads she instead").
_NOT_NOUNS = set("""the a an and or but at in on of to by for from with beside near she he it they we i you her
him his its their them this that these those is was are be not no so as if then usually sat watched
deposited wanted dropped washed broke gleamed bark barks""".split())


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in ".?!"


def _quoted(m: re.Match, named: set | None = None) -> str:
    inner = m.group(1).replace("…", " ").strip()
    words = inner.split()
    if len(words) != 1:
        return inner                                  # a quoted phrase is read as it is
    word = words[0]
    start = _sentence_start(m.string, m.start())
    before = m.string[:m.start()].rstrip().split()
    cue = before[-1].lower() if before else ""
    if start:
        word = word[0].lower() + word[1:]
    if cue in ("word", "words", "token", "tokens"):
        return word                                   # the sentence names it a word already ("the word “the”")
    if word.lower() == "the":
        return "The word the" if start else "the word the"
    from_to = cue == "to" and re.search(r"\bfrom\s+“[^”]+”\s+to\s*$", m.string[:m.start()])
    if (cue in _NOUN_CUES or from_to) and word.lower() not in _NOT_NOUNS:
        return word
    # once a scene has named a word ("the word river"), the word alone (little words and verbs
    # keep "the word": bare, they would be heard as grammar)
    if named is not None and word.lower() not in _NOT_NOUNS:
        if word.lower() in named:
            return word[0].upper() + word[1:] if start else word
        named.add(word.lower())
    return ("The word " if start else "the word ") + word


def _unbracket(s: str) -> str:
    """No spoken brackets or ellipses: a number in parentheses loses them, a parenthetical becomes a
    clause between commas, an ellipsis is dropped."""
    s = re.sub(r"(?<=\w)\s*…\s*(?=\w)", ", ", s)
    s = s.replace("…", "").replace("...", "")
    s = re.sub(r"\(\s*([\w'-]+)\s*\)", r"\1", s)                      # a single word: (optional)
    s = re.sub(r"\s*\(([^()]+)\)\s*", lambda m: f", {m.group(1).strip()}, ", s)
    s = re.sub(r"[\[\]{}<>()]", " ", s)
    s = re.sub(r",\s*([,.;:?!])", r"\1", s)                          # ", ." and ", ," -> "." and ","
    s = re.sub(r"([.;:?!])\s*,", r"\1", s)
    s = re.sub(r",\s*$", "", s.strip())
    return s


def spoken_form(text: str, named: set | None = None) -> str:
    """The sentence as the voice should read it (see the module doc for the rules). `named`: the
    quoted words a scene has already introduced as "the word X" (updated), read alone from then on."""
    s = text
    # a number in parentheses is just the number: 2.3 × (-0.1) -> 2.3 × -0.1
    s = re.sub(r"\(\s*([−-]?\d[\d.,]*)\s*\)", r"\1", s)
    for pattern, words in _WORDS:
        s = re.sub(pattern, words, s)
    # a row of a matrix: A[10, :] -> A, row ten
    s = re.sub(r"(\w)\[\s*(\d+)\s*,\s*:\s*\]", lambda m: f"row {number_words(int(m.group(2)))} of {m.group(1)}", s)
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
    # a quoted word is heard as a word: “river” -> the word river (or river, where it is a noun already)
    s = re.sub(r"“([^“”]{1,80})”", lambda m: _quoted(m, named), s)
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
    # two indexed symbols side by side are a product: α₁₀,ⱼ vⱼ -> α₁₀,ⱼ times vⱼ
    s = re.sub(rf"({_INDEXED_TOKEN}) (?={_INDEXED_TOKEN})", r"\1 times ", s)
    # indexed symbols as possessives: q¹₁₀ -> head one's query for row ten, W_Q¹ -> head one's W Q
    s = _INDEXED.sub(_indexed, s)
    # the attention matrix A, where a lone A would be heard as the article "a"
    s = _LONE_A.sub(lambda m: "The attention matrix" if _sentence_start(s, m.start()) else "the attention matrix", s)
    s = re.sub(r"\b([A-Z])_([A-Za-z]+)\b", r"\1 \2", s)
    s = re.sub(r"(\w)′", r"\1 prime", s)
    s = s.replace("ΔE", "delta E").replace("Δe", "delta e").replace("Δ", "delta ")
    s = re.sub(r"ᵀ", " transpose", s)
    # roots and operators
    s = re.sub(r"÷\s*√\s*(\d+)", lambda m: "divided by root " + number_words(int(m.group(1))), s)
    s = re.sub(r"√\s*(\d+)", lambda m: "root " + number_words(int(m.group(1))), s)
    s = re.sub(r"√\s*(\w)", r"root \1", s)
    # × between whole numbers is a size (8×8: "eight by eight"), between decimals a product
    s = re.sub(r"(?<![\d.])(\d+)\s*×\s*(\d+)(?!\d|\.\d)", r"\1 by \2", s)
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
    return " ".join(_unbracket(s).split())


# What Piper reads as speech: letters, spaces, apostrophes, hyphens and the punctuation that makes a
# pause. Digits, symbols, brackets and typographic marks are the normalizer's job, never the voice's.
_SPEAKABLE = re.compile(r"[A-Za-z ,.;:?!'-]")
_DIGIT_RUN = re.compile(r"\bpoint(?: (?:zero|one|two|three|four|five|six|seven|eight|nine)\b)+")


def speech_faults(line: str) -> list[str]:
    """What a spoken line must never contain, each fault named (want []): a bracket, an ellipsis, a
    doubled word ("the the"; repeated digits after "point" are digits, not a doubled word), a single
    word between bare commas (", river,"; an item of a list, "water, finance, person and glue", is
    not one), a lone A read as a symbol ("so A is"), or a character Piper would not read as speech."""
    faults = []
    if re.search(r"[()\[\]{}<>]", line):
        faults.append("bracket")
    if "…" in line or "..." in line:
        faults.append("ellipsis")
    doubled = re.search(r"\b(\w+)\s+\1\b", _DIGIT_RUN.sub("point", line), re.IGNORECASE)
    if doubled:
        faults.append(f"doubled word {doubled.group(0)!r}")
    for m in re.finditer(r"(?=,\s*([\w'-]+)\s*,(.*))", line):
        rest = m.group(2).lstrip()
        in_list = re.match(r"(?:and |or )?[\w'-]+(?:\s*,|\s+(?:and|or)\b)", rest)
        if not in_list:
            faults.append(f"comma-wrapped word {', ' + m.group(1) + ','!r}")
            break
    unit = re.search(r"\b(?:ms|MB|GB|kB)\b(?=\s*[,.;:]|\s*$|\s+[a-z])", line)
    if unit:
        faults.append(f"a unit abbreviation {unit.group(0)!r}, spelled out as letters")
    if re.search(r"\b[Aa]\s+(?:is|times|equals)\b", line):
        faults.append("a lone letter A, heard as the article")
    odd = sorted({c for c in line if not _SPEAKABLE.match(c)})
    if odd:
        faults.append(f"not speech: {''.join(odd)!r}")
    return faults


def spoken_words(text: str) -> int:
    """How many words the voice says for `text` (the pace figures count these)."""
    return len(spoken_form(text).split())


__all__ = ["spoken_form", "spoken_words", "speech_faults", "number_words", "decimal_words", "digits_words"]
