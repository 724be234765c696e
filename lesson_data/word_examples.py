"""The lesson's word-only examples (docs/WORKSHEET.md, "Word-only examples"): sentences, receivers and
possible source roles as plain data, so the chapter-1 scenes show nothing they invent.

Positions are one-based, counted in tokens, and a punctuation mark is a token ("we treat punctuation
as a token in this illustration"). The blank a prefix ends with ("___" or "…") is the unknown next
word: it is not a token and has no query.

Every role is a *possible* reading, not a job assigned to a trained head and not attention measured
in our trained model (lesson notes, paragraphs 1–5). The chapter-1 pictures draw those readings as
arrows whose width is a weight: the weights here are ILLUSTRATIVE (every known row gets some weight,
the plausible useful sources the most), and the scenes say so on screen. Where an example draws no
query, its weights are hand-chosen for the picture. Where it draws a query and value rows (the coat),
the query and the value rows are hand-chosen and the weights follow from them as attention's do: the
softmax of one stated sharpness (`SHARPNESS`) times the query's match with each row's key
(`matched_reading`), so the picture never contradicts its own cause. `contributions` / `message` mix
the value rows with a reading's weights. Pure Python (math.fsum, math.exp): no numpy, torch or manim.
"""
from __future__ import annotations

import math
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
    # ILLUSTRATIVE: what this source's row could give its head's message, four numbers in [0, 1]
    # drawn as the shading of the message's cells (invented for the picture, not measured)
    features: tuple[float, ...] = ()

    def __post_init__(self):
        if not all(0.0 <= f <= 1.0 for f in self.features):
            raise ValueError(f"{self.word}: illustrative features must lie in [0, 1], got {self.features}")


@dataclass(frozen=True)
class Reading:
    """One head's possible reading of an example, for a picture: ILLUSTRATIVE weights, hand-chosen or,
    with a query, the softmax of `sharpness` times its matches (`matched_reading`).

    `head` is 0 for "one head" (a single head doing all the work) and 1, 2, 3 for the heads of a
    multi-head picture (each head keeps its number, and so its colour, across the chapter). `weights`
    holds one weight per known position 1..receiver (the receiver reads itself too): all positive (no
    row is masked or at exactly zero), summing to one, and every `useful` source weighs more than every
    other row. `role` is a possible role, never an assigned job.
    """

    head: int
    role: str
    useful: tuple[int, ...]       # one-based positions of the plausible useful sources
    weights: tuple[float, ...]    # one per known position, in order
    illustrative: bool = True
    # ILLUSTRATIVE: the receiver's query for this head, one shade in [0, 1] per feature of the
    # example's value rows (what the head looks for); empty if the picture draws no query
    query: tuple[float, ...] = ()
    # the sharpness the weights were computed with (weights = softmax(sharpness · matches)), or None
    # for hand-chosen weights; the example checks that its weights follow from its own keys
    sharpness: float | None = None


# How sharply the illustrative heads prefer the rows their query matches: weights = softmax(β · match),
# β = 3.5. Chosen for the picture, not measured: a match of 1 against 0 gives e^3.5 ≈ 33 times the weight,
# so head 1 gives red about 0.76 and the one head's three equal matches about 0.30 each.
SHARPNESS = 3.5


def softmax_of(scores, sharpness: float) -> tuple[float, ...]:
    """softmax(sharpness · scores) in float64, the largest score subtracted first (no overflow):
    positive weights that sum to one (to rounding); equal scores give exactly equal weights."""
    if not scores:
        raise ValueError("need at least one score")
    top = max(scores)
    exps = [math.exp(sharpness * (s - top)) for s in scores]
    total = math.fsum(exps)
    return tuple(e / total for e in exps)


def matched_reading(head: int, role: str, useful: tuple[int, ...], query: tuple[float, ...],
                    keys: tuple[tuple[float, ...], ...], sharpness: float = SHARPNESS) -> Reading:
    """A reading whose weights follow from its query, as attention's do: each known row's match is the
    query's dot product with the row's key (`keys`, one per known position 1..receiver; in these
    illustrations the keys are the value rows, see `matches`), and the weights are the softmax of
    `sharpness` times those matches. Only the query (and the example's value rows) are hand-chosen, so
    rows that match alike weigh alike and a better match always weighs more. Illustrative numbers."""
    scores = tuple(math.fsum(q * k for q, k in zip(query, row)) for row in keys)
    return Reading(head, role, useful, softmax_of(scores, sharpness), query=query, sharpness=sharpness)


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
    readings: tuple[Reading, ...] = ()   # illustrative weights for the arrows (see Reading)
    features: tuple[str, ...] = ()       # names of the illustrative value coordinates
    values: tuple[tuple[float, ...], ...] = ()   # one illustrative value row per known token, in [0, 1]
    # other weights the one head (head 0) could choose instead, for the picture of its trade-off: with
    # one shared set of weights, leaning on one source leaves less for every other (see Reading)
    alternatives: tuple[Reading, ...] = ()

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
        for r in (*self.readings, *self.alternatives):
            _check_reading(self, r)
        if any(r.head != 0 for r in self.alternatives):
            raise ValueError(f"{self.key}: an alternative reading is the one head's (head 0)")
        if len({r.head for r in self.readings}) != len(self.readings):
            raise ValueError(f"{self.key}: two readings for one head")
        if self.values:
            if len(self.values) != len(tokens):
                raise ValueError(f"{self.key}: {len(self.values)} value rows for {len(tokens)} tokens")
            for p, row in enumerate(self.values, start=1):
                if len(row) != len(self.features) or not all(0.0 <= v <= 1.0 for v in row):
                    raise ValueError(f"{self.key}: value row {p} {row!r} needs {len(self.features)} "
                                     "entries in [0, 1]")

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

    def reading(self, head: int) -> Reading:
        """The illustrative reading of head `head` (0: the one head of a one-head picture)."""
        for r in self.readings:
            if r.head == head:
                return r
        raise KeyError(f"{self.key}: no reading for head {head}; heads are "
                       f"{', '.join(str(r.head) for r in self.readings)}")

    def alternative(self, word: str) -> Reading:
        """The one head's alternative reading that leans on `word` (its only useful source)."""
        for r in self.alternatives:
            if [self.word_at(p) for p in r.useful] == [word]:
                return r
        raise KeyError(f"{self.key}: no alternative reading leans on {word!r}; they lean on "
                       f"{', '.join(self.word_at(r.useful[0]) for r in self.alternatives) or 'nothing'}")

    def feature_index(self, feature: str) -> int:
        if feature not in self.features:
            raise KeyError(f"{self.key}: no feature {feature!r}; features are {', '.join(self.features)}")
        return self.features.index(feature)

    def word_at(self, position: int) -> str:
        return self.tokens[position - 1]

    @property
    def punctuation(self) -> tuple[int, ...]:
        """One-based positions of the punctuation tokens ("we treat punctuation as a token")."""
        return tuple(p for p, w in enumerate(self.tokens, start=1) if not w[0].isalnum())

    @property
    def continuation_rest(self) -> str:
        """The words of the possible continuation after the known tokens and the next word
        ("at visitors"); empty when the example names no continuation."""
        if not self.continuation:
            return ""
        head = " ".join((*self.tokens, self.next_word or ""))
        if not self.continuation.startswith(head):
            raise ValueError(f"{self.key}: the continuation does not start with {head!r}")
        return self.continuation[len(head):].strip()


def _check_reading(ex: WordExample, r: Reading) -> None:
    where = f"{ex.key}, head {r.head}"
    if len(r.weights) != ex.receiver:
        raise ValueError(f"{where}: {len(r.weights)} weights for the {ex.receiver} known positions")
    if not all(w > 0.0 for w in r.weights):
        raise ValueError(f"{where}: every known row is read, so every weight is positive: {r.weights}")
    if abs(math.fsum(r.weights) - 1.0) > 1e-12:
        raise ValueError(f"{where}: weights sum to {math.fsum(r.weights)!r}, not one")
    if not r.useful or not all(1 <= p <= ex.receiver for p in r.useful):
        raise ValueError(f"{where}: useful sources {r.useful} are not in the known prefix 1..{ex.receiver}")
    if not _useful_lead(r.weights, r.useful):
        raise ValueError(f"{where}: a useful source must weigh more than every other row")
    if r.query:
        if len(r.query) != len(ex.features) or not all(0.0 <= q <= 1.0 for q in r.query):
            raise ValueError(f"{where}: the query {r.query!r} needs {len(ex.features)} shades in [0, 1]")
        # the picture's cause: the query matches the useful sources' keys best
        scores = matches(ex, r)
        if not _useful_lead(scores, r.useful):
            raise ValueError(f"{where}: the query must match the useful sources' keys best, got {scores}")
    if r.sharpness is not None:
        if not r.query:
            raise ValueError(f"{where}: weights computed from matches need a query")
        expected = softmax_of(matches(ex, r), r.sharpness)
        if any(abs(w - e) > 1e-12 for w, e in zip(r.weights, expected)):
            raise ValueError(f"{where}: the weights are not softmax({r.sharpness} · matches) of this "
                             f"example's keys: {r.weights} against {expected}")


def _useful_lead(values, useful) -> bool:
    """Every useful position's value (one-based) is larger than every other position's."""
    others = [v for p, v in enumerate(values, start=1) if p not in useful]
    return not others or min(values[p - 1] for p in useful) > max(others)


def contributions(ex: WordExample, reading: Reading) -> tuple[tuple[float, ...], ...]:
    """What each known row sends into the head's message: its weight times its value row,
    one row per position 1..receiver (the scaled copies the picture moves into the message slot)."""
    if not ex.values:
        raise ValueError(f"{ex.key}: the example has no value rows")
    return tuple(tuple(w * v for v in ex.values[p]) for p, w in enumerate(reading.weights))


def matches(ex: WordExample, reading: Reading) -> tuple[float, ...]:
    """How well the head's query matches each known row's key: their dot product, one per position
    1..receiver. In these illustrations a row's key carries the same features as its value row (as
    the worksheet's W_K = W_V), so the keys are the value rows. A reading made by `matched_reading`
    has the softmax of its sharpness times these as its weights."""
    if not reading.query or not ex.values:
        raise ValueError(f"{ex.key}, head {reading.head}: no query or no value rows to match")
    return tuple(math.fsum(q * k for q, k in zip(reading.query, ex.values[p])) for p in range(ex.receiver))


def feature_shares(ex: WordExample, reading: Reading, feature: str) -> tuple[float, ...]:
    """Where one coordinate of the head's message comes from: each known row's part of it, as a
    fraction of the whole coordinate (one per position 1..receiver, summing to one). Where value rows
    overlap, one set of weights mixes them: a share a later layer cannot undo by rescaling."""
    k = ex.feature_index(feature)
    parts = [row[k] for row in contributions(ex, reading)]
    total = math.fsum(parts)
    if total <= 0.0:
        raise ValueError(f"{ex.key}, head {reading.head}: the message carries no {feature}")
    return tuple(p / total for p in parts)


def _slice_index(ex: WordExample, reading: Reading) -> int:
    """The one coordinate a head of several keeps: the feature its role names."""
    if reading.head < 1:
        raise ValueError(f"{ex.key}: the one head (head 0) sees whole value rows, not a slice")
    return ex.feature_index(reading.role)


def head_values(ex: WordExample, reading: Reading) -> tuple[tuple[float, ...], ...]:
    """Each known row's value as one head of several sees it, through its own value projection: the
    one coordinate its role names (head 1 keeps colour). Here a key carries what its value carries
    (as in `matches`), so these are the head's keys too; one row per position 1..receiver."""
    k = _slice_index(ex, reading)
    return tuple((ex.values[p][k],) for p in range(ex.receiver))


def slice_contributions(ex: WordExample, reading: Reading) -> tuple[tuple[float, ...], ...]:
    """What each known row sends into one head's slice: its contribution (weight times value) to the
    coordinate the head keeps, one row per position 1..receiver."""
    k = _slice_index(ex, reading)
    return tuple((row[k],) for row in contributions(ex, reading))


def head_slice(ex: WordExample, reading: Reading) -> tuple[int, float]:
    """What one head of several sends: one coordinate of its message, the feature its role names;
    (feature index, value)."""
    k = _slice_index(ex, reading)
    return k, message(ex, reading)[k]


def joined_slices(ex: WordExample) -> tuple[float, ...]:
    """The heads' slices side by side, in feature order: a message as wide as the one head's, each
    coordinate from the head whose role it is. Every feature needs exactly one such head."""
    heads = [r for r in ex.readings if r.head >= 1]
    slices = dict(head_slice(ex, r) for r in heads)
    if sorted(slices) != list(range(len(ex.features))) or len(heads) != len(ex.features):
        roles = [r.role for r in heads]
        raise ValueError(f"{ex.key}: the heads' roles {roles} must name each of {list(ex.features)} once")
    return tuple(slices[k] for k in range(len(ex.features)))


def even_weights(n: int) -> tuple[float, ...]:
    """The picture before a head has chosen: every one of the n known rows read alike (1/n each).
    Chapter 1 draws these thin, even arrows first and then thickens them into a head's reading."""
    if n < 1:
        raise ValueError(f"need at least one known row, got {n}")
    return tuple(1.0 / n for _ in range(n))


def message(ex: WordExample, reading: Reading) -> tuple[float, ...]:
    """The head's message at the receiver: the sum of the contributions, coordinate by coordinate."""
    parts = contributions(ex, reading)
    return tuple(math.fsum(row[k] for row in parts) for k in range(len(ex.features)))


# ---------------------------------------------------------------------------------------------
# The examples (docs/WORKSHEET.md, "Word-only examples")
# ---------------------------------------------------------------------------------------------

# Illustrative value rows of the coat example: what each row could send, on three named features
# (hand-chosen). They overlap where wool's row also carries some colour, so a head that reads red and
# wool alike mixes their colours. The keys carry the same features (see `matches`).
COAT_FEATURES = ("colour", "material", "detail")
COAT_VALUES = (
    (0.0, 0.0, 0.2),   # Maya
    (0.0, 0.2, 0.0),   # wore
    (0.1, 0.1, 0.1),   # a
    (0.0, 0.0, 1.0),   # hooded
    (1.0, 0.0, 0.0),   # red
    (0.4, 1.0, 0.0),   # wool: it also carries some colour (value rows seldom keep features apart)
    (0.2, 0.2, 0.2),   # coat
)

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
    # Illustrative readings over Maya, wore, a, hooded, red, wool, coat: each head's query is
    # hand-chosen (shades of colour, material, detail); its weights are not, they are the softmax of
    # SHARPNESS times the query's match with every row's key (matched_reading).
    readings=(
        # one head, one set of weights: it asks for all three features, so it splits its weights
        # between the three describing words. It asks for material less (0.6), so wool (colour 0.4,
        # material 1) matches as well as red and hooded, not better: three equal matches (1 each),
        # three equal weights, under a third each
        matched_reading(0, "colour, material and detail", (4, 5, 6), (1.0, 0.6, 1.0), COAT_VALUES),
        # each of the three heads asks for its own feature and leans on the word that carries it
        matched_reading(1, "colour", (5,), (1.0, 0.0, 0.0), COAT_VALUES),
        matched_reading(2, "material", (6,), (0.0, 1.0, 0.0), COAT_VALUES),
        matched_reading(3, "detail", (4,), (0.0, 0.0, 1.0), COAT_VALUES),
    ),
    # the one head's trade: to keep its colour red's, it leans on red, and wool and hooded fade
    alternatives=(
        # its query asks mostly for colour (detail at 0.5, material not at all): red matches best, then
        # hooded, then wool, and the weights follow in that order
        matched_reading(0, "colour", (5,), (1.0, 0.0, 0.5), COAT_VALUES),
    ),
    features=COAT_FEATURES,
    values=COAT_VALUES,
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
    heads=2,
    # Illustrative weights over The, dogs, near, the, gate, usually: one head reads the subject, a
    # second the place; both useful sources lie in the known prefix.
    readings=(
        Reading(1, "subject", (2,), (0.05, 0.62, 0.06, 0.05, 0.12, 0.10)),
        Reading(2, "place", (5,), (0.05, 0.10, 0.12, 0.05, 0.58, 0.10)),
    ),
)

# Illustrative weights over Ravi, dropped/washed, the, glass, ., It (the same in both sentences: the
# arrows are a schematic, not a promise that a trained map stays unchanged after the substitution).
_RAVI_READINGS = (
    Reading(1, "referent", (4,), (0.08, 0.07, 0.05, 0.62, 0.06, 0.12)),
    Reading(2, "event", (2,), (0.08, 0.60, 0.04, 0.12, 0.06, 0.10)),
)

# The object's features are the same in both sentences (the object clue stays); the event's change.
_GLASS_FEATURES = (0.8, 0.35, 0.55, 0.15)

EVENT_AND_REFERENCE = WordExample(
    key="ravi",
    text="Ravi dropped the glass . It ___",
    receiver=6,
    sources=(
        Source("glass", 4, "referent", features=_GLASS_FEATURES),
        Source("dropped", 2, "event", features=(0.9, 0.2, 0.75, 0.35)),
    ),
    next_word="broke",
    heads=2,
    readings=_RAVI_READINGS,
)

EVENT_SUBSTITUTED = WordExample(
    key="ravi_washed",
    text="Ravi washed the glass . It ___",
    receiver=6,
    sources=(
        Source("glass", 4, "referent", features=_GLASS_FEATURES),
        Source("washed", 2, "event", features=(0.25, 0.85, 0.15, 0.95)),
    ),
    next_word="gleamed",
    heads=2,
    readings=_RAVI_READINGS,
)


@dataclass(frozen=True)
class Substitution:
    """One word of an example swapped for another: which clue stays and which changes (storyboard,
    scene 3: "the object clue stays, the event clue changes")."""

    before: WordExample
    after: WordExample
    position: int          # the one-based position whose word changes

    def __post_init__(self):
        a, b = self.before.tokens, self.after.tokens
        changed = [p for p, (x, y) in enumerate(zip(a, b), start=1) if x != y]
        if len(a) != len(b) or changed != [self.position]:
            raise ValueError(f"{self.before.key} -> {self.after.key}: exactly position {self.position} "
                             f"must change, got {changed}")

    @property
    def kept(self) -> tuple[Source, ...]:
        """The sources whose word stays (the object clue)."""
        return tuple(s for s in self.after.sources if s.position != self.position)

    @property
    def changed_head(self) -> int:
        """The head whose useful source is the swapped word (the event head)."""
        heads = [r.head for r in self.after.readings if self.position in r.useful]
        if len(heads) != 1:
            raise ValueError(f"{self.after.key}: {len(heads)} heads rely on position {self.position}")
        return heads[0]

    @property
    def changed(self) -> tuple[Source, Source]:
        """(before, after): the source at the swapped position (the event clue)."""
        old = next(s for s in self.before.sources if s.position == self.position)
        new = next(s for s in self.after.sources if s.position == self.position)
        return old, new


SUBSTITUTION = Substitution(EVENT_AND_REFERENCE, EVENT_SUBSTITUTED, position=2)

LATER_LAYER = WordExample(
    key="later_layer",
    text="Maya cycled home in the rain. Cold and tired, Maya reached for a hooded red wool coat. She …",
    receiver=21,
    sources=(Source("Maya", 12, "key and value", note="the second Maya row may already hold the "
                                                       "preceding facts"),),
)

WORD_EXAMPLES: dict[str, WordExample] = {e.key: e for e in (COAT, SUBJECT_AGREEMENT, EVENT_AND_REFERENCE,
                                                            EVENT_SUBSTITUTED, LATER_LAYER)}


# ---------------------------------------------------------------------------------------------
# Heads that overlap, and a head that can be pruned (scene 4; lesson notes, paragraph 5)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HeadPatterns:
    """ILLUSTRATIVE attention patterns of a few heads over the same sources, for the picture "some
    heads overlap or can be pruned" (Voita et al., 2019). Not measured: hand-chosen so that two
    heads read almost alike."""

    heads: tuple[int, ...]                     # head numbers (their colours)
    patterns: tuple[tuple[float, ...], ...]    # one weight row per head, each summing to one

    def __post_init__(self):
        if len(self.heads) != len(self.patterns) or len(self.heads) < 2:
            raise ValueError("need one pattern per head, and at least two heads")
        for h, row in zip(self.heads, self.patterns):
            if len(row) != len(self.patterns[0]) or not all(w > 0 for w in row) or \
                    abs(math.fsum(row) - 1.0) > 1e-12:
                raise ValueError(f"head {h}: a pattern is positive, sums to one and has one weight per source")

    def distance(self, a: int, b: int) -> float:
        """Total variation distance between the patterns of heads a and b: half the sum of the
        absolute differences (0: identical, 1: disjoint)."""
        pa, pb = self.patterns[self.heads.index(a)], self.patterns[self.heads.index(b)]
        return 0.5 * math.fsum(abs(x - y) for x, y in zip(pa, pb))

    @property
    def closest_pair(self) -> tuple[int, int]:
        """The two heads whose patterns overlap most (the smallest distance; ties: the earlier pair)."""
        pairs = [(a, b) for i, a in enumerate(self.heads) for b in self.heads[i + 1:]]
        return min(pairs, key=lambda ab: self.distance(*ab))

    @property
    def prunable(self) -> int:
        """The head the picture fades out: the later head of the closest pair (its partner reads
        almost the same sources)."""
        return self.closest_pair[1]


OVERLAPPING_HEADS = HeadPatterns(
    heads=(1, 2, 3),
    patterns=(
        (0.10, 0.60, 0.10, 0.10, 0.10),
        (0.10, 0.10, 0.10, 0.60, 0.10),
        (0.10, 0.10, 0.15, 0.55, 0.10),
    ),
)


def word_example(key: str) -> WordExample:
    """One example by key; a clear error naming the allowed keys otherwise."""
    try:
        return WORD_EXAMPLES[key]
    except KeyError:
        raise ValueError(f"unknown word example {key!r}; allowed: {', '.join(WORD_EXAMPLES)}") from None


__all__ = [
    "BLANKS", "tokenize_words", "Source", "Reading", "WordExample", "SHARPNESS", "matched_reading",
    "softmax_of", "contributions", "even_weights", "feature_shares", "head_slice", "head_values", "joined_slices", "slice_contributions", "matches", "message", "COAT",
    "COAT_FEATURES", "COAT_VALUES",
    "SUBJECT_AGREEMENT", "EVENT_AND_REFERENCE", "EVENT_SUBSTITUTED", "Substitution", "SUBSTITUTION",
    "LATER_LAYER", "WORD_EXAMPLES", "word_example", "HeadPatterns", "OVERLAPPING_HEADS",
]
