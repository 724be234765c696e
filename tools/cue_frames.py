#!/usr/bin/env python3
"""Look at a rendered scene the way a viewer meets it: one frame at the end of every subtitle cue.

    .venv/bin/python tools/cue_frames.py renders/lesson/m/scenes/08_Head1Weights.mp4 [--out DIR] [--mid]

Reads the .srt beside the video (or --srt FILE), writes DIR/<stem>_<cue>.png (and _<cue>m.png at mid-cue
with --mid), and prints one line per cue: frame path, time range, words per second, caption. Open the
PNGs with your file viewer and judge each against its sentence: is the thing the sentence talks about
on screen now (not one sentence early or late), legible, uncluttered? Needs imageio-ffmpeg (a project
dependency), nothing else.
"""
import argparse
import pathlib
import re
import subprocess
import sys

import imageio_ffmpeg


def seconds(stamp: str) -> float:
    h, m, s = stamp.strip().replace(",", ".").split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def cues(srt: pathlib.Path):
    for block in re.split(r"\n\s*\n", srt.read_text(encoding="utf-8").strip()):
        lines = block.splitlines()
        if len(lines) >= 3 and "-->" in lines[1]:
            start, end = (seconds(t) for t in lines[1].split("-->"))
            yield int(lines[0]), start, end, " ".join(lines[2:])


def frame(ffmpeg: str, video: pathlib.Path, t: float, png: pathlib.Path) -> None:
    subprocess.run([ffmpeg, "-loglevel", "error", "-y", "-ss", f"{max(t, 0):.3f}", "-i", str(video),
                    "-frames:v", "1", str(png)], check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("video", type=pathlib.Path)
    ap.add_argument("--srt", type=pathlib.Path)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("/tmp/cue_frames"))
    ap.add_argument("--mid", action="store_true", help="also a frame in the middle of each cue")
    a = ap.parse_args()
    srt = a.srt or a.video.with_suffix(".srt")
    if not a.video.is_file() or not srt.is_file():
        print(f"cue_frames: need {a.video} and {srt}", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    for k, start, end, text in cues(srt):
        png = a.out / f"{a.video.stem}_{k:02d}.png"
        frame(ffmpeg, a.video, end - 0.1, png)
        if a.mid:
            frame(ffmpeg, a.video, (start + end) / 2, a.out / f"{a.video.stem}_{k:02d}m.png")
        rate = len(text.split()) / max(end - start, 1e-6)
        print(f"{png}\t{start:6.1f}-{end:6.1f}s\t{rate:.1f} w/s\t{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
