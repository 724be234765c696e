"""Render one scene with manim in a subprocess, skipping it when its inputs are unchanged.

Each scene renders into its own staging media dir; only a finished video is moved into place:

    <out>/lesson/<quality>/scenes/NN_Scene.mp4   the video
    <out>/lesson/<quality>/scenes/NN_Scene.srt   its subtitles: the beats' text at the beats' times
    <out>/lesson/<quality>/scenes/NN_Scene.beats.json  its beats: id, text, spoken text, times, audio
    <out>/lesson/<quality>/scenes/NN_Scene.json  manifest: input hash, duration, frames
    <out>/lesson/<quality>/logs/NN_Scene.log     manim's full output of the last render

The manifest is written last and removed first, so a video without a matching manifest is never
trusted: an interrupted run re-renders that scene next time.
"""
from __future__ import annotations

import ast
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from lesson_build import media, processes
from lesson_build.catalog import Chapter, SceneEntry
from lesson_build.inputs import input_hash

# l: 854x480 15 fps (drafts) · m: 1280x720 30 fps (the default: what a viewer watches) · h: 1920x1080 60 fps.
# The encoder settings for all three are manim.cfg's [video_encoder.options].
QUALITY_FLAGS = {"l": "-ql", "m": "-qm", "h": "-qh"}


@dataclass
class SceneJob:
    chapter: Chapter
    entry: SceneEntry
    root: Path
    quality_dir: Path             # <out>/lesson/<quality>
    quality: str
    manim_args: tuple[str, ...] = ()

    @property
    def stem(self) -> str:
        return f"{self.entry.number:02d}_{self.entry.name}"

    @property
    def video(self) -> Path:
        return self.quality_dir / "scenes" / f"{self.stem}.mp4"

    @property
    def subtitles(self) -> Path:
        return self.video.with_suffix(".srt")

    @property
    def beats(self) -> Path:
        return self.video.with_suffix(".beats.json")

    @property
    def manifest(self) -> Path:
        return self.video.with_suffix(".json")

    @property
    def log(self) -> Path:
        return self.quality_dir / "logs" / f"{self.stem}.log"

    @property
    def staging(self) -> Path:
        return self.quality_dir / ".staging" / self.stem


@dataclass
class SceneResult:
    job: SceneJob
    status: str                   # "rendered" | "cached" | "failed" | "not yet written"
    info: media.VideoInfo | None = None
    seconds: float = 0.0          # render wall time (0 when cached)
    error: str = ""
    inputs: list[str] = field(default_factory=list)
    hash: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("rendered", "cached")

    @property
    def subtitles(self) -> Path | None:
        return self.job.subtitles if self.job.subtitles.is_file() else None


def existence_problem(job: SceneJob) -> tuple[str, str] | None:
    """("not yet written", why) when the file or class is absent; ("failed", why) when the file
    cannot be parsed; None when the scene class is there."""
    path = job.root / job.entry.file
    if not path.is_file():
        return "not yet written", f"{job.entry.file} does not exist"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        return "failed", f"{job.entry.file}:{exc.lineno}: SyntaxError: {exc.msg}"
    if not any(isinstance(n, ast.ClassDef) and n.name == job.entry.name for n in tree.body):
        return "not yet written", f"class {job.entry.name} not in {job.entry.file}"
    return None


def _read_manifest(job: SceneJob) -> dict | None:
    try:
        return json.loads(job.manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def prepare(job: SceneJob) -> SceneResult | None:
    """A finished result without rendering (not yet written / unparseable / cached), or None when
    the scene must be rendered. Sets up hash and inputs for the render either way."""
    problem = existence_problem(job)
    if problem is not None:
        return SceneResult(job, problem[0], error=problem[1])
    try:
        digest, inputs = input_hash(job.root, Path(job.entry.file), job.entry.name, job.quality,
                                    job.manim_args)
    except (OSError, SyntaxError) as exc:
        return SceneResult(job, "failed", error=f"cannot hash inputs: {exc}")
    manifest = _read_manifest(job)
    if (manifest and manifest.get("hash") == digest and job.video.is_file()
            and (not manifest.get("subtitles") or job.subtitles.is_file())
            and (not manifest.get("beats") or job.beats.is_file())):
        try:
            return SceneResult(job, "cached", info=media.probe(job.video), inputs=inputs, hash=digest)
        except Exception:  # unreadable video: render it again
            pass
    return SceneResult(job, "pending", inputs=inputs, hash=digest)


def _tail(text: str, lines: int = 15) -> str:
    kept = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def manim_command(job: SceneJob) -> list[str]:
    return [
        sys.executable, "-m", "manim", "render", QUALITY_FLAGS[job.quality],
        "--disable_caching", "--progress_bar", "none", "-v", "WARNING",
        "--media_dir", str(job.staging.resolve()),
        *job.manim_args, str(job.entry.file), job.entry.name,
    ]


def render(pending: SceneResult) -> SceneResult:
    """Run manim for one scene; move the video, subtitles and manifest into place on success."""
    job = pending.job
    shutil.rmtree(job.staging, ignore_errors=True)
    job.staging.mkdir(parents=True)
    job.log.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    # Scenes import `scenes.*` and `lesson_data` from the project root, wherever it is.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(job.root.resolve()), env.get("PYTHONPATH")]))
    env.setdefault("COLUMNS", "160")  # rich wraps tracebacks to the terminal width
    started = time.perf_counter()
    try:
        proc = processes.run(manim_command(job), cwd=job.root, env=env, text=True, errors="replace")
    except OSError as exc:
        return SceneResult(job, "failed", error=f"cannot start manim: {exc}", inputs=pending.inputs,
                           hash=pending.hash)
    except processes.Interrupted:
        shutil.rmtree(job.staging, ignore_errors=True)   # the published files are untouched
        raise
    seconds = time.perf_counter() - started
    media.write_text_atomic(job.log, f"$ {' '.join(manim_command(job))}\n\n--- stdout\n{proc.stdout}"
                                     f"\n--- stderr\n{proc.stderr}")
    produced = sorted(job.staging.glob(f"videos/**/{job.entry.name}.mp4"))
    if proc.returncode != 0 or len(produced) != 1:
        why = _tail(proc.stderr) or _tail(proc.stdout) or "(no output)"
        if proc.returncode == 0:
            why = f"manim exited 0 but wrote no {job.entry.name}.mp4\n{why}"
        shutil.rmtree(job.staging, ignore_errors=True)
        return SceneResult(job, "failed", seconds=seconds, error=why, inputs=pending.inputs,
                           hash=pending.hash)
    video = produced[0]
    try:
        info = media.probe(video)
    except Exception as exc:
        shutil.rmtree(job.staging, ignore_errors=True)
        return SceneResult(job, "failed", seconds=seconds, error=f"unreadable video: {exc}",
                           inputs=pending.inputs, hash=pending.hash)
    srt = video.with_suffix(".srt")
    beats = video.with_suffix(".beats.json")
    job.video.parent.mkdir(parents=True, exist_ok=True)
    # Manifest off first, on last: in between, nothing claims the files are current.
    job.manifest.unlink(missing_ok=True)
    for made, dest in ((srt, job.subtitles), (beats, job.beats)):
        if made.is_file():
            os.replace(made, dest)
        else:
            dest.unlink(missing_ok=True)
    os.replace(video, job.video)
    manifest = {
        "scene": job.entry.name, "file": job.entry.file, "quality": job.quality,
        "manim_args": list(job.manim_args), "hash": pending.hash, "inputs": pending.inputs,
        "duration": str(info.duration), "frames": info.frames,
        "subtitles": job.subtitles.is_file(), "beats": job.beats.is_file(), "has_audio": info.has_audio,
        "render_seconds": round(seconds, 3),
        "rendered_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    media.write_text_atomic(job.manifest, json.dumps(manifest, indent=2) + "\n")
    shutil.rmtree(job.staging, ignore_errors=True)
    return SceneResult(job, "rendered", info=info, seconds=seconds, inputs=pending.inputs,
                       hash=pending.hash)
