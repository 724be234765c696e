"""The scratch worksheet against torch.nn.MultiheadAttention in float64."""

import numpy as np
import pytest
import torch

from lesson_data.parity import build_torch_attention, pytorch_parity
from lesson_data.worksheet import bias_illustration, compute_worksheet


@pytest.mark.parametrize("name", ["river", "cheque", "the fish watched the bank"])
def test_pytorch_reproduces_delta_E_and_both_heads(name):
    result = pytorch_parity(name)
    assert result["torch_version"] == torch.__version__
    assert isinstance(result["max_abs_delta_E_diff"], float)
    assert result["max_abs_delta_E_diff"] < 1e-12
    assert len(result["max_abs_weight_diff"]) == 2
    for diff in result["max_abs_weight_diff"]:
        assert isinstance(diff, float) and diff < 1e-12


def test_parity_is_not_vacuous():
    # The comparison must be sensitive: scrambling W_O in the torch module breaks it.
    ws = compute_worksheet("river")
    mha = build_torch_attention()
    assert mha.in_proj_bias is None and mha.out_proj.bias is None
    assert mha.in_proj_weight.dtype == torch.float64
    x = torch.from_numpy(np.array(ws.E)).unsqueeze(0)
    mask = torch.triu(torch.ones(10, 10, dtype=torch.bool), diagonal=1)
    with torch.no_grad():
        mha.out_proj.weight.mul_(-1.0)
        out, _ = mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
    assert np.max(np.abs(out[0].numpy() - ws.delta_E)) > 0.1


def test_bias_true_adds_sixteen_scalars():
    def count(module):
        return sum(p.numel() for p in module.parameters())

    with_bias = torch.nn.MultiheadAttention(4, 2, bias=True)
    without = torch.nn.MultiheadAttention(4, 2, bias=False)
    difference = count(with_bias) - count(without)
    assert difference == 16 == 3 * 4 + 4
    assert with_bias.in_proj_bias.numel() == 12 and with_bias.out_proj.bias.numel() == 4
    counts = bias_illustration().extra_parameters
    assert counts == {"in_proj_bias": with_bias.in_proj_bias.numel(), "out_proj.bias": with_bias.out_proj.bias.numel(), "total": difference}


def test_copied_parameters_name_torch_shapes_and_rows():
    from lesson_data.parity import copied_parameters
    from lesson_data.worksheet import W_O, W_Q1, W_Q2

    plan = {p["name"]: p for p in copied_parameters()}
    # three [4, 4] blocks (Q, K, V of total width 4) stacked: 3 x 4 = 12 rows of 4 inputs
    assert plan["in_proj_weight"]["shape"] == (12, 4)
    assert [part["name"] for part in plan["in_proj_weight"]["parts"]] == ["W_Q", "W_K", "W_V"]
    assert plan["out_proj.weight"]["shape"] == (4, 4)
    # the first four rows of in_proj_weight are [W_Q¹ | W_Q²] transposed; by hand, row 2 (head 2's
    # first query coordinate) is W_Q²'s first column: it reads glue only
    mha = build_torch_attention()
    rows = mha.in_proj_weight.detach().numpy()
    np.testing.assert_array_equal(rows[0:2], W_Q1.T)
    np.testing.assert_array_equal(rows[2:4], W_Q2.T)
    np.testing.assert_array_equal(rows[2], [0, 0, 0, 1])       # W_Q² = [[0,0],[0,0],[0,0],[1,0]]
    np.testing.assert_array_equal(mha.out_proj.weight.detach().numpy(), W_O.T)
