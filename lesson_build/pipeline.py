"""From scenes to what a viewer watches: render, stitch, subtitle, preview, index.

    build(catalog, root=..., out=..., quality="l", jobs=2) -> BuildReport

Outputs, for quality q (l, m or h; the command line defaults to m), under `out` (default renders/):

    lesson/q/scenes/NN_Scene.{mp4,srt,json}   one video per scene (see render.py)
    lesson/q/<slug>.mp4                       one per chapter: chapter marks + mov_text subtitles
    lesson/q/<slug>.{srt,vtt}                 the chapter's merged subtitles
    lesson/q/<slug>.png / <slug>.gif          thumbnail and a few-second preview
    lesson/q/<slug>.json                      what the chapter was stitched from
    lesson/q/series.{mp4,srt,vtt,json}        the whole series, one chapter mark per scene
    index.html                                the web lesson: chapters with transcripts, the
                                              worksheet explorer, the trained-model demo (page.py)
    web/                                      its scripts and styles (lesson_build/web/)
    web/models/                               the checkpoints as float16 .bin + manifest.json
    worksheet.json                            `python -m lesson_data export`, when that CLI exists

A chapter is stitched only from a complete set of its scenes, the series only from every chapter.
`chapters=[...]` limits what is rendered; chapters outside it are still assembled when every scene
video of theirs is already up to date. A chapter left unbuilt keeps any older file it had, but the
index page no longer links it.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable, Sequence

from lesson_build import media, page
from lesson_build.catalog import CHAPTERS, Chapter
from lesson_build.render import QUALITY_FLAGS, SceneJob, SceneResult, prepare, render
from lesson_build.web import site, weights

SERIES_TITLE = "Multi-head attention"
QUALITY_LABELS = {"l": "480p15 (-ql)", "m": "720p30 (-qm)", "h": "1080p60 (-qh)"}
# A scene outside --chapters whose video is missing or stale: left alone, not rendered.
NOT_SELECTED = "not selected, needs a render"
# Bumped when stitching changes in a way that makes old chapter files stale.
STITCH_VERSION = 1


@dataclass
class StitchResult:
    slug: str
    title: str
    status: str                        # "built" | "up to date" | "not built" | "failed"
    note: str = ""
    video: Path | None = None
    marks: list = field(default_factory=list)   # (title, start, end) in seconds
    duration: Fraction | None = None
    copy: bool | None = None


@dataclass
class BuildReport:
    quality: str
    scenes: list[SceneResult]
    chapters: list[StitchResult]
    series: StitchResult | None
    worksheet: str                     # "written" | "skipped: ..." | "failed: ..."
    index: Path | None
    web: str = ""                      # the page's scripts and models: "ready ..." | "failed: ..."

    @property
    def failed(self) -> list[str]:
        bad = [f"scene {r.job.entry.name}" for r in self.scenes if r.status == "failed"]
        bad += [f"chapter {c.slug}" for c in self.chapters if c.status == "failed"]
        if self.series is not None and self.series.status == "failed":
            bad.append("series")
        if self.worksheet.startswith("failed"):
            bad.append("worksheet export")
        if self.web.startswith("failed"):
            bad.append("web page")
        return bad

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0


def _stitch_key(parts: Sequence[SceneResult], titles: Sequence[str], title: str) -> str:
    blob = json.dumps({"v": STITCH_VERSION, "title": title,
                       "parts": [[r.hash, t] for r, t in zip(parts, titles)]}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _offsets(parts: Sequence[SceneResult], titles: Sequence[str]) -> list[tuple[str, Fraction, Fraction]]:
    marks, t = [], Fraction(0)
    for r, name in zip(parts, titles):
        marks.append((name, t, t + r.info.duration))
        t += r.info.duration
    return marks


def stitch_set(quality_dir: Path, slug: str, title: str, parts: Sequence[SceneResult],
               titles: Sequence[str], *, previews: bool,
               log: Callable[[str], None] = print) -> StitchResult:
    """Stitch one chapter (or the series) unless its manifest says the same parts made it."""
    video = quality_dir / f"{slug}.mp4"
    outputs = [video, video.with_suffix(".srt"), video.with_suffix(".vtt")]
    if previews:
        outputs += [video.with_suffix(".png"), video.with_suffix(".gif")]
    manifest_path = video.with_suffix(".json")
    key = _stitch_key(parts, titles, title)
    marks = _offsets(parts, titles)
    duration = marks[-1][2]
    try:
        old = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = None
    if old and old.get("key") == key and all(p.is_file() for p in outputs):
        return StitchResult(slug, title, "up to date", video=video, marks=marks, duration=duration,
                            copy=old.get("copy"))
    manifest_path.unlink(missing_ok=True)
    log(f"  stitching {slug} from {len(parts)} scene(s)")
    try:
        result = media.stitch(
            [media.Part(r.job.video, t, r.info, r.subtitles) for r, t in zip(parts, titles)],
            video, title=title, srt_dest=video.with_suffix(".srt"), vtt_dest=video.with_suffix(".vtt"))
        if previews:
            # Candidates: the middle and near the end of every scene (frame-centred).
            cands = []
            for _, start, end in marks:
                half_frame = Fraction(1, 2) / (parts[0].info.fps or 1)
                cands += [start + (end - start) / 2, max(start, end - 3 * half_frame)]
            # Each candidate costs a seek and up to a GOP of decoding: keep at most a dozen.
            cands = cands[::max(1, -(-len(cands) // 12))]
            at = media.pick_thumbnail_time(video, cands)
            media.thumbnail(video, video.with_suffix(".png"), at)
            media.gif_preview(video, video.with_suffix(".gif"), max(Fraction(0), at - 3))
    except (media.MediaError, OSError) as exc:
        return StitchResult(slug, title, "failed", note=str(exc))
    media.write_text_atomic(manifest_path, json.dumps({
        "key": key, "title": title, "copy": result["copy"], "duration": str(result["duration"]),
        "marks": [[n, str(s), str(e)] for n, s, e in result["marks"]],
        "scenes": [r.job.stem for r in parts], "subtitle_cues": result["cues"],
    }, indent=2) + "\n")
    return StitchResult(slug, title, "built", video=video, marks=marks, duration=duration,
                        copy=result["copy"])


def export_worksheet(root: Path, out: Path, module: str | None) -> tuple[str, Path | None]:
    """Run `python -m <module> export --out <out>/worksheet.json` when that CLI exists."""
    if module is None:
        return "skipped: no worksheet module", None
    if not (root / module / "__main__.py").is_file():
        return f"skipped: {module} has no CLI yet (no {module}/__main__.py)", None
    dest = out / "worksheet.json"
    proc = subprocess.run([sys.executable, "-m", module, "export", "--out", str(dest.resolve())],
                          cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if proc.returncode != 0 or not dest.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return f"failed: python -m {module} export exited {proc.returncode}: {' | '.join(tail)}", None
    return "written", dest


def _fmt_s(x) -> str:
    return f"{float(x):.1f}s"


def summary(report: BuildReport) -> str:
    rows = [("#", "chapter", "scene", "status", "render", "video")]
    for r in report.scenes:
        rows.append((str(r.job.entry.number), str(r.job.chapter.number), r.job.entry.name,
                     r.status.upper() if r.status == "failed" else r.status,
                     _fmt_s(r.seconds) if r.status == "rendered" else "",
                     _fmt_s(r.info.duration) if r.info else ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = ["", "  ".join(c.ljust(w) for c, w in zip(rows[0], widths))]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows[1:]]
    out.append("")
    for c in report.chapters + ([report.series] if report.series else []):
        where = f"{c.video}  {_fmt_s(c.duration)}, {len(c.marks)} marks" if c.video else c.note
        out.append(f"{c.slug:<10} {c.status.upper() if c.status == 'failed' else c.status:<11} {where}")
    out.append(f"worksheet  {report.worksheet}")
    if report.web:
        out.append(f"web        {report.web}")
    if report.index:
        out.append(f"index      {report.index}")
    failures = [r for r in report.scenes if r.status == "failed"]
    for r in failures:
        out += ["", f"--- {r.job.entry.name} ({r.job.entry.file}) failed; log: {r.job.log}",
                r.error]
    if report.failed:
        out += ["", "FAILED: " + ", ".join(report.failed)]
    return "\n".join(out)


def build(catalog: Sequence[Chapter] = CHAPTERS, *, root: Path = Path("."), out: Path = Path("renders"),
          quality: str = "l", jobs: int = 2, chapters: Sequence[int] | None = None,
          manim_args: Sequence[str] = (), worksheet_module: str | None = "lesson_data",
          series_title: str = SERIES_TITLE, log: Callable[[str], None] = print) -> BuildReport:
    """Render, stitch and index the catalog's scenes. Never raises for a bad scene: see the report."""
    if quality not in QUALITY_FLAGS:
        raise ValueError(f"quality {quality!r} is not one of {', '.join(QUALITY_FLAGS)}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    root, out = Path(root).resolve(), Path(out).resolve()
    known = [c.number for c in catalog]
    if chapters is not None:
        unknown = [n for n in chapters if n not in known]
        if unknown:
            raise ValueError(f"no chapter {unknown[0]} in the catalog (chapters are {known})")
    selected = [c for c in catalog if chapters is None or c.number in chapters]
    quality_dir = out / "lesson" / quality
    label = QUALITY_LABELS[quality] + (f" with manim {' '.join(manim_args)}" if manim_args else "")

    # ---- render what changed (in the selected chapters; the others only count if up to date)
    jobs_list = [SceneJob(ch, s, root, quality_dir, quality, tuple(manim_args))
                 for ch in catalog for s in ch.scenes]
    results: dict[int, SceneResult] = {}
    pending = []
    for i, job in enumerate(jobs_list):
        r = prepare(job)
        if r.status == "pending" and job.chapter not in selected:
            r.status = NOT_SELECTED
        if r.status == "pending":
            pending.append((i, r))
        else:
            results[i] = r
            if r.status == "failed":
                log(f"  {job.entry.name}: FAILED: {r.error.splitlines()[0]}")
    count = {s: sum(1 for r in results.values() if r.status == s) for s in ("cached", "not yet written")}
    log(f"lesson_build: {len(jobs_list)} scenes: {count['not yet written']} not yet written, "
        f"{count['cached']} up to date, {len(pending)} to render at {label}, {jobs} at a time")
    if pending:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(render, r): i for i, r in pending}
            for fut in as_completed(futures):
                r = fut.result()
                results[futures[fut]] = r
                what = (f"rendered in {r.seconds:.1f}s ({float(r.info.duration):.1f}s of video)"
                        if r.ok else "FAILED: " + (r.error.splitlines() or ["?"])[-1])
                log(f"  {r.job.entry.name}: {what}")
    shutil.rmtree(quality_dir / ".staging", ignore_errors=True)
    scene_results = [results[i] for i in range(len(jobs_list))]

    # ---- chapters from complete sets only
    chapter_results = []
    for ch in catalog:
        parts = [r for r in scene_results if r.job.chapter == ch]
        why = [f"{status}: " + ", ".join(r.job.entry.name for r in parts if r.status == status)
               for status in ("failed", "not yet written", NOT_SELECTED)
               if any(r.status == status for r in parts)]
        if why:
            chapter_results.append(StitchResult(ch.slug, ch.title, "not built", note="; ".join(why)))
            continue
        chapter_results.append(stitch_set(quality_dir, ch.slug, ch.title, parts,
                                          [r.job.entry.title for r in parts], previews=True, log=log))

    # ---- the series from every chapter
    incomplete = [c.slug for c in chapter_results if c.status not in ("built", "up to date")]
    if incomplete:
        series = StitchResult("series", series_title, "not built",
                              note="incomplete chapters: " + ", ".join(incomplete))
    else:
        series = stitch_set(quality_dir, "series", series_title, scene_results,
                            [r.job.entry.title for r in scene_results], previews=False, log=log)

    # ---- worksheet, the page's scripts and models, and the index page
    out.mkdir(parents=True, exist_ok=True)
    worksheet_status, worksheet = export_worksheet(root, out, worksheet_module)
    if not worksheet_status.startswith("written"):
        log(f"  note: worksheet {worksheet_status}")
    try:
        assets = site.build(root, out, log=log)
        web_status = (f"ready: {len(assets.models['models'])} models in {assets.folder / 'models'}" if assets.models
                      else f"ready without the demo: {assets.models_note}")
    except (weights.WeightsError, OSError) as exc:
        assets = page.WebAssets(out / "web", None, f"the checkpoints could not be converted: {exc}")
        web_status = f"failed: {exc}"
        log(f"  web page: FAILED: {exc}")
    index = out / "index.html"
    rows = []
    scene_status = {(r.job.chapter.number, r.job.entry.number): r for r in scene_results}
    for ch, st in zip(catalog, chapter_results):
        built = st.video is not None
        scenes = []
        for k, s in enumerate(ch.scenes):
            r = scene_status[(ch.number, s.number)]
            scenes.append(page.SceneRow(s.number, s.title, s.name, "ok" if r.ok else r.status,
                                        st.marks[k][1] if built else None,
                                        r.job.video if r.ok else None))
        if built:
            v = st.video
            rows.append(page.ChapterRow(ch, scenes, video=v, vtt=v.with_suffix(".vtt"),
                                        srt=v.with_suffix(".srt"), poster=v.with_suffix(".png"),
                                        gif=v.with_suffix(".gif"), duration=st.duration))
        else:
            rows.append(page.ChapterRow(ch, scenes, note=st.note))
    html_text = page.render_index(
        index, series_title=series_title, quality_label=label, chapters=rows,
        series_video=series.video, series_vtt=series.video.with_suffix(".vtt") if series.video else None,
        series_poster=next((r.poster for r in rows if r.poster), None),
        series_note=series.note, worksheet=worksheet, generated=time.strftime("%Y-%m-%d %H:%M"),
        web=assets, series_srt=series.video.with_suffix(".srt") if series.video else None,
        series_duration=series.duration)
    media.write_text_atomic(index, html_text)
    return BuildReport(quality, scene_results, chapter_results, series, worksheet_status, index, web_status)
