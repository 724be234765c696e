"""Worksheet numbers checked against hand arithmetic, naive formulas and invariants.

Hand values come from the tables in docs/WORKSHEET.md; the arithmetic is in the comments.
"""

import math
import sys

import numpy as np
import pytest

from lesson_data import worksheet as W
from lesson_data.worksheet import (
    bias_illustration,
    compute_worksheet,
    sentence_from_env,
    single_head_reference,
    tokenize,
    two_source_illustration,
)

SENTENCE_NAMES = ("river", "cheque")
RIVER = ("the fisherman sat beside the river bank and watched the").split()
CHEQUE = ("she deposited the cheque at the bank and watched the").split()


@pytest.fixture(scope="module")
def river():
    return compute_worksheet("river")


@pytest.fixture(scope="module")
def cheque():
    return compute_worksheet("cheque")


def all_heads(ws):
    return (*ws.heads, ws.wide_head)


def naive_masked_softmax(scaled):
    """A second method: exponentiate the raw scaled scores (no max shift), zero the future, divide."""
    n = scaled.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        exps = [math.exp(scaled[i, j]) for j in range(i + 1)]
        total = sum(exps)
        for j in range(i + 1):
            out[i, j] = exps[j] / total
    return out


# ---- imports stay light ------------------------------------------------------------------------


def test_lesson_data_import_pulls_in_neither_torch_nor_manim():
    import subprocess

    code = "import sys, lesson_data, lesson_data.worksheet; print('torch' in sys.modules, 'manim' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


# ---- tables and tokenize -----------------------------------------------------------------------


def test_tables_have_the_documented_shapes():
    assert len(W.VOCAB) == 20 and W.VOCAB[0] == "the" and W.VOCAB[19] == "money"
    assert W.CANDIDATES == ("water", "boats", "fish", "ducks", "teller", "clerk", "queue", "money")
    assert W.AXES == ("water", "finance", "person", "glue")
    assert W.TOKEN_TABLE.shape == (20, 4) and W.POSITION_TABLE.shape == (20, 4)
    assert W.W_O.shape == (4, 4) and W.W1.shape == (4, 8) and W.W2.shape == (8, 20)
    assert W.B1.shape == (8,) and W.B2.shape == (20,)
    for m in (W.W_Q1, W.W_K1, W.W_V1, W.W_Q2, W.W_K2, W.W_V2):
        assert m.shape == (4, 2) and m.dtype == np.float64


def test_tokenize_named_sentences_case_insensitive():
    assert tokenize("river") == tuple(RIVER)
    assert tokenize("RIVER") == tuple(RIVER)
    assert tokenize(" Cheque ") == tuple(CHEQUE)
    assert tokenize("The FISH  watched\tthe") == ("the", "fish", "watched", "the")
    assert len(tokenize(" ".join(["the"] * 20))) == 20


@pytest.mark.parametrize(
    "bad, named",
    [
        ("the river boat", "'boat'"),  # unknown word
        ("The Fisherman sat.", "'sat.'"),  # punctuation is not in the vocabulary
        ("", "0 words"),
        ("   ", "0 words"),
        (" ".join(["the"] * 21), "21 words"),
    ],
)
def test_tokenize_rejects_bad_input_with_a_one_line_message(bad, named):
    with pytest.raises(ValueError) as info:
        tokenize(bad)
    message = str(info.value)
    assert named in message
    assert "\n" not in message
    assert "allowed" in message


def test_compute_worksheet_rejects_bad_input():
    with pytest.raises(ValueError, match="'dog'"):
        compute_worksheet("the dog")


def test_sentence_from_env(monkeypatch):
    monkeypatch.delenv("LESSON_SENTENCE", raising=False)
    assert sentence_from_env() == "river"
    monkeypatch.setenv("LESSON_SENTENCE", "cheque")
    assert compute_worksheet(sentence_from_env()).name == "cheque"
    monkeypatch.setenv("LESSON_SENTENCE", "the heron")
    with pytest.raises(ValueError, match="'heron'"):
        sentence_from_env()


def test_custom_sentence():
    ws = compute_worksheet("The fish watched the")
    assert ws.name == "the fish watched the"
    assert ws.text == "The fish watched the"
    assert ws.tokens == ("the", "fish", "watched", "the")
    assert ws.n == ws.receiver == 4 and ws.E.shape == (4, 4)
    assert ws.heads[0].weights.shape == (4, 4)


# ---- embeddings worked by hand -----------------------------------------------------------------


def test_river_embedding_rows_by_hand(river):
    assert river.name == "river" and river.n == 10 and river.receiver == 10
    assert river.tokens == tuple(RIVER)
    # row 1: "the" [0, 0, 0, 2.4] + position 1 [0.1, 0, 0.1, -0.1] = [0.1, 0.0, 0.1, 2.3]
    np.testing.assert_allclose(river.E[0], [0.1, 0.0, 0.1, 2.3], rtol=0, atol=1e-15)
    # row 6: "river" [3, 0, 0, 0] + position 6 [0.1, -0.1, 0, 0.1] = [3.1, -0.1, 0, 0.1]
    np.testing.assert_allclose(river.E[5], [3.1, -0.1, 0.0, 0.1], rtol=0, atol=1e-15)
    # row 10: "the" + position 10 [0, 0, 0, -0.1] = [0, 0, 0, 2.3]
    np.testing.assert_allclose(river.E[9], [0.0, 0.0, 0.0, 2.3], rtol=0, atol=1e-15)
    assert river.E.shape == (10, 4) and river.E.dtype == np.float64
    np.testing.assert_array_equal(river.E, river.token_rows + river.position_rows)


def test_cheque_embedding_rows_by_hand(cheque):
    # row 4: "cheque" [0, 3, 0, 0] + position 4 [0, -0.1, 0.1, 0] = [0, 2.9, 0.1, 0]
    np.testing.assert_allclose(cheque.E[3], [0.0, 2.9, 0.1, 0.0], rtol=0, atol=1e-15)
    # row 1: "she" [0, 0, 2.6, 0.4] + position 1 [0.1, 0, 0.1, -0.1] = [0.1, 0, 2.7, 0.3]
    np.testing.assert_allclose(cheque.E[0], [0.1, 0.0, 2.7, 0.3], rtol=0, atol=1e-15)


# ---- head 1 and head 2 at the receiver, by hand ------------------------------------------------

# Head 1 keys = (water, finance) of each E row; river sentence, positions 1..10:
#  1 the      [0.1, 0.0]   2 fisherman [2.0, 0.1]   3 sat [0.3, 0.0]   4 beside [0.6, -0.1]
#  5 the      [0.1, 0.1]   6 river     [3.1, -0.1]  7 bank [0.7, 0.7]  8 and [-0.1, 0.1]
#  9 watched  [0.7, 0.0]  10 the       [0.0, 0.0]
RIVER_HEAD1_KEYS = [[0.1, 0.0], [2.0, 0.1], [0.3, 0.0], [0.6, -0.1], [0.1, 0.1],
                    [3.1, -0.1], [0.7, 0.7], [-0.1, 0.1], [0.7, 0.0], [0.0, 0.0]]
# Receiver query [2.3, 2.3] -> score 2.3 * (water + finance):
# 0.23, 4.83, 0.69, 2.3*0.5=1.15, 0.46, 2.3*3.0=6.9, 2.3*1.4=3.22, 0, 1.61, 0
RIVER_HEAD1_ROW10_SCORES = [0.23, 4.83, 0.69, 1.15, 0.46, 6.9, 3.22, 0.0, 1.61, 0.0]
# Head 2 keys = (person, glue); query [2.3, 0] -> score 2.3 * person:
# persons 0.1, 2.1, 0.6, 0.1, 0, 0, 0.1, 0.1, 0.7, 0
RIVER_HEAD2_ROW10_SCORES = [0.23, 4.83, 1.38, 0.23, 0.0, 0.0, 0.23, 0.23, 1.61, 0.0]


def hand_softmax(scores, scale):
    exps = [math.exp(s / scale) for s in scores]
    return [e / sum(exps) for e in exps]


def test_head1_receiver_query_and_river_score_by_hand(river):
    h1 = river.heads[0]
    assert (h1.index, h1.name) == (1, "setting")
    # query = E[10] . W_Q1 = [glue, glue] = [2.3, 2.3]  (the + pos10: glue 2.4 - 0.1)
    np.testing.assert_allclose(h1.Q[9], [2.3, 2.3], rtol=0, atol=1e-15)
    # key of "river" (position 6) = [3.1, -0.1]
    np.testing.assert_allclose(h1.K[5], [3.1, -0.1], rtol=0, atol=1e-15)
    # score = 2.3*3.1 + 2.3*(-0.1) = 7.13 - 0.23 = 6.9; scaled 6.9 / sqrt(2)
    assert h1.scores[9, 5] == pytest.approx(6.9, abs=1e-14)
    assert h1.scale == math.sqrt(2)
    assert h1.scaled[9, 5] == pytest.approx(6.9 / math.sqrt(2), abs=1e-14)


def test_head1_row10_by_hand(river):
    h1 = river.heads[0]
    np.testing.assert_allclose(h1.K, RIVER_HEAD1_KEYS, rtol=0, atol=1e-15)
    np.testing.assert_allclose(h1.scores[9], RIVER_HEAD1_ROW10_SCORES, rtol=0, atol=1e-14)
    np.testing.assert_allclose(h1.weights[9], hand_softmax(RIVER_HEAD1_ROW10_SCORES, math.sqrt(2)), rtol=0, atol=1e-14)
    # river (score 6.9) gets the largest weight, fisherman (4.83) the second
    assert list(np.argsort(-h1.weights[9])[:2]) == [5, 1]
    # message = sum_j a_j v_j, with v_j = the same (water, finance) entries (W_V1 == W_K1 here)
    weights = hand_softmax(RIVER_HEAD1_ROW10_SCORES, math.sqrt(2))
    message = [sum(w * v[c] for w, v in zip(weights, RIVER_HEAD1_KEYS)) for c in range(2)]
    np.testing.assert_allclose(h1.messages[9], message, rtol=0, atol=1e-14)


def test_head2_row10_by_hand(river):
    h2 = river.heads[1]
    assert (h2.index, h2.name) == (2, "person")
    # query = E[10] . W_Q2 = [glue, 0] = [2.3, 0]
    np.testing.assert_allclose(h2.Q[9], [2.3, 0.0], rtol=0, atol=1e-15)
    # fisherman (position 2): person 2.2 - 0.1 = 2.1, glue 0 -> key [2.1, 0]; score 2.3*2.1 = 4.83
    np.testing.assert_allclose(h2.K[1], [2.1, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(h2.scores[9], RIVER_HEAD2_ROW10_SCORES, rtol=0, atol=1e-14)
    np.testing.assert_allclose(h2.weights[9], hand_softmax(RIVER_HEAD2_ROW10_SCORES, math.sqrt(2)), rtol=0, atol=1e-14)
    assert int(np.argmax(h2.weights[9])) == 1  # fisherman


def test_cheque_head1_prefers_cheque(cheque):
    # cheque key (position 4) = [0, 2.9]; receiver query [2.3, 2.3] -> 2.3*2.9 = 6.67
    h1 = cheque.heads[0]
    assert h1.scores[9, 3] == pytest.approx(6.67, abs=1e-14)
    assert int(np.argmax(h1.weights[9])) == 3
    # head 2: she (position 1) person 2.6 + 0.1 = 2.7 -> 2.3*2.7 = 6.21, the largest person score
    assert cheque.heads[1].scores[9, 0] == pytest.approx(6.21, abs=1e-14)
    assert int(np.argmax(cheque.heads[1].weights[9])) == 0


# ---- softmax invariants ------------------------------------------------------------------------


@pytest.mark.parametrize("name", SENTENCE_NAMES)
def test_attention_rows_and_mask(name):
    ws = compute_worksheet(name)
    n = ws.n
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    for head in all_heads(ws):
        A = head.weights
        assert A.shape == (n, n) and A.dtype == np.float64
        np.testing.assert_allclose(A.sum(axis=1), np.ones(n), rtol=0, atol=1e-15)
        assert np.all(A[upper] == 0.0)  # exactly zero, not merely tiny
        assert np.all(head.exps[upper] == 0.0)
        assert np.all(np.isneginf(head.masked[upper])) and np.all(np.isneginf(head.shifted[upper]))
        assert np.all(np.isfinite(head.masked[~upper]))
        assert np.all(A[~upper] > 0.0)  # every permitted source, the receiver included, counts


@pytest.mark.parametrize("name", SENTENCE_NAMES)
def test_stable_softmax_matches_naive_softmax(name):
    ws = compute_worksheet(name)
    for head in all_heads(ws):
        np.testing.assert_allclose(head.weights, naive_masked_softmax(head.scaled), rtol=0, atol=1e-15)


def test_softmax_intermediates_fit_together(river):
    for head in all_heads(river):
        n = river.n
        # row max is taken over permitted sources only: compare with a loop over j <= i
        expect_max = [max(head.scaled[i, : i + 1]) for i in range(n)]
        np.testing.assert_array_equal(head.row_max, expect_max)
        lower = np.tril(np.ones((n, n), dtype=bool))
        np.testing.assert_array_equal(head.shifted[lower], (head.scaled - np.array(expect_max)[:, None])[lower])
        # the largest shifted entry of every row is exactly 0, so its exp is exactly 1
        assert np.all(head.shifted.max(axis=1) == 0.0)
        # the denominator includes the receiver's own term (diagonal)
        np.testing.assert_allclose(head.denominators, [sum(head.exps[i, : i + 1]) for i in range(n)], rtol=0, atol=1e-14)
        assert np.all(head.denominators >= 1.0)
        np.testing.assert_allclose(head.messages, head.weights @ head.V, rtol=0, atol=1e-15)
        np.testing.assert_allclose(head.scaled, head.scores / head.scale, rtol=0, atol=0)


def test_first_row_reads_only_itself(river):
    # row 1 has a single permitted source: weight exactly 1, message = v_1
    for head in river.heads:
        assert head.weights[0, 0] == 1.0
        np.testing.assert_array_equal(head.messages[0], head.V[0])


# ---- joining the heads -------------------------------------------------------------------------


@pytest.mark.parametrize("name", SENTENCE_NAMES)
def test_concat_times_W_O_equals_sum_of_blocks(name):
    ws = compute_worksheet(name)
    h1, h2 = ws.heads
    np.testing.assert_array_equal(ws.H_joined, np.hstack([h1.messages, h2.messages]))
    # concat(H1, H2) W_O = H1 W_O[0:2] + H2 W_O[2:4]
    blockwise = h1.messages @ W.W_O[0:2] + h2.messages @ W.W_O[2:4]
    np.testing.assert_allclose(ws.delta_E, blockwise, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ws.delta_E, h1.contribution + h2.contribution, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(h1.W_O_block, W.W_O[0:2])
    np.testing.assert_array_equal(h2.W_O_block, W.W_O[2:4])
    np.testing.assert_array_equal(ws.E_prime, ws.E + ws.delta_E)


def test_delta_E_row10_by_hand_from_messages(river):
    # W_O rows: H1a -> water, H1b -> finance, H2a -> 0.25 water + person, H2b -> glue
    m1, m2 = river.heads[0].messages[9], river.heads[1].messages[9]
    expect = [m1[0] + 0.25 * m2[0], m1[1], m2[0], m2[1]]
    np.testing.assert_allclose(river.delta_E[9], expect, rtol=0, atol=1e-15)


# ---- prediction --------------------------------------------------------------------------------

# W2 re-transcribed from docs/WORKSHEET.md as (hidden unit, word, weight), independent of the module's table.
SPEC_W2 = [
    (1, "water", 1.5), (1, "boats", 1.2), (1, "fish", 1.0), (1, "ducks", 0.7),
    (2, "teller", 1.5), (2, "clerk", 1.2), (2, "queue", 0.9), (2, "money", 0.7),
    (3, "fisherman", 0.2), (3, "teller", 0.2), (3, "clerk", 0.2),
    *[(4, w, 0.1) for w in ("water", "boats", "fish", "ducks", "teller", "clerk", "queue", "money")],
    (5, "water", 0.2), (5, "boats", 0.1),
    (6, "teller", 0.2), (6, "clerk", 0.1),
    (7, "fish", 0.1), (7, "ducks", 0.1),
    (8, "teller", 0.1), (8, "clerk", 0.1),
]


def loop_mlp(e):
    """The prediction MLP by explicit loops over docs/WORKSHEET.md's entries."""
    water, finance, person, glue = e
    pre = [water, finance, person,
           water + finance - 0.2 * glue - 0.5,
           water - finance - 0.5,
           -water + finance - 0.5,
           water + person - 0.1 * glue - 0.5,
           finance + person - 0.1 * glue - 0.5]
    h = [max(0.0, p) for p in pre]
    logits = {w: (-1.5 if i < 12 else 0.0) for i, w in enumerate(W.VOCAB)}
    for unit, word, weight in SPEC_W2:
        logits[word] += h[unit - 1] * weight
    total = sum(math.exp(z) for z in logits.values())
    return pre, h, logits, {w: math.exp(z) / total for w, z in logits.items()}


@pytest.mark.parametrize("name, expected", [("river", "water"), ("cheque", "teller")])
def test_prediction_matches_loop_mlp(name, expected):
    ws = compute_worksheet(name)
    p = ws.mlp
    np.testing.assert_array_equal(p.input, ws.E_prime[-1])
    pre, h, logits, probs = loop_mlp(ws.E_prime[-1])
    np.testing.assert_allclose(p.pre_activation, pre, rtol=0, atol=1e-14)
    np.testing.assert_allclose(p.hidden, h, rtol=0, atol=1e-14)
    np.testing.assert_allclose(p.logits, [logits[w] for w in W.VOCAB], rtol=0, atol=1e-14)
    np.testing.assert_allclose(p.probabilities, [probs[w] for w in W.VOCAB], rtol=0, atol=1e-15)
    assert p.probabilities.sum() == pytest.approx(1.0, abs=1e-15)
    assert p.prediction == W.VOCAB[int(np.argmax(p.probabilities))] == expected
    assert [w for w, _ in p.ranked][0] == p.prediction
    ranked_p = [q for _, q in p.ranked]
    assert ranked_p == sorted(ranked_p, reverse=True) and len(p.ranked) == 20


def test_river_prediction_top_three_are_water_words(river):
    assert [w for w, _ in river.mlp.ranked[:3]] == ["water", "boats", "fish"]


# ---- one wide head -----------------------------------------------------------------------------


def test_wide_head_uses_width_four_and_sqrt4(river):
    wide = river.wide_head
    assert wide.scale == 2.0 == math.sqrt(4)
    assert wide.W_Q.shape == wide.W_K.shape == wide.W_V.shape == (4, 4)
    assert wide.Q.shape == wide.K.shape == wide.V.shape == wide.messages.shape == (10, 4)
    np.testing.assert_array_equal(wide.W_Q, np.hstack([W.W_Q1, W.W_Q2]))
    np.testing.assert_array_equal(wide.W_O_block, W.W_O)
    # a width-4 dot product is the sum of the two width-2 dot products: scores add, then / 2
    wide_row10 = [a + b for a, b in zip(RIVER_HEAD1_ROW10_SCORES, RIVER_HEAD2_ROW10_SCORES)]
    np.testing.assert_allclose(wide.weights[9], hand_softmax(wide_row10, 2.0), rtol=0, atol=1e-14)
    # one row for all four value coordinates: the wide message's halves use the same weights
    np.testing.assert_allclose(wide.messages[9], wide.weights[9] @ river.E[:, [0, 1, 2, 3]], rtol=0, atol=1e-14)


# ---- single-head reference ---------------------------------------------------------------------


def test_single_head_reference_shapes_and_hand_values():
    ref = single_head_reference("river")
    assert ref.Q.shape == ref.K.shape == (10, 3) and ref.V.shape == (10, 2)
    assert ref.scale == math.sqrt(3) and ref.W_O.shape == (2, 4)
    # receiver query = [0, 0, 0, 2.3] W_Q = [0.7*2.3, 0.7*2.3, 0] = [1.61, 1.61, 0]
    np.testing.assert_allclose(ref.Q[9], [1.61, 1.61, 0.0], rtol=0, atol=1e-15)
    # river key = [3.1, -0.1, 0] (W_K reads water, finance, person) -> 1.61*3.1 - 1.61*0.1 = 4.83
    assert ref.scores[9, 5] == pytest.approx(4.83, abs=1e-14)
    np.testing.assert_allclose(ref.weights.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(ref.delta_E, ref.messages @ W.SINGLE_W_O, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(ref.E_prime, ref.E + ref.delta_E)
    pre, _, _, probs = loop_mlp(ref.E_prime[-1])
    np.testing.assert_allclose(ref.mlp.probabilities, [probs[w] for w in W.VOCAB], rtol=0, atol=1e-15)


# ---- side examples -----------------------------------------------------------------------------


def test_two_source_illustration_by_hand():
    t = two_source_illustration()
    assert t.sources == ("river", "fisherman") and t.illustrative
    np.testing.assert_array_equal(t.value_rows["river"], [10, 1])
    np.testing.assert_array_equal(t.value_rows["fisherman"], [2, 8])
    assert t.one_head_weights == (0.8, 0.2)
    # one head: 0.8*[10, 1] + 0.2*[2, 8] = [8 + 0.4, 0.8 + 1.6] = [8.4, 2.4]
    np.testing.assert_allclose(t.one_head_message, [8.4, 2.4], rtol=0, atol=1e-14)
    # two heads: a = 0.8*10 + 0.2*2 = 8.4; b = 0.2*1 + 0.8*8 = 6.6
    np.testing.assert_allclose(t.two_head_message, [8.4, 6.6], rtol=0, atol=1e-14)
    for weights in t.two_head_weights.values():
        assert sum(weights) == pytest.approx(1.0)
    # the scaled copies: 0.8·[10, 1] = [8, 0.8], 0.2·[2, 8] = [0.4, 1.6]; their column sums are the message
    np.testing.assert_allclose(t.one_head_products, [[8.0, 0.8], [0.4, 1.6]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(t.one_head_products.sum(axis=0), t.one_head_message, rtol=0, atol=1e-14)
    # two heads: head 1 (a) 0.8·10, 0.2·2; head 2 (b) 0.2·1, 0.8·8
    np.testing.assert_allclose(t.two_head_products, [[8.0, 0.2], [0.4, 6.4]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(t.two_head_products.sum(axis=0), t.two_head_message, rtol=0, atol=1e-14)
    assert t.coordinate_heads == (1, 2) and t.receiver == "the"
    # the messages agree on a (8.4 both) and differ on b (2.4 vs 6.6)
    assert t.coordinates[t.most_different] == "b"
    # head 1 (a) weights river 0.8 > 0.2; head 2 (b) weights fisherman 0.8 > 0.2
    assert t.leans_on == ("river", "fisherman")


def test_bias_illustration_by_hand():
    b = bias_illustration("river")
    np.testing.assert_allclose(b.query_without, [2.3, 2.3], rtol=0, atol=1e-15)
    # with b_Q = [0.2, -0.1]: [2.5, 2.2]
    np.testing.assert_allclose(b.query_with, [2.5, 2.2], rtol=0, atol=1e-15)
    # river key [3.1, -0.1]: 2.5*3.1 + 2.2*(-0.1) = 7.75 - 0.22 = 7.53
    assert b.scores_with[5] == pytest.approx(7.53, abs=1e-14)
    np.testing.assert_allclose(b.scores_without, RIVER_HEAD1_ROW10_SCORES, rtol=0, atol=1e-14)
    np.testing.assert_allclose(b.weights_with.sum(), 1.0, rtol=0, atol=1e-15)
    assert not np.allclose(b.weights_with, b.weights_without)
    # 16 = 3*4 (Q, K, V offsets of width d_model = 4) + 4 (output offsets)
    assert b.extra_parameters == {"in_proj_bias": 12, "out_proj.bias": 4, "total": 16}
    assert b.extra_parameters["total"] == 3 * 4 + 4


# ---- immutability and dtype --------------------------------------------------------------------


def test_results_are_frozen_float64(river):
    with pytest.raises(Exception):
        river.n = 3
    with pytest.raises(ValueError):
        river.E[0, 0] = 99.0
    with pytest.raises(ValueError):
        W.TOKEN_TABLE[0, 0] = 99.0
    for head in all_heads(river):
        for field in ("Q", "K", "V", "scores", "weights", "messages", "contribution"):
            assert getattr(head, field).dtype == np.float64
    # computing twice gives bit-identical results (pure function)
    again = compute_worksheet("river")
    np.testing.assert_array_equal(again.E_prime, river.E_prime)
    np.testing.assert_array_equal(again.mlp.probabilities, river.mlp.probabilities)
