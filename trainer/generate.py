"""Continue a prompt with an exported checkpoint, one token per model call, final query only."""
from __future__ import annotations

import statistics
import time
from pathlib import Path

import torch

from trainer.config import BOS, EOS, PAD
from trainer.tokenizer import detokenize, encode, load_tokenizer


def window_of(ids: list[int], context: int) -> torch.Tensor:
    last = ids[-context:]
    return torch.tensor([[PAD] * (context - len(last)) + last])       # (1, T)


@torch.inference_mode()
def generate(model, tok, prompt: str, n_tokens: int, context: int = 64, temperature: float = 0.0,
             seed: int = 0) -> dict:
    """Greedy when temperature == 0, else sampled with a seeded generator. Returns the words and
    the per-call latencies in milliseconds."""
    gen = torch.Generator().manual_seed(seed)
    ids = [BOS, *encode(tok, prompt)]
    new, latencies = [], []
    for _ in range(n_tokens):
        x = window_of(ids, context)
        t0 = time.perf_counter()
        logits = model(x)[0]                                           # (V,)
        latencies.append((time.perf_counter() - t0) * 1e3)
        if temperature > 0:
            nxt = int(torch.multinomial(torch.softmax(logits / temperature, -1), 1, generator=gen))
        else:
            nxt = int(logits.argmax())
        if nxt == EOS:
            break
        ids.append(nxt)
        new.append(nxt)
    words = [tok.id_to_token(i) for i in new]
    return {"prompt": prompt, "continuation": detokenize(words), "token_ids": new,
            "latency_ms_median": statistics.median(latencies) if latencies else None,
            "latency_ms_mean": statistics.fmean(latencies) if latencies else None}


def main_generate(args) -> int:
    from trainer.checkpoints import load_checkpoint
    exports = Path(args.exports)
    torch.set_num_threads(1)
    model, entry = load_checkpoint(exports, args.model)
    tok = load_tokenizer(exports / "tokenizer.json")
    out = generate(model, tok, args.prompt, args.tokens, entry["config"]["context"], args.temperature, args.seed)
    print(f"{args.prompt} [{out['continuation']}]")
    print(f"({len(out['token_ids'])} tokens, median {out['latency_ms_median']:.3f} ms per call, {args.model})")
    return 0
