"""The three models of the comparison, in one readable file.

Shapes: B = batch, T = context (64), C = d_model (64), V = vocabulary (4000), h = heads, d = C / h.
Row-vector convention as in the lesson: x @ W_Q.

  FixedWindowMLP        64 embedding rows concatenated -> 4096 -> 256 -> 4000
  CausalAttentionLM     token + position rows, one head of width 64, residual, prediction MLP
  MultiHeadAttentionLM  the same layers, four heads of width 16 (project, then reshape into heads)
"""
from __future__ import annotations

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from trainer.config import PAD, Config


class FixedWindowMLP(nn.Module):
    """Concatenates the 64 embedding rows in slot order; the order itself tells slots apart,
    so there is no position table."""

    def __init__(self, vocab: int, context: int, d_model: int, d_hidden: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=PAD)
        self.hidden = nn.Linear(context * d_model, d_hidden)
        self.out = nn.Linear(d_hidden, vocab)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.embed(idx)                    # (B, T, C)
        x = x.flatten(1)                       # (B, T*C) = (B, 4096)
        return self.out(F.relu(self.hidden(x)))  # (B, V)


class CausalSelfAttention(nn.Module):
    """h heads of width d = C / h. One W_Q [C, C] is h per-head W_Q [C, d] side by side: we project
    E first, then reshape the projected coordinates into heads (not slices of raw E).
    Heads -> join (concat) -> W_O."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.W_Q = nn.Linear(d_model, d_model, bias=False)
        self.W_K = nn.Linear(d_model, d_model, bias=False)
        self.W_V = nn.Linear(d_model, d_model, bias=False)
        self.W_O = nn.Linear(d_model, d_model, bias=False)

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_head).transpose(1, 2)  # (B, h, T, d)

    def forward(self, x: torch.Tensor, pad: torch.Tensor, final_query_only: bool = True):
        """x (B, T, C); pad (B, T) True where the source is PAD.
        final_query_only: the receiver is the last row; returns (B, C) and weights (B, h, 1, T).
        Otherwise every query row: returns (B, T, C) and the full weights (B, h, T, T)."""
        B, T, C = x.shape
        queries = x[:, -1:] if final_query_only else x                # (B, Tq, C)
        q = self._split_heads(self.W_Q(queries))                      # (B, h, Tq, d)
        k = self._split_heads(self.W_K(x))                            # (B, h, T, d)
        v = self._split_heads(self.W_V(x))                            # (B, h, T, d)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)     # (B, h, Tq, T)
        blocked = pad[:, None, None, :]                               # PAD sources never receive weight
        if not final_query_only:                                      # future sources: j > i
            future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
            blocked = blocked | future
        scores = scores.masked_fill(blocked, float("-inf"))
        weights = torch.softmax(scores, dim=-1)                       # (B, h, Tq, T), rows sum to one
        if not final_query_only:
            # A PAD query row (left padding) has no permitted source: zero weight, not NaN.
            # (The final query is the newest token, never PAD, so that path skips this op.)
            weights = torch.nan_to_num(weights, nan=0.0)
        messages = weights @ v                                        # (B, h, Tq, d)
        joined = messages.transpose(1, 2).reshape(B, -1, C)           # (B, Tq, C): heads concatenated
        update = self.W_O(joined)                                     # (B, Tq, C)
        if final_query_only:
            update = update[:, 0]                                     # (B, C)
        return update, weights


class AttentionLM(nn.Module):
    """Token rows + learned absolute position rows, one attention update with a residual,
    then the prediction MLP on the receiver's row."""

    def __init__(self, vocab: int, context: int, d_model: int, d_hidden: int, n_heads: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=PAD)
        self.position = nn.Parameter(torch.zeros(context, d_model))
        nn.init.normal_(self.position, std=0.02)
        self.attention = CausalSelfAttention(d_model, n_heads)
        self.mlp = nn.Sequential(nn.Linear(d_model, d_hidden), nn.ReLU(), nn.Linear(d_hidden, vocab))

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Training and generation: only the final query row. idx (B, T) -> logits (B, V)."""
        return self.forward_with_weights(idx)[0]

    def forward_with_weights(self, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The same final-query computation as forward (same ops, same logits), also returning the
        receiver's attention weights: logits (B, V) and weights (B, h, T) over the window's slots,
        exactly 0.0 on PAD slots. This is the attention the model computes in training and generation."""
        x = self.embed(idx) + self.position                           # (B, T, C)
        update, weights = self.attention(x, idx == PAD, final_query_only=True)
        return self.mlp(x[:, -1] + update), weights[:, :, 0]          # residual, then (B, V); (B, h, T)

    def forward_full(self, idx: torch.Tensor):
        """Inspection only: every query row. Returns logits (B, T, V) and weights (B, h, T, T). Rows
        before the last are queries the model never computes in training or generation; the last row
        gives the same logits as forward."""
        x = self.embed(idx) + self.position
        update, weights = self.attention(x, idx == PAD, final_query_only=False)
        return self.mlp(x + update), weights


class CausalAttentionLM(AttentionLM):
    def __init__(self, vocab: int, context: int, d_model: int, d_hidden: int):
        super().__init__(vocab, context, d_model, d_hidden, n_heads=1)


class MultiHeadAttentionLM(AttentionLM):
    def __init__(self, vocab: int, context: int, d_model: int, d_hidden: int, n_heads: int = 4):
        super().__init__(vocab, context, d_model, d_hidden, n_heads=n_heads)


def build_model(name: str, cfg: Config, vocab: int | None = None) -> nn.Module:
    vocab = vocab or cfg.vocab_size
    if name == "mlp":
        return FixedWindowMLP(vocab, cfg.context, cfg.d_model, cfg.d_hidden)
    if name == "one_head":
        return CausalAttentionLM(vocab, cfg.context, cfg.d_model, cfg.d_hidden)
    if name == "four_heads":
        return MultiHeadAttentionLM(vocab, cfg.context, cfg.d_model, cfg.d_hidden, cfg.n_heads_multi)
    raise ValueError(f"unknown model {name!r}; allowed: mlp, one_head, four_heads")


def n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def train_flops_per_window(name: str, cfg: Config, vocab: int | None = None) -> float:
    """Model FLOPs of one training window (forward + backward ~ 3x forward; 2 FLOPs per MAC)."""
    V, T, C, Hd = vocab or cfg.vocab_size, cfg.context, cfg.d_model, cfg.d_hidden
    if name == "mlp":
        macs = T * C * Hd + Hd * V
    else:
        # K and V for every source, Q and W_O for the receiver, scores and mix, prediction MLP
        macs = 2 * T * C * C + 2 * C * C + 2 * T * C + C * Hd + Hd * V
    return 3 * 2 * macs
