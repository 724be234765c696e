"""The lesson's word-only examples (WORKSHEET.md, "Word-only examples"): sentences, receivers and
possible source roles as plain data, so the chapter-1 scenes show nothing they invent.

No numbers are computed here. Positions are one-based, counted in tokens, and a punctuation mark
is a token ("we treat punctuation as a token in this illustration"). The blank a prefix ends with
("___" or "…") is the unknown next word: it is not a token and has no query.

Every role is a *possible* reading, not a job assigned to a trained head and not attention measured
in our trained model (lesson notes, paragraphs 1–5). Pure Python: no numpy, torch or manim.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

BLANKS = ("___", "…")                     # the unknown next word, as the worksheet writes it
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?|[.,;:!?]")


def tokenize_words(text: str) -> tuple[str, ...]:
    """The known tokens of `text`: words, and each punctuation mark as its own token.

    The trailing blank ("___" or "…") is dropped: it is the unknown next word, not a known token.
    """
    body = text.strip()
    for blank in BLANKS:
        if body.endswith(blank):
            body = body[: -len(blank)].rstrip()
            break
    tokens = tuple(_TOKEN.findall(body))
    leftover = _TOKEN.sub("", body).strip()
    if leftover:
        raise ValueError(f"cannot tokenize {leftover!r} in {text!r}: allowed are words, "
                         f"the punctuation marks .,;:!? and a final blank {' or '.join(BLANKS)}")
    return tokens


@dataclass(frozen=True)
class Source:
    """One source row a head could plausibly read for this receiver.

    `role` is a possible role (e.g. "colour"), never an assigned job; `note` is what the notes say
    about it (e.g. the nearer noun "does not control subject agreement").
    """

    word: str
    position: int          # one-based token position in the known prefix
    role: str
    note: str = ""


@dataclass(frozen=True)
class WordExample:
    key: str
    text: str                       # as the worksheet writes it (with its blank, if any)
    receiver: int                   # one-based position of the receiver: the last known token
    sources: tuple[Source, ...]     # plausible sources, in the order the lesson introduces them
    next_word: str | None = None    # a possible next word (the blank), if the example names one
    not_next_word: str | None = None  # a form the sources argue against ("barks")
    continuation: str | None = None   # one possible continuation, as the notes write it
    heads: int = 0                  # how many heads the illustration draws (0: not fixed)
    illustrative: bool = True       # possible readings, not measured attention

    def __post_init__(self):
        tokens = self.tokens
        if not 1 <= self.receiver <= len(tokens):
            raise ValueError(f"{self.key}: receiver position {self.receiver} is outside 1..{len(tokens)}")
        for s in self.sources:
            if not 1 <= s.position <= self.receiver:
                raise ValueError(f"{self.key}: source {s.word!r} at position {s.position} is not in the "
                                 f"known prefix 1..{self.receiver}")
            if tokens[s.position - 1] != s.word:
                raise ValueError(f"{self.key}: token {s.position} is {tokens[s.position - 1]!r}, "
                                 f"not the source {s.word!r}")

    @property
    def tokens(self) -> tuple[str, ...]:
        return tokenize_words(self.text)

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def receiver_word(self) -> str:
        return self.tokens[self.receiver - 1]

    @property
    def has_blank(self) -> bool:
        return self.text.rstrip().endswith(BLANKS)

    def source(self, role: str) -> Source:
        for s in self.sources:
            if s.role == role:
                return s
        raise KeyError(f"{self.key}: no source with role {role!r}; roles are "
                       f"{', '.join(s.role for s in self.sources)}")


# ---------------------------------------------------------------------------------------------
# The examples (WORKSHEET.md, "Word-only examples")
# ---------------------------------------------------------------------------------------------

COAT = WordExample(
    key="coat",
    text="Maya wore a hooded red wool coat",
    receiver=7,
    sources=(
        Source("red", 5, "colour"),
        Source("wool", 6, "material"),
        Source("hooded", 4, "detail"),
    ),
    heads=3,
)

SUBJECT_AGREEMENT = WordExample(
    key="dogs",
    text="The dogs near the gate usually ___",
    receiver=6,
    sources=(
        Source("dogs", 2, "plural subject", note="supports bark, not barks"),
        Source("gate", 5, "nearer singular noun", note="does not control subject agreement"),
    ),
    next_word="bark",
    not_next_word="barks",
    continuation="The dogs near the gate usually bark at visitors",
)

EVENT_AND_REFERENCE = WordExample(
    key="ravi",
    text="Ravi dropped the glass . It ___",
    receiver=6,
    sources=(
        Source("glass", 4, "referent"),
        Source("dropped", 2, "event"),
    ),
    next_word="broke",
    heads=2,
)

LATER_LAYER = WordExample(
    key="later_layer",
    text="Maya cycled home in the rain. Cold and tired, Maya reached for a hooded red wool coat. She …",
    receiver=21,
    sources=(Source("Maya", 12, "key and value", note="the second Maya row may already hold the "
                                                       "preceding facts"),),
)

WORD_EXAMPLES: dict[str, WordExample] = {e.key: e for e in (COAT, SUBJECT_AGREEMENT, EVENT_AND_REFERENCE,
                                                            LATER_LAYER)}


def word_example(key: str) -> WordExample:
    """One example by key; a clear error naming the allowed keys otherwise."""
    try:
        return WORD_EXAMPLES[key]
    except KeyError:
        raise ValueError(f"unknown word example {key!r}; allowed: {', '.join(WORD_EXAMPLES)}") from None


__all__ = [
    "BLANKS", "tokenize_words", "Source", "WordExample", "COAT", "SUBJECT_AGREEMENT",
    "EVENT_AND_REFERENCE", "LATER_LAYER", "WORD_EXAMPLES", "word_example",
]
