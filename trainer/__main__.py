"""python -m trainer <command> — the TinyStories comparison.

  prepare   build the corpus and tokenizer for a profile
  train     train one run (--model, --seed)
  compare   all nine runs (three models x seeds 11, 29, 47); finished runs are skipped
  export    write lesson_data/exports/ from the finished runs; --from-checkpoints: only what the
            committed checkpoints give (protocol.json, attention.json, prompts as read), no runs/
  generate  continue a prompt from an exported checkpoint (greedy or sampled, seeded)
  benchmark MFU of training, final-query vs full-sequence generation latency

Data: the vendored sample data/tinystories/stories.jsonl.gz by default; --data-files FILE.jsonl[.gz]
for other stories, --data-files '' for the hub dataset.

Example:  python -m trainer compare --profile full
"""
from __future__ import annotations

import argparse
import math
import os
import sys

# Idle OpenMP threads sleep instead of spinning: with renders sharing the two cores, spinning
# threads made training steps ~5x slower (measured: 0.76 s vs 0.15 s a step under load).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
from pathlib import Path

from trainer.config import DEFAULT_DATA_FILES, MODEL_NAMES, SEEDS, get_config


class _Parser(argparse.ArgumentParser):
    """Bad arguments: one line naming the value and what is allowed, exit 2 (subcommands too)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens >= 1")
    return n


def _temperature(text: str) -> float:
    try:
        t = float(text)
    except ValueError:
        t = math.nan
    if not (math.isfinite(t) and t >= 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a temperature: use 0 (greedy) or a finite number > 0")
    return t


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", default="full", help="full (the protocol) or smoke (seconds)")
    p.add_argument("--data-files", default=DEFAULT_DATA_FILES,
                   help="local stories (.jsonl or .jsonl.gz; default: the vendored sample); '' loads the hub dataset")
    p.add_argument("--runs", default="runs", help="where runs are kept (default: runs/)")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default 2)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def parse(argv: list[str]) -> argparse.Namespace:
    ap = _Parser(prog="python -m trainer", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    _common(sub.add_parser("prepare", help="build corpus and tokenizer"))
    p = sub.add_parser("train", help="train one run")
    _common(p)
    p.add_argument("--model", required=True, choices=MODEL_NAMES)
    p.add_argument("--seed", type=int, required=True)
    _common(sub.add_parser("compare", help="run the nine-run comparison"))
    p = sub.add_parser("export", help="export results for the lesson")
    _common(p)
    p.add_argument("--out", default="lesson_data/exports")
    p.add_argument("--from-checkpoints", action="store_true",
                   help="without runs/: regenerate protocol.json, attention.json and the prompts as read in "
                        "continuations.json from the checkpoints, tokenizer and stories in/for --out")
    p = sub.add_parser("generate", help="continue a prompt")
    p.add_argument("--exports", default="lesson_data/exports")
    p.add_argument("--model", default="four_heads", choices=MODEL_NAMES)
    p.add_argument("--prompt", required=True)
    p.add_argument("--tokens", type=_positive_int, default=30, help="tokens to generate (>= 1)")
    p.add_argument("--temperature", type=_temperature, default=0.0, help="0 = greedy, > 0 samples")
    p.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("benchmark", help="training MFU and generation latency")
    _common(p)
    p.add_argument("--steps", type=int, default=20)
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    from trainer.data import DataError
    from trainer.train import TrainingError
    try:
        return _dispatch(args)
    except (DataError, TrainingError, ValueError, FileNotFoundError) as e:
        print(f"trainer: error: {e}", file=sys.stderr)
        return 2


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "generate":
        from trainer.generate import main_generate
        return main_generate(args)
    if args.command == "export" and args.from_checkpoints:
        from trainer.lesson_views import export_lesson_views
        export_lesson_views(Path(args.out), args.data_files or None)
        return 0
    overrides = {"threads": args.threads} if args.threads else {}
    cfg = get_config(args.profile, **overrides)
    import torch
    torch.set_num_threads(cfg.threads)
    from trainer.corpus_cache import load_or_prepare
    root = Path(args.runs) / cfg.profile
    windows, record, tok = load_or_prepare(cfg, args.data_files or None, root)
    vocab = tok.get_vocab_size()
    if args.command == "prepare":
        print(f"prepared {cfg.profile}: stories {record['stories']}, targets {record['targets']}, vocab {vocab}")
        return 0
    if args.command == "benchmark":
        from trainer.benchmark import run_benchmark
        return run_benchmark(cfg, windows, vocab, args.steps)
    from trainer.train import train_run
    if args.command == "train":
        runs = [(args.model, args.seed)]
    else:
        runs = [(m, s) for s in SEEDS for m in MODEL_NAMES]   # seed-major: seed 11 of all three first
    if args.command in ("train", "compare"):
        for model, seed in runs:
            r = train_run(model, seed, cfg, windows, vocab, root / f"{model}-s{seed}", progress=not args.quiet)
            print(f"{model:>10} seed {seed}: test loss {r['test_loss']:.4f}  ppl {r['test_perplexity']:.2f}  "
                  f"step {r['selected_step']}  {r['train_seconds']:.0f} s", flush=True)
        return 0
    if args.command == "export":
        from trainer.export import export_all
        export_all(cfg, root, windows, record, tok, Path(args.out))
        return 0
    raise AssertionError(args.command)


if __name__ == "__main__":
    sys.exit(main())
