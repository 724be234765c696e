"""Benchmarks (figures printed, never asserted):

  training MFU   model FLOPs per second / the peak of a 2048^3 float32 matmul measured in this run
  generation     per-call latency of the final-query path vs recomputing the full sequence
"""
from __future__ import annotations

import statistics
import time

import torch
import torch.nn.functional as F

from trainer.config import MODEL_NAMES, Config
from trainer.model import build_model, train_flops_per_window


def matmul_peak(n: int = 2048, repeats: int = 5) -> float:
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t0)
    return 2 * n**3 / min(times)


def training_rate(name: str, cfg: Config, windows, vocab: int, steps: int) -> float:
    """Windows per second over `steps` timed updates (after two warm-up updates)."""
    torch.manual_seed(0)
    model = build_model(name, cfg, vocab)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr[name], weight_decay=cfg.weight_decay[name])
    train = windows["train"]
    batches = [train.batch(torch.randint(len(train), (cfg.batch_size,))) for _ in range(steps + 2)]
    for i, (x, y) in enumerate(batches):
        if i == 2:
            t0 = time.perf_counter()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        opt.step()
    return steps * cfg.batch_size / (time.perf_counter() - t0)


@torch.inference_mode()
def latency_ms(fn, x, repeats: int = 200) -> float:
    for _ in range(10):
        fn(x)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def run_benchmark(cfg: Config, windows, vocab: int, steps: int) -> int:
    peak = matmul_peak()
    print(f"threads {torch.get_num_threads()}; 2048^3 float32 matmul peak: {peak / 1e9:.1f} GFLOP/s")
    print(f"{'model':>11} {'windows/s':>10} {'GFLOP/s':>8} {'MFU':>6}")
    for name in MODEL_NAMES:
        rate = training_rate(name, cfg, windows, vocab, steps)
        flops = rate * train_flops_per_window(name, cfg, vocab)
        print(f"{name:>11} {rate:10.0f} {flops / 1e9:8.1f} {flops / peak:6.1%}")

    # Batch-1 generation is a chain of tiny ops: one thread avoids the hand-off cost between
    # threads (the exported continuations are timed the same way).
    torch.set_num_threads(1)
    print("\ngeneration, batch 1, 1 thread, one call (median of 200):")
    x = windows["val"].batch(torch.tensor([500]))[0]
    for name in ("one_head", "four_heads"):
        model = build_model(name, cfg, vocab).eval()
        final = latency_ms(model, x)
        full = latency_ms(lambda t: model.forward_full(t)[0][:, -1], x)
        print(f"{name:>11}: final query {final:.3f} ms, full sequence {full:.3f} ms, "
              f"speed-up {full / final:.1f}x")
    torch.set_num_threads(cfg.threads)
    return 0
