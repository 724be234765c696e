"""renders/index.html: the series on one static page.

Every chapter of the catalog is listed in order with its scenes. A built chapter gets a <video>
with its WebVTT subtitles as a <track>, its thumbnail as poster, and its scenes as links that
jump to their chapter marks; an unbuilt one says why. The small script only fills in durations
and seeks: the page works as plain HTML without it.
"""
from __future__ import annotations

import base64
import html
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from lesson_build.catalog import Chapter


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


def _clock(t: Fraction | float) -> str:
    s = int(float(t))
    return f"{s // 60}:{s % 60:02d}"


def _rel(path: Path, page: Path) -> str:
    return html.escape(Path(os.path.relpath(path, page.parent)).as_posix(), quote=True)


_STYLE = """
body { font-family: "DejaVu Sans", sans-serif; background: #111; color: #eee; margin: 2rem auto;
       max-width: 60rem; padding: 0 1rem; line-height: 1.4; }
a { color: #8cf; }
section { border-top: 1px solid #333; padding: 1rem 0; }
video { width: 100%; max-width: 854px; background: #000; display: block; }
.status { color: #fb6; }
.meta { color: #999; font-size: 0.9em; }
ul.scenes { list-style: none; padding-left: 0; }
ul.scenes li { margin: 0.15rem 0; }
.missing { color: #888; }
"""

_SCRIPT = """
document.querySelectorAll('video').forEach(function (video) {
  video.addEventListener('loadedmetadata', function () {
    var out = document.querySelector('[data-duration-of="' + video.id + '"]');
    var s = Math.floor(video.duration);
    if (out) out.textContent = Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
  });
});
document.querySelectorAll('a[data-seek]').forEach(function (a) {
  a.addEventListener('click', function (event) {
    var video = document.getElementById(a.dataset.video);
    if (!video) return;
    event.preventDefault();
    video.currentTime = parseFloat(a.dataset.seek);
    video.play();
  });
});
"""


def _video_block(vid: str, video: Path, vtt: Path | None, poster: Path | None, page: Path,
                 label: str) -> list[str]:
    poster_attr = f' poster="{_rel(poster, page)}"' if poster else ""
    out = [f'<video id="{vid}" controls preload="metadata"{poster_attr} aria-label="{html.escape(label)}">',
           f'  <source src="{_rel(video, page)}" type="video/mp4">']
    if vtt:
        # Inlined as a data: URL: Chromium refuses a track file next to a page opened from file://
        # (every file is its own origin there), and this page should work by double-click too.
        data = base64.b64encode(vtt.read_bytes()).decode("ascii")
        out.append(f'  <track kind="subtitles" srclang="en" label="English" default'
                   f' data-file="{_rel(vtt, page)}" src="data:text/vtt;base64,{data}">')
    out.append("</video>")
    return out


def render_index(page: Path, *, series_title: str, quality_label: str, chapters: Sequence[ChapterRow],
                 series_video: Path | None, series_vtt: Path | None, series_poster: Path | None,
                 series_note: str,
                 worksheet: Path | None, generated: str) -> str:
    """The page's HTML (paths in the rows are made relative to `page`)."""
    h = html.escape
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{h(series_title)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
             f"<h1>{h(series_title)}</h1>",
             f'<p class="meta">Rendered at {h(quality_label)} · built {h(generated)} · '
             "subtitles are the scenes' own captions.</p>"]
    if worksheet:
        lines.append(f'<p><a id="worksheet" href="{_rel(worksheet, page)}">Worksheet numbers (JSON)</a>'
                     " — the two-head worksheet at full precision.</p>")
    lines.append('<section id="series"><h2>The whole series</h2>')
    if series_video:
        lines += _video_block("video-series", series_video, series_vtt, series_poster, page,
                              series_title)
        lines.append('<p class="meta">Length <span data-duration-of="video-series"></span></p>')
    else:
        lines.append(f'<p class="status">Not built: {h(series_note)}</p>')
    lines.append("</section>")

    for row in chapters:
        ch = row.chapter
        vid = f"video-{ch.slug}"
        lines.append(f'<section class="chapter" id="{h(ch.slug)}" data-chapter="{ch.number}">')
        lines.append(f"<h2>Chapter {ch.number} — {h(ch.title)}</h2>")
        if row.video:
            lines += _video_block(vid, row.video, row.vtt, row.poster, page, f"Chapter {ch.number}")
            extras = [f'Length <span data-duration-of="{vid}"></span>']
            if row.vtt and row.srt:
                extras.append(f'subtitles <a href="{_rel(row.srt, page)}">.srt</a> '
                              f'<a href="{_rel(row.vtt, page)}">.vtt</a>')
            if row.gif:
                extras.append(f'<a href="{_rel(row.gif, page)}">preview GIF</a>')
            lines.append(f'<p class="meta">{" · ".join(extras)}</p>')
        else:
            lines.append(f'<p class="status">Not built: {h(row.note)}</p>')
        lines.append('<ul class="scenes">')
        for s in row.scenes:
            label = f"Scene {s.number} · {h(s.title)}"
            if row.video and s.start is not None:
                lines.append(f'<li><a href="#{h(ch.slug)}" data-video="{vid}" data-seek="{float(s.start):.3f}">'
                             f'{label}</a> <span class="meta">{_clock(s.start)}</span></li>')
            elif s.video is not None:
                # The chapter is incomplete, but this scene can already be watched on its own.
                lines.append(f'<li><a href="{_rel(s.video, page)}">{label}</a> '
                             '<span class="meta">(scene video)</span></li>')
            else:
                cls = ' class="missing"' if s.status != "ok" else ""
                note = f' <span class="meta">({h(s.status)})</span>' if s.status != "ok" else ""
                lines.append(f"<li{cls}>{label}{note}</li>")
        lines.append("</ul>")
        lines.append("</section>")
    lines += [f"<script>{_SCRIPT}</script>", "</body>", "</html>", ""]
    return "\n".join(lines)
