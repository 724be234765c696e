"""The two-head worksheet: every number the worksheet scenes show, computed in float64.

Inputs are the hand-chosen tables of docs/WORKSHEET.md; nothing here is rounded (rounding
happens only at display, through `lesson_data.display.fmt`). Row-vector convention throughout:
a row of E times a matrix gives a row. Pure numpy: no torch, no manim.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

# ---------------------------------------------------------------------------------------------
# Inputs (docs/WORKSHEET.md)
# ---------------------------------------------------------------------------------------------


def _const(rows) -> np.ndarray:
    """A read-only float64 array, so no caller can silently edit a shared table."""
    arr = np.array(rows, dtype=np.float64)
    arr.setflags(write=False)
    return arr


VOCAB: tuple[str, ...] = (
    "the", "fisherman", "sat", "beside", "river", "bank", "and", "watched", "she", "deposited",
    "cheque", "at", "water", "boats", "fish", "ducks", "teller", "clerk", "queue", "money",
)
AXES: tuple[str, ...] = ("water", "finance", "person", "glue")
# The last eight words are the candidate next words.
CANDIDATES: tuple[str, ...] = VOCAB[12:]
MAX_WORDS = 20  # the position table has 20 rows

TOKEN_TABLE = _const([
    [0.0, 0.0, 0.0, 2.4],  # the
    [2.0, 0.0, 2.2, 0.0],  # fisherman
    [0.4, 0.0, 0.6, 1.8],  # sat
    [0.6, 0.0, 0.0, 2.0],  # beside
    [3.0, 0.0, 0.0, 0.0],  # river
    [0.7, 0.7, 0.0, 0.7],  # bank
    [0.0, 0.0, 0.0, 2.2],  # and
    [0.6, 0.0, 0.8, 1.6],  # watched
    [0.0, 0.0, 2.6, 0.4],  # she
    [0.0, 2.2, 0.6, 0.4],  # deposited
    [0.0, 3.0, 0.0, 0.0],  # cheque
    [0.0, 0.0, 0.0, 2.0],  # at
    [3.0, 0.0, 0.0, 0.0],  # water
    [2.4, 0.0, 0.4, 0.0],  # boats
    [2.6, 0.0, 0.6, 0.0],  # fish
    [2.2, 0.0, 0.8, 0.0],  # ducks
    [0.0, 2.6, 1.8, 0.0],  # teller
    [0.0, 2.4, 1.8, 0.0],  # clerk
    [0.0, 2.0, 0.6, 0.0],  # queue
    [0.0, 3.0, 0.0, 0.0],  # money
])

# Row p-1 is position p (positions are one-based).
POSITION_TABLE = _const([
    [0.1, 0.0, 0.1, -0.1],   # 1
    [0.0, 0.1, -0.1, 0.0],   # 2
    [-0.1, 0.0, 0.0, 0.1],   # 3
    [0.0, -0.1, 0.1, 0.0],   # 4
    [0.1, 0.1, 0.0, -0.1],   # 5
    [0.1, -0.1, 0.0, 0.1],   # 6
    [0.0, 0.0, 0.1, 0.1],    # 7
    [-0.1, 0.1, 0.1, 0.0],   # 8
    [0.1, 0.0, -0.1, 0.1],   # 9
    [0.0, 0.0, 0.0, -0.1],   # 10
    [0.1, 0.1, 0.1, 0.1],    # 11
    [-0.1, -0.1, -0.1, -0.1],  # 12
    [0.1, -0.1, 0.1, -0.1],  # 13
    [-0.1, 0.1, -0.1, 0.1],  # 14
    [0.1, 0.1, -0.1, -0.1],  # 15
    [-0.1, -0.1, 0.1, 0.1],  # 16
    [0.0, 0.1, 0.1, -0.1],   # 17
    [0.1, 0.0, 0.1, 0.1],    # 18
    [-0.1, 0.0, -0.1, 0.1],  # 19
    [0.0, -0.1, -0.1, 0.1],  # 20
])

SENTENCES: dict[str, str] = {
    "river": "The fisherman sat beside the river bank and watched the",
    "cheque": "She deposited the cheque at the bank and watched the",
}

HEAD_NAMES: tuple[str, ...] = ("setting", "person")

# Head 1 ("setting"): the query reads glue; keys/values select water and finance.
W_Q1 = _const([[0, 0], [0, 0], [0, 0], [1, 1]])
W_K1 = _const([[1, 0], [0, 1], [0, 0], [0, 0]])
W_V1 = _const([[1, 0], [0, 1], [0, 0], [0, 0]])  # separate parameter; equal entries to W_K1 here
# Head 2 ("person"): the query reads glue; keys/values select person and glue.
W_Q2 = _const([[0, 0], [0, 0], [0, 0], [1, 0]])
W_K2 = _const([[0, 0], [0, 0], [1, 0], [0, 1]])
W_V2 = _const([[0, 0], [0, 0], [1, 0], [0, 1]])
# Rows: joined coordinates H1a, H1b, H2a, H2b; columns: the four axes.
W_O = _const([[1, 0, 0, 0], [0, 1, 0, 0], [0.25, 0, 1, 0], [0, 0, 0, 1]])

# Prediction MLP: h = ReLU(e' W1 + b1); logits = h W2 + b2.
W1 = _const([
    [1, 0, 0, 1, 1, -1, 1, 0],
    [0, 1, 0, 1, -1, 1, 0, 1],
    [0, 0, 1, 0, 0, 0, 1, 1],
    [0, 0, 0, -0.2, 0, 0, -0.1, -0.1],
])
B1 = _const([0, 0, 0, -0.5, -0.5, -0.5, -0.5, -0.5])


def _build_w2() -> np.ndarray:
    w2 = np.zeros((8, len(VOCAB)), dtype=np.float64)
    nonzero = {
        0: {"water": 1.5, "boats": 1.2, "fish": 1.0, "ducks": 0.7},
        1: {"teller": 1.5, "clerk": 1.2, "queue": 0.9, "money": 0.7},
        2: {"fisherman": 0.2, "teller": 0.2, "clerk": 0.2},
        3: {word: 0.1 for word in CANDIDATES},
        4: {"water": 0.2, "boats": 0.1},
        5: {"teller": 0.2, "clerk": 0.1},
        6: {"fish": 0.1, "ducks": 0.1},
        7: {"teller": 0.1, "clerk": 0.1},
    }
    for hidden_unit, entries in nonzero.items():
        for word, value in entries.items():
            w2[hidden_unit, VOCAB.index(word)] = value
    w2.setflags(write=False)
    return w2


W2 = _build_w2()
# The twelve sentence words start at -1.5 so that only context lifts a candidate.
B2 = _const([-1.5] * 12 + [0.0] * 8)

# Single-head reference (the earlier part's toy): query/key width 3, value width 2, scores / sqrt(3).
SINGLE_W_Q = _const([[1, 0, 0], [0, 1, 0], [0, 0, 0.4], [0.7, 0.7, 0]])
SINGLE_W_K = _const([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]])
SINGLE_W_V = _const([[1, 0], [0, 1], [0, 0], [0, 0]])
SINGLE_W_O = _const([[0.8, -0.2, 0.3, 0.1], [-0.1, 1.1, 0.2, -0.2]])

# Bias illustration: a query bias added to head 1's receiver query.
B_Q_ILLUSTRATION = _const([0.2, -0.1])

# ---------------------------------------------------------------------------------------------
# Sentence choice
# ---------------------------------------------------------------------------------------------

_ALLOWED_SENTENCES_TEXT = (
    'allowed: "river", "cheque", or 1-20 space-separated words from the vocabulary ('
    + ", ".join(VOCAB) + ")"
)


def tokenize(sentence: str) -> tuple[str, ...]:
    """Lower-case tokens of a sentence.

    "river" and "cheque" (any case) name the two worksheet sentences; any other text must be
    1-20 whitespace-separated vocabulary words (case-insensitive). Raises ValueError otherwise.
    Note: the single word "river" therefore means the river *sentence*.
    """
    if not isinstance(sentence, str):
        raise ValueError(f"sentence must be text, got {type(sentence).__name__}; {_ALLOWED_SENTENCES_TEXT}")
    key = sentence.strip().lower()
    if key in SENTENCES:
        sentence = SENTENCES[key]
    words = sentence.lower().split()
    if not words:
        raise ValueError(f"empty sentence (0 words); {_ALLOWED_SENTENCES_TEXT}")
    if len(words) > MAX_WORDS:
        raise ValueError(
            f"sentence has {len(words)} words, at most {MAX_WORDS} allowed (the position table has {MAX_WORDS} rows)"
        )
    for word in words:
        if word not in VOCAB:
            raise ValueError(f"unknown word {word!r}; {_ALLOWED_SENTENCES_TEXT}")
    return tuple(words)


def _sentence_name_and_text(sentence: str) -> tuple[str, str, tuple[str, ...]]:
    tokens = tokenize(sentence)
    key = sentence.strip().lower()
    if key in SENTENCES:
        return key, SENTENCES[key], tokens
    return " ".join(tokens), " ".join(sentence.split()), tokens


def sentence_from_env() -> str:
    """The scenes' ONE sentence switch: $LESSON_SENTENCE (default "river"), validated."""
    sentence = os.environ.get("LESSON_SENTENCE", "river")
    tokenize(sentence)  # raises the same ValueError as everywhere else
    return sentence


# ---------------------------------------------------------------------------------------------
# Result types (frozen; arrays are float64 and read-only)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Head:
    """One attention head applied to E, every intermediate kept (row-vector convention)."""

    index: int  # 1 or 2; 0 for the wide control head
    name: str
    W_Q: np.ndarray  # [4, d_k]
    W_K: np.ndarray  # [4, d_k]
    W_V: np.ndarray  # [4, d_v]
    Q: np.ndarray  # [n, d_k]
    K: np.ndarray  # [n, d_k]
    V: np.ndarray  # [n, d_v]
    scores: np.ndarray  # [n, n] raw Q K^T
    scale: float  # sqrt(d_k)
    scaled: np.ndarray  # [n, n] scores / scale
    masked: np.ndarray  # [n, n] -inf above the diagonal (future sources)
    row_max: np.ndarray  # [n] max over permitted sources
    shifted: np.ndarray  # [n, n] masked - row_max; -inf stays -inf
    exps: np.ndarray  # [n, n] exactly 0.0 above the diagonal
    denominators: np.ndarray  # [n] sum of exps over sources 1..i, the receiver included
    weights: np.ndarray  # [n, n] A; rows sum to one; exactly 0.0 above the diagonal
    messages: np.ndarray  # [n, d_v] H = A V
    W_O_block: np.ndarray  # [d_v, 4] this head's rows of W_O
    contribution: np.ndarray  # [n, 4] messages W_O_block


@dataclass(frozen=True, eq=False)
class Prediction:
    input: np.ndarray  # [4] last row of E'
    pre_activation: np.ndarray  # [8]
    hidden: np.ndarray  # [8]
    logits: np.ndarray  # [20]
    probabilities: np.ndarray  # [20]
    prediction: str
    ranked: list  # [(word, p)] by p descending (ties: vocabulary order)


@dataclass(frozen=True, eq=False)
class Worksheet:
    name: str
    text: str
    tokens: tuple[str, ...]
    n: int
    receiver: int  # one-based position of the last token (= n)
    token_rows: np.ndarray  # [n, 4]
    position_rows: np.ndarray  # [n, 4]
    E: np.ndarray  # [n, 4]
    heads: tuple[Head, Head]
    H_joined: np.ndarray  # [n, 4] concat(H1, H2)
    W_O: np.ndarray  # [4, 4]
    delta_E: np.ndarray  # [n, 4]
    E_prime: np.ndarray  # [n, 4]
    mlp: Prediction
    wide_head: Head


@dataclass(frozen=True, eq=False)
class SingleHeadReference(Head):
    """The earlier part's single head (Q/K width 3, V width 2, / sqrt(3)) on the same sentence.

    It *is* a Head (same fields), plus the whole pass through to the prediction.
    """

    sentence: str
    tokens: tuple[str, ...]
    n: int
    receiver: int
    E: np.ndarray  # [n, 4]
    W_O: np.ndarray  # [2, 4]
    delta_E: np.ndarray  # [n, 4]
    E_prime: np.ndarray  # [n, 4]
    mlp: Prediction


# ---------------------------------------------------------------------------------------------
# Computation
# ---------------------------------------------------------------------------------------------


def _frozen(arr) -> np.ndarray:
    out = np.array(arr, dtype=np.float64)  # always a fresh copy
    out.setflags(write=False)
    return out


def embed(tokens: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Token rows, position rows and E = token rows + position rows, each [n, 4]."""
    token_rows = TOKEN_TABLE[[VOCAB.index(t) for t in tokens]]
    position_rows = POSITION_TABLE[: len(tokens)]
    return _frozen(token_rows), _frozen(position_rows), _frozen(token_rows + position_rows)


def causal_mask(n: int) -> np.ndarray:
    """True where source j may be read by receiver i (j <= i)."""
    return np.tril(np.ones((n, n), dtype=bool))


def run_head(E, W_Q, W_K, W_V, W_O_block, index: int, name: str, query_bias=None) -> Head:
    """Scaled dot-product attention with a causal mask and a stable row softmax."""
    E = np.asarray(E, dtype=np.float64)
    n = E.shape[0]
    Q = E @ W_Q
    if query_bias is not None:
        Q = Q + np.asarray(query_bias, dtype=np.float64)
    K = E @ W_K
    V = E @ W_V
    scores = Q @ K.T
    scale = math.sqrt(W_Q.shape[1])
    scaled = scores / scale
    allowed = causal_mask(n)
    masked = np.where(allowed, scaled, -np.inf)
    # Stable softmax: subtract the max over permitted sources (the diagonal is always permitted).
    row_max = masked.max(axis=1)
    shifted = masked - row_max[:, None]  # -inf - finite = -inf
    exps = np.where(allowed, np.exp(shifted), 0.0)
    denominators = exps.sum(axis=1)  # includes the receiver itself
    weights = exps / denominators[:, None]
    messages = weights @ V
    contribution = messages @ W_O_block
    return Head(
        index=index, name=name,
        W_Q=_frozen(W_Q), W_K=_frozen(W_K), W_V=_frozen(W_V),
        Q=_frozen(Q), K=_frozen(K), V=_frozen(V),
        scores=_frozen(scores), scale=scale, scaled=_frozen(scaled), masked=_frozen(masked),
        row_max=_frozen(row_max), shifted=_frozen(shifted), exps=_frozen(exps),
        denominators=_frozen(denominators), weights=_frozen(weights), messages=_frozen(messages),
        W_O_block=_frozen(W_O_block), contribution=_frozen(contribution),
    )


def softmax(logits) -> np.ndarray:
    """Stable softmax of a vector."""
    z = np.asarray(logits, dtype=np.float64)
    e = np.exp(z - z.max())
    return e / e.sum()


def predict(e_last) -> Prediction:
    """The prediction MLP on one row of E' (the receiver's)."""
    x = np.asarray(e_last, dtype=np.float64)
    pre = x @ W1 + B1
    hidden = np.maximum(pre, 0.0)
    logits = hidden @ W2 + B2
    probs = softmax(logits)
    order = sorted(range(len(VOCAB)), key=lambda i: (-probs[i], i))
    return Prediction(
        input=_frozen(x), pre_activation=_frozen(pre), hidden=_frozen(hidden),
        logits=_frozen(logits), probabilities=_frozen(probs),
        prediction=VOCAB[int(np.argmax(probs))],
        ranked=[(VOCAB[i], float(probs[i])) for i in order],
    )


def compute_worksheet(sentence: str = "river") -> Worksheet:
    """The full two-head pass for one sentence (see module docstring)."""
    name, text, tokens = _sentence_name_and_text(sentence)
    token_rows, position_rows, E = embed(tokens)
    head1 = run_head(E, W_Q1, W_K1, W_V1, W_O[0:2], 1, HEAD_NAMES[0])
    head2 = run_head(E, W_Q2, W_K2, W_V2, W_O[2:4], 2, HEAD_NAMES[1])
    H_joined = np.concatenate([head1.messages, head2.messages], axis=1)
    delta_E = H_joined @ W_O
    E_prime = E + delta_E
    # Control: the same projections side by side, one width-4 head, / sqrt(4), one softmax.
    wide = run_head(
        E,
        np.concatenate([W_Q1, W_Q2], axis=1),
        np.concatenate([W_K1, W_K2], axis=1),
        np.concatenate([W_V1, W_V2], axis=1),
        W_O, 0, "wide",
    )
    return Worksheet(
        name=name, text=text, tokens=tokens, n=len(tokens), receiver=len(tokens),
        token_rows=token_rows, position_rows=position_rows, E=E,
        heads=(head1, head2), H_joined=_frozen(H_joined), W_O=_frozen(W_O),
        delta_E=_frozen(delta_E), E_prime=_frozen(E_prime), mlp=predict(E_prime[-1]),
        wide_head=wide,
    )


def single_head_reference(sentence: str = "river") -> SingleHeadReference:
    """The earlier part's single head on the same sentence, through to the prediction."""
    name, _text, tokens = _sentence_name_and_text(sentence)
    _, _, E = embed(tokens)
    head = run_head(E, SINGLE_W_Q, SINGLE_W_K, SINGLE_W_V, SINGLE_W_O, 1, "single")
    delta_E = head.contribution
    E_prime = E + delta_E
    fields = {f: getattr(head, f) for f in Head.__dataclass_fields__}
    return SingleHeadReference(
        **fields, sentence=name, tokens=tokens, n=len(tokens), receiver=len(tokens), E=E,
        W_O=_frozen(SINGLE_W_O), delta_E=_frozen(delta_E), E_prime=_frozen(E_prime),
        mlp=predict(E_prime[-1]),
    )


# ---------------------------------------------------------------------------------------------
# Side examples
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TwoSourceIllustration:
    """Invented values: one head shares one weight per source across all value coordinates;
    two heads may weight the sources differently per coordinate. The two-head weights are
    illustrative choices, not computed from any model.

    The picture (chapter 1, scene 4): the two sources' value rows, arrows into the receiver whose
    widths are the weights, each value scaled by its weight moving into the receiver's message.
    With two heads, coordinate `coordinates[k]` is head `coordinate_heads[k]`'s one-coordinate value,
    mixed with that head's own weights."""

    sources: tuple[str, str]
    value_rows: dict  # word -> [2] value row
    V: np.ndarray  # [2 sources, 2 coordinates]
    coordinates: tuple[str, str]
    one_head_weights: tuple[float, float]  # per source, shared by both coordinates
    one_head_message: np.ndarray  # [2]
    two_head_weights: dict  # coordinate -> (w_river, w_fisherman)
    two_head_message: np.ndarray  # [2]; coordinate c uses its own weights
    illustrative: bool = True
    receiver: str = "the"  # the word that reads the two sources (the river sentence's receiver)
    one_head_products: np.ndarray = None  # [2 sources, 2]: weight times value row, per source
    two_head_products: np.ndarray = None  # [2 sources, 2]: entry (s, k) = head k's weight for s times V[s, k]
    coordinate_heads: tuple[int, int] = (1, 2)  # which head carries each coordinate
    most_different: int = 1  # the coordinate where the two messages differ most
    leans_on: tuple[str, str] = ("river", "fisherman")  # per coordinate: the source its head weights most


def two_source_illustration() -> TwoSourceIllustration:
    sources = ("river", "fisherman")
    V = _frozen([[10.0, 1.0], [2.0, 8.0]])
    one = (0.8, 0.2)
    one_message = np.array(one) @ V
    two = {"a": (0.8, 0.2), "b": (0.2, 0.8)}  # illustrative: head a favours river, head b fisherman
    two_message = np.array([np.array(two[c]) @ V[:, k] for k, c in enumerate(("a", "b"))])
    one_products = np.array(one)[:, None] * V
    two_products = np.array([[two[c][s] * V[s, k] for k, c in enumerate(("a", "b"))] for s in range(2)])
    return TwoSourceIllustration(
        sources=sources, value_rows={s: V[i] for i, s in enumerate(sources)}, V=V,
        coordinates=("a", "b"), one_head_weights=one, one_head_message=_frozen(one_message),
        two_head_weights=two, two_head_message=_frozen(two_message),
        one_head_products=_frozen(one_products), two_head_products=_frozen(two_products),
        most_different=int(np.argmax(np.abs(two_message - one_message))),
        leans_on=tuple(sources[int(np.argmax(two[c]))] for c in ("a", "b")),
    )


@dataclass(frozen=True, eq=False)
class BiasIllustration:
    """Head 1's receiver row without and with a query bias b_Q (keys unchanged)."""

    sentence: str
    receiver: int
    b_Q: np.ndarray  # [2]
    query_without: np.ndarray  # [2]
    query_with: np.ndarray  # [2] = query_without + b_Q
    keys: np.ndarray  # [n, 2] head 1 keys (no key bias)
    scores_without: np.ndarray  # [n] raw q . k_j
    scores_with: np.ndarray  # [n]
    scaled_without: np.ndarray  # [n] / sqrt(2)
    scaled_with: np.ndarray  # [n]
    weights_without: np.ndarray  # [n]
    weights_with: np.ndarray  # [n]
    d_model: int
    num_heads: int
    extra_parameters: dict  # {"in_proj_bias": 12, "out_proj.bias": 4, "total": 16}


def bias_illustration(sentence: str = "river") -> BiasIllustration:
    ws = compute_worksheet(sentence)
    plain = ws.heads[0]
    biased = run_head(ws.E, W_Q1, W_K1, W_V1, W_O[0:2], 1, HEAD_NAMES[0], query_bias=B_Q_ILLUSTRATION)
    last = ws.n - 1
    d_model = len(AXES)
    # bias=True: one offset per Q, K and V output coordinate (3 * d_model) plus one per output coordinate.
    in_proj_bias = 3 * d_model
    out_proj_bias = d_model
    return BiasIllustration(
        sentence=ws.name, receiver=ws.receiver, b_Q=_frozen(B_Q_ILLUSTRATION),
        query_without=plain.Q[last], query_with=biased.Q[last], keys=plain.K,
        scores_without=plain.scores[last], scores_with=biased.scores[last],
        scaled_without=plain.scaled[last], scaled_with=biased.scaled[last],
        weights_without=plain.weights[last], weights_with=biased.weights[last],
        d_model=d_model, num_heads=len(HEAD_NAMES),
        extra_parameters={
            "in_proj_bias": in_proj_bias,
            "out_proj.bias": out_proj_bias,
            "total": in_proj_bias + out_proj_bias,
        },
    )


# ---------------------------------------------------------------------------------------------
# JSON export
# ---------------------------------------------------------------------------------------------


def _jsonable(arr) -> object:
    """Nested lists of Python floats; -inf becomes None (JSON null); NaN/+inf are bugs."""
    a = np.asarray(arr, dtype=np.float64)
    if np.isnan(a).any() or np.isposinf(a).any():
        raise ValueError("NaN or +inf in worksheet data")
    if a.ndim == 0:
        return None if np.isneginf(a) else float(a)
    return [_jsonable(x) for x in a]


HEAD_ARRAY_FIELDS = (
    "W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled", "masked", "row_max", "shifted", "exps",
    "denominators", "weights", "messages", "W_O_block", "contribution",
)


def head_to_dict(head: Head) -> dict:
    out: dict = {"index": head.index, "name": head.name, "scale": float(head.scale)}
    for field in HEAD_ARRAY_FIELDS:
        out[field] = _jsonable(getattr(head, field))
    return out


def prediction_to_dict(p: Prediction) -> dict:
    return {
        "input": _jsonable(p.input),
        "pre_activation": _jsonable(p.pre_activation),
        "hidden": _jsonable(p.hidden),
        "logits": _jsonable(p.logits),
        "probabilities": {w: float(x) for w, x in zip(VOCAB, p.probabilities)},
        "prediction": p.prediction,
        "ranked": [[w, float(x)] for w, x in p.ranked],
    }


def worksheet_to_dict(ws: Worksheet) -> dict:
    """JSON-ready dict, full precision (no rounding), -inf as None. Key order is fixed."""
    mlp = prediction_to_dict(ws.mlp)
    return {
        "name": ws.name,
        "text": ws.text,
        "tokens": list(ws.tokens),
        "n": ws.n,
        "receiver": ws.receiver,
        "token_rows": _jsonable(ws.token_rows),
        "position_rows": _jsonable(ws.position_rows),
        "E": _jsonable(ws.E),
        "heads": [head_to_dict(h) for h in ws.heads],
        "H_joined": _jsonable(ws.H_joined),
        "W_O": _jsonable(ws.W_O),
        "delta_E": _jsonable(ws.delta_E),
        "E_prime": _jsonable(ws.E_prime),
        "mlp": mlp,
        "probabilities": dict(mlp["probabilities"]),
        "prediction": ws.mlp.prediction,
        "wide_head": head_to_dict(ws.wide_head),
    }


__all__ = [
    "VOCAB", "AXES", "CANDIDATES", "MAX_WORDS", "TOKEN_TABLE", "POSITION_TABLE", "SENTENCES",
    "HEAD_NAMES", "W_Q1", "W_K1", "W_V1", "W_Q2", "W_K2", "W_V2", "W_O", "W1", "B1", "W2", "B2",
    "SINGLE_W_Q", "SINGLE_W_K", "SINGLE_W_V", "SINGLE_W_O", "B_Q_ILLUSTRATION",
    "tokenize", "sentence_from_env", "Head", "Prediction", "Worksheet", "SingleHeadReference",
    "embed", "causal_mask", "run_head", "softmax", "predict", "compute_worksheet",
    "single_head_reference", "TwoSourceIllustration", "two_source_illustration",
    "BiasIllustration", "bias_illustration",
    "head_to_dict", "prediction_to_dict", "worksheet_to_dict",
]
