"""Cross-check: the scratch worksheet heads reproduced by torch.nn.MultiheadAttention (float64).

Imports torch, so it is NOT re-exported from lesson_data/__init__.py.
"""

from __future__ import annotations

import numpy as np
import torch

from lesson_data import worksheet as wsmod


def build_torch_attention() -> torch.nn.MultiheadAttention:
    """nn.MultiheadAttention(4, 2, bias=False) holding the worksheet's W_Q, W_K, W_V and W_O.

    PyTorch computes x @ W.T with W stored [out, in]; our row-vector matrices are [in, out], so each
    is transposed. Output coordinates 0-1 belong to head 1 and 2-3 to head 2, the same split as
    concatenating the two heads' matrices side by side.
    """
    mha = torch.nn.MultiheadAttention(4, 2, bias=False, batch_first=True, dtype=torch.float64)
    w_q = np.concatenate([wsmod.W_Q1, wsmod.W_Q2], axis=1)
    w_k = np.concatenate([wsmod.W_K1, wsmod.W_K2], axis=1)
    w_v = np.concatenate([wsmod.W_V1, wsmod.W_V2], axis=1)
    in_proj = np.concatenate([w_q.T, w_k.T, w_v.T], axis=0)  # [12, 4]
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(in_proj))
        mha.out_proj.weight.copy_(torch.from_numpy(np.ascontiguousarray(wsmod.W_O.T)))
    mha.eval()
    return mha


def copied_parameters() -> list[dict]:
    """What build_torch_attention copies where: each PyTorch parameter's name, its shape as torch
    stores it, and the scratch matrices it holds (in order, each transposed: torch stores [out, in])."""
    mha = build_torch_attention()
    heads = (1, 2)
    return [
        {"name": "in_proj_weight", "shape": tuple(mha.in_proj_weight.shape),
         "parts": [{"name": name, "heads": heads, "shape": (4, 4)} for name in ("W_Q", "W_K", "W_V")]},
        {"name": "out_proj.weight", "shape": tuple(mha.out_proj.weight.shape),
         "parts": [{"name": "W_O", "heads": (), "shape": tuple(wsmod.W_O.T.shape)}]},
    ]


def pytorch_parity(sentence: str = "river") -> dict:
    """Max absolute differences between PyTorch and the scratch worksheet (floats), plus the version."""
    ws = wsmod.compute_worksheet(sentence)
    mha = build_torch_attention()
    x = torch.from_numpy(np.array(ws.E)).unsqueeze(0)  # [1, n, 4]
    future = torch.from_numpy(~wsmod.causal_mask(ws.n))  # True = may not attend
    with torch.no_grad():
        out, weights = mha(x, x, x, attn_mask=future, need_weights=True, average_attn_weights=False)
    out_np = out[0].numpy()
    weights_np = weights[0].numpy()  # [2, n, n]
    return {
        "sentence": ws.name,
        "torch_version": torch.__version__,
        "dtype": "float64",
        "max_abs_delta_E_diff": float(np.max(np.abs(out_np - ws.delta_E))),
        "max_abs_weight_diff": [
            float(np.max(np.abs(weights_np[i] - head.weights))) for i, head in enumerate(ws.heads)
        ],
    }


__all__ = ["build_torch_attention", "copied_parameters", "pytorch_parity"]
