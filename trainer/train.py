"""The training loop: one run = one (model, seed). Resumable, deterministic for a seed on one machine.

Each run lives in runs/<profile>/<model>-s<seed>/:
  resume.pt    written at every evaluation (model, optimizer, sampler RNG, best state, trace)
  checkpoint.pt the selected (lowest selection-loss) state, fp32
  result.json  written last; its presence means the run is finished and is skipped next time
"""
from __future__ import annotations

import copy
import json
import math
import os
import platform
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from trainer.config import Config
from trainer.data import Windows
from trainer.model import build_model, n_params


class TrainingError(RuntimeError):
    pass


def atomic_save(obj, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def atomic_write_json(obj, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


def device_name() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    n = torch.get_num_threads()
    return f"CPU ({cpu}), {n} thread{'s' if n != 1 else ''}"


@torch.no_grad()
def evaluate(model: torch.nn.Module, windows: Windows, idx: torch.Tensor | None = None,
             batch: int = 4096) -> float:
    """Mean cross-entropy (nats) over the given windows (all by default)."""
    model.eval()
    idx = torch.arange(len(windows)) if idx is None else idx
    total = 0.0
    for start in range(0, len(idx), batch):
        x, y = windows.batch(idx[start:start + batch])
        total += F.cross_entropy(model(x), y, reduction="sum").item()
    model.train()
    return total / len(idx)


def eval_steps(cfg: Config) -> list[int]:
    return sorted({1, cfg.steps, *range(cfg.eval_every, cfg.steps + 1, cfg.eval_every)})


def train_run(name: str, seed: int, cfg: Config, windows: dict[str, Windows], vocab: int,
              run_dir: Path, progress: bool = True) -> dict:
    run_dir.mkdir(parents=True, exist_ok=True)
    result_path = run_dir / "result.json"
    if result_path.exists():
        return json.loads(result_path.read_text())
    torch.set_num_threads(cfg.threads)

    torch.manual_seed(seed)                       # seed before initialising
    model = build_model(name, cfg, vocab)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr[name], weight_decay=cfg.weight_decay[name])
    torch.manual_seed(seed)                       # and before training
    sampler = torch.Generator().manual_seed(seed)
    state = {"step": 0, "trace": [], "best_loss": math.inf, "best_step": 0, "best_state": None,
             "recent": [], "elapsed": 0.0}

    resume_path = run_dir / "resume.pt"
    if resume_path.exists():
        saved = torch.load(resume_path, weights_only=False)
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
        sampler.set_state(saved["sampler"])
        state = saved["state"]

    train, val = windows["train"], windows["val"]
    selection = torch.arange(min(cfg.selection_windows, len(val)))
    checkpoints = set(eval_steps(cfg))
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=cfg.steps, initial=state["step"], desc=f"{name} seed {seed}", unit="step",
                   mininterval=5.0, leave=False)
    t0 = time.perf_counter() - state["elapsed"]
    model.train()
    for step in range(state["step"] + 1, cfg.steps + 1):
        x, y = train.batch(torch.randint(len(train), (cfg.batch_size,), generator=sampler))
        loss = F.cross_entropy(model(x), y)
        if not torch.isfinite(loss):
            raise TrainingError(f"{name} seed {seed}: non-finite loss {loss.item()} at step {step}")
        opt.zero_grad(set_to_none=True)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        if not torch.isfinite(grad_norm):
            raise TrainingError(f"{name} seed {seed}: non-finite gradient norm at step {step}")
        opt.step()
        state["recent"] = (state["recent"] + [loss.item()])[-100:]
        if bar:
            bar.update(1)
        if step in checkpoints:
            sel = evaluate(model, val, selection)
            state["trace"].append({"step": step, "selection_loss": sel,
                                   "train_loss": sum(state["recent"]) / len(state["recent"])})
            if sel < state["best_loss"]:
                state.update(best_loss=sel, best_step=step, best_state=copy.deepcopy(model.state_dict()))
            state["step"], state["elapsed"] = step, time.perf_counter() - t0
            atomic_save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                         "sampler": sampler.get_state(), "state": state}, resume_path)
    if bar:
        bar.close()
    train_seconds = time.perf_counter() - t0

    model.load_state_dict(state["best_state"])    # restore the selected state
    val_loss = evaluate(model, val)
    test_loss = evaluate(model, windows["test"])  # the test split is touched only now
    result = {
        "model": name, "seed": seed, "profile": cfg.profile, "parameters": n_params(model),
        "selected_step": state["best_step"], "selection_loss": state["best_loss"],
        "trace": state["trace"], "final_train_loss": state["trace"][-1]["train_loss"],
        "val_loss": val_loss, "val_perplexity": math.exp(val_loss),
        "test_loss": test_loss, "test_perplexity": math.exp(test_loss),
        "train_seconds": train_seconds, "device": device_name(),
        "torch_version": torch.__version__, "threads": torch.get_num_threads(),
    }
    atomic_save({"model": name, "seed": seed, "config": cfg.to_dict(), "vocab": vocab,
                 "state_dict": state["best_state"]}, run_dir / "checkpoint.pt")
    atomic_write_json(result, result_path)
    resume_path.unlink(missing_ok=True)
    return result
