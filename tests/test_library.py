"""lesson_data.library: spoken forms of measured differences, token IDs, words that fit a line."""
import math

import pytest

from lesson_data.library import example_target, last_words_that_fit, next_row, said_all, said_sci, token_ids


def test_said_sci_one_significant_digit():
    assert said_sci(8.881784197001252e-16) == "about 9 times ten to the minus 16"
    assert said_sci(3.3306690738754696e-16) == "about 3 times ten to the minus 16"
    assert said_sci(1.1e-16) == "about ten to the minus 16"
    assert said_sci(9.6e-16) == "about ten to the minus 15"     # 9.6 rounds up to 10
    assert said_sci(0.0) == "exactly"


def test_said_all_merges_alike_values():
    assert said_all([3.3e-16, 3.4e-16]) == "both about 3 times ten to the minus 16"
    assert said_all([0.0, 0.0]) == "exactly"
    assert said_all([1.1e-16, 3.3e-16]) == "about ten to the minus 16 and about 3 times ten to the minus 16"
    # "each" after the one value, for a sentence that already names the two ("differ by at most …")
    assert said_all([3.3e-16, 3.4e-16], each=True) == "about 3 times ten to the minus 16 each"
    assert said_all([1.1e-16, 3.3e-16], each=True) == said_all([1.1e-16, 3.3e-16])
    with pytest.raises(ValueError):
        said_all([])


def test_token_ids_are_vocabulary_indices():
    # VOCAB starts the, fisherman, sat, beside, river, bank, and, watched: 0..7 by hand
    river = "the fisherman sat beside the river bank and watched the".split()
    assert token_ids(river) == [0, 1, 2, 3, 0, 4, 5, 6, 7, 0]
    assert token_ids(["teller", "money"]) == [16, 19]


def test_last_words_that_fit():
    assert last_words_that_fit([1, 1, 1], 0.5, 4.0) == 3          # 3 + 2·0.5 = 4
    # 2 words of 1 plus the ellipsis (0.5) and its gap (0.5) = 1 + 2 + 0.5 = 3.5 <= 3.6
    assert last_words_that_fit([1, 1, 1, 1], 0.5, 3.6) == 2
    assert last_words_that_fit([5], 0.5, 1.0) == 1


def test_next_row_is_one_past_the_prefix():
    # river's prefix has ten tokens: the appended "water" is row 11; a one-word prefix appends row 2
    assert next_row("The fisherman sat beside the river bank and watched the".split()) == 11
    assert next_row(["the"]) == 2
    assert next_row(iter(["a", "b", "c"])) == 4


@pytest.mark.parametrize("sentence, prediction, expected", [("river", "water", "boats"), ("cheque", "teller", "clerk")])
def test_example_target_is_the_runner_up_not_the_prediction(sentence, prediction, expected):
    """By the worksheet's probabilities (docs/WORKSHEET.md): river water 0.610, boats 0.192;
    cheque teller 0.616, clerk 0.257. The example target is never the prediction itself."""
    from lesson_data.worksheet import compute_worksheet
    ws = compute_worksheet(sentence)
    assert ws.mlp.prediction == prediction
    assert example_target(ws.mlp.ranked) == expected != ws.mlp.prediction
    with pytest.raises(ValueError):
        example_target(ws.mlp.ranked[:1])


def test_target_loss_is_minus_the_natural_log_of_the_targets_probability():
    from lesson_data.library import target_loss
    from lesson_data.worksheet import VOCAB, compute_worksheet
    ws = compute_worksheet("river")
    p, loss = target_loss(ws.mlp.ranked, "boats")
    # second method: the probabilities array indexed by vocabulary position; e^(-loss) gives p back
    assert p == ws.mlp.probabilities[VOCAB.index("boats")]
    assert math.isclose(math.exp(-loss), p, rel_tol=1e-12)
    assert f"{p:.3f}" == "0.192" and f"{loss:.3f}" == "1.648"
    # a certain target costs nothing; a word outside the vocabulary is refused, naming it
    assert target_loss([("a", 1.0)], "a") == (1.0, 0.0)
    with pytest.raises(ValueError, match="'zebra'"):
        target_loss(ws.mlp.ranked, "zebra")


def test_the_loss_line_shows_p_with_the_places_that_give_the_shown_loss():
    """Panel D (stop 37): "−ln 0.192 = 1.648" is false for the number shown (−ln 0.192 = 1.6503).
    By hand: −ln 0.1925 = 1.6477 → 1.648, the loss of the unrounded p; so boats' p shows four places.
    A p whose three places already agree keeps three (−ln 0.5 = 0.693 from 0.500)."""
    from lesson_data.library import loss_operand_places, target_loss
    from lesson_data.worksheet import compute_worksheet

    ws = compute_worksheet("river")
    p, loss = target_loss(ws.mlp.ranked, "boats")
    assert f"{-math.log(0.192):.3f}" == "1.650" and f"{loss:.3f}" == "1.648"
    assert loss_operand_places(p) == 4 and f"{p:.4f}" == "0.1925"
    assert f"{-math.log(0.1925):.3f}" == "1.648"
    assert loss_operand_places(0.5) == 3
