"""The word-only examples as data: receivers and source positions checked by counting tokens
independently (whitespace split, and by hand), plus the constraints the notes state."""
from __future__ import annotations

import dataclasses
import math

import pytest

from lesson_data.word_examples import (
    COAT,
    EVENT_AND_REFERENCE,
    EVENT_SUBSTITUTED,
    LATER_LAYER,
    OVERLAPPING_HEADS,
    SUBJECT_AGREEMENT,
    SUBSTITUTION,
    WORD_EXAMPLES,
    HeadPatterns,
    Reading,
    Source,
    Substitution,
    WordExample,
    contributions,
    even_weights,
    feature_shares,
    head_slice,
    head_values,
    joined_slices,
    slice_contributions,
    message,
    tokenize_words,
    word_example,
)
from tests import coat_by_hand as hand


def count_position(text: str, word: str, occurrence: int = 1) -> int:
    """One-based position of `word` by plain whitespace splitting (the first three examples write
    every token, punctuation included, between spaces)."""
    words = [w for w in text.split() if w not in ("___", "…")]
    hits = [i + 1 for i, w in enumerate(words) if w == word]
    return hits[occurrence - 1]


def test_coat_receiver_is_the_seventh_and_last_row():
    assert COAT.text == "Maya wore a hooded red wool coat"      # docs/WORKSHEET.md, verbatim
    assert COAT.n == 7 == len(COAT.text.split())
    assert COAT.receiver == count_position(COAT.text, "coat") == 7
    assert COAT.receiver_word == "coat"
    assert not COAT.has_blank
    roles = {s.role: (s.word, s.position) for s in COAT.sources}
    # colour → red, material → wool, detail → hooded; positions by counting "Maya wore a hooded red wool"
    assert roles == {"colour": ("red", 5), "material": ("wool", 6), "detail": ("hooded", 4)}
    for s in COAT.sources:
        assert s.position == count_position(COAT.text, s.word)
    assert COAT.heads == 3 and COAT.illustrative


def test_receiver_is_usually_not_the_unknown_next_word():
    ex = SUBJECT_AGREEMENT
    assert ex.text == "The dogs near the gate usually ___"
    assert ex.has_blank
    assert ex.tokens == ("The", "dogs", "near", "the", "gate", "usually")   # the blank is not a token
    assert ex.receiver == count_position(ex.text, "usually") == 6
    assert ex.receiver == ex.n                                             # the last known token
    assert ex.next_word == "bark" and ex.next_word not in ex.tokens
    assert ex.not_next_word == "barks"
    dogs, gate = ex.source("plural subject"), ex.source("nearer singular noun")
    assert (dogs.word, dogs.position) == ("dogs", count_position(ex.text, "dogs"))
    assert (gate.word, gate.position) == ("gate", count_position(ex.text, "gate"))
    assert "does not control" in gate.note and "bark" in dogs.note
    assert gate.position > dogs.position                                   # gate is the nearer noun
    assert all(s.position < ex.receiver for s in ex.sources)               # both in the known prefix
    assert ex.continuation.startswith(" ".join(ex.tokens) + " " + ex.next_word)


def test_punctuation_is_a_token_and_it_is_receiver_six():
    ex = EVENT_AND_REFERENCE
    assert ex.text == "Ravi dropped the glass . It ___"
    assert ex.tokens[4] == "."
    assert ex.receiver == count_position(ex.text, "It") == 6 == ex.n
    assert {s.role: s.word for s in ex.sources} == {"referent": "glass", "event": "dropped"}
    for s in ex.sources:
        assert s.position == count_position(ex.text, s.word) < ex.receiver
    assert ex.next_word == "broke" and ex.heads == 2


def test_later_layer_example_counted_by_hand():
    ex = LATER_LAYER
    # Maya cycled home in the rain . | Cold and tired , Maya reached for a hooded red wool coat . | She
    by_hand = ["Maya", "cycled", "home", "in", "the", "rain", ".", "Cold", "and", "tired", ",", "Maya",
               "reached", "for", "a", "hooded", "red", "wool", "coat", ".", "She"]
    assert list(ex.tokens) == by_hand
    assert ex.receiver == by_hand.index("She") + 1 == 21
    maya = ex.sources[0]
    assert maya.position == [i + 1 for i, w in enumerate(by_hand) if w == "Maya"][1] == 12


def test_punctuation_positions_and_the_continuations_rest():
    assert EVENT_AND_REFERENCE.punctuation == (5,)          # "Ravi dropped the glass . It": the "."
    assert COAT.punctuation == () and SUBJECT_AGREEMENT.punctuation == ()
    # "The dogs near the gate usually" + "bark" + "at visitors"
    assert SUBJECT_AGREEMENT.continuation_rest == "at visitors"
    assert COAT.continuation_rest == ""
    bad = WordExample(key="bad", text="a b ___", receiver=2, sources=(), next_word="c", continuation="a b d e")
    with pytest.raises(ValueError, match="does not start with 'a b c'"):
        bad.continuation_rest


def test_tokenizer_splits_punctuation_and_drops_the_blank():
    assert tokenize_words("It rained. Then, snow …") == ("It", "rained", ".", "Then", ",", "snow")
    assert tokenize_words("a b ___") == ("a", "b")
    with pytest.raises(ValueError, match=r"cannot tokenize '#'"):
        tokenize_words("a # b")


def test_examples_are_frozen_and_validated():
    with pytest.raises(dataclasses.FrozenInstanceError):
        COAT.receiver = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="token 2 is 'b', not the source 'x'"):
        WordExample(key="bad", text="a b c", receiver=3, sources=(Source("x", 2, "r"),))
    with pytest.raises(ValueError, match="not in the known prefix 1..2"):
        WordExample(key="bad", text="a b c", receiver=2, sources=(Source("c", 3, "r"),))
    with pytest.raises(ValueError, match="outside 1..3"):
        WordExample(key="bad", text="a b c", receiver=4, sources=())


def test_lookup_by_key():
    assert set(WORD_EXAMPLES) == {"coat", "dogs", "ravi", "ravi_washed", "later_layer"}
    assert word_example("ravi") is EVENT_AND_REFERENCE
    with pytest.raises(ValueError, match="unknown word example 'cat'; allowed: coat, dogs, ravi, "
                                         "ravi_washed, later_layer"):
        word_example("cat")
    with pytest.raises(KeyError, match="no source with role 'size'"):
        COAT.source("size")


# ---- illustrative readings (the arrows' weights) and what a head carries ----------------------


@pytest.mark.parametrize("ex", [COAT, SUBJECT_AGREEMENT, EVENT_AND_REFERENCE, EVENT_SUBSTITUTED],
                         ids=lambda e: e.key)
def test_readings_read_every_known_row_and_favour_their_useful_sources(ex):
    assert ex.readings and all(r.illustrative for r in ex.readings)
    for r in ex.readings:
        # one weight per known row, the receiver included; none masked, none at exactly zero
        assert len(r.weights) == ex.receiver
        assert min(r.weights) > 0
        if r.sharpness is None:
            # hand-chosen: sum by hand-rounded hundredths (every weight is a whole number of them)
            assert sum(round(100 * w) for w in r.weights) == 100
            assert all(abs(100 * w - round(100 * w)) < 1e-9 for w in r.weights)
        else:
            # computed (the coat's): a second method, plain sum instead of fsum
            assert sum(r.weights) == pytest.approx(1.0, abs=1e-12)
        ranked = sorted(range(1, ex.receiver + 1), key=lambda p: -r.weights[p - 1])
        assert set(ranked[:len(r.useful)]) == set(r.useful)


def test_coat_readings_one_head_splits_three_heads_each_lean_on_one_word():
    one = COAT.reading(0)
    assert one.useful == (4, 5, 6)                          # hooded, red, wool
    # each of the three describing words gets between a quarter and a third of the one head's weight
    assert all(0.25 <= one.weights[p - 1] < 1 / 3 for p in one.useful)         # "under a third each"
    by_head = {h: COAT.word_at(COAT.reading(h).useful[0]) for h in (1, 2, 3)}
    assert by_head == {1: "red", 2: "wool", 3: "hooded"}
    assert [COAT.reading(h).role for h in (1, 2, 3)] == ["colour", "material", "detail"]
    # the roles match the example's sources
    assert {s.role: s.word for s in COAT.sources} == {COAT.reading(h).role: by_head[h] for h in (1, 2, 3)}


def test_coat_weights_are_the_softmax_of_the_sharpness_times_the_matches():
    """Every coat reading (the four and the lean) weighs its rows by softmax(3.5 · matches), worked
    in numpy from the value rows and queries written out in tests/coat_by_hand.py. A few values by
    hand: head 1's red e^3.5 / (e^3.5 + e^1.4 + e^0.7 + e^0.35 + 3) = 33.115 / 43.602 = 0.7595; the one
    head's three equal matches 1 each give 0.2969 each; the lean's red 0.664, hooded 0.115, wool 0.081."""
    from lesson_data.word_examples import SHARPNESS
    assert SHARPNESS == hand.BETA == 3.5
    assert COAT.features == ("colour", "material", "detail")
    assert COAT.values == tuple(tuple(row) for row in hand.VALUES.tolist())
    readings = {"one head": COAT.reading(0), "head 1": COAT.reading(1), "head 2": COAT.reading(2),
                "head 3": COAT.reading(3), "lean": COAT.alternative("red")}
    for name, r in readings.items():
        assert r.query == tuple(hand.QUERIES[name]) and r.sharpness == 3.5
        assert r.weights == pytest.approx(tuple(hand.weights(name)), abs=1e-15)
        assert math.fsum(r.weights) == pytest.approx(1.0, abs=1e-15)
    # by hand, as in the docstring (e^3.5 = 33.115, e^1.4 = 4.055, e^0.7 = 2.014, e^0.35 = 1.419)
    assert COAT.reading(1).weights[hand.idx("red")] == pytest.approx(33.1155 / (33.1155 + 4.0552 + 2.0138 + 1.4191 + 3),
                                                                    abs=1e-4)
    assert COAT.reading(0).weights[3:6] == pytest.approx((0.2969,) * 3, abs=1e-4)
    lean = COAT.alternative("red").weights
    assert (lean[hand.idx("hooded")], lean[hand.idx("red")], lean[hand.idx("wool")]) == pytest.approx(
        (0.1153, 0.6637, 0.0813), abs=1e-4)


def _order(values) -> list[tuple[int, int]]:
    """Every ordered pair of positions (i, j) with values[i] > values[j] (ties within 1e-12 left out)."""
    return [(i, j) for i in range(len(values)) for j in range(len(values)) if values[i] > values[j] + 1e-12]


@pytest.mark.parametrize("name", ["one head", "head 1", "head 2", "head 3", "lean"])
def test_coat_weights_rank_exactly_as_the_matches_rank(name):
    """The picture's cause: a better match always weighs more, and rows that match alike weigh alike
    (the old hand-chosen weights broke this: head 1 gave hooded, match 0, as much as wool, match 0.4)."""
    from lesson_data.word_examples import matches
    r = COAT.reading(0) if name == "one head" else COAT.alternative("red") if name == "lean" else \
        COAT.reading(int(name[-1]))
    m = matches(COAT, r)
    assert m == pytest.approx(tuple(hand.matches(name)), abs=1e-15)
    assert _order(r.weights) == _order(m)
    for i in range(7):
        for j in range(7):
            if abs(m[i] - m[j]) <= 1e-12:
                assert abs(r.weights[i] - r.weights[j]) <= 1e-12, (COAT.word_at(i + 1), COAT.word_at(j + 1))


def test_coat_messages_worked_a_second_way():
    # wool's value row carries some colour too (0.4): the overlap scene 1 is about
    assert COAT.values[COAT.tokens.index("wool")] == (0.4, 1.0, 0.0)
    for name, r in (("one head", COAT.reading(0)), ("head 1", COAT.reading(1)), ("head 2", COAT.reading(2)),
                    ("head 3", COAT.reading(3)), ("lean", COAT.alternative("red"))):
        assert message(COAT, r) == pytest.approx(tuple(hand.message(name)), abs=1e-12)
    # to three places (from the numpy values): one head 0.429, 0.313, 0.314; head 1's colour 0.809
    assert message(COAT, COAT.reading(0)) == pytest.approx((0.429, 0.313, 0.314), abs=5e-4)
    assert message(COAT, COAT.reading(1))[0] == pytest.approx(0.809, abs=5e-4)
    # each of the three heads carries its own feature more strongly than the one head does
    for h, k in ((1, 0), (2, 1), (3, 2)):
        assert message(COAT, COAT.reading(h))[k] > message(COAT, COAT.reading(0))[k]
    # head 2 reads wool, so its colour is mostly wool's 0.4: more than head 3's, which reads hooded
    assert message(COAT, COAT.reading(2))[0] > 5 * message(COAT, COAT.reading(3))[0]


def test_the_three_heads_slices_join_into_a_message_as_wide_as_the_one_heads():
    """Each head sends the one coordinate its role names; side by side they make three coordinates,
    as the one head's message has: head 1's colour, head 2's material, head 3's detail (about 0.81,
    0.82, 0.82, worked in numpy), each fuller than the one head's same coordinate (0.43, 0.31, 0.31)."""
    assert [head_slice(COAT, COAT.reading(h))[0] for h in (1, 2, 3)] == [0, 1, 2]
    joined = joined_slices(COAT)
    by_hand = (hand.message("head 1")[0], hand.message("head 2")[1], hand.message("head 3")[2])
    assert joined == pytest.approx(by_hand, abs=1e-12)
    assert len(joined) == len(message(COAT, COAT.reading(0)))
    # no part starved: each is fuller than the one head's
    assert all(j > 1.5 * o for j, o in zip(joined, hand.message("one head")))
    with pytest.raises(ValueError, match="the one head .head 0. sees whole value rows"):
        head_slice(COAT, COAT.reading(0))
    # what each head sees of the rows, through its own value projection: its role's column
    # (Maya, wore, a, hooded, red, wool, coat), read off the value rows above by hand
    assert head_values(COAT, COAT.reading(1)) == ((0.0,), (0.0,), (0.1,), (0.0,), (1.0,), (0.4,), (0.2,))
    assert head_values(COAT, COAT.reading(2)) == ((0.0,), (0.2,), (0.1,), (0.0,), (0.0,), (1.0,), (0.2,))
    assert head_values(COAT, COAT.reading(3)) == ((0.2,), (0.0,), (0.1,), (1.0,), (0.0,), (0.0,), (0.2,))
    # head 1's slice, part by part: each row's weight times its colour
    assert [c[0] for c in slice_contributions(COAT, COAT.reading(1))] == pytest.approx(
        list(hand.weights("head 1") * hand.VALUES[:, 0]), abs=1e-15)
    # two heads for colour and none for material: refused, naming the roles
    twice = dataclasses.replace(COAT.reading(2), role="colour")
    bad = dataclasses.replace(COAT, readings=(COAT.reading(0), COAT.reading(1), twice, COAT.reading(3)))
    with pytest.raises(ValueError, match=r"roles \['colour', 'colour', 'detail'\] must name each of"):
        joined_slices(bad)


def test_the_one_heads_colour_is_part_wool_and_head_1s_almost_all_red():
    """feature_shares: where a coordinate of the message comes from. Worked in numpy: the one head's
    colour holds red's 0.297 and wool's 0.297 · 0.4 = 0.119 of 0.429 (about a quarter, 0.277); head 1's
    0.809 holds red's 0.759 and wool's 0.093 · 0.4 = 0.037 (0.046, hardly any). A share is a ratio, so
    no rescaling of the message changes it."""
    red, wool = COAT.tokens.index("red"), COAT.tokens.index("wool")
    one = feature_shares(COAT, COAT.reading(0), "colour")
    assert math.fsum(one) == pytest.approx(1.0, abs=1e-12) and len(one) == COAT.receiver
    assert one[wool] == pytest.approx(hand.share("one head", "wool", 0), abs=1e-12)
    assert one[red] == pytest.approx(hand.share("one head", "red", 0), abs=1e-12)
    assert 0.2 < one[wool] < 0.3                                   # "about a quarter"
    head_1 = feature_shares(COAT, COAT.reading(1), "colour")
    assert head_1[wool] == pytest.approx(hand.share("head 1", "wool", 0), abs=1e-12)
    assert head_1[wool] < 0.05                                     # "hardly any"
    assert head_1[red] == pytest.approx(hand.share("head 1", "red", 0), abs=1e-12) and head_1[red] > 0.9
    # rows with no colour send none of it
    assert one[COAT.tokens.index("hooded")] == 0.0 == one[COAT.tokens.index("Maya")]
    with pytest.raises(KeyError, match="no feature 'size'; features are colour, material, detail"):
        feature_shares(COAT, COAT.reading(0), "size")


def test_the_one_heads_trade_leaning_on_red():
    """The one head's alternative: lean on red to keep its colour red's, and wool and hooded fade.
    Worked in numpy (softmax(3.5 · matches) of the lean's query): colour 0.711, material 0.100,
    detail 0.136."""
    lean = COAT.alternative("red")
    assert lean.head == 0 and COAT.word_at(lean.useful[0]) == "red" and len(lean.useful) == 1
    assert message(COAT, lean) == pytest.approx(tuple(hand.message("lean")), abs=1e-12)
    split = message(COAT, COAT.reading(0))
    # colour grows and comes cleaner from red; material and detail fall below half of the split's
    assert message(COAT, lean)[0] > split[0]
    assert feature_shares(COAT, lean, "colour")[COAT.tokens.index("red")] > 0.9
    assert feature_shares(COAT, lean, "colour")[COAT.tokens.index("red")] > \
        feature_shares(COAT, COAT.reading(0), "colour")[COAT.tokens.index("red")]
    assert all(message(COAT, lean)[k] < 0.5 * split[k] for k in (1, 2))
    # red most, then hooded, then wool: the weights rank as the lean's matches (1, 0.5, 0.4) do,
    # and wool and hooded both fade against the split
    w = {word: lean.weights[COAT.tokens.index(word)] for word in ("red", "hooded", "wool")}
    assert w["red"] > 0.5 > w["hooded"] > w["wool"]
    assert all(w[word] < COAT.reading(0).weights[COAT.tokens.index(word)] for word in ("hooded", "wool"))
    with pytest.raises(KeyError, match="no alternative reading leans on 'wool'; they lean on red"):
        COAT.alternative("wool")


def test_an_alternative_reading_is_the_one_heads():
    with pytest.raises(ValueError, match="alternative reading is the one head's"):
        WordExample(key="x", text="a b c", receiver=3, sources=(), features=("f",), values=((0.1,), (0.2,), (0.3,)),
                    alternatives=(Reading(1, "f", (2,), (0.2, 0.6, 0.2)),))


def test_contributions_are_the_weight_times_the_value_row():
    parts = contributions(COAT, COAT.reading(1))
    w = COAT.reading(1).weights
    assert len(parts) == COAT.receiver and all(len(row) == 3 for row in parts)
    assert parts[4] == (w[4], 0.0, 0.0)                     # red: its weight · (1, 0, 0)
    assert parts[6] == pytest.approx((0.2 * w[6],) * 3)     # coat: its weight · (0.2, 0.2, 0.2)
    # the message is their column sums (a second method: plain sum instead of fsum)
    for k in range(3):
        assert sum(row[k] for row in parts) == pytest.approx(message(COAT, COAT.reading(1))[k], abs=1e-15)
    with pytest.raises(ValueError, match="has no value rows"):
        contributions(SUBJECT_AGREEMENT, SUBJECT_AGREEMENT.reading(1))


def test_dogs_two_heads_read_the_subject_and_the_place_both_in_the_prefix():
    ex = SUBJECT_AGREEMENT
    assert ex.word_at(ex.reading(1).useful[0]) == "dogs"
    assert ex.word_at(ex.reading(2).useful[0]) == "gate"
    # the subject head still reads gate, weakly: not masked, not zero
    assert 0 < ex.reading(1).weights[4] < ex.reading(1).weights[1]
    assert all(p < ex.receiver for r in ex.readings for p in r.useful)


def test_the_substitution_keeps_the_object_clue_and_changes_the_event_clue():
    assert EVENT_SUBSTITUTED.text == "Ravi washed the glass . It ___"
    # by hand: only the second word differs
    before, after = EVENT_AND_REFERENCE.text.split(), EVENT_SUBSTITUTED.text.split()
    assert [i + 1 for i, (a, b) in enumerate(zip(before, after)) if a != b] == [2]
    assert SUBSTITUTION.position == 2
    assert [s.word for s in SUBSTITUTION.kept] == ["glass"]
    old, new = SUBSTITUTION.changed
    assert (old.word, new.word, old.role, new.role) == ("dropped", "washed", "event", "event")
    assert (EVENT_AND_REFERENCE.next_word, EVENT_SUBSTITUTED.next_word) == ("broke", "gleamed")
    # the schematic arrows are the same in both sentences (the caveat is about exactly that)
    assert EVENT_SUBSTITUTED.readings == EVENT_AND_REFERENCE.readings
    assert SUBSTITUTION.changed_head == 2                   # the event head reads position 2
    with pytest.raises(ValueError, match="exactly position 3 must change"):
        Substitution(EVENT_AND_REFERENCE, EVENT_SUBSTITUTED, position=3)


def test_readings_are_validated():
    def ex(*readings, values=(), features=()):
        return WordExample(key="bad", text="a b c", receiver=3, sources=(), readings=readings,
                           values=values, features=features)

    with pytest.raises(ValueError, match="2 weights for the 3 known positions"):
        ex(Reading(1, "r", (1,), (0.5, 0.5)))
    with pytest.raises(ValueError, match="every weight is positive"):
        ex(Reading(1, "r", (1,), (0.6, 0.4, 0.0)))
    with pytest.raises(ValueError, match="sum to"):
        ex(Reading(1, "r", (1,), (0.6, 0.3, 0.2)))
    with pytest.raises(ValueError, match="must weigh more than every other row"):
        ex(Reading(1, "r", (1,), (0.4, 0.4, 0.2)))
    with pytest.raises(ValueError, match="two readings for one head"):
        ex(Reading(1, "r", (1,), (0.6, 0.2, 0.2)), Reading(1, "s", (2,), (0.2, 0.6, 0.2)))
    with pytest.raises(ValueError, match=r"value row 2 .* needs 1 entries in \[0, 1\]"):
        ex(values=((0.5,), (1.5,), (0.0,)), features=("f",))
    with pytest.raises(KeyError, match="no reading for head 4"):
        COAT.reading(4)


def test_overlapping_heads_prune_the_later_of_the_closest_pair():
    h = OVERLAPPING_HEADS
    # by hand: heads 2 and 3 differ by 0.05 on sources 3 and 4 -> distance (0.05 + 0.05) / 2 = 0.05;
    # heads 1 and 2 differ by 0.5 on sources 2 and 4 -> 0.5; heads 1 and 3: (0.5 + 0.05 + 0.45) / 2 = 0.5
    assert h.distance(2, 3) == pytest.approx(0.05)
    assert h.distance(1, 2) == pytest.approx(0.5) and h.distance(1, 3) == pytest.approx(0.5)
    assert h.closest_pair == (2, 3) and h.prunable == 3
    with pytest.raises(ValueError, match="sums to one"):
        HeadPatterns(heads=(1, 2), patterns=((0.5, 0.5), (0.5, 0.6)))


def test_even_weights_read_every_row_alike():
    # seven rows: a seventh each (1/7 = 0.142857...), and they add up to one
    w = even_weights(7)
    assert len(w) == 7 and all(x == pytest.approx(0.142857142857, abs=1e-12) for x in w)
    assert sum(w) == pytest.approx(1.0, abs=1e-12)
    assert even_weights(1) == (1.0,) and even_weights(4) == (0.25, 0.25, 0.25, 0.25)
    with pytest.raises(ValueError):
        even_weights(0)


def test_the_swapped_event_gives_visibly_different_illustrative_features():
    # hand-chosen numbers (written here, not read back from the module's constants)
    old, new = SUBSTITUTION.changed
    assert old.features == (0.9, 0.2, 0.75, 0.35) and new.features == (0.25, 0.85, 0.15, 0.95)
    # every coordinate differs by at least 0.55: 0.65, 0.65, 0.6, 0.6 by hand
    assert min(abs(a - b) for a, b in zip(old.features, new.features)) >= 0.55
    # the object clue (glass) gives the same features before and after the swap
    before = EVENT_AND_REFERENCE.source("referent").features
    after = EVENT_SUBSTITUTED.source("referent").features
    assert before == after == (0.8, 0.35, 0.55, 0.15)
    with pytest.raises(ValueError, match="must lie in"):
        Source("x", 1, "role", features=(1.2,))


def test_the_coat_queries_match_the_useful_sources_keys_best():
    """Each reading's query, dotted with every row's key (the value rows), by hand: the one head asks
    for colour and detail fully and material at 0.6, so hooded and red match 1 each, wool 0.4 + 0.6 = 1
    (its colour too): three equal matches, so three equal weights (0.297 each); a
    0.1 + 0.06 + 0.1 = 0.26, coat 0.2 + 0.12 + 0.2 = 0.52; head 1 asks for colour, so red matches 1,
    wool 0.4 and coat 0.2."""
    from lesson_data.word_examples import matches
    assert matches(COAT, COAT.reading(0)) == pytest.approx((0.2, 0.12, 0.26, 1.0, 1.0, 1.0, 0.52))
    assert matches(COAT, COAT.reading(1)) == pytest.approx((0.0, 0.0, 0.1, 0.0, 1.0, 0.4, 0.2))
    assert matches(COAT, COAT.reading(3)) == pytest.approx((0.2, 0.0, 0.1, 1.0, 0.0, 0.0, 0.2))
    # the one head's lean asks mostly for colour, detail at 0.5: red 1, hooded 0.5, wool 0.4, coat
    # 0.2 + 0.1 = 0.3, a 0.1 + 0.05 = 0.15, Maya 0.1, wore 0: red first, then hooded, then wool, as
    # its weights (0.66, 0.12, 0.08) rank them
    lean = matches(COAT, COAT.alternative("red"))
    assert lean == pytest.approx((0.1, 0.0, 0.15, 0.5, 1.0, 0.4, 0.3))
    w = COAT.alternative("red").weights
    assert sorted(range(7), key=lambda p: -lean[p]) == sorted(range(7), key=lambda p: -w[p])


def test_weights_that_do_not_follow_from_the_matches_are_refused():
    """A reading that says it was computed (sharpness 3.5) must carry softmax(3.5 · matches) of the
    example's own keys: the old hand-chosen head-1 weights, or the right ones under another query,
    are refused."""
    old = dataclasses.replace(COAT.reading(1), weights=(0.03, 0.02, 0.02, 0.06, 0.76, 0.06, 0.05))
    with pytest.raises(ValueError, match=r"not softmax\(3.5 · matches\)"):
        dataclasses.replace(COAT, readings=(old,))
    # the same weights, said hand-chosen (no sharpness), still pass: they favour red as the query does
    dataclasses.replace(COAT, readings=(dataclasses.replace(old, sharpness=None),))
    with pytest.raises(ValueError, match="need a query"):
        dataclasses.replace(COAT, readings=(dataclasses.replace(COAT.reading(1), query=()),))
    # other keys than the example's: the same query against value rows with wool's colour taken out
    from lesson_data.word_examples import matched_reading
    other = matched_reading(1, "colour", (5,), (1.0, 0.0, 0.0), tuple(
        (0.0, 1.0, 0.0) if w == "wool" else tuple(row) for w, row in zip(hand.WORDS, hand.VALUES.tolist())))
    with pytest.raises(ValueError, match="not softmax"):
        dataclasses.replace(COAT, readings=(other,))


def test_softmax_of_equal_scores_is_even_and_of_none_refused():
    from lesson_data.word_examples import softmax_of
    assert softmax_of((0.3, 0.3, 0.3, 0.3), 3.5) == (0.25, 0.25, 0.25, 0.25)
    # by hand: softmax(2 · (0, ln 2)) = (1, 4) / 5
    assert softmax_of((0.0, math.log(2.0)), 2.0) == pytest.approx((0.2, 0.8), abs=1e-15)
    # large scores do not overflow (the largest is subtracted first)
    assert softmax_of((1000.0, 1000.0), 3.5) == (0.5, 0.5)
    with pytest.raises(ValueError):
        softmax_of((), 3.5)


def test_a_query_that_matches_another_row_best_is_refused():
    import dataclasses
    wrong = dataclasses.replace(COAT.reading(1), query=(0.0, 0.0, 1.0))       # asks for detail, leans on red
    with pytest.raises(ValueError, match="match the useful sources' keys best"):
        dataclasses.replace(COAT, readings=(wrong,))
    with pytest.raises(ValueError, match="3 shades"):
        dataclasses.replace(COAT, readings=(dataclasses.replace(COAT.reading(1), query=(1.0, 0.0)),))
