"""Derived per-row quantities of the walk: invariants against the worksheet's own arrays."""
import math

import numpy as np
import pytest

from lesson_data.walkthrough import message_terms, pool_attention_row, unshifted_softmax_row
from lesson_data.worksheet import compute_worksheet


@pytest.mark.parametrize("sentence", ["river", "cheque"])
@pytest.mark.parametrize("h", [0, 1])
def test_terms_sum_to_the_message_and_unshifted_softmax_gives_the_same_weights(sentence, h):
    head = compute_worksheet(sentence).heads[h]
    for i in range(head.weights.shape[0]):
        terms = message_terms(head, i)
        np.testing.assert_allclose(terms.sum(axis=0), head.messages[i], rtol=0, atol=1e-14)
        # one source by hand: weight times value row, coordinate by coordinate
        assert terms[0, 1] == head.weights[i, 0] * head.V[0, 1]
        _, den, w = unshifted_softmax_row(head, i)
        np.testing.assert_allclose(w, head.weights[i, : i + 1], rtol=1e-14, atol=0)
        # exp(max) scales the stable denominator up to the unshifted one
        assert den == pytest.approx(head.denominators[i] * math.exp(head.row_max[i]), rel=1e-13)


def test_pooling_keeps_the_row_total():
    row = compute_worksheet("river").heads[0].weights[-1]
    p = pool_attention_row(row, top=3)
    assert len(p.top) == 3 and p.n_others == 7
    assert math.fsum(p.segments) == pytest.approx(1.0, abs=1e-15)
