"""Benchmark: how long the test harness takes to build a scene with Manim's own mobject copies
against its lean copies (tests/scene_harness.py), alternating in one process, and whether both
builds end in the same state.

    .venv/bin/python tools/bench_harness.py [SceneName] [--runs N]     (default: Setup, 2 runs)
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SCENES = {"Setup": "scenes.chapter2.setup_and_shapes", "Head1Message": "scenes.chapter2.head_walk",
          "ThreeHeadsSevenRows": "scenes.chapter1_why_heads"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene", nargs="?", default="Setup", choices=sorted(SCENES))
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    import tests.scene_harness as harness
    scene = getattr(importlib.import_module(SCENES[args.scene]), args.scene)
    lean = harness.lean_copies
    harness.build_scene(scene)                       # warm the text caches once
    times, states = {"manim copy": [], "lean copy": []}, {}
    for _ in range(args.runs):
        for name in times:
            harness.lean_copies = lean if name == "lean copy" else contextlib.nullcontext
            start = time.perf_counter()
            b = harness.build_scene(scene)
            times[name].append(time.perf_counter() - start)
            states[name] = (len(b.numbers), len(b.texts), round(b.duration, 6), len(b.text_overlaps),
                            int(b.last_frame().sum()))
    harness.lean_copies = lean
    for name, ts in times.items():
        print(f"{args.scene:22s} {name:10s} min {min(ts):6.2f} s  over {len(ts)} run(s)")
    print(f"ratio lean / manim: {min(times['lean copy']) / min(times['manim copy']):.2f}")
    print("same end state:", states["lean copy"] == states["manim copy"])
    return 0 if states["lean copy"] == states["manim copy"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
