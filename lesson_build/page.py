"""renders/index.html: the web lesson on one static page.

    contents        every chapter and scene (links seek the chapter's video), the explorer, the
                    demo, the worksheet numbers, the credits
    chapters        a <video> per built chapter (its subtitle track made from the transcript by
                    player.js; its thumbnail as poster, the first chapter's eager, the rest lazy)
                    with its transcript beside it: one button per spoken line, which seeks; the line
                    being spoken and the scene being shown are highlighted (web/player.js)
    explorer        the two-head worksheet recomputed for any sentence (web/explorer.mjs)
    demo            the trained models continuing a prompt in the page (web/demo.mjs)

The HTML is web/index.html.j2, a Jinja2 template (autoescaped); this module turns the build's rows
into the plain values it shows. Every URL is relative, so the folder works from any static host and
from `make serve`. Opened from disk (file://) the videos, subtitles and transcripts still work; the
explorer and the demo are ES modules, which browsers load over http only, and say so.
"""
from __future__ import annotations

import json
import math
import os
import re
import urllib.parse
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import jinja2
import srt

from lesson_build.catalog import Chapter

RIVER = "The fisherman sat beside the river bank and watched the"   # the explorer's first sentence

# The explorer's parts and the scene of chapter 2 that explains each (its panels, and the steps
# of its walk, link to that moment of the video): "message" is the weighted sum m = Σ α v (scene 9,
# where head 1's is built source by source), "joined" is [m¹ | m²] W_O = Δe (scene 13),
# "residual" e′ = e + Δe (scene 14, whose first beat is E′ = E + ΔE), "prediction" the MLP after it.
# The worksheet scenes that get a "try it" link to the explorer on the sentence they show (None:
# the sentence the scenes were rendered with, $LESSON_SENTENCE, which every one of them but
# scene 15 works on; the link says so).
EXPLAINED_BY = {"tokens": "Setup", "head1": "Head1Weights", "head2": "Head2WeightsAndMessage",
                "arrows": "Head1Weights", "message": "Head1Message", "masked": "MaskedMatrix", "joined": "ConcatAndOutputProjection",
                "residual": "ResidualAndPrediction", "prediction": "ResidualAndPrediction"}
TRY_IT = {"Setup": None, "ShapeFlow": None, "Projections": None, "Head1Weights": None, "Head1Message": None,
          "Head2WeightsAndMessage": None, "MaskedMatrix": None, "WideHeadVersusTwo": None,
          "ConcatAndOutputProjection": None, "ResidualAndPrediction": None, "ChequeSentence": "cheque"}


def _scenes_sentence() -> str:
    """The sentence the worksheet scenes show ($LESSON_SENTENCE, as they read it), else "river"."""
    try:
        from lesson_data.worksheet import sentence_from_env
        return sentence_from_env()
    except (ImportError, ValueError):
        return "river"


@dataclass
class SceneRow:
    number: int
    title: str
    name: str
    status: str
    start: Fraction | None = None     # offset in the chapter video, when built
    video: Path | None = None         # the scene's own video, when rendered


@dataclass
class ChapterRow:
    chapter: Chapter
    scenes: list[SceneRow]
    video: Path | None = None         # absolute paths; made relative to the page
    vtt: Path | None = None
    srt: Path | None = None
    poster: Path | None = None
    gif: Path | None = None
    note: str = ""                    # why it is not built
    duration: Fraction | None = None
    quality: str = ""                 # the resolution it was built at, e.g. "720p30"
    draft: bool = False               # only a draft quality (480p15) exists for this chapter


@dataclass
class WebAssets:
    """What lesson_build.web.site put beside the page."""
    folder: Path                      # <out>/web: scripts and styles
    models: dict | None = None        # web/models/manifest.json, when the checkpoints were converted
    models_note: str = ""             # why there are none
    files: list[Path] = field(default_factory=list)


def _clock(t: Fraction | float) -> str:
    s = int(float(t))
    return f"{s // 60}:{s % 60:02d}"


def scene_second(start: Fraction | float) -> int:
    """The second a scene is said to start at, everywhere on the page (its chip's clock in the
    chapter's scene list, the explorer's "explained in the video" links): the first whole second
    of the chapter at which the scene is on screen. Rounded up, since a scene starts between two
    seconds (503.999 s): rounded down, the link would land in the scene before."""
    return math.ceil(Fraction(start))


def scene_seek(start: Fraction | float) -> str:
    """A scene link's exact seek (data-seek): its start to the millisecond, rounded up (never
    into the scene before)."""
    return f"{math.ceil(Fraction(start) * 1000) / 1000:.3f}"


def _rel(path: Path, page: Path) -> str:
    """`path` relative to the page's folder, as a URL path (the template escapes it)."""
    return Path(os.path.relpath(path, page.parent)).as_posix()


def _size(path: Path) -> str:
    try:
        return f"{path.stat().st_size / 1e6:.1f} MB"
    except OSError:
        return "?"


def read_cues(path: Path | None) -> list[tuple[float, float, str]]:
    """(start s, end s, text) of every cue of an .srt file (the chapter's spoken lines)."""
    if path is None or not Path(path).is_file():
        return []
    cues = srt.parse(Path(path).read_text(encoding="utf-8-sig"))
    return [(c.start.total_seconds(), c.end.total_seconds(), " ".join(c.content.split())) for c in cues]


def _scene_view(row: ChapterRow, s: SceneRow, page: Path) -> dict:
    view = {"number": s.number, "title": s.title, "status": s.status, "seek": None, "clock": None, "try": None,
            "video": _rel(s.video, page) if s.video is not None else None}
    if row.video and s.start is not None:
        view.update(seek=scene_seek(s.start), clock=_clock(scene_second(s.start)))
    if s.name in TRY_IT:
        view.update(try_link(TRY_IT[s.name]))
    return view


def try_link(own: str | None) -> dict:
    """A worksheet scene's "try it": the explorer on the scene's own sentence (`own`, a preset's
    name), or, for the scenes that work on the worksheet's sentence, on that one, labelled as such
    (the same link under every such scene, so it says whose sentence it is)."""
    from lesson_data.worksheet import SENTENCES
    sentence = own or _scenes_sentence()
    # The link's ?sentence= is read literally by the page (a preset's name there would be
    # that one word), so it carries the preset's words; data-try keeps the name.
    words = SENTENCES.get(sentence.strip().lower(), sentence)
    if own:
        label, title = f"try the {own} sentence", f"Open the explorer on this scene's own sentence: “{words}”"
    else:
        label = "try the worksheet sentence"
        title = f"Open the explorer on the worksheet's sentence, which this scene works on: “{words}”"
    return {"try": sentence, "try_query": urllib.parse.urlencode({"sentence": words}), "try_label": label,
            "try_title": title}


def _transcript(row: ChapterRow) -> list[dict]:
    """The transcript's items: a scene mark where a new scene starts, then one line per cue."""
    starts = [(float(s.start), s) for s in row.scenes if s.start is not None]
    out, shown = [], None
    for start, end, text in read_cues(row.srt):
        scene = None
        for t, s in starts:
            if t <= start + 1e-6:
                scene = s
        if scene is not None and scene is not shown:
            out.append({"mark": f"Scene {scene.number} · {scene.title}"})
            shown = scene
        out.append({"mark": None, "start": f"{start:.3f}", "end": f"{end:.3f}", "clock": _clock(start), "text": text})
    return out


def _chapter_view(row: ChapterRow, page: Path, next_id: str | None) -> dict:
    ch = row.chapter
    view = {"number": ch.number, "slug": ch.slug, "title": ch.title, "vid": f"video-{ch.slug}", "note": row.note,
            "video": None, "scenes": [_scene_view(row, s, page) for s in row.scenes]}
    if not row.video:
        return view
    both = bool(row.vtt and row.srt)
    view.update(
        video=_rel(row.video, page), size=_size(row.video), next=next_id,
        poster=_rel(row.poster, page) if row.poster and row.poster.is_file() else None,
        length=_clock(row.duration) if row.duration is not None else "",
        quality=row.quality, draft=row.draft,
        srt=_rel(row.srt, page) if both else None, vtt=_rel(row.vtt, page) if both else None,
        gif=_rel(row.gif, page) if row.gif and row.gif.is_file() else None,
        transcript=_transcript(row))
    return view


def _explained(chapters: Sequence[ChapterRow]) -> str:
    """{part: {href, label}}: the moment of a built chapter where the scene explaining each
    explorer part starts, as JSON for explorer.mjs (safe inside a <script> element)."""
    starts = {s.name: (row, s) for row in chapters if row.video for s in row.scenes if s.start is not None}
    out = {}
    for part, scene in EXPLAINED_BY.items():
        if scene in starts:
            row, s = starts[scene]
            t = scene_second(s.start)          # the same second as the scene's chip in its chapter
            out[part] = {"href": f"#{row.chapter.slug}&t={t}", "label": f"Scene {s.number} · {s.title}", "at": _clock(t)}
    return json.dumps(out, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _rendered_at(chapters: Sequence[ChapterRow], quality_label: str) -> str:
    """"720p30" (the header's "rendered at …") from the chapters' own qualities (the renderer's
    flag, "(-qm)", is build jargon and stays out), or from the label when no chapter says."""
    qualities = list(dict.fromkeys(r.quality for r in chapters if r.video and r.quality))
    if not qualities:
        qualities = [re.sub(r"\s*\(-q\w\)", "", quality_label).strip()] if quality_label else []
    return " and ".join(q for q in qualities if q)


_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "web"), autoescape=True,
    undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render_index(page: Path, *, series_title: str, quality_label: str, chapters: Sequence[ChapterRow],
                 series_video: Path | None, series_vtt: Path | None, series_poster: Path | None,
                 series_note: str, worksheet: Path | None, generated: str,
                 web: WebAssets | None = None, series_srt: Path | None = None,
                 series_duration: Fraction | None = None) -> str:
    """The page's HTML, from web/index.html.j2 (paths are made relative to `page`)."""
    web = web or WebAssets(folder=page.parent / "web", models_note="web assets not built")
    ids = [f"video-{r.chapter.slug}" if r.video else None for r in chapters]
    views = [_chapter_view(row, page, next((v for v in ids[i + 1:] if v), None)) for i, row in enumerate(chapters)]
    # Only the first poster comes with the page (in view on arrival); player.js fetches the others
    # as their players come near the screen.
    eager = next((v for v in views if v.get("poster")), None)
    for v in views:
        v["lazy_poster"] = v.get("poster") is not None and v is not eager
    models, presets, tokens, first = [], [], 0, "Once upon a time"
    if web.models:
        models = [{"name": name, "title": m["title"], "parameters": f"{m['parameters'] / 1e6:.2f}",
                   "megabytes": f"{m['bytes'] / 1e6:.1f}"} for name, m in web.models["models"].items()]
        presets = web.models["presets"]["prompts"]
        tokens = web.models["presets"]["tokens"]
        first = presets[0]["prompt"] if presets else first
    series = {"video": None, "note": series_note}
    if series_video:
        both = bool(series_srt and series_vtt)
        series.update(video=_rel(series_video, page), size=_size(series_video),
                      length=_clock(series_duration) if series_duration is not None else None,
                      srt=_rel(series_srt, page) if both else None, vtt=_rel(series_vtt, page) if both else None)
    asset = lambda name: _rel(web.folder / name, page)   # noqa: E731
    return _TEMPLATES.get_template("index.html.j2").render(
        title=series_title, generated=generated, rendered_at=_rendered_at(chapters, quality_label),
        assets={"css": asset("lesson.css"), "player": asset("player.js"), "explorer": asset("explorer.mjs"),
                "demo": asset("demo.mjs")},
        chapters=views, series=series, river=RIVER, explained=_explained(chapters),
        models=models, models_note=web.models_note or "no converted checkpoints", presets=presets, tokens=tokens,
        first_prompt=first, worksheet=_rel(worksheet, page) if worksheet else None)
