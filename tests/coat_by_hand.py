"""The coat example's numbers worked a second way, for the tests: numpy instead of the data layer's
math.fsum / math.exp, from the value rows, queries and sharpness written out here (the worksheet's
picture, not read back from lesson_data.word_examples). Each reading's weights are
softmax(β · matches), its matches the value rows times its query, its message the weights times the
value rows."""
from __future__ import annotations

import numpy as np

BETA = 3.5                                     # the stated sharpness
WORDS = ("Maya", "wore", "a", "hooded", "red", "wool", "coat")
# rows: Maya, wore, a, hooded, red, wool, coat; columns: colour, material, detail
VALUES = np.array([
    [0.0, 0.0, 0.2],
    [0.0, 0.2, 0.0],
    [0.1, 0.1, 0.1],
    [0.0, 0.0, 1.0],
    [1.0, 0.0, 0.0],
    [0.4, 1.0, 0.0],
    [0.2, 0.2, 0.2],
])
QUERIES = {
    "one head": np.array([1.0, 0.6, 1.0]),     # asks for all three, material less
    "head 1": np.array([1.0, 0.0, 0.0]),       # colour
    "head 2": np.array([0.0, 1.0, 0.0]),       # material
    "head 3": np.array([0.0, 0.0, 1.0]),       # detail
    "lean": np.array([1.0, 0.0, 0.5]),         # the one head leaning on red: mostly colour
}


def idx(word: str) -> int:
    return WORDS.index(word)


def matches(name: str) -> np.ndarray:
    return VALUES @ QUERIES[name]


def weights(name: str) -> np.ndarray:
    e = np.exp(BETA * matches(name))
    return e / e.sum()


def message(name: str) -> np.ndarray:
    return weights(name) @ VALUES


def share(name: str, word: str, feature: int) -> float:
    """word's part of the message's coordinate `feature`, as a fraction of it."""
    return float(weights(name)[idx(word)] * VALUES[idx(word), feature] / message(name)[feature])
