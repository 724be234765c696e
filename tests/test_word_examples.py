"""The word-only examples as data: receivers and source positions checked by counting tokens
independently (whitespace split, and by hand), plus the constraints the notes state."""
from __future__ import annotations

import dataclasses

import pytest

from lesson_data.word_examples import (
    COAT,
    EVENT_AND_REFERENCE,
    LATER_LAYER,
    SUBJECT_AGREEMENT,
    WORD_EXAMPLES,
    Source,
    WordExample,
    tokenize_words,
    word_example,
)


def count_position(text: str, word: str, occurrence: int = 1) -> int:
    """One-based position of `word` by plain whitespace splitting (the first three examples write
    every token, punctuation included, between spaces)."""
    words = [w for w in text.split() if w not in ("___", "…")]
    hits = [i + 1 for i, w in enumerate(words) if w == word]
    return hits[occurrence - 1]


def test_coat_receiver_is_the_seventh_and_last_row():
    assert COAT.text == "Maya wore a hooded red wool coat"      # WORKSHEET.md, verbatim
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
    assert set(WORD_EXAMPLES) == {"coat", "dogs", "ravi", "later_layer"}
    assert word_example("ravi") is EVENT_AND_REFERENCE
    with pytest.raises(ValueError, match="unknown word example 'cat'; allowed: coat, dogs, ravi, later_layer"):
        word_example("cat")
    with pytest.raises(KeyError, match="no source with role 'size'"):
        COAT.source("size")
