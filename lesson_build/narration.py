"""`python -m lesson_build.narration script|report|benchmark [--quality m] [--out renders]`

  script     the recording script: every beat's id and the line to read, chapter by chapter, from
             the beats manifests of the last render (renders/lesson/<q>/scenes/NN_Scene.beats.json).
             Record each line as <beat id>.wav (16-bit PCM, 22,050 / 44,100 / 48,000 Hz) into one
             folder and render with LESSON_VOICE=<that folder>.
  script --from-scenes [--scenes NAME ...] [--sentence S]
             the script as a listener hears it, without a render: builds each scene in viewing
             order with the test harness's no-video builder (animations skipped, silent voice, no
             files written) and prints every beat's caption beside its spoken line, with any fault
             narration.spoken.speech_faults finds in it. Minutes for all 21 scenes; `--scenes` picks some.
  report     spoken length, words and words per second per chapter (and in all), from the same
             manifests: figures, not tests.
  benchmark  Piper's synthesis seconds per second of speech on lesson sentences (a fresh cache),
             then the same sentences again (the cached path: synthesizes nothing).

Exit 2 with one line when a manifest is missing (render first: `make lesson`) or an argument is bad.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from lesson_build.catalog import CHAPTERS

PROJECT_ROOT = Path(__file__).resolve().parents[1]


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def manifests(out: Path, quality: str) -> list[tuple[object, object, dict]]:
    """(chapter, scene entry, beats manifest) for every scene of the catalog, in viewing order."""
    scenes_dir = Path(out) / "lesson" / quality / "scenes"
    found, missing = [], []
    for ch in CHAPTERS:
        for s in ch.scenes:
            path = scenes_dir / f"{s.number:02d}_{s.name}.beats.json"
            if not path.is_file():
                missing.append(path.name)
                continue
            found.append((ch, s, json.loads(path.read_text(encoding="utf-8"))))
    if missing:
        raise FileNotFoundError(f"no beats manifest for {len(missing)} scene(s) in {scenes_dir} "
                                f"(first: {missing[0]}); render first: make lesson QUALITY={quality}")
    return found


def script(out: Path, quality: str) -> str:
    lines = ["# Recording script", "",
             "One file per line: `<beat id>.wav`, 16-bit PCM WAV at 22,050, 44,100 or 48,000 Hz.",
             "A beat without a recording keeps the synthesized voice; a longer recording stretches its beat.",
             ""]
    current = None
    for ch, s, m in manifests(out, quality):
        if ch is not current:
            lines += [f"## Chapter {ch.number}: {ch.title}", ""]
            current = ch
        lines += [f"### Scene {s.number}: {s.title}", ""]
        for beat in m["beats"]:
            lines.append(f"- `{beat['id']}` ({beat['speech_end'] - beat['speech_start']:.1f} s now): {beat['text']}")
        lines.append("")
    return "\n".join(lines)


def scene_beats(names=None, sentence: str | None = None) -> list[tuple[object, object, list]]:
    """(chapter, scene entry, beats) for the catalog's scenes in viewing order (only `names` when
    given), each built without video by tests/scene_harness.build_scene: the beats' caption and
    spoken text exactly as a render would make them."""
    import importlib

    if str(PROJECT_ROOT) not in sys.path:
        sys.path.insert(0, str(PROJECT_ROOT))
    from tests.scene_harness import build_scene

    known = {s.name for ch in CHAPTERS for s in ch.scenes}
    unknown = sorted(set(names or ()) - known)
    if unknown:
        raise ValueError(f"no scene named {unknown[0]!r} in lesson_build/catalog.py")
    found = []
    for ch in CHAPTERS:
        for s in ch.scenes:
            if names and s.name not in names:
                continue
            module = importlib.import_module(s.file[:-len(".py")].replace("/", "."))
            built = build_scene(getattr(module, s.name), sentence=sentence, pixel_height=270)
            found.append((ch, s, built.beats))
    return found


def listening_script(names=None, sentence: str | None = None) -> str:
    """Every beat's caption (what the screen writes) beside its spoken line (what the voice says), in
    viewing order; a line with a fault says which."""
    from narration.spoken import speech_faults

    lines = ["# The narration as a listener hears it", "",
             "Each beat: its id, the caption on screen, and the line the voice speaks.", ""]
    current, faults = None, 0
    for ch, s, beats in scene_beats(names, sentence):
        if ch is not current:
            lines += [f"## Chapter {ch.number}: {ch.title}", ""]
            current = ch
        lines += [f"### Scene {s.number}: {s.title}", ""]
        for k, beat in enumerate(beats, 1):
            lines += [f"- `{beat.id}` ({s.number:02d}_{k:02d})", f"  - screen: {beat.text}", f"  - voice: {beat.spoken}"]
            for fault in speech_faults(beat.spoken):
                lines.append(f"  - FAULT: {fault}")
                faults += 1
        lines.append("")
    lines.append(f"{faults} fault(s) in the spoken lines.")
    return "\n".join(lines)


def report(out: Path, quality: str) -> str:
    from narration.spoken import spoken_words

    rows, totals = [], {"speech": 0.0, "video": 0.0, "words": 0, "beats": 0}
    per = {}
    for ch, s, m in manifests(out, quality):
        entry = per.setdefault(ch.number, {"title": ch.title, "speech": 0.0, "video": 0.0, "words": 0, "beats": 0})
        entry["video"] += float(m["duration"])
        for beat in m["beats"]:
            entry["speech"] += beat["speech_end"] - beat["speech_start"]
            entry["words"] += len(beat["spoken"].split()) if beat.get("spoken") else spoken_words(beat["text"])
            entry["beats"] += 1
    rows.append(f"{'chapter':<34} {'beats':>5} {'spoken s':>9} {'video s':>8} {'words':>6} "
                f"{'words/s spoken':>14} {'words/s video':>13}")
    for number, e in per.items():
        for k in totals:
            totals[k] += e[k]
        rows.append(f"{number} {e['title']:<32} {e['beats']:>5} {e['speech']:>9.1f} {e['video']:>8.1f} "
                    f"{e['words']:>6} {e['words'] / max(e['speech'], 1e-9):>14.2f} "
                    f"{e['words'] / max(e['video'], 1e-9):>13.2f}")
    t = totals
    rows.append(f"{'all':<34} {t['beats']:>5} {t['speech']:>9.1f} {t['video']:>8.1f} {t['words']:>6} "
                f"{t['words'] / max(t['speech'], 1e-9):>14.2f} {t['words'] / max(t['video'], 1e-9):>13.2f}")
    return "\n".join(rows)


BENCH_SENTENCES = (
    "Head 1 puts most of its weight on river: 0.718.",
    "Every source contributes to the denominator, including the receiver itself.",
    "E = token rows + position rows: shape [10, 4].",
    "Four heads reach a test loss of 3.293 ± 0.008 against 3.357 for one head, at the same parameter count.",
    "The blank is the word we want to predict. It has no query yet.",
    "Each head learns its own W_Q, W_K and W_V, applied to the same input rows.",
)


def benchmark() -> str:
    from narration import speech
    from narration.spoken import spoken_form

    speech.piper_voice()                      # loading the voice is not synthesis
    with tempfile.TemporaryDirectory() as cache:
        before = dict(speech.STATS)
        for text in BENCH_SENTENCES:
            speech.speech_file("piper", spoken_form(text), Path(cache))
        cpu = speech.STATS["synthesis_seconds"] - before["synthesis_seconds"]
        audio = speech.STATS["speech_seconds"] - before["speech_seconds"]
        started = time.perf_counter()
        synthesized = speech.STATS["synthesized"]
        for text in BENCH_SENTENCES:
            speech.speech_file("piper", spoken_form(text), Path(cache))
        cached_wall = time.perf_counter() - started
        again = speech.STATS["synthesized"] - synthesized
    return (f"Piper {len(BENCH_SENTENCES)} sentences: {audio:.1f} s of speech in {cpu:.2f} s of CPU "
            f"= {cpu / audio:.3f} s per second of speech\n"
            f"cached re-run: {again} synthesized, {cached_wall * 1000:.1f} ms in all")


def main(argv=None) -> int:
    parser = _Parser(prog="python -m lesson_build.narration", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["script", "report", "benchmark"])
    parser.add_argument("--quality", choices=["l", "m", "h"], default="m")
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "renders")
    parser.add_argument("--from-scenes", action="store_true",
                        help="script: build the scenes without video and print caption and spoken line")
    parser.add_argument("--scenes", nargs="+", metavar="NAME", help="with --from-scenes: only these scenes")
    parser.add_argument("--sentence", help="with --from-scenes: LESSON_SENTENCE for the worksheet scenes")
    args = parser.parse_args(argv)
    if (args.scenes or args.sentence) and not (args.command == "script" and args.from_scenes):
        parser.error("--scenes and --sentence go with script --from-scenes")
    try:
        if args.command == "script" and args.from_scenes:
            print(listening_script(args.scenes, args.sentence))
        elif args.command == "script":
            print(script(args.out, args.quality))
        elif args.command == "report":
            print(report(args.out, args.quality))
        else:
            print(benchmark())
    except (FileNotFoundError, ValueError) as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
