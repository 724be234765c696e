"""renders/index.html: the web lesson on one static page.

    contents        every chapter and scene (links seek the chapter's video), the explorer, the
                    demo, the worksheet numbers, the credits
    chapters        a <video> per built chapter (WebVTT subtitles as a <track>, thumbnail as poster)
                    with its transcript beside it: one button per spoken line, which seeks; the line
                    being spoken and the scene being shown are highlighted (web/player.js)
    explorer        the two-head worksheet recomputed for any sentence (web/explorer.mjs)
    demo            the trained models continuing a prompt in the page (web/demo.mjs)

Every URL is relative, so the folder works from any static host and from `make serve`. Opened from
disk (file://) the videos, subtitles and transcripts still work; the explorer and the demo are ES
modules, which browsers load over http only, and say so.
"""
from __future__ import annotations

import base64
import html
import json
import os
import urllib.parse
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import srt

from lesson_build.catalog import Chapter

RIVER = "The fisherman sat beside the river bank and watched the"   # the explorer's first sentence

# The explorer's parts and the scene of chapter 2 that explains each (its panels link to that
# moment of the video), and the worksheet scenes that get a "try it" link to the explorer on the
# sentence they show (None: the sentence the scenes were rendered with, $LESSON_SENTENCE).
EXPLAINED_BY = {"tokens": "Setup", "head1": "Head1Weights", "head2": "Head2WeightsAndMessage",
                "arrows": "Head1Weights", "masked": "MaskedMatrix", "joined": "ConcatAndOutputProjection",
                "prediction": "ResidualAndPrediction"}
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


def _rel(path: Path, page: Path) -> str:
    return html.escape(Path(os.path.relpath(path, page.parent)).as_posix(), quote=True)


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


def _video_block(vid: str, video: Path, vtt: Path | None, poster: Path | None, page: Path,
                 label: str, next_id: str | None = None) -> list[str]:
    poster_attr = f' poster="{_rel(poster, page)}"' if poster and poster.is_file() else ""
    next_attr = f' data-next="{html.escape(next_id)}"' if next_id else ""
    out = [f'<video id="{vid}" controls preload="metadata"{poster_attr}{next_attr} aria-label="{html.escape(label)}">',
           f'  <source src="{_rel(video, page)}" type="video/mp4">']
    if vtt and vtt.is_file():
        # Inlined as a data: URL: Chromium refuses a track file next to a page opened from file://
        # (every file is its own origin there), and this page should work by double-click too.
        # Not `default`: the scenes burn their captions in, so the player shows the track only when
        # asked (player.js loads it hidden; the transcript beside the player has the same lines).
        data = base64.b64encode(vtt.read_bytes()).decode("ascii")
        out.append(f'  <track kind="subtitles" srclang="en" label="English"'
                   f' data-file="{_rel(vtt, page)}" src="data:text/vtt;base64,{data}">')
    out.append("</video>")
    return out


def _transcript(row: ChapterRow, vid: str) -> list[str]:
    h = html.escape
    cues = read_cues(row.srt)
    ch = row.chapter
    out = [f'<aside class="transcript" aria-label="Transcript of chapter {ch.number}">', "<h3>Transcript</h3>", "<ol>"]
    if not cues:
        out.append('<li class="empty">No spoken lines in this chapter yet.</li>')
    starts = [(float(s.start), s) for s in row.scenes if s.start is not None]
    shown = None
    for start, end, text in cues:
        scene = None
        for t, s in starts:
            if t <= start + 1e-6:
                scene = s
        if scene is not None and scene is not shown:
            out.append(f'<li class="scene-mark">Scene {scene.number} · {h(scene.title)}</li>')
            shown = scene
        out.append(f'<li><button type="button" class="cue" data-video="{vid}" data-start="{start:.3f}" '
                   f'data-end="{end:.3f}"><span class="t">{_clock(start)}</span><span class="text">{h(text)}</span>'
                   "</button></li>")
    out += ["</ol>", "</aside>"]
    return out


def _contents(chapters: Sequence[ChapterRow], demo: bool) -> list[str]:
    h = html.escape
    out = ['<nav class="toc" aria-label="Contents">', "<ol>"]
    for row in chapters:
        ch = row.chapter
        vid = f"video-{ch.slug}"
        out.append(f'<li><a href="#{h(ch.slug)}">Chapter {ch.number} · {h(ch.title)}</a>')
        out.append('<ol class="toc-scenes">')
        for s in row.scenes:
            if row.video and s.start is not None:
                out.append(f'<li><a href="#{h(ch.slug)}" data-video="{vid}" data-seek="{float(s.start):.3f}">'
                           f'Scene {s.number} · {h(s.title)}</a></li>')
            else:
                out.append(f"<li>Scene {s.number} · {h(s.title)}</li>")
        out.append("</ol></li>")
    out.append('<li><a href="#explorer">Try a sentence: the worksheet explorer</a></li>')
    out.append(f'<li><a href="#demo">Run the trained models{"" if demo else " (not built)"}</a></li>')
    out.append('<li><a href="#worksheet">Worksheet numbers (JSON)</a> · <a href="#credits">Credits</a></li>')
    out += ["</ol>", "</nav>"]
    return out


def _chapter(row: ChapterRow, page: Path, next_id: str | None) -> list[str]:
    h = html.escape
    ch = row.chapter
    vid = f"video-{ch.slug}"
    out = [f'<section class="chapter" id="{h(ch.slug)}" data-chapter="{ch.number}">',
           f"<h2>Chapter {ch.number} — {h(ch.title)}</h2>"]
    if not row.video:
        out.append(f'<p class="status">Not built: {h(row.note)}</p>')
    else:
        out.append('<div class="watch">')
        out.append('<div class="player">')
        out += _video_block(vid, row.video, row.vtt, row.poster, page, f"Chapter {ch.number}", next_id)
        length = _clock(row.duration) if row.duration is not None else ""
        extras = [f'Length <span data-duration-of="{vid}">{length}</span>']
        if row.quality:
            extras.insert(0, f'<span class="draft">{h(row.quality)}, a draft render</span>' if row.draft
                          else f'<span data-quality="{h(row.quality)}">{h(row.quality)}</span>')
        if row.vtt and row.srt:
            extras.append(f'subtitles <a href="{_rel(row.srt, page)}">.srt</a> <a href="{_rel(row.vtt, page)}">.vtt</a>')
        extras.append(f'<a href="{_rel(row.video, page)}">MP4</a> ({_size(row.video)})')
        extras.append(f'<a data-moment href="#{h(ch.slug)}&amp;t=0" title="A link to this chapter at the second it shows">'
                      "Link to 0:00</a>")
        if row.gif and row.gif.is_file():
            extras.append(f'<a href="{_rel(row.gif, page)}">preview GIF</a>')
        out.append(f'<p class="meta">{" · ".join(extras)}</p>')
    out.append('<ol class="scenes" aria-label="Scenes">')
    for s in row.scenes:
        label = f"Scene {s.number} · {h(s.title)}"
        try_it = ""
        if s.name in TRY_IT:
            sentence = TRY_IT[s.name] or _scenes_sentence()
            query = h(urllib.parse.urlencode({"sentence": sentence}))
            try_it = (f' <a class="try" data-try="{h(sentence)}" href="?{query}#explorer" '
                      f'title="Open the explorer on this scene\'s sentence">try it</a>')
        if row.video and s.start is not None:
            out.append(f'<li><a href="#{h(ch.slug)}" data-video="{vid}" data-seek="{float(s.start):.3f}">'
                       f'{label} <span class="meta">{_clock(s.start)}</span></a>{try_it}</li>')
        elif s.video is not None:
            # The chapter is incomplete, but this scene can already be watched on its own.
            out.append(f'<li><a href="{_rel(s.video, page)}">{label} <span class="meta">(scene video)</span></a></li>')
        else:
            cls = ' class="missing"' if s.status != "ok" else ""
            note = f' <span class="meta">({h(s.status)})</span>' if s.status != "ok" else ""
            out.append(f"<li{cls}>{label}{note}</li>")
    out.append("</ol>")
    if row.video:
        out.append("</div>")
        out += _transcript(row, vid)
        out.append("</div>")
    out.append("</section>")
    return out


_NEEDS_HTTP = ('<p class="status" data-needs-http hidden>This part runs as JavaScript modules, which browsers '
               "do not load from a page opened from disk: serve the folder (<code>make serve</code>, or any "
               "static web server) and open it from there.</p>")


def _explained(chapters: Sequence[ChapterRow]) -> str:
    """{part: {href, label}}: the moment of a built chapter where the scene explaining each
    explorer part starts, as JSON for explorer.mjs (safe inside a <script> element)."""
    starts = {s.name: (row, s) for row in chapters if row.video for s in row.scenes if s.start is not None}
    out = {}
    for part, scene in EXPLAINED_BY.items():
        if scene in starts:
            row, s = starts[scene]
            t = int(float(s.start))
            out[part] = {"href": f"#{row.chapter.slug}&t={t}", "label": f"Scene {s.number} · {s.title}", "at": _clock(t)}
    return json.dumps(out, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _explorer(chapters: Sequence[ChapterRow] = ()) -> list[str]:
    h = html.escape
    return [
        '<section id="explorer" tabindex="-1">',
        "<h2>Try a sentence: the worksheet explorer</h2>",
        "<p>Chapter 2's two-head worksheet, recomputed in this page from the same hand-chosen parameters for "
        "any sentence of 1–20 words from its 20-word vocabulary: the tokens and E, each head's query, keys "
        "and values at the receiver (the last word), both attention rows, the messages, ΔE and E′, and the "
        "next-word probabilities. Numbers are computed at full precision and rounded once, for display, to "
        "three decimals, as in the videos.</p>",
        _NEEDS_HTTP,
        '<form id="explorer-form" class="form-row" autocomplete="off">',
        '<label for="explorer-input">Sentence</label>',
        f'<input id="explorer-input" name="sentence" value="{h(RIVER)}" spellcheck="false">',
        '<button type="submit" class="primary">Compute</button>',
        '<button type="button" data-preset="river">River sentence</button>',
        '<button type="button" data-preset="cheque">Cheque sentence</button>',
        '<button type="button" id="explorer-download">Download as JSON</button>',
        '<a id="explorer-link" href="#explorer">Link to this sentence</a>',
        "</form>",
        '<div class="vocab" id="explorer-vocab" aria-label="The vocabulary: click a word to append it"></div>',
        '<details class="reading-guide"><summary>How to read the tables</summary><ul>'
        "<li>Each word is a row of four numbers on the axes <em>water</em>, <em>finance</em>, <em>person</em> and "
        "<em>glue</em>: invented for teaching, as in the video; glue is a toy feature for function words such as "
        "“the”. E adds a row for the word's position.</li>"
        "<li>The <em>receiver</em> is the word whose next word is predicted (the last, unless you pick another). "
        "Each head turns every word into a key <em>k</em> and a value <em>v</em> of two numbers: "
        "<code>k.a</code>, <code>k.b</code> are a key's first and second coordinates, <code>v.a</code>, "
        "<code>v.b</code> a value's.</li>"
        "<li>A weight says how much of each earlier word's value the receiver takes; a row of weights sums to 1. "
        "Later words are masked: a word never reads the future.</li>"
        '<li>Words in <span class="candidate-sample">green</span> in the vocabulary are the candidates the '
        "prediction favours; every word can be predicted.</li></ul></details>",
        '<p id="explorer-message" class="message" role="alert" hidden></p>',
        '<div id="explorer-output" aria-live="polite"></div>',
        f'<script type="application/json" id="explorer-scenes">{_explained(chapters)}</script>',
        "</section>",
    ]


def _demo(web: WebAssets) -> list[str]:
    h = html.escape
    out = ['<section id="demo" tabindex="-1">', "<h2>Run the trained models</h2>"]
    if not web.models:
        out += [f'<p class="status">Not built: {h(web.models_note or "no converted checkpoints")}</p>', "</section>"]
        return out
    models = web.models["models"]
    presets = web.models["presets"]
    first = presets["prompts"][0]["prompt"] if presets["prompts"] else "Once upon a time"
    out += [
        "<p>Chapter 3's three models (the seed-11 checkpoints) continue a prompt, running here in your "
        "browser: a plain JavaScript forward pass over the weights, nothing sent anywhere. Greedy decoding "
        "(temperature 0) gives the same words as <code>python -m trainer generate</code>; a temperature "
        "above 0 samples, reproducibly for a seed. Words the model never saw in training read "
        "<code>&lt;UNK&gt;</code>. The time of every model call is measured in the page.</p>",
        "<p>After a run you see, for each step, where each head's query at the last token looked (arrows whose "
        "width is the weight, and the same weights as shades) and the ten tokens the model found most probable "
        "next; drag the step slider to go back, change the temperature to reshape the bars. <em>Compare</em> runs "
        "the three models on one prompt side by side, as chapter 3 does.</p>",
        _NEEDS_HTTP,
        '<form id="demo-form">',
        '<div class="form-row"><label class="inline" for="demo-model">Model</label>'
        '<select id="demo-model" name="model">',
    ]
    for name, m in models.items():
        selected = " selected" if name == "four_heads" else ""
        out.append(f'<option value="{h(name)}"{selected}>{h(m["title"])} · {m["parameters"] / 1e6:.2f} M parameters, '
                   f'{m["bytes"] / 1e6:.1f} MB</option>')
    out.append('</select><span class="meta">Prompts:</span><span id="demo-presets" class="form-row">')
    for p in presets["prompts"]:
        out.append(f'<button type="button" data-preset="{h(p["id"])}" data-prompt="{h(p["prompt"])}" '
                   f'data-tokens="{presets["tokens"]}" title="{h(p["prompt"])}">{h(p["title"])}</button>')
    out += [
        "</span></div>",
        '<label for="demo-prompt" class="meta">Prompt</label>',
        f'<textarea id="demo-prompt" name="prompt" spellcheck="false">{h(first)}</textarea>',
        '<div class="form-row">',
        f'<label class="inline">Tokens <input id="demo-tokens" type="number" min="1" max="500" value="{presets["tokens"]}"></label>',
        '<label class="inline" title="0 always takes the most probable token; 1 samples from the model\'s own probabilities; '
        'above 1 flattens them (more surprising words), below 1 sharpens them">Temperature '
        '<input id="demo-temperature" type="number" min="0" step="0.1" value="0" aria-describedby="demo-temperature-help"></label>',
        '<label class="inline">Seed <input id="demo-seed" type="number" step="1" value="0"></label>',
        '<span id="demo-temperature-help" class="meta">(0: the most probable token each time; 1: sample the '
        "model's own probabilities; higher: flatter, more surprising)</span>",
        '<button type="submit" id="demo-run" class="primary">Generate</button>',
        '<button type="button" id="demo-compare" title="The same prompt, temperature and seed through each model">'
        "Compare the three models</button>",
        "</div>",
        "</form>",
        '<p class="meta">The model reads (<code>&lt;BOS&gt;</code> marks the start of a text): '
        '<span id="demo-seen" class="tokens"></span></p>',
        '<div id="demo-output" class="continuation" aria-live="polite"></div>',
        '<p id="demo-unk-note" class="meta unk-note" hidden></p>',
        '<p id="demo-latency" class="latency meta"></p>',
        '<div id="demo-results" class="results" aria-live="polite"></div>',
        '<p id="demo-status" class="meta" role="status">The weights load when you first generate.</p>',
        "</section>",
    ]
    return out


_CREDITS = """<section id="credits">
<h2>Credits</h2>
<ul>
<li>Multi-head attention as in Vaswani et al. 2017, <a href="https://arxiv.org/abs/1706.03762">Attention Is All You Need</a>, §3.2.2.</li>
<li>What heads specialize in, and how many can be pruned: Voita, Talbot, Moiseev, Sennrich and Titov 2019,
<a href="https://arxiv.org/abs/1905.09418">Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy Lifting, the Rest Can Be Pruned</a>.</li>
<li>Visual inspiration: <a href="https://www.3blue1brown.com/">3Blue1Brown</a> (Grant Sanderson) and
<a href="https://jalammar.github.io/illustrated-transformer/">Jay Alammar</a>; the example, its numbers and the
row-vector convention are this lesson's own.</li>
<li>Training data: TinyStories, Ronen Eldan and Yuanzhi Li 2023, <a href="https://arxiv.org/abs/2305.07759">arXiv:2305.07759</a>,
under the <a href="https://cdla.dev/sharing-1-0/">Community Data License Agreement – Sharing 1.0</a> (CDLA-Sharing-1.0).</li>
<li>Narration: <a href="https://github.com/rhasspy/piper">Piper</a> text to speech, voice <code>en_US-joe-medium</code>.</li>
<li>Animated with <a href="https://www.manim.community/">Manim Community Edition</a> 0.22.</li>
</ul>
</section>"""


def _rendered_at(chapters: Sequence[ChapterRow], quality_label: str) -> str:
    """"rendered at 720p30 · " from the chapters' own qualities (the renderer's flag, "(-qm)", is
    build jargon and stays out), or from the label when no chapter says."""
    qualities = list(dict.fromkeys(r.quality for r in chapters if r.video and r.quality))
    if not qualities:
        qualities = [re.sub(r"\s*\(-q\w\)", "", quality_label).strip()] if quality_label else []
    return f"rendered at {html.escape(' and '.join(q for q in qualities if q))} · " if any(qualities) else ""


def render_index(page: Path, *, series_title: str, quality_label: str, chapters: Sequence[ChapterRow],
                 series_video: Path | None, series_vtt: Path | None, series_poster: Path | None,
                 series_note: str, worksheet: Path | None, generated: str,
                 web: WebAssets | None = None, series_srt: Path | None = None,
                 series_duration: Fraction | None = None) -> str:
    """The page's HTML (paths are made relative to `page`)."""
    h = html.escape
    web = web or WebAssets(folder=page.parent / "web", models_note="web assets not built")
    css, player = _rel(web.folder / "lesson.css", page), _rel(web.folder / "player.js", page)
    explorer, demo = _rel(web.folder / "explorer.mjs", page), _rel(web.folder / "demo.mjs", page)
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{h(series_title)}</title>", '<link rel="icon" href="data:,">',
             f'<link rel="stylesheet" href="{css}">',
             f'<script src="{player}" defer></script>',
             f'<script type="module" src="{explorer}"></script>']
    if web.models:
        lines.append(f'<script type="module" src="{demo}"></script>')
    lines += ["</head>", "<body>",
              '<a class="skip" href="#explorer">Skip to the worksheet explorer</a>',
              '<a class="skip" href="#demo">Skip to the trained models</a>',
              "<header>",
              # A link's state (#chapter2&t=261, ?sentence=…) that could not be used: web/player.js.
              '<p id="link-message" class="message" role="alert" hidden></p>',
              f"<h1>{h(series_title)}</h1>",
              f'<p class="meta">An animated lesson in four chapters, narrated, with subtitles and a transcript; '
              f"{_rendered_at(chapters, quality_label)}built {h(generated)}.</p>"]
    lines += _contents(chapters, bool(web.models))
    lines += ["</header>", "<main>"]
    ids = [f"video-{r.chapter.slug}" if r.video else None for r in chapters]
    for i, row in enumerate(chapters):
        nxt = next((v for v in ids[i + 1:] if v), None)
        lines += _chapter(row, page, nxt)

    lines.append('<section id="series"><h2>The whole series in one file</h2>')
    if series_video:
        parts = [f'<a href="{_rel(series_video, page)}">MP4</a> ({_size(series_video)}'
                 + (f", {_clock(series_duration)}" if series_duration is not None else "") + ")"]
        if series_srt and series_vtt:
            parts.append(f'subtitles <a href="{_rel(series_srt, page)}">.srt</a> <a href="{_rel(series_vtt, page)}">.vtt</a>')
        lines.append(f'<p>{" · ".join(parts)}; one chapter mark per scene.</p>')
    else:
        lines.append(f'<p class="status">Not built: {h(series_note)}</p>')
    lines.append("</section>")

    lines += _explorer(chapters)
    lines += _demo(web)
    lines.append('<section id="worksheet"><h2>Worksheet numbers</h2>')
    if worksheet:
        lines.append(f'<p><a id="worksheet-link" href="{_rel(worksheet, page)}">worksheet.json</a> holds every number '
                     "of the two-head worksheet for the river and cheque sentences at full precision (the output of "
                     "<code>python -m lesson_data export</code>; −∞ is <code>null</code>). The explorer's "
                     "<em>Download as JSON</em> gives the same object for the sentence it shows.</p>")
    else:
        lines.append('<p class="status">Not built: the worksheet export did not run.</p>')
    lines.append("</section>")
    lines.append(_CREDITS)
    lines += ["</main>", "</body>", "</html>", ""]
    return "\n".join(lines)
