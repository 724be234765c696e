"""The web lesson as a student meets it, in headless Chromium at 1440 and 390 px: the transcript
follows the video, the explorer's arrows are drawn at one scale in the lesson's colours, nothing
scrolls sideways on a phone, a failed sentence does not leave the last one's tables unmarked, the
burned-in captions stay clear of the player's controls, the keyboard reaches the explorer, <UNK>
is styled and explained, the contents are numbered once, and no build flag reaches the header.

The page is written by lesson_build.page.render_index itself, but around two long, silent
videos made straight with ffmpeg (5 minutes, 32x18 px, a few hundred kB) and a 100-line
transcript, so the transcript has to scroll and a link can ask for second 261; no scene is
rendered. The page's scripts and the converted checkpoints are the real ones (lesson_build.web.site).
"""
from __future__ import annotations

import ast
import datetime
import json
import random
import subprocess
import urllib.parse
from fractions import Fraction
from pathlib import Path

import pytest
import srt

from lesson_build import page
from lesson_build.catalog import Chapter, SceneEntry
from lesson_data import worksheet as ws

ROOT = Path(__file__).resolve().parents[1]
SECONDS = 300                       # each chapter's length
CUE = 3.0                           # one transcript line every 3 s: 100 lines per chapter
CHAPTERS = (
    Chapter(1, "chapter1", "Alpha chapter", tuple(
        SceneEntry(n, "scenes/none.py", f"Scene{n}", f"Alpha scene {n}") for n in (1, 2, 3, 4))),
    # Three of chapter 2's worksheet scenes, by their real class names (page.py links them to the
    # explorer and back); chapter 1's scenes are none of them.
    Chapter(2, "chapter2", "Beta chapter", (
        SceneEntry(5, "scenes/none.py", "Setup", "Beta scene 5"),
        SceneEntry(8, "scenes/none.py", "Head1Weights", "Beta scene 8"),
        SceneEntry(11, "scenes/none.py", "MaskedMatrix", "Beta scene 11"))),
)


def theme() -> dict[str, str]:
    """The videos' palette, read from scenes/style.py's Theme defaults (no Manim import)."""
    tree = ast.parse((ROOT / "scenes" / "style.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Theme")
    return {s.target.id: s.value.value for s in cls.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)}


def rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


def chromium_or_skip():
    from tests.test_web_page import chromium_or_skip as check
    check()


def _ffmpeg() -> str:
    import imageio_ffmpeg
    return imageio_ffmpeg.get_ffmpeg_exe()


def _write_chapter(folder: Path, ch: Chapter, line=lambda ch, i: f"{ch.title}, line {i + 1}",
                   poster: Path | None = None) -> page.ChapterRow:
    video = folder / f"{ch.slug}.mp4"
    subprocess.run([_ffmpeg(), "-v", "error", "-y", "-f", "lavfi", "-i", f"color=c=gray:s=32x18:r=1:d={SECONDS}",
                    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "10", "-movflags", "+faststart", str(video)],
                   check=True, timeout=120)
    cues = [srt.Subtitle(i + 1, datetime.timedelta(seconds=i * CUE), datetime.timedelta(seconds=(i + 1) * CUE - 0.5),
                         line(ch, i)) for i in range(int(SECONDS / CUE))]
    video.with_suffix(".srt").write_text(srt.compose(cues), encoding="utf-8")
    vtt = ["WEBVTT", ""]
    for c in cues:
        stamp = lambda t: f"{int(t.total_seconds() // 3600):02d}:{int(t.total_seconds() // 60 % 60):02d}:{t.total_seconds() % 60:06.3f}"
        vtt += [f"{stamp(c.start)} --> {stamp(c.end)}", c.content, ""]
    video.with_suffix(".vtt").write_text("\n".join(vtt), encoding="utf-8")
    per = SECONDS / len(ch.scenes)
    # A scene starts a millisecond before its whole second (as a real render's 503.999 s): a link
    # that rounds its time down lands in the scene before.
    scenes = [page.SceneRow(s.number, s.title, s.name, "ok", Fraction(int(k * per)) - (Fraction(1, 1000) if k else 0))
              for k, s in enumerate(ch.scenes)]
    if poster is not None:    # the pipeline's own poster (lesson_build.media.thumbnail) of that frame
        from lesson_build import media
        media.thumbnail(poster, folder / f"{ch.slug}.jpg", Fraction(0))
    return page.ChapterRow(ch, scenes, video=video, vtt=video.with_suffix(".vtt"), srt=video.with_suffix(".srt"),
                           poster=folder / f"{ch.slug}.jpg" if poster is not None else None,
                           duration=Fraction(SECONDS), quality="720p30")


@pytest.fixture(scope="module")
def ui_site(tmp_path_factory) -> Path:
    return build_site(tmp_path_factory.mktemp("web-ui") / "renders")


def build_site(out: Path) -> Path:
    """The test page in `out` (also for screenshots: `python -c "from tests.test_web_ui import
    build_site; build_site(Path('/tmp/ui'))"`)."""
    from lesson_build.web import site

    folder = out / "lesson" / "m"
    folder.mkdir(parents=True, exist_ok=True)
    rows = [_write_chapter(folder, ch) for ch in CHAPTERS]
    assets = site.build(ROOT, out, log=lambda s: None)
    assert assets.models, assets.models_note
    index = out / "index.html"
    index.write_text(page.render_index(
        index, series_title="A test lesson", quality_label="720p30 (-qm)", chapters=rows, series_video=None,
        series_vtt=None, series_poster=None, series_note="not needed here", worksheet=None,
        generated="2026-01-01 00:00", web=assets), encoding="utf-8")
    # catalog.html: the lesson's own chapter 2 (its thirteen scenes, by their catalog names and
    # titles) over the same test video, for what depends on which scene is which.
    ch2, video = catalog_chapter2(), folder / "chapter2.mp4"
    scenes = [page.SceneRow(s.number, s.title, s.name, "ok", t) for s, t in zip(ch2.scenes, catalog_starts(ch2))]
    row = page.ChapterRow(ch2, scenes, video=video, vtt=video.with_suffix(".vtt"), srt=video.with_suffix(".srt"),
                          duration=Fraction(SECONDS), quality="720p30")
    (out / "catalog.html").write_text(page.render_index(
        out / "catalog.html", series_title="The lesson's chapter 2", quality_label="720p30 (-qm)", chapters=[row],
        series_video=None, series_vtt=None, series_poster=None, series_note="not needed here", worksheet=None,
        generated="2026-01-01 00:00", web=assets), encoding="utf-8")
    return out


def catalog_chapter2() -> Chapter:
    """The lesson's chapter 2 as lesson_build/catalog.py lists it."""
    from lesson_build.catalog import CHAPTERS as LESSON
    return next(ch for ch in LESSON if ch.number == 2)


def catalog_starts(ch: Chapter) -> list[Fraction]:
    """Where catalog.html's scenes start in its 300 s video: scene k at k × 300/13 s, between two
    whole seconds (but the first), as a render's marks are."""
    return [Fraction(k * SECONDS, len(ch.scenes)) for k in range(len(ch.scenes))]


class Page:
    """One tab on the served page at one width; `js` evaluates, `key` presses a key (Playwright)."""

    def __init__(self, browser, tab):
        self.browser, self.tab = browser, tab

    def js(self, expression: str):
        return self.tab.evaluate(expression)

    def goto(self, url: str) -> None:
        """A fresh load of `url` (by way of about:blank, so a link differing only in its #part loads anew)."""
        self.tab.goto("about:blank")
        self.tab.goto(url)
        self.tab.wait_for("document.readyState === 'complete' && document.getElementById('explorer')"
                          " && document.getElementById('explorer').dataset.ready === 'true'", timeout=30)

    def key(self, name: str) -> None:
        self.tab.page.keyboard.press(name)


@pytest.fixture(scope="module")
def served(request, ui_site):
    """The page served on 127.0.0.1 and one headless Chromium; each width gets its own context."""
    chromium_or_skip()
    from lesson_build.browser import Chromium, serve

    stack = __import__("contextlib").ExitStack()
    request.addfinalizer(stack.close)
    base = stack.enter_context(serve(ui_site))
    return f"{base}/index.html", stack.enter_context(Chromium())


def _open(served, width):
    base, browser = served
    # Below 600 px, a phone: touch, overlay scrollbars (the layout is the whole 390 px).
    tab = browser.open("about:blank", window=(width, 900 if width >= 600 else 844), mobile=width < 600)
    p = Page(browser, tab)
    p.base = base
    p.goto(p.base)
    return p


@pytest.fixture(scope="module")
def wide(served):
    return _open(served, 1440)


@pytest.fixture(scope="module")
def narrow(served):
    return _open(served, 390)


def explore(p: Page, text: str) -> None:
    p.js(f"document.getElementById('explorer-input').value = {json.dumps(text)};"
         "document.getElementById('explorer-form').requestSubmit()")


def sentence(words: int, seed: int) -> str:
    """Random vocabulary words (one word alone is never a preset's name, which loads the preset)."""
    rng = random.Random(seed)
    pool = [w for w in ws.VOCAB if words > 1 or w not in ws.SENTENCES]
    return " ".join(rng.choice(pool) for _ in range(words))


# ---------------------------------------------------------------- the transcript

SEEK = """
(async () => {
  const v = document.getElementById('video-chapter1');
  if (v.readyState < 1) await new Promise(r => v.addEventListener('loadedmetadata', r, { once: true }));
  const seeked = new Promise(r => v.addEventListener('seeked', r, { once: true }));
  v.currentTime = %s;
  await seeked;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return VISIBLE();
})()
"""
VISIBLE = """(() => {
  const list = document.querySelector('#chapter1 .transcript ol');
  const cur = list.querySelector('button.cue.current');
  if (!cur) return null;
  const a = list.getBoundingClientRect(), b = cur.getBoundingClientRect();
  return { start: parseFloat(cur.dataset.start), top: b.top - a.top, bottom: a.bottom - b.bottom,
           height: a.height, scrolls: list.scrollHeight > list.clientHeight + 10 };
})()"""


def test_the_transcript_keeps_the_current_line_in_view(wide):
    wide.js("document.getElementById('chapter1').scrollIntoView()")
    for t in (4.0, 100.0, 200.0, 290.0, 40.0):
        got = wide.js(SEEK.replace("VISIBLE()", VISIBLE) % t)
        assert got and got["scrolls"], got
        assert got["start"] == CUE * int(t // CUE), got                   # the line being spoken
        assert got["top"] >= 0 and got["bottom"] >= 0, (t, got)           # ... inside the visible panel
    # Clicking a line that is in view keeps it in view.
    got = wide.js("""(async () => {
      const list = document.querySelector('#chapter1 .transcript ol');
      const a = list.getBoundingClientRect();
      const inView = [...list.querySelectorAll('button.cue')].filter(b => {
        const r = b.getBoundingClientRect(); return r.top >= a.top && r.bottom <= a.bottom; });
      const b = inView[inView.length - 1];
      const v = document.getElementById('video-chapter1');
      const seeked = new Promise(r => v.addEventListener('seeked', r, { once: true }));
      b.click(); await seeked; v.pause();
      await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
      return [parseFloat(b.dataset.start), VISIBLE()]; })()""".replace("VISIBLE()", VISIBLE))
    clicked, state = got
    assert state["start"] == clicked and state["top"] >= 0 and state["bottom"] >= 0, got


# ---------------------------------------------------------------- the explorer's diagram

ARROWS = """(() => {
  const svg = document.querySelector('#explorer svg.arrows');
  const box = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
  const scale = box.width / vb.width;
  const px = (el) => parseFloat(getComputedStyle(el).fontSize) * scale;
  return { scale, scaleY: box.height / vb.height,
    arcs: [...svg.querySelectorAll('path.arc')].map(p => [+p.dataset.head, +p.dataset.source, +p.dataset.weight,
           parseFloat(p.getAttribute('stroke-width')) * scale]),
    tokens: [...svg.querySelectorAll('text.tok')].map(px),
    weights: [...svg.querySelectorAll('text.weight')].map(px),
    fills: [...svg.querySelectorAll('text')].map(t => [t.getAttribute('class'), t.dataset.head || null,
            t.dataset.role || null, getComputedStyle(t).fill]) };
})()"""


@pytest.mark.parametrize("width", [1440, 390])
def test_the_arrows_are_drawn_at_one_scale_for_every_sentence_length(width, wide, narrow):
    p = wide if width == 1440 else narrow
    arcs, sizes = [], []
    for n, seed in [(1, 1), (4, 2), (10, 3), (20, 4)]:
        explore(p, sentence(n, seed))
        got = p.js(ARROWS)
        assert len(got["arcs"]) == 2 * n, (n, got["arcs"])
        assert abs(got["scale"] - got["scaleY"]) < 1e-3 * got["scale"]             # not stretched
        arcs += [(n, w, px) for _, _, w, px in got["arcs"]]
        sizes += got["tokens"] + got["weights"]
    # Width = weight: one factor, the heaviest arc's px per weight, gives every arc of every
    # sentence its drawn width (to the 0.01 px the stroke is written with); only near-zero weights
    # are drawn as hairlines, thinner than 1 px.
    _, w_max, px_max = max(arcs, key=lambda a: a[1])
    k = px_max / w_max
    wrong = [(n, w, px) for n, w, px in arcs if abs(px - k * w) > 0.006 and not (px < 1 and k * w < 1)]
    assert not wrong, (k, wrong[:5])
    assert min(sizes) >= 11.5 and max(sizes) <= 20, (min(sizes), max(sizes))   # legible, and never a poster


def test_the_arrows_labels_keep_the_lessons_colours(wide):
    t = theme()
    explore(wide, "The fisherman sat beside the river bank and watched the")
    got = wide.js(ARROWS)["fills"]
    weights = {head: {f for cls, h, _, f in got if cls.split()[0] == "weight" and h == head} for head in ("1", "2")}
    assert weights == {"1": {rgb(t["head_1"])}, "2": {rgb(t["head_2"])}}, weights
    tokens = [f for cls, _, _, f in got if cls.split()[0] == "tok"]
    assert tokens[-1] == rgb(t["receiver"]) and set(tokens[:-1]) == {rgb(t["text"])}, tokens
    positions = {f for cls, _, role, f in got if role == "position"}
    assert positions == {rgb(t["dim_text"])}, got


# ---------------------------------------------------------------- a phone

def _overflow(p: Page):
    return p.js("""(() => {
      const w = document.documentElement.clientWidth;
      const scrollers = (el) => { for (let e = el.parentElement; e; e = e.parentElement) {
        const o = getComputedStyle(e).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; } return false; };
      const out = [...document.querySelectorAll('body *')].filter(el => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.right > w + 0.5 && !scrollers(el); }).map(el => el.tagName + '#' + el.id + '.' + el.className);
      return { width: w, scrollWidth: document.documentElement.scrollWidth, out: out.slice(0, 8) }; })()""")


def test_nothing_scrolls_sideways_at_390_px(narrow):
    for text in ["The fisherman sat beside the river bank and watched the", sentence(20, 5)]:
        explore(narrow, text)
        got = _overflow(narrow)
        assert got["width"] == 390 and got["scrollWidth"] <= 390 and not got["out"], got


# ---------------------------------------------------------------- a failed sentence

def test_a_failed_sentence_does_not_leave_the_last_ones_tables_unmarked(wide):
    for bad, says in [("she deposited the dragon", "'dragon'"), (sentence(21, 6), "21 words")]:
        explore(wide, "The fisherman sat beside the river bank and watched the")
        assert wide.js("document.querySelectorAll('#explorer-output table').length") > 0
        explore(wide, bad)
        got = wide.js("""(() => { const out = document.getElementById('explorer-output');
          const m = document.getElementById('explorer-message');
          const shown = [...out.querySelectorAll('table, svg')].filter(e => e.getClientRects().length > 0).length;
          return { message: m.hidden ? null : m.textContent, shown, stale: out.dataset.stale || null,
                   note: out.querySelector('[data-stale-note]') ? out.querySelector('[data-stale-note]').textContent : null }; })()""")
        assert got["message"] and says in got["message"], got
        # Either nothing of the river sentence is left on screen, or it says whose numbers those are.
        assert got["shown"] == 0 or (got["stale"] and got["note"] and "fisherman" in got["note"]), got


# ---------------------------------------------------------------- the player

def test_the_burned_in_captions_stay_clear_of_the_control_bar(wide, narrow):
    for p in (wide, narrow):
        p.js("""(async () => { const v = document.getElementById('video-chapter1'); v.scrollIntoView();
               if (v.readyState < 1) await new Promise(r => v.addEventListener('loadedmetadata', r, { once: true })); })()""")
        box = p.js("""(() => { const v = document.getElementById('video-chapter1'); const r = v.getBoundingClientRect();
          const s = getComputedStyle(v);
          return { top: r.top, left: r.left, width: r.width, height: r.height, vw: v.videoWidth, vh: v.videoHeight,
                   fit: s.objectFit, position: s.objectPosition }; })()""")
        panel = _controls_panel(p)
        # Where the picture is drawn inside the element: contained, so scaled to fit the box.
        scale = min(box["width"] / box["vw"], box["height"] / box["vh"])
        picture_h = box["vh"] * scale
        offset_y = {"0%": 0.0, "100%": box["height"] - picture_h}.get(box["position"].split()[-1], (box["height"] - picture_h) / 2)
        picture_bottom = box["top"] + offset_y + picture_h
        assert panel["height"] > 20, panel
        assert panel["top"] >= picture_bottom - 0.5, (box, panel, picture_bottom)


def _controls_panel(p: Page) -> dict:
    """The box of Chromium's own control bar inside the <video> (its user-agent shadow tree): the
    row of buttons and the timeline above or below it."""
    tab = p.tab
    doc = tab.call("DOM.getDocument", {"depth": -1, "pierce": True})

    def walk(node, inside=False, pseudo=""):
        inside = inside or (node.get("localName") == "video" and dict(zip(node.get("attributes", [])[::2], node.get("attributes", [])[1::2])).get("id") == "video-chapter1")
        attrs = dict(zip(node.get("attributes", [])[::2], node.get("attributes", [])[1::2]))
        if inside and attrs.get("pseudo") == pseudo:
            return node
        for child in node.get("children", []) + node.get("shadowRoots", []):
            found = walk(child, inside, pseudo)
            if found:
                return found
        return None

    ys = []
    for pseudo in ("-internal-media-controls-button-panel", "-webkit-media-controls-timeline"):
        node = walk(doc["root"], pseudo=pseudo)
        assert node, f"no {pseudo} in the video's shadow tree"
        ys += tab.call("DOM.getBoxModel", {"nodeId": node["nodeId"]})["model"]["border"][1::2]
    return {"top": min(ys), "bottom": max(ys), "height": max(ys) - min(ys)}


# ---------------------------------------------------------------- the keyboard

def test_a_skip_link_and_few_tab_presses_reach_the_explorer(wide):
    wide.goto(wide.base)
    wide.js("window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()")
    wide.key("Tab")
    first = wide.js("[document.activeElement.tagName, document.activeElement.getAttribute('href'), document.activeElement.textContent]")
    assert first[0] == "A" and first[1] == "#explorer", first
    wide.key("Enter")
    wide.key("Tab")
    assert wide.js("document.activeElement.id") == "explorer-input"
    # Without the skip link: every transcript is one Tab stop (arrow keys move inside it), so the
    # explorer is a few dozen presses away, not hundreds.
    wide.goto(wide.base)
    wide.js("document.activeElement && document.activeElement.blur()")
    for presses in range(1, 150):
        wide.key("Tab")
        if wide.js("document.activeElement.id") == "explorer-input":
            break
    stops = wide.js("""[...document.querySelectorAll('.transcript')].map(t =>
        [...t.querySelectorAll('button')].filter(b => b.tabIndex >= 0).length)""")
    assert stops == [1, 1], stops
    # The two skip links, the contents (a link per chapter and scene, then four), and per chapter
    # the player's own controls (at most 6: play, timeline, mute, fullscreen, more, the video), its
    # four links (.srt, .vtt, MP4, this moment), its scene links with their "try it" links and the
    # transcript's one stop; then the input.
    toc = len(CHAPTERS) + sum(len(ch.scenes) for ch in CHAPTERS) + 4
    chapters = sum(6 + 4 + len(ch.scenes) + sum(s.name in page.TRY_IT for s in ch.scenes) + 1 for ch in CHAPTERS)
    assert presses <= 2 + toc + chapters + 1, presses


def test_the_transcript_moves_with_arrow_keys(wide):
    wide.goto(wide.base)
    wide.js("document.querySelector('#chapter1 .transcript button.cue[tabindex=\"0\"]').focus()")
    start = wide.js("parseFloat(document.activeElement.dataset.start)")
    wide.key("ArrowDown")
    wide.key("ArrowDown")
    got = wide.js("[parseFloat(document.activeElement.dataset.start), document.activeElement.tabIndex]")
    assert got == [start + 2 * CUE, 0], got
    wide.key("Enter")
    wide.tab.wait_for("Math.abs(document.getElementById('video-chapter1').currentTime - %s) < 0.6" % (start + 2 * CUE))


def test_the_arrows_explain_themselves_to_the_keyboard(wide):
    explore(wide, "The fisherman sat beside the river bank and watched the")
    got = wide.js("""(() => { const arcs = [...document.querySelectorAll('#explorer svg.arrows .arc')];
      const a = arcs.find(x => x.dataset.head === '1' && x.dataset.source === '6');
      a.focus();
      const readout = document.getElementById('explorer-readout');
      const lit = (sel) => [...document.querySelectorAll(sel)].map(e => [e.closest('.panel').dataset.head, e.dataset.source, e.textContent]);
      return { focusable: arcs.every(x => x.tabIndex >= 0), focused: document.activeElement === a,
               readout: readout && readout.getClientRects().length ? readout.textContent : null,
               rows: lit('#explorer-output tr.lit'), terms: lit('#explorer-output .term.lit') }; })()""")
    sheet = ws.compute_worksheet("river")
    from lesson_data.display import fmt
    assert got["focusable"] and got["focused"], got
    assert got["readout"] and "river" in got["readout"] and fmt(sheet.heads[0].weights[-1][5]) in got["readout"], got
    # ... and lights the source's key/value row and its term of head 1's message: weight x value.
    head = sheet.heads[0]
    assert [r[:2] for r in got["rows"]] == [["1", "6"]] and got["rows"][0][2].startswith("6river"), got
    assert got["terms"] == [["1", "6", f"{fmt(head.weights[-1][5])} × [{', '.join(fmt(x) for x in head.V[5])}]"]], got


# ---------------------------------------------------------------- <UNK>

def test_generated_unk_is_styled_and_explained(wide):
    prompt = "The central bank raised interest rates because inflation"       # four_heads answers with <UNK>
    got = wide.js("""(async () => {
      const root = document.getElementById('demo'); root.scrollIntoView();
      document.getElementById('demo-prompt').value = %s;
      document.getElementById('demo-prompt').dispatchEvent(new Event('input'));
      document.getElementById('demo-model').value = 'four_heads';
      document.getElementById('demo-tokens').value = 20;
      document.getElementById('demo-temperature').value = 0;
      document.getElementById('demo-form').requestSubmit();
      while (root.dataset.state !== 'done' && root.dataset.state !== 'error') await new Promise(r => setTimeout(r, 50));
      const out = document.getElementById('demo-output');
      const unk = [...out.querySelectorAll('.generated .unk')];
      const gen = out.querySelector('.generated');
      const note = document.getElementById('demo-unk-note');
      return { state: root.dataset.state, text: out.dataset.continuation, unk: unk.length,
               unkColour: unk.length ? getComputedStyle(unk[0]).color : null, genColour: gen ? getComputedStyle(gen).color : null,
               note: note && note.getClientRects().length ? note.textContent : null }; })()""" % json.dumps(prompt))
    assert got["state"] == "done" and "<UNK>" in got["text"], got
    assert got["unk"] == got["text"].count("<UNK>") and got["unkColour"] != got["genColour"], got
    assert got["note"] and "<UNK>" in got["note"], got


# ---------------------------------------------------------------- the header and contents

def test_the_contents_are_numbered_once_and_the_header_has_no_build_flags(wide):
    got = wide.js("""(() => ({
      header: document.querySelector('header').innerText,
      markers: [...document.querySelectorAll('nav.toc li')].map(li => getComputedStyle(li).listStyleType),
      scenes: [...document.querySelectorAll('nav.toc ol.toc-scenes li')].map(li => li.innerText.trim()) }))()""")
    assert "(-q" not in got["header"] and "720p30" in got["header"], got["header"]
    assert set(got["markers"]) == {"none"}, got["markers"]
    assert got["scenes"] == [f"Scene {s.number} · {s.title}" for ch in CHAPTERS for s in ch.scenes], got["scenes"]


def test_the_page_reported_no_error(wide, narrow):
    assert wide.tab.console_errors() == [] and narrow.tab.console_errors() == []


# ---------------------------------------------------------------- links that carry the state

LINK_STATE = """(() => {
  const m = document.getElementById('link-message'), e = document.getElementById('explorer-message');
  const alerts = [...document.querySelectorAll('[role=alert]')].filter(x => !x.hidden && x.getClientRects().length);
  return { message: m && !m.hidden ? m.textContent : null, alerts: alerts.length,
           sentence: document.getElementById('explorer').dataset.sentence ?? null,
           input: document.getElementById('explorer-input').value,
           explorerError: e.hidden ? null : e.textContent,
           prompt: document.getElementById('demo-prompt').value, model: document.getElementById('demo-model').value,
           run: ['temperature', 'seed', 'tokens'].map(k => document.getElementById('demo-' + k).value),
           times: [...document.querySelectorAll('video')].map(v => v.currentTime),
           scripts: document.scripts.length, pwned: window.pwned ?? null,
           demoState: document.getElementById('demo').dataset.state ?? null }; })()"""


def _in_view(p: Page, element_id: str) -> bool:
    return p.js(f"""(() => {{ const r = document.getElementById({json.dumps(element_id)}).getBoundingClientRect();
        return r.top < innerHeight && r.bottom > 0 && Math.abs(r.top) < 40; }})()""")


def test_a_link_opens_a_chapter_at_a_second(wide, narrow):
    for p in (wide, narrow):
        p.goto(p.base + "#chapter2&t=261")
        p.tab.wait_for("Math.abs(document.getElementById('video-chapter2').currentTime - 261) < 0.01", timeout=20)
        got = p.js(LINK_STATE)
        assert got["message"] is None and got["times"][0] == 0, got
        assert _in_view(p, "chapter2")
        # The transcript shows the line being spoken at 261 s (line 88 starts at 261 = 87 x 3).
        p.tab.wait_for("!!document.querySelector('#chapter2 .transcript button.cue.current')", timeout=20)
        assert p.js("parseFloat(document.querySelector('#chapter2 .transcript button.cue.current').dataset.start)") == 261
        # ... and the chapter offers a link to where it is now.
        assert p.js("document.querySelector('#chapter2 a[data-moment]').getAttribute('href')") == "#chapter2&t=261"


def test_a_link_opens_the_explorer_on_its_sentence(wide):
    text = sentence(7, 8)
    wide.goto(wide.base + "?" + urllib.parse.urlencode({"sentence": text}))
    got = wide.js(LINK_STATE)
    sheet = ws.compute_worksheet(text)
    assert got["message"] is None and got["sentence"] == sheet.name and got["input"] == text, got
    assert wide.js("document.getElementById('explorer-prediction').textContent") == sheet.mlp.prediction
    assert _in_view(wide, "explorer")
    # The explorer's own link is that URL: computing another sentence changes it.
    explore(wide, "she deposited the cheque")
    href = wide.js("document.getElementById('explorer-link').getAttribute('href')")
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(href).query) == {"sentence": ["she deposited the cheque"]}, href


def test_a_link_fills_the_demo_and_runs_it(wide):
    wide.goto(wide.base + "?" + urllib.parse.urlencode({"prompt": "Once upon a time, a cat", "model": "one_head"}))
    got = wide.js(LINK_STATE)
    assert got["message"] is None and got["prompt"] == "Once upon a time, a cat" and got["model"] == "one_head", got
    assert _in_view(wide, "demo"), got
    wide.tab.wait_for("['done', 'error'].includes(document.getElementById('demo').dataset.state)", timeout=60)
    out = wide.js("(o => [document.getElementById('demo').dataset.state, o.dataset.model, o.dataset.continuation])"
                  "(document.getElementById('demo-output'))")
    assert out[:2] == ["done", "one_head"] and out[2], out


BAD_LINKS = [
    ("?sentence=" + urllib.parse.quote("<script>window.pwned=1</script> the river"), "sentence"),
    ("?sentence=" + urllib.parse.quote('<img src=x onerror="window.pwned=1">'), "sentence"),
    ("?sentence=" + "the%20" * 2500, "10,000 characters"),
    ("?prompt=" + "a" * 10_000, "10,000 characters"),
    ("?model=" + urllib.parse.quote("five_heads<b>"), "five_heads"),
    ("?sentence=the%20river&model=gpt", "gpt"),                # one bad part: none of it applies
    ("?sentence=the%20river&receiver=" + urllib.parse.quote("1<b>"), "receiver"),
    ("?receiver=1", "receiver"),                                # a receiver with no sentence
    ("?temperature=-1", "temperature"),                         # the demo's run: each setting checked
    ("?prompt=a%20cat&temperature=" + "9" * 12, "temperature"),
    ("?prompt=a%20cat&tokens=100000&seed=" + urllib.parse.quote("1; alert(1)"), "tokens"),
    ("?prompt=" + urllib.parse.quote("<b onmouseover=window.pwned=1>Once</b>"), "markup"),
    ("?prompt=a%20cat&compare=" + urllib.parse.quote("1<b>"), "compare"),   # Compare: 1 or nothing
    ("#chapter1&t=-5", "-5"),
    ("#chapter1&t=" + urllib.parse.quote("1e9"), "1e9"),
    ("#chapter1&t=9999", "past the end"),
    ("#chapter9&t=3", "chapter9"),
    ("#chapter1&t=%E0%A4%A", "%E0%A4%A"),                     # a broken %-escape is text, not a crash
    ("#%E0%A4%A&t=1", "%E0%A4%A"),
]


@pytest.mark.parametrize("link, says", BAD_LINKS, ids=[f"bad-link-{i}" for i in range(len(BAD_LINKS))])
def test_a_bad_link_shows_one_message_and_runs_nothing(wide, link, says):
    wide.goto(wide.base + link)
    if "past the end" in says:
        wide.tab.wait_for("!document.getElementById('link-message').hidden", timeout=20)
    got = wide.js(LINK_STATE)
    assert got["message"] and says in got["message"] and got["alerts"] == 1, got
    assert got["pwned"] is None and got["scripts"] == wide.js("document.querySelectorAll('script').length"), got
    assert "<" not in wide.js("document.getElementById('link-message').innerHTML").replace("&lt;", ""), got
    # The page as it opens without a link: the explorer on its first sentence, the demo's first
    # prompt and model, every video at its start.
    assert got["sentence"] == ws.compute_worksheet(page.RIVER).name and got["input"] == page.RIVER, got
    assert got["explorerError"] is None and got["model"] == "four_heads" and got["demoState"] != "linked", got
    assert got["run"] == DEMO_DEFAULTS, got
    assert got["times"] == [0, 0], got


# The demo's form as the page opens: temperature 0, seed 0, the presets' number of tokens.
DEMO_DEFAULTS = ["0", "0", "20"]


def test_a_link_to_a_demo_run_restores_its_prompt_model_and_settings(wide):
    wide.goto(wide.base + "#demo")
    run = {"prompt": "Once upon a time, a girl named Lily saw a big dog.", "model": "one_head", "temperature": "0.7",
           "seed": "42", "tokens": "9"}
    wide.js(f"""(() => {{ const run = {json.dumps(run)};
      for (const [k, v] of Object.entries(run)) {{ const f = document.getElementById('demo-' + k); f.value = v;
        f.dispatchEvent(new Event('input', {{ bubbles: true }})); }}
      document.getElementById('demo-copy-link').click(); }})()""")
    wide.tab.wait_for("!!document.getElementById('demo-link-status').dataset.copied")
    href = wide.js("document.getElementById('demo-link').getAttribute('href')")
    parts = urllib.parse.urlsplit(href)
    assert {k: v[0] for k, v in urllib.parse.parse_qs(parts.query).items()} == run and parts.fragment == "demo", href
    # What Copy gives (or, where the clipboard is refused, shows) is that link, absolute.
    assert wide.js("document.getElementById('demo-link-status').dataset.copied") == wide.base.rsplit("/", 1)[0] + "/index.html" + href
    wide.goto(wide.base.rsplit("/", 1)[0] + "/index.html" + href)
    got = wide.js(LINK_STATE)
    assert got["message"] is None and got["prompt"] == run["prompt"] and got["model"] == run["model"], got
    assert got["run"] == [run["temperature"], run["seed"], run["tokens"]] and got["demoState"] != "ready", got
    wide.tab.wait_for("document.getElementById('demo').dataset.state === 'done'", timeout=60)
    assert _in_view(wide, "demo")
    # The reopened page's own link is the same run.
    assert wide.js("document.getElementById('demo-link').getAttribute('href')") == href


@pytest.mark.parametrize("field, value, says", [
    ("prompt", "the <b>cat</b> sat on the mat and", "holds markup"),
    ("prompt", "a " * 1275, "at most 2,000 characters"),
    ("temperature", "-1", "the temperature"),
])
def test_the_page_makes_no_link_it_would_refuse(wide, field, value, says):
    """The third page reviewer typed a prompt with markup and got a link that opened to "could not be
    opened": the form's settings get the link's own checks, and a bad one gives no link, and says why."""
    wide.goto(wide.base + "#demo")
    wide.js(f"""(() => {{ const f = document.getElementById('demo-{field}'); f.value = {json.dumps(value)};
      f.dispatchEvent(new Event('input', {{ bubbles: true }})); }})()""")
    got = wide.js("""(() => { const a = document.getElementById('demo-link');
        return { href: a.getAttribute('href'), disabled: a.getAttribute('aria-disabled'),
                 copy: document.getElementById('demo-copy-link').disabled,
                 status: document.getElementById('demo-link-status').textContent }; })()""")
    assert got["href"] is None and got["disabled"] == "true" and got["copy"] is True, got
    assert got["status"].startswith("No link for these settings: ") and says in got["status"], got
    # a good value again: the link comes back
    wide.js(f"""(() => {{ const f = document.getElementById('demo-{field}');
      f.value = {json.dumps("Once upon a time" if field == "prompt" else "0.5")};
      f.dispatchEvent(new Event('input', {{ bubbles: true }})); }})()""")
    assert wide.js("document.getElementById('demo-link').getAttribute('href')").startswith("?prompt=")


LANDING_LINKS = [
    "?sentence=" + urllib.parse.quote("<script>window.pwned=1</script>") + "#explorer",
    "?sentence=" + "the%20" * 2500 + "#explorer",
    "?prompt=x&model=gpt4#demo",
    "#chapter1&t=99999",
]


@pytest.mark.parametrize("link", LANDING_LINKS, ids=[f"landing-{i}" for i in range(len(LANDING_LINKS))])
def test_a_bad_links_message_is_where_the_page_lands_and_has_focus(wide, narrow, link):
    for p in (wide, narrow):
        p.goto(p.base + link)
        p.tab.wait_for("!document.getElementById('link-message').hidden", timeout=20)
        got = p.js("""(() => { const m = document.getElementById('link-message'), r = m.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom, height: innerHeight, width: r.width,
                     focused: document.activeElement === m }; })()""")
        assert got["width"] > 0 and 0 <= got["top"] and got["bottom"] <= got["height"], (link, got)
        assert got["focused"], (link, got)


def _one_token(word: str):
    """The data layer's computation for the token list [word] (its own name for a preset word
    is that preset's sentence, so the one-token list is given to it directly)."""
    from unittest import mock
    with mock.patch.object(ws, "_sentence_name_and_text", lambda s: (word, word, (word,))):
        return ws.compute_worksheet(word)


ONE_TOKEN = """(() => ({ tokens: [...document.querySelectorAll('#explorer-tokens .token')].map(t => t.firstChild.textContent),
    input: document.getElementById('explorer-input').value,
    prediction: document.getElementById('explorer-prediction').textContent,
    probs: Object.fromEntries([...document.querySelectorAll('#explorer [data-p]')].map(e => [e.dataset.p, e.textContent])),
    messages: [...document.querySelectorAll('#explorer [data-message]')].map(e => e.textContent) }))()"""


@pytest.mark.parametrize("word", ["river", "cheque"])
def test_a_preset_word_typed_or_linked_is_that_one_word(wide, word):
    from lesson_data.display import fmt
    sheet = _one_token(word)
    assert sheet.n == 1
    want = {"tokens": [word], "input": word, "prediction": sheet.mlp.prediction,
            "probs": {w: fmt(p) for w, p in zip(ws.VOCAB, sheet.mlp.probabilities)},
            "messages": [", ".join(fmt(x) for x in head.messages[-1]) for head in sheet.heads]}
    wide.goto(wide.base)
    explore(wide, word)
    assert wide.js(ONE_TOKEN) == want
    wide.goto(wide.base + "?sentence=" + word)
    assert wide.js(ONE_TOKEN) == want
    # The preset buttons still fill in the whole preset sentence.
    wide.js(f"document.querySelector('#explorer button[data-preset=\"{word}\"]').click()")
    assert wide.js(ONE_TOKEN)["tokens"] == list(ws.compute_worksheet(word).tokens)


# ---------------------------------------------------------------- where the trained models look

def chapter3_colours() -> dict[str, list[str]]:
    """Chapter 3's head colours per model, read from its scene file (FOUR_HEAD_COLORS, MODEL_COLORS)
    with scenes/style.py's theme, no Manim import."""
    t = theme()
    names = {"HEAD_COLORS[1]": t["head_1"], "HEAD_COLORS[2]": t["head_2"], "POSITIVE_COLOR": t["positive"],
             "WIDE_HEAD_COLOR": t["wide_head"], "BRACKET_COLOR": t["bracket"]}
    tree = ast.parse((ROOT / "scenes" / "chapter3_trained_models.py").read_text(encoding="utf-8"))
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value

    def colour(expr):
        return expr.value if isinstance(expr, ast.Constant) else names[ast.unparse(expr)]
    four = [colour(e) for e in values["FOUR_HEAD_COLORS"].elts]
    model = {ast.literal_eval(k): colour(v) for k, v in zip(values["MODEL_COLORS"].keys, values["MODEL_COLORS"].values)}
    return {"one_head": [model["one_head"]], "four_heads": four}


@pytest.fixture(scope="module")
def torch_side():
    import torch

    from trainer.checkpoints import load_checkpoint
    from trainer.tokenizer import load_tokenizer
    torch.set_num_threads(1)
    exports = ROOT / "lesson_data" / "exports"
    tok = load_tokenizer(exports / "tokenizer.json")
    return tok, {name: load_checkpoint(exports, name)[0] for name in ("mlp", "one_head", "four_heads")}


def torch_steps(torch_side, name: str, prompt: str, tokens: int) -> list[dict]:
    """Per greedy step, computed in PyTorch: the tokens read, each head's final-query weights on
    them, the probabilities, and the token chosen."""
    import torch

    from trainer.generate import window_of
    from trainer.tokenizer import encode
    tok, models = torch_side
    model = models[name]
    ids = [1] + encode(tok, prompt)
    out = []
    with torch.inference_mode():
        for _ in range(tokens):
            window = window_of(ids, 64)
            pad = int((window[0] == 0).sum())
            if hasattr(model, "forward_with_weights"):
                logits, weights = model.forward_with_weights(window)
                heads = weights[0, :, pad:].tolist()
            else:
                logits, heads = model(window), []
            nxt = int(logits[0].argmax())
            out.append({"read_as": [tok.id_to_token(i) for i in window[0, pad:].tolist()], "heads": heads,
                        "logits": logits[0].double(), "chosen": tok.id_to_token(nxt)})
            if nxt == 2:                      # <EOS>
                break
            ids.append(nxt)
    return out


CARD = """((name) => {
  const card = document.querySelector(`#demo-results .model-card[data-model="${name}"]`);
  if (!card) return null;
  const slider = card.querySelector('input.step');
  return { step: +card.dataset.step, steps: +slider.max, continuation: card.dataset.continuation ?? null,
    box: (() => { const r = card.getBoundingClientRect(); return [r.left, r.top, r.width]; })(),
    noAttention: !!card.querySelector('.no-attention'),
    heads: [...card.querySelectorAll('.head-view')].map(v => {
      const svg = v.querySelector('svg.arrows'), vb = svg.viewBox.baseVal, scale = svg.getBoundingClientRect().width / vb.width;
      const arcs = [...svg.querySelectorAll('path.arc')].sort((a, b) => a.dataset.source - b.dataset.source);
      return { weights: arcs.map(a => +a.dataset.weight), px: arcs.map(a => parseFloat(a.getAttribute('stroke-width')) * scale),
               stroke: getComputedStyle(arcs[0]).stroke,
               tokens: [...svg.querySelectorAll('text.tok')].map(t => t.textContent),
               heat: [...v.querySelectorAll('.heat .cell')].map(c => [c.textContent, +c.dataset.weight, parseFloat(c.style.getPropertyValue('--a'))]),
               table: [...v.querySelectorAll('details.weights-table tbody tr')].map(tr => [tr.children[1].textContent, tr.children[2].textContent]),
               tableFocusable: !!v.querySelector('details.weights-table > summary') }; }),
    bars: [...card.querySelectorAll('.bars .bar-row')].map(r => [r.dataset.token, +r.dataset.p, r.classList.contains('chosen')]) };
})(%s)"""


def _run_demo(p: Page, prompt: str, tokens: int, *, model: str = "four_heads", compare: bool = False):
    p.js(f"""(() => {{ document.getElementById('demo').scrollIntoView();
      document.getElementById('demo-prompt').value = {json.dumps(prompt)};
      document.getElementById('demo-model').value = {json.dumps(model)};
      document.getElementById('demo-tokens').value = {tokens};
      document.getElementById('demo-temperature').value = 0;
      document.getElementById('demo').dataset.state = 'asked';
      if ({json.dumps(compare)}) document.getElementById('demo-compare').click();
      else document.getElementById('demo-form').requestSubmit(); }})()""")
    p.tab.wait_for("['done', 'error'].includes(document.getElementById('demo').dataset.state)", timeout=60)
    assert p.js("document.getElementById('demo').dataset.state") == "done", p.js("document.getElementById('demo-status').textContent")


def _show_step(p: Page, name: str, k: int, temperature: float | None = None):
    p.js(f"""(() => {{ const s = document.querySelector('#demo-results .model-card[data-model="{name}"] input.step');
      s.value = {k}; s.dispatchEvent(new Event('input'));
      if ({json.dumps(temperature)} !== null) {{ const t = document.getElementById('demo-temperature');
        t.value = {json.dumps(temperature)}; t.dispatchEvent(new Event('input')); }} }})()""")
    return p.js(CARD % json.dumps(name))


def _same_card(got, want, colours, temperature):
    import torch
    assert len(got["heads"]) == len(want["heads"]) == len(colours)
    for head, w, colour in zip(got["heads"], want["heads"], colours):
        assert len(head["weights"]) == len(w) == len(want["read_as"])
        assert max(abs(a - b) for a, b in zip(head["weights"], w)) <= 1e-5
        # Width = weight, at the explorer's scale (14 px for a weight of 1; hairlines at 0.6 px).
        assert all(abs(px - max(14 * x, 0.6)) <= 0.006 for px, x in zip(head["px"], w)), head["px"]
        assert head["stroke"] == rgb(colour)
        assert [c[0] for c in head["heat"]] == want["read_as"]
        top = max(w)
        assert all(abs(a - x / top) <= 1e-4 for (_, _, a), x in zip(head["heat"], w))
        # ... and as numbers, behind one keyboard-reachable summary.
        assert head["tableFocusable"] and [t for t, _ in head["table"]] == want["read_as"]
        assert all(len(shown.split(".")[1]) == 3 and abs(float(shown) - x) <= 0.0005 + 1e-5     # 3 decimals
                   for (_, shown), x in zip(head["table"], w))
    p = torch.softmax(want["logits"] / (temperature if temperature > 0 else 1), -1)
    best = torch.topk(p, 10)
    tok = want["tok"]
    assert [b[0] for b in got["bars"]] == [tok.id_to_token(int(i)) for i in best.indices]
    assert max(abs(b[1] - float(q)) for b, q in zip(got["bars"], best.values)) <= 1e-5
    assert [b[0] for b in got["bars"] if b[2]] == ([want["chosen"]] if want["chosen"] in [b[0] for b in got["bars"]] else [])


def test_the_demo_shows_each_heads_weights_and_the_top_ten_at_every_step(wide, torch_side):
    prompt = sentence(6, 9).replace("river", "little dog")           # not a preset; new each seed
    _run_demo(wide, prompt, 4)
    want = torch_steps(torch_side, "four_heads", prompt, 4)
    colours = chapter3_colours()["four_heads"]
    got = wide.js(CARD % json.dumps("four_heads"))
    assert got["steps"] == len(want) == got["step"], got                 # it shows the newest step
    for k in range(1, len(want) + 1):                                    # scrub back through them
        got = _show_step(wide, "four_heads", k)
        assert got["step"] == k
        _same_card(got, {**want[k - 1], "tok": torch_side[0]}, colours, 0)
    # The bars reshape with the temperature, without running the model again.
    for t in (0.5, 2.0):
        got = _show_step(wide, "four_heads", 2, temperature=t)
        _same_card(got, {**want[1], "tok": torch_side[0]}, colours, t)
    assert wide.js("document.getElementById('demo').dataset.state") == "done"


@pytest.mark.parametrize("width", [1440, 390])
def test_compare_runs_the_three_models_side_by_side(width, wide, narrow, torch_side):
    p = wide if width == 1440 else narrow
    prompt = "the little cat looked at the big red ball and"
    _run_demo(p, prompt, 5, compare=True)
    cards = {name: p.js(CARD % json.dumps(name)) for name in ("mlp", "one_head", "four_heads")}
    colours = chapter3_colours()
    for name, card in cards.items():
        want = torch_steps(torch_side, name, prompt, 5)
        assert card and card["steps"] == len(want), (name, card)
        from trainer.tokenizer import detokenize
        assert card["continuation"] == detokenize([s["chosen"] for s in want if s["chosen"] != "<EOS>"]), name
        if name == "mlp":
            assert card["noAttention"] and card["heads"] == []
        else:
            _same_card(card, {**want[-1], "tok": torch_side[0]}, colours[name], 0)
    boxes = [cards[n]["box"] for n in ("mlp", "one_head", "four_heads")]
    if width == 1440:          # one row, left to right
        assert boxes[0][1] == boxes[1][1] == boxes[2][1] and boxes[0][0] < boxes[1][0] < boxes[2][0], boxes
    else:                      # one column
        assert boxes[0][1] < boxes[1][1] < boxes[2][1] and boxes[0][0] == boxes[1][0] == boxes[2][0], boxes
        got = _overflow(p)
        assert got["scrollWidth"] <= 390 and not got["out"], got


def busy_frame(path: Path) -> Path:
    """A 1280×720 frame as hard on a JPEG as any of the lesson's: the dark background with sixteen
    lines of twelve numbers each (the lesson's busiest frames, its tables, are lighter; their posters
    are 21–35 kB, this one's ~55 kB)."""
    from PIL import Image, ImageDraw, ImageFont
    rng = random.Random(1)
    frame = Image.new("RGB", (1280, 720), (19, 19, 28))
    draw = ImageDraw.Draw(frame)
    font = ImageFont.load_default(size=26)
    for y in range(30, 700, 44):
        draw.text((40, y), " ".join(f"{rng.uniform(-3, 3):.3f}" for _ in range(12)), fill=(230, 230, 240), font=font)
    frame.save(path)
    return path


@pytest.fixture(scope="module")
def heavy_site(tmp_path_factory) -> Path:
    """A page at least as heavy as the lesson's own (renders/index.html, 4 chapters, 309 spoken
    lines, 27 kB of their text): the lesson's 4 chapters and 21 scenes from lesson_build.catalog,
    each with 100 transcript lines of 110 characters (44 kB of text) and a poster cut by the
    pipeline's own thumbnail from busy_frame. Only the videos are tiny (they load as metadata)."""
    from lesson_build.catalog import CHAPTERS as LESSON
    from lesson_build.web import site

    out = tmp_path_factory.mktemp("web-heavy") / "renders"
    folder = out / "lesson" / "m"
    folder.mkdir(parents=True)
    frame = busy_frame(folder / "frame.png")
    rng = random.Random(2)
    words = "the head puts most of its weight on river and the rest spreads thin over others".split()

    def line(ch, i):
        text = f"{ch.title}, line {i + 1}:"
        while len(text) < 110:
            text += " " + rng.choice(words)
        return text[:110]
    rows = [_write_chapter(folder, ch, line=line, poster=frame) for ch in LESSON]
    assets = site.build(ROOT, out, log=lambda s: None)
    (out / "index.html").write_text(page.render_index(
        out / "index.html", series_title="A lesson-sized page", quality_label="720p30", chapters=rows,
        series_video=None, series_vtt=None, series_poster=None, series_note="not needed here", worksheet=None,
        generated="2026-01-01 00:00", web=assets), encoding="utf-8")
    return out


FETCHED = """(() => { const b = (e) => e.transferSize || e.encodedBodySize || 0;
  const res = performance.getEntriesByType('resource');
  return { total: b(performance.getEntriesByType('navigation')[0]) + res.reduce((s, e) => s + b(e), 0),
           names: res.map(e => e.name.split('/').pop()) }; })()"""


def test_a_first_visit_loads_under_half_a_megabyte_before_a_model_is_chosen(served, heavy_site):
    """On a page as heavy as the lesson's (heavy_site): the HTML, styles, scripts, the posters of the
    players near the screen, the demo's manifest and tokenizer, under 0.5 MB; no model, and no
    poster of a chapter far below until its player comes near the screen (then it is fetched)."""
    from lesson_build.browser import serve
    _, browser = served
    html = (heavy_site / "index.html").read_text(encoding="utf-8")
    assert html.count('data-poster="lesson/m/') == 3 and html.count(' poster="lesson/m/chapter1.jpg"') == 1
    assert "data:text/vtt" not in html                  # the subtitles are in the page once: the transcript
    with serve(heavy_site) as base:
        tab = browser.open(f"{base}/index.html", window=(1440, 900))         # a new context: a cold cache
        tab.wait_for("document.readyState === 'complete' && document.getElementById('explorer').dataset.ready === 'true'")
        tab.evaluate("document.getElementById('demo').scrollIntoView()")       # the demo fetches its tokenizer
        tab.wait_for("document.getElementById('demo').dataset.state === 'ready'", timeout=30)
        got = tab.evaluate(FETCHED)
        assert not [n for n in got["names"] if n.endswith(".bin")], got["names"]       # no model yet
        assert "tokenizer.json" in got["names"] and "manifest.json" in got["names"], got["names"]
        posters = [n for n in got["names"] if n.endswith(".jpg")]
        assert "chapter1.jpg" in posters and "chapter4.jpg" not in posters, posters     # the last is far below
        assert got["total"] < 500_000, got
        # Scrolled to chapter 4, its poster comes (and the video shows it).
        tab.evaluate("document.getElementById('chapter4').scrollIntoView()")
        tab.wait_for("performance.getEntriesByType('resource').some(e => e.name.endsWith('/chapter4.jpg'))", timeout=10)
        assert tab.evaluate("document.getElementById('video-chapter4').getAttribute('poster')") == "lesson/m/chapter4.jpg"


# ---------------------------------------------------------------- any word as the receiver

PICKED = """(() => { const root = document.getElementById('explorer'), out = document.getElementById('explorer-output');
  return { receiver: +out.dataset.receiver, prediction: document.getElementById('explorer-prediction').textContent,
    arcs: [...root.querySelectorAll('svg.arrows path.arc')].map(p => [+p.dataset.head, +p.dataset.source, +p.dataset.weight]),
    messages: [...root.querySelectorAll('[data-message]')].map(e => e.textContent),
    probs: Object.fromEntries([...root.querySelectorAll('[data-p]')].map(e => [e.dataset.p, e.textContent])),
    lit: [...root.querySelectorAll('.masked')].map(m => [...m.querySelectorAll('tr.receiver')].map(tr => +tr.dataset.row)),
    masked: [...root.querySelectorAll('.masked')].map(m => m.querySelectorAll('td.masked-cell').length),
    matrix: [...root.querySelectorAll('.masked')].map(m => [...m.querySelectorAll('tbody tr')].map(tr =>
      [...tr.querySelectorAll('td.w')].map(td => +td.dataset.weight))),
    oneLine: [...root.querySelectorAll('.masked tbody tr')].every(tr => new Set([...tr.children].map(c =>
      Math.round(c.getBoundingClientRect().top))).size === 1),
    focused: document.activeElement.tagName === 'BUTTON' ? document.activeElement.textContent : null };
})()"""


def test_any_word_can_be_the_receiver(wide):
    from lesson_data.display import fmt
    text = "She watched the boats and the ducks beside the river bank"
    words = text.lower().split()
    explore(wide, text)
    full = ws.compute_worksheet(text)
    n = len(words)
    # The masked matrices: every row of both heads, the future masked, the last row lit.
    got = wide.js(PICKED)
    assert got["receiver"] == n and got["lit"] == [[n], [n]] and got["masked"] == [n * (n - 1) // 2] * 2, got
    assert got["oneLine"], "a matrix row should be one line of cells" 
    for head, rows in zip(full.heads, got["matrix"]):
        assert [len(r) for r in rows] == list(range(1, n + 1))
        assert max(abs(a - b) for i, r in enumerate(rows) for a, b in zip(r, head.weights[i][:i + 1])) <= 1e-12
    for r, how in [(4, "token"), (2, "row"), (8, "token")]:      # 1-based positions ("boats", "watched", "beside")
        if how == "token":
            wide.js(f"(b => {{ b.focus(); b.click(); }})(document.querySelectorAll('#explorer-tokens .token')[{r - 1}])")
        else:
            wide.js(f"(b => {{ b.focus(); b.click(); }})(document.querySelector('.masked[data-head=\"2\"] button[data-pick=\"{r}\"]'))")
        got = wide.js(PICKED)
        # Attention is causal: position r of the sentence is what its first r words alone compute.
        alone = ws.compute_worksheet(" ".join(words[:r]))
        assert got["receiver"] == r and got["lit"] == [[r], [r]], got
        for head, mine in zip(alone.heads, full.heads):
            arcs = sorted((a for a in got["arcs"] if a[0] == head.index), key=lambda a: a[1])
            assert [a[1] for a in arcs] == list(range(1, r + 1))
            assert [a[2] for a in arcs] == pytest.approx(list(head.weights[-1]), abs=1e-12)
            assert [a[2] for a in arcs] == pytest.approx(list(mine.weights[r - 1][:r]), abs=1e-12)
        assert got["messages"] == [", ".join(fmt(x) for x in head.messages[-1]) for head in alone.heads]
        assert got["prediction"] == alone.mlp.prediction
        assert got["probs"] == {w: fmt(p) for w, p in zip(ws.VOCAB, alone.mlp.probabilities)}
        assert got["focused"] and words[r - 1] in got["focused"], got["focused"]   # the keyboard stays put


def test_the_explorer_link_carries_the_chosen_receiver(wide):
    text = "she watched the river and the boats"
    wide.goto(wide.base + "?" + urllib.parse.urlencode({"sentence": text}) + "#explorer")
    wide.js("(b => { b.focus(); b.click(); })(document.querySelectorAll('#explorer-tokens .token')[3])")
    href = wide.js("document.getElementById('explorer-link').getAttribute('href')")
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(href).query) == {"sentence": [text], "receiver": ["4"]}, href
    wide.goto(wide.base + href)
    got = wide.js(PICKED)
    assert got["receiver"] == 4 and got["lit"] == [[4], [4]], got
    assert wide.js(LINK_STATE)["message"] is None
    # A receiver past the sentence's end is a bad link: one message, the page's own start.
    wide.goto(wide.base + "?" + urllib.parse.urlencode({"sentence": text, "receiver": "8"}) + "#explorer")
    state = wide.js(LINK_STATE)
    assert state["message"] and "receiver" in state["message"] and state["input"] == page.RIVER, state


# ---------------------------------------------------------------- between the videos and the explorer

def test_worksheet_scenes_open_the_explorer_and_the_explorer_links_back_to_the_video(wide):
    wide.goto(wide.base)
    wide.js("window.sameDocument = true")
    tries = wide.js("[...document.querySelectorAll('a[data-try]')].map(a => [a.closest('section').id, a.dataset.try])")
    # chapter 2's worksheet scenes only, and one link for the three in a row that open the same sentence
    assert tries == [["chapter2", "river"]], tries
    assert wide.js("document.querySelector('#chapter2 a[data-try]').textContent").endswith("(scenes 5–11)")
    wide.js("document.querySelectorAll('#chapter2 a[data-try]')[0].click()")
    got = wide.js(LINK_STATE)
    assert got["sentence"] == "river" and got["input"] == ws.SENTENCES["river"], got
    # The link carries the preset's words (a ?sentence= is read literally), and no reload.
    assert wide.js("[window.sameDocument, location.search]") == [True, "?" + urllib.parse.urlencode({"sentence": ws.SENTENCES["river"]})]
    assert _in_view(wide, "explorer")
    # Each explained part links to the start of its scene in chapter 2 (scenes start at 0, 100, 200 s).
    links = wide.js("Object.fromEntries([...document.querySelectorAll('#explorer-output .watch-link a')].map(a => [a.dataset.part, a.getAttribute('href')]))")
    assert links == {"tokens": "#chapter2&t=0", "head1": "#chapter2&t=100", "arrows": "#chapter2&t=100",
                     "masked": "#chapter2&t=200"}, links        # no link for scenes this page lacks
    wide.js("document.querySelector('#explorer-output .watch-link a[data-part=\"masked\"]').click()")
    wide.tab.wait_for("Math.abs(document.getElementById('video-chapter2').currentTime - 200) < 0.01", timeout=20)
    assert _in_view(wide, "chapter2") and wide.js("window.sameDocument") is True


def test_every_explained_link_lands_in_its_own_scene(wide):
    wide.goto(wide.base)
    links = wide.js("""[...document.querySelectorAll('#explorer-output .watch-link a')].map(a => {
        const label = a.textContent.replace(/ \\([^)]*\\)$/, '');
        const scene = [...document.querySelectorAll('ol.scenes a[data-seek]')].find(s => s.textContent.startsWith(label));
        return { part: a.dataset.part, href: a.getAttribute('href'), label, start: scene ? parseFloat(scene.dataset.seek) : null }; })""")
    assert links and all(l["start"] is not None for l in links), links
    for link in links:
        t = float(link["href"].split("&t=")[1])
        assert t >= link["start"], link                                  # not rounded down into the scene before
        wide.js(f"document.querySelector('#explorer-output .watch-link a[data-part=\"{link['part']}\"]').click()")
        wide.tab.wait_for(f"Math.abs(document.getElementById('video-chapter2').currentTime - {t}) < 0.01", timeout=20)
        # the lit chip follows the seek on the player's own event: wait for this link's scene (the
        # chip of the link before is still lit for a moment on a loaded machine), then read it
        lit_now = "(document.querySelector('#chapter2 ol.scenes li.current') || {textContent: ''}).textContent.trim()"
        try:
            wide.tab.wait_for(f"{lit_now}.startsWith({json.dumps(link['label'])})", timeout=20)
        except Exception:
            pass                                      # the assertion below says what is lit instead
        lit = wide.js(lit_now)
        assert lit.startswith(link["label"]), (lit, link)
    # At a scene's exact start (where its scene link seeks), the chapter's "Link to this moment"
    # is no earlier than that start either.
    for scene in wide.js("[...document.querySelectorAll('#chapter2 ol.scenes a[data-seek]')].map(a => [a.textContent, parseFloat(a.dataset.seek)])"):
        label, start = scene
        wide.js(f"(async () => {{ const v = document.getElementById('video-chapter2'); v.pause();"
                f" const seeked = new Promise(r => v.addEventListener('seeked', r, {{ once: true }}));"
                f" v.currentTime = {start}; await seeked; }})()")
        href = wide.js("document.querySelector('#chapter2 a[data-moment]').getAttribute('href')")
        assert float(href.split("&t=")[1]) >= start, (label, start, href)


def test_no_scene_is_lit_until_its_video_plays_or_moves(wide):
    wide.goto(wide.base)
    wide.tab.wait_for("[...document.querySelectorAll('video')].every(v => v.readyState >= 1)")
    lit = "[...document.querySelectorAll('ol.scenes li.current, nav.toc li.current')].map(li => li.textContent.trim())"
    assert wide.js(lit) == []
    assert wide.js("document.querySelectorAll('.transcript button.cue.current').length") == 0
    wide.js("""(async () => { const v = document.getElementById('video-chapter1');
      const seeked = new Promise(r => v.addEventListener('seeked', r, { once: true })); v.currentTime = 100; await seeked; })()""")
    assert [t.split(" 1:1")[0] for t in wide.js(lit)] == ["Scene 2 · Alpha scene 2"]      # scene 2 runs 74.999-149.999 s
    assert wide.js("[...document.querySelectorAll('.transcript button.cue.current')].map(b => +b.dataset.start)") == [99]


def _luminance(colour: str) -> float:
    import re
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", colour)[:3])
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_candidate_words_stand_out_and_the_axes_are_explained(wide):
    wide.goto(wide.base)
    got = wide.js("""(() => { const b = [...document.querySelectorAll('#explorer-vocab button')];
      const s = (el) => getComputedStyle(el);
      return { candidates: b.filter(x => x.classList.contains('candidate')).map(x => x.textContent),
               border: s(b.find(x => x.classList.contains('candidate'))).borderTopColor,
               plain: s(b.find(x => !x.classList.contains('candidate'))).borderTopColor,
               background: s(b[0]).backgroundColor,
               guide: (document.querySelector('#explorer .reading-guide') || {}).textContent || '',
               demo: document.getElementById('demo').textContent }; })()""")
    assert got["candidates"] == list(ws.CANDIDATES)
    hi, lo = sorted([_luminance(got["border"]), _luminance(got["background"])], reverse=True)
    assert (hi + 0.05) / (lo + 0.05) >= 3, got                     # visible as a mark, not only as a hue
    assert all(axis in got["guide"] for axis in ws.AXES) and "k¹ water" in got["guide"] and "masked" in got["guide"]
    assert "<BOS>" in got["demo"] and "Temperature" in got["demo"] and "most probable" in got["demo"]


# ---------------------------------------------------------------- step by step

def test_the_explorer_walks_through_the_receivers_computation(wide):
    from lesson_data.display import fmt
    text = "She deposited the cheque at the bank and the teller"
    explore(wide, text)
    wide.js("document.querySelectorAll('#explorer-tokens .token')[7].click()")        # "and", position 8
    sheet, r = ws.compute_worksheet(text), 7
    alone = ws.compute_worksheet(" ".join(text.lower().split()[:r + 1]))
    steps = []
    for k in range(7):
        steps.append(wide.js("""(() => { const w = document.getElementById('explorer-walk');
          return { step: +w.dataset.step, title: w.querySelector('.walk-title').textContent, text: w.querySelector('.walk-text').textContent,
                   lit: [...document.querySelectorAll('#explorer-output .walk-lit')].map(e => e.dataset.part),
                   next: !w.querySelector('.walk-next').disabled }; })()"""))
        wide.js("document.querySelector('#explorer-walk .walk-next').click()")
    assert [s["step"] for s in steps] == list(range(1, 8)) and [s["next"] for s in steps] == [True] * 6 + [False]
    assert all(len(s["lit"]) == 1 for s in steps), steps
    titles = [s["title"] for s in steps]
    assert titles == ["1. q·k", "2. ÷ √2", "3. softmax", "4. weighted sum", "5. W_O", "6. E′", "7. prediction"]
    for head in sheet.heads:                      # each head's strongest source, its numbers at every stage
        j = max(range(r + 1), key=lambda k: head.weights[r][k])
        assert fmt(head.scores[r][j]) in steps[0]["text"] and f'"{sheet.tokens[j]}"' in steps[0]["text"]
        assert f"{fmt(head.scores[r][j])} ÷ {fmt(head.scale)} = {fmt(head.scaled[r][j])}" in steps[1]["text"]
        assert fmt(head.weights[r][j]) in steps[2]["text"]
        assert "[" + ", ".join(fmt(x) for x in head.messages[r]) + "]" in steps[3]["text"]
    assert "[" + ", ".join(fmt(x) for x in sheet.delta_E[r]) + "]" in steps[4]["text"]
    assert "[" + ", ".join(fmt(x) for x in sheet.E_prime[r]) + "]" in steps[5]["text"]
    assert f'"{alone.mlp.prediction}"' in steps[6]["text"] and fmt(max(alone.mlp.probabilities)) in steps[6]["text"]


def test_the_walk_says_when_every_source_ties(wide):
    explore(wide, "she watched the boats and the ducks")
    wide.js("document.querySelectorAll('#explorer-tokens .token')[3].click()")      # "boats": both heads' q is 0
    sheet = ws.compute_worksheet("she watched the boats and the ducks")
    assert all(abs(w - 0.25) < 1e-12 for head in sheet.heads for w in head.weights[3][:4])
    first = wide.js("document.querySelector('#explorer-walk .walk-text').textContent")
    assert "every source the same" in first and "strongest" not in first, first


# ---------------------------------------------------------------- punctuation in a sentence

NOTE = """(() => { const n = document.getElementById('explorer-note'), m = document.getElementById('explorer-message');
  return { note: n.hidden || !n.getClientRects().length ? null : n.textContent, error: m.hidden ? null : m.textContent,
           sentence: document.getElementById('explorer').dataset.sentence ?? null,
           prediction: (document.getElementById('explorer-prediction') || {}).textContent ?? null,
           link: document.getElementById('explorer-link').getAttribute('href') }; })()"""


def test_punctuation_in_a_sentence_is_removed_and_said_once(wide):
    sheet = ws.compute_worksheet("river")
    explore(wide, "The fisherman, sat beside the river bank; and watched the.")
    got = wide.js(NOTE)
    assert got["error"] is None and got["note"] == "Punctuation removed: , ; .", got
    assert got["sentence"] == " ".join(sheet.tokens) and got["prediction"] == sheet.mlp.prediction, got
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(got["link"]).query)["sentence"] == [ws.SENTENCES["river"]], got
    explore(wide, "she watched the river")                          # none: no note
    assert wide.js(NOTE)["note"] is None
    # A link may carry punctuation too (markup stays a bad link: BAD_LINKS).
    wide.goto(wide.base + "?" + urllib.parse.urlencode({"sentence": "She watched the river!"}) + "#explorer")
    got = wide.js(NOTE)
    assert got["note"] == "Punctuation removed: !" and got["error"] is None and wide.js(LINK_STATE)["message"] is None, got
    assert got["prediction"] == ws.compute_worksheet("she watched the river").mlp.prediction


# ---------------------------------------------------------------- the videos' notation

def style_scripts() -> tuple[dict, dict]:
    """scenes/style.py's superscript and subscript maps (_SUP, _SUB), read without Manim."""
    tree = ast.parse((ROOT / "scenes" / "style.py").read_text(encoding="utf-8"))
    maps = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in ("_SUP", "_SUB"):
            a, b = (arg.value for arg in node.value.args)
            maps[node.targets[0].id] = dict(zip(a, b))
    return maps["_SUP"], maps["_SUB"]


def test_the_explorer_writes_heads_queries_messages_and_w_o_as_the_videos_do(wide):
    SUP, SUB = style_scripts()
    sup = lambda x: "".join(SUP[c] for c in str(x))           # noqa: E731
    sub = lambda x: "".join(SUB[c] for c in str(x))           # noqa: E731
    explore(wide, page.RIVER)
    n = len(page.RIVER.split())
    got = wide.js("""(() => { const out = document.getElementById('explorer-output'), t = (e) => e ? e.textContent : null;
      return { queries: [...out.querySelectorAll('.panel[data-head] .query')].map(t),
               heads: [...out.querySelectorAll('.panel[data-part^="head"] table thead th')].map(t),
               messages: [...out.querySelectorAll('.panel[data-part^="head"] > p')].map(t).filter(x => x.startsWith('Message')),
               masked: [...out.querySelectorAll('.masked h3')].map(t),
               joined: [...out.querySelectorAll('[data-part="joined"] tbody th')].map(t),
               all: document.getElementById('explorer').textContent }; })()""")
    for k in (1, 2):
        q = f"q{sup(k)}{sub(n)} = e{sub(n)} W_Q{sup(k)}"                 # the scenes' q¹₁₀ and W_Q¹
        assert any(q in line for line in got["queries"]), (q, got["queries"])
        alpha = f"α{sup(k)}{sub(n)},ⱼ"                                  # scenes' alpha_name
        assert alpha in got["heads"] and f"k{sup(k)} {ws.AXES[0 if k == 1 else 2]}" in got["heads"], got["heads"]
        assert any(f"m{sup(k)}{sub(n)} = Σⱼ {alpha} v{sup(k)}ⱼ" in m for m in got["messages"]), got["messages"]
        assert any(h.startswith(f"A{sup(k)}") for h in got["masked"]), got["masked"]
    assert got["joined"] == [f"[m{sup(1)}{sub(n)} | m{sup(2)}{sub(n)}]", f"Δe{sub(n)}", f"e{sub(n)}", f"e′{sub(n)}"], got["joined"]
    assert "H¹" not in got["all"] and "concat(" not in got["all"] and "k.a" not in got["all"]


# ---------------------------------------------------------------- the parameters

def test_the_explorer_shows_every_parameter_matrix_from_the_data_layer(wide):
    from lesson_data.display import fmt
    from lesson_data.projections import copied_axes
    wide.goto(wide.base + "#explorer")
    got = wide.js("""Object.fromEntries([...document.querySelectorAll('#explorer-parameters [data-parameter]')].map(p => [p.dataset.parameter, {
        cols: [...p.querySelectorAll('thead th')].slice(1).map(t => t.textContent),
        rows: [...p.querySelectorAll('tbody tr')].map(tr => [tr.children[0].textContent, ...[...tr.querySelectorAll('td')].map(td => td.textContent)]),
        shown: p.getClientRects().length > 0 }]))""")
    SUP, _ = style_scripts()
    names = [list(copied_axes(ws.W_K1)), list(copied_axes(ws.W_K2))]
    want = {}
    for k, (q, key, v) in enumerate([(ws.W_Q1, ws.W_K1, ws.W_V1), (ws.W_Q2, ws.W_K2, ws.W_V2)], start=1):
        for letter, m in zip("QKV", (q, key, v)):
            want[f"W_{letter}{SUP[str(k)]}"] = (names[k - 1], list(ws.AXES), m)
    want["W_O"] = (list(ws.AXES), [f"m{SUP[str(k)]} {c}" for k in (1, 2) for c in names[k - 1]], ws.W_O)
    assert set(got) == set(want), list(got)
    for name, (cols, rows, m) in want.items():
        assert got[name]["shown"] and got[name]["cols"] == cols, (name, got[name])
        assert got[name]["rows"] == [[label, *(fmt(x) for x in row)] for label, row in zip(rows, m)], (name, got[name])
    import re                                     # no numbers typed into the page's code: they come from Python
    assert not re.search(r"\[\s*-?\d+\.\d+\s*,", (ROOT / "lesson_build" / "web" / "explorer.mjs").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the keyboard on the arrows

TAB_WALK = """(() => { const a = document.activeElement;
  return a && a.closest && a.closest('svg.arrows') ? [+a.dataset.head, +a.dataset.source] : [a && a.tagName, a && a.id]; })()"""
RING = """(() => { const a = document.activeElement, ring = a.previousElementSibling;
  if (!ring || !ring.classList.contains('focus-ring')) return null;
  const s = getComputedStyle(ring);
  return { d: ring.getAttribute('d') === a.getAttribute('d'), stroke: s.stroke, opacity: +s.strokeOpacity,
           extra: parseFloat(ring.getAttribute('stroke-width')) - parseFloat(a.getAttribute('stroke-width')),
           rings: document.querySelectorAll('.focus-ring').length }; })()"""


def test_the_arrows_take_the_tab_key_left_to_right_with_a_strong_focus_ring(wide):
    t = theme()
    text = "she watched the boats and the ducks"
    explore(wide, text)
    n = len(text.split())
    wide.js("document.querySelector('#explorer svg.arrows path.arc[data-head=\"1\"][data-source=\"1\"]').focus()")
    order = [wide.js(TAB_WALK)]
    ring = wide.js(RING)
    for _ in range(2 * n - 1):
        wide.key("Tab")
        order.append(wide.js(TAB_WALK))
    assert order == [[k, j] for k in (1, 2) for j in range(1, n + 1)], order
    # The focused arrow has a ring: its own path, 3 px wider each side, in the receiver's yellow.
    assert ring and ring["d"] and ring["stroke"] == rgb(t["receiver"]) and ring["opacity"] == 1 and ring["extra"] >= 6, ring
    assert wide.js(RING)["rings"] == 1                                    # one ring: the last focused arrow's
    wide.key("Tab")                                                      # out of the diagram: no ring left
    assert wide.js("document.querySelectorAll('.focus-ring').length") == 0


# ---------------------------------------------------------------- the demo's diagram

# True when no two labels of an svg that share a line (the same y) overlap: every one whole and apart.
APART = """((svg) => { const rows = new Map();
  for (const t of svg.querySelectorAll('text')) { const y = t.getAttribute('y'), r = t.getBoundingClientRect();
    if (!rows.has(y)) rows.set(y, []); rows.get(y).push([r.left, r.right]); }
  return [...rows.values()].every(xs => xs.sort((a, b) => a[0] - b[0]).every((x, i) => i === 0 || x[0] >= xs[i - 1][1] - 0.5)); })"""

DIAGRAM = """(() => [...document.querySelectorAll('#demo-results .head-view')].map(v => {
  const d = v.querySelector('.diagram'), svg = d.querySelector('svg'), box = d.getBoundingClientRect(), s = svg.getBoundingClientRect();
  const labels = [...svg.querySelectorAll('text.tok')].map(t => { const r = t.getBoundingClientRect();
    return { text: t.textContent, left: r.left, right: r.right, receiver: t.classList.contains('receiver') }; });
  const rec = labels.find(l => l.receiver);
  return { read: [...v.querySelectorAll('.heat .cell')].map(c => c.textContent), labels: labels.map(l => l.text),
    apart: APART(svg), inside: labels.every(l => l.left >= s.left && l.right <= s.right),
    receiverShown: rec.left >= box.left - 0.5 && rec.right <= box.right + 0.5, overflows: d.scrollWidth > d.clientWidth + 1,
    hint: !v.querySelector('.scroll-hint').hidden, pageX: scrollX,
    tabOrder: [...svg.querySelectorAll('[tabindex]')].map(a => +a.dataset.source) }; }))()""".replace("APART", APART)


@pytest.mark.parametrize("width", [1440, 390])
def test_the_demos_diagram_labels_every_token_and_opens_on_the_receiver(width, wide, narrow):
    p = wide if width == 1440 else narrow
    prompt = "Once upon a time, there was a little girl named Lily. She loved to play outside with her big, friendly dog."
    _run_demo(p, prompt, 2)
    views = p.js(DIAGRAM)
    assert len(views) == 4
    for v in views:
        assert v["labels"] == v["read"] and len(v["labels"]) > 20, v      # every token read, by its whole name
        assert v["apart"] and v["inside"], v                               # none overlapping, none cut at an edge
        assert v["receiverShown"] and v["pageX"] == 0, v                   # the receiver in view; the page not moved
        assert not v["overflows"] and not v["hint"], v                     # wrapped into lines: no sideways scroll
        assert v["tabOrder"] == sorted(v["tabOrder"]) and v["tabOrder"], v  # Tab goes left to right


def test_the_explorers_diagram_shows_the_receiver_on_a_phone(wide, narrow):
    for p, overflows in ((narrow, False), (wide, False)):
        explore(p, page.RIVER)
        got = p.js("""(() => { const d = document.querySelector('#explorer .diagram'), box = d.getBoundingClientRect();
          const r = d.querySelector('text.tok.receiver').getBoundingClientRect();
          return { shown: r.left >= box.left - 0.5 && r.right <= box.right + 0.5, overflows: d.scrollWidth > d.clientWidth + 1,
                   hint: !d.nextElementSibling.hidden, pageX: scrollX }; })()""")
        assert got == {"shown": True, "overflows": overflows, "hint": overflows, "pageX": 0}, (p.base, got)


# ---------------------------------------------------------------- the arrows on a phone

FITS = """(() => [...document.querySelectorAll(%s)].map(d => {
  const svg = d.querySelector('svg.arrows'), vb = svg.viewBox.baseVal, s = svg.getBoundingClientRect(), box = d.getBoundingClientRect();
  const rec = svg.querySelector('text.tok.receiver').getBoundingClientRect();
  return { scrolls: d.scrollWidth > d.clientWidth, inside: s.left >= box.left - 0.5 && s.right <= box.right + 0.5,
    scale: s.width / vb.width, apart: APART(svg), tokens: [...svg.querySelectorAll('text.tok')].map(t => t.textContent),
    receiverShown: rec.left >= box.left - 0.5 && rec.right <= box.right + 0.5,
    arcs: [...svg.querySelectorAll('path.arc')].map(a => [+a.dataset.weight, parseFloat(a.getAttribute('stroke-width')) * s.width / vb.width]) };
}))()""".replace("APART", APART)


def _one_weight_one_width(arcs) -> list:
    """The arcs not drawn 14 px wide per unit of weight (README: "14 px of stroke for a weight of
    1"; near-zero weights are 0.6 px hairlines)."""
    return [(w, px) for w, px in arcs if abs(px - max(14 * w, 0.6)) > 0.006]


def test_no_arrow_diagram_scrolls_sideways_inside_its_box_at_390_px(narrow):
    """On a phone the explorer's and the demo's arrows wrap into lines that fit their box (no
    sideways scroll inside it), at the one scale: a weight of w is 14·w px wide, every label at its
    size, apart from its neighbours."""
    longest = " ".join(["fisherman", "deposited"] * 10)                 # 20 of the longest words
    for text in [page.RIVER, sentence(20, 5), longest]:
        explore(narrow, text)
        n = len(text.split())
        (got,) = narrow.js(FITS % json.dumps("#explorer .diagram"))
        assert not got["scrolls"] and got["inside"] and got["receiverShown"] and got["apart"], (text, got)
        assert abs(got["scale"] - 1) < 1e-3 and len(got["arcs"]) == 2 * n and not _one_weight_one_width(got["arcs"]), (text, got)
        assert got["tokens"] == text.lower().split(), got
    prompt = " ".join(["Once upon a time, there was a little girl named Lily. She loved to play outside."] * 4)
    _run_demo(narrow, prompt, 2, compare=True)
    views = narrow.js(FITS % json.dumps("#demo-results .diagram"))
    assert len(views) == 5, views                                       # one head and four heads
    for got in views:
        assert not got["scrolls"] and got["inside"] and got["receiverShown"] and got["apart"], got
        assert abs(got["scale"] - 1) < 1e-3 and len(got["tokens"]) == 64 and not _one_weight_one_width(got["arcs"]), got


# ---------------------------------------------------------------- a link runs the demo

RUNS = """window.__runs = 0;   // each run of the demo starts by saying "Starting…" (demo.mjs generate)
new MutationObserver((records) => { for (const r of records) if (r.target.id === 'demo-status')
  for (const n of r.addedNodes) if (n.textContent.startsWith('Starting')) window.__runs++; })
  .observe(document, { childList: true, subtree: true });"""


def _node_continuation(ui_site: Path, model: str, prompt: str, temperature: str, seed: str, tokens: str) -> str:
    """What `node generate.mjs` writes for these settings, in its own process."""
    import shutil
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    proc = subprocess.run(["node", str(ROOT / "lesson_build" / "web" / "generate.mjs"), "--model", model, "--prompt", prompt,
                           "--temperature", temperature, "--seed", seed, "--tokens", tokens, "--json",
                           "--weights", str(ui_site / "web" / "models")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["continuation"]


def test_a_link_to_a_run_runs_it_once_as_it_was_and_compare_too(served, ui_site):
    """A link to a demo run runs it once when opened, to the same words (the seed: what node's
    generate.mjs gives for those settings); a Compare's link carries compare=1, and opens to the three
    models side by side, each with its own words for that seed."""
    base, browser = served
    tab = browser.open("about:blank", window=(1440, 900))
    tab.page.add_init_script(RUNS)
    p = Page(browser, tab)
    run = {"prompt": "Once upon a time, a girl named Lily saw a big dog", "model": "one_head", "temperature": "0.7",
           "seed": "42", "tokens": "9"}
    state = """(() => ({ runs: window.__runs, state: document.getElementById('demo').dataset.state,
      single: document.getElementById('demo-output').hidden ? null : document.getElementById('demo-output').dataset.continuation ?? null,
      cards: Object.fromEntries([...document.querySelectorAll('#demo-results .model-card')].map(c => [c.dataset.model, c.dataset.continuation ?? null])),
      link: new URLSearchParams(document.getElementById('demo-link').search).get('compare') }))()"""
    try:
        for _ in range(2):                                   # opened twice: the same words each time
            p.goto(base + "?" + urllib.parse.urlencode(run) + "#demo")
            tab.wait_for("['done', 'error'].includes(document.getElementById('demo').dataset.state)", timeout=60)
            got = p.js(state)
            want = _node_continuation(ui_site, run["model"], run["prompt"], run["temperature"], run["seed"], run["tokens"])
            assert got == {"runs": 1, "state": "done", "single": want, "cards": {"one_head": want}, "link": None}, got
        # Compare on the page: its link carries it ...
        p.js("document.getElementById('demo-compare').click()")
        tab.wait_for("document.getElementById('demo').dataset.state === 'done' && window.__runs === 2", timeout=60)
        href = p.js("document.getElementById('demo-link').getAttribute('href')")
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(href).query)["compare"] == ["1"], href
        # ... and the link opens to it, run once.
        p.goto(base + href)
        tab.wait_for("['done', 'error'].includes(document.getElementById('demo').dataset.state)", timeout=90)
        got = p.js(state)
        want = {name: _node_continuation(ui_site, name, run["prompt"], run["temperature"], run["seed"], run["tokens"])
                for name in ("mlp", "one_head", "four_heads")}
        assert got == {"runs": 1, "state": "done", "single": None, "cards": want, "link": "1"}, got
        # Generate (one model) again: its link is a plain run.
        p.js("document.getElementById('demo-form').requestSubmit()")
        tab.wait_for("document.getElementById('demo').dataset.state === 'done' && window.__runs === 2", timeout=60)
        assert p.js(state)["link"] is None
        assert tab.console_errors() == []
    finally:
        tab.page.context.close()


# ---------------------------------------------------------------- what the demo shows of a prompt

SEEN = """(() => { const note = (id) => { const n = document.getElementById(id); return n.hidden ? null : n.textContent; };
  return { chips: [...document.querySelectorAll('#demo-seen .token')].map(c => [c.textContent, c.classList.contains('outside'),
             +getComputedStyle(c).opacity]),
           window: note('demo-window-note'), dropped: note('demo-dropped-note') }; })()"""


def _set_prompt(p: Page, prompt: str) -> dict:
    p.js("document.getElementById('demo').scrollIntoView()")
    p.tab.wait_for("['ready', 'done'].includes(document.getElementById('demo').dataset.state)", timeout=30)
    p.js(f"(f => {{ f.value = {json.dumps(prompt)}; f.dispatchEvent(new Event('input', {{ bubbles: true }})); }})"
         "(document.getElementById('demo-prompt'))")
    return p.js(SEEN)


def test_the_continuation_joins_the_prompt_as_text_does(wide, torch_side):
    """No space before punctuation where the continuation meets the prompt: "… her dog" + "." reads
    "… her dog.", not "… her dog ." (the four-head model's greedy words, from torch), alone and in Compare."""
    from trainer.tokenizer import detokenize
    prompt = "She loved to play with her dog"
    want = detokenize([s["chosen"] for s in torch_steps(torch_side, "four_heads", prompt, 4) if s["chosen"] != "<EOS>"])
    assert want.startswith("."), want                     # what this test is about: punctuation first
    _run_demo(wide, prompt, 4)
    assert wide.js("document.getElementById('demo-output').textContent") == prompt + want
    _run_demo(wide, prompt, 4, compare=True)
    for name in ("mlp", "one_head", "four_heads"):
        cont = detokenize([s["chosen"] for s in torch_steps(torch_side, name, prompt, 4) if s["chosen"] != "<EOS>"])
        shown = wide.js(f"document.querySelector('#demo-results .model-card[data-model=\"{name}\"] .continuation').textContent")
        assert shown == prompt + ("" if cont[:1] in ".,!?;:" else " ") + cont, (name, shown, cont)


def test_letters_outside_the_vocabularys_alphabet_are_named_where_they_go(wide, torch_side):
    """The tokenizer drops é, ü, ß without a trace (word characters outside a-z): the demo names
    them under what the model reads; tokenizers' own normalizer and pre-tokenizer say which."""
    from tests.test_web_models import _dropped_by_tokenizers
    tok, _ = torch_side
    wide.goto(wide.base + "#demo")
    for prompt in ["Lily went to the café with Jürgen and Strauß", "The naïve fox's résumé_"]:
        dropped = _dropped_by_tokenizers(tok, prompt)
        assert dropped, prompt
        got = _set_prompt(wide, prompt)
        assert got["dropped"] == "Not in the vocabulary's alphabet, removed: " + " ".join(dropped), got
    assert _set_prompt(wide, "Lily went to the cafe with Jurgen")["dropped"] is None


def test_the_tokens_before_the_models_window_are_greyed(wide, torch_side):
    """A prompt longer than the window: the tokens the model does not read are greyed, with a note
    that it reads only the last 64 tokens; the rest are exactly the tokens its first step reads."""
    from trainer.tokenizer import encode
    tok, _ = torch_side
    checkpoints = json.loads((ROOT / "lesson_data" / "exports" / "checkpoints" / "manifest.json").read_text())
    context = checkpoints["models"]["four_heads"]["config"]["context"]
    prompt = " ".join(["The big red ball rolled down the hill."] * 10)
    total = 1 + len(encode(tok, prompt))                   # <BOS> and the prompt's tokens
    assert total > context + 10
    wide.goto(wide.base + "#demo")
    got = _set_prompt(wide, prompt)
    assert len(got["chips"]) == total, got
    assert [outside for _, outside, _ in got["chips"]] == [True] * (total - context) + [False] * context, got
    assert all(op < 0.75 for _, out, op in got["chips"] if out) and all(op == 1 for _, out, op in got["chips"] if not out)
    assert got["window"] and f"reads only the last {context} tokens" in got["window"], got
    _run_demo(wide, prompt, 1)
    read = wide.js("[...document.querySelector('#demo-results .head-view .heat').children].map(c => c.textContent)")
    assert read == [t for t, outside, _ in got["chips"] if not outside]
    short = _set_prompt(wide, "Once upon a time")
    assert short["window"] is None and not any(outside for _, outside, _ in short["chips"]), short


# ---------------------------------------------------------------- which scene is which

def _clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _catalog(p: Page) -> None:
    p.goto(p.base.rsplit("/", 1)[0] + "/catalog.html")


WATCH_LINKS = """[...document.querySelectorAll('#explorer-output .watch-link a')].map(a => {
  const m = a.textContent.match(/^(.*) \\((\\d+:\\d\\d)\\)$/); return [a.dataset.part, m[1], m[2], a.getAttribute('href')]; })"""


def test_a_scene_starts_at_the_same_second_in_its_chapter_and_in_the_explorer(wide):
    """The chapter's scene chips and the explorer's "Explained in the video" links name one second
    for a scene: the first whole second of the chapter at which it is on screen (its start from
    the chapter's marks, k × 300/13 s here, rounded up), and the explorer's link goes there."""
    ch2 = catalog_chapter2()
    starts = {f"Scene {s.number} · {s.title}": t for s, t in zip(ch2.scenes, catalog_starts(ch2))}
    second = {label: -(-t.numerator // t.denominator) for label, t in starts.items()}     # the ceiling
    _catalog(wide)
    chips = wide.js("""[...document.querySelectorAll('#chapter2 ol.scenes a[data-seek]')].map(a =>
        [a.firstChild.textContent.trim(), a.querySelector('.meta').textContent, parseFloat(a.dataset.seek)])""")
    assert [label for label, _, _ in chips] == list(starts), chips
    for label, clock, seek in chips:
        assert clock == _clock(second[label]), (label, clock, float(starts[label]))
        assert starts[label] <= Fraction(str(seek)) < starts[label] + Fraction(1, 1000), (label, seek)
    links = wide.js(WATCH_LINKS)
    for _ in range(6):                                    # and the walk's steps' links
        wide.js("document.querySelector('#explorer-walk .walk-next').click()")
        links += wide.js(WATCH_LINKS)
    assert {part for part, *_ in links} >= {"tokens", "head1", "head2", "arrows", "message", "masked", "joined", "residual",
                                            "prediction"}
    for part, label, at, href in links:
        assert at == _clock(second[label]) and href == f"#chapter2&t={second[label]}", (part, label, at, href)
        assert at == dict((c[0], c[1]) for c in chips)[label]


def _beat_captions(entry) -> list[str]:
    """The text of every beat's caption in a scene's class (the literal parts of `self.beat(...)`'s
    first argument, an f-string's fields left out), read from its file without Manim."""
    tree = ast.parse((ROOT / entry.file).read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == entry.name)
    out = []
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "beat" and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant):
                out.append(arg.value)
            elif isinstance(arg, ast.JoinedStr):
                out.append("".join(v.value if isinstance(v, ast.Constant) else "…" for v in arg.values))
    return out


# Each step of the explorer's walk and what the scene it cites says in a beat.
WALK = [("q·k", "score"), ("÷ √", "√"), ("softmax", "softmax"), ("weighted sum", "builds its message"), ("W_O", "W_O"),
        ("E′", "E′ = E + ΔE"), ("prediction", "most probable next word")]


def test_every_step_of_the_walk_cites_a_scene_that_explains_it(wide):
    """Each of the walk's seven steps links to a scene of the catalog whose beats say that step
    (step 6, e′ = e + Δe: the scene whose beat says E′ = E + ΔE, not W_O's)."""
    by_label = {f"Scene {s.number} · {s.title}": s for s in catalog_chapter2().scenes}
    _catalog(wide)
    cited = []
    for _ in WALK:
        cited.append(wide.js("""(() => { const w = document.getElementById('explorer-walk'), a = w.querySelector('.walk-watch a');
          return [w.querySelector('.walk-title').textContent, a ? a.textContent.replace(/ \\([^)]*\\)$/, '') : null]; })()"""))
        wide.js("document.querySelector('#explorer-walk .walk-next').click()")
    for (title, label), (step, phrase) in zip(cited, WALK):
        assert step in title and label in by_label, (title, label)
        assert any(phrase in c for c in _beat_captions(by_label[label])), (title, label, phrase)


def test_each_worksheet_scene_tries_its_own_sentence_or_says_whose_it_is(wide):
    """A worksheet scene's link to the explorer opens the scene's own sentence when it has one
    (the catalog's "The cheque sentence"), and otherwise the worksheet's sentence, saying so: the
    same words under two scenes are the same link, and they read as such."""
    by_label = {f"Scene {s.number} · {s.title}": s for s in catalog_chapter2().scenes}
    worksheet = ws.SENTENCES.get(ws.sentence_from_env(), ws.sentence_from_env())
    _catalog(wide)
    links = wide.js("""[...document.querySelectorAll('#chapter2 ol.scenes li')].filter(li => li.querySelector('a[data-try]')).map(li => {
        const a = li.querySelector('a[data-try]');
        return [li.querySelector('a[data-seek]').firstChild.textContent.trim(), a.textContent, a.title,
                new URLSearchParams(a.search).get('sentence')]; })""")
    # One link per run of scenes in a row that open the same sentence, beside its first scene and
    # naming the run (the same link under nine scenes in a row was noise).
    opens = [(s.number, ws.SENTENCES.get(page.TRY_IT[s.name] or ws.sentence_from_env(), page.TRY_IT[s.name] or ws.sentence_from_env())
              if s.name in page.TRY_IT else None) for s in catalog_chapter2().scenes]
    runs, before = [], None
    for number, words in opens:                       # runs of scenes listed one after another
        if words is not None and words == before:
            runs[-1][1] = number
        elif words is not None:
            runs.append([number, number, words])
        before = words
    assert [label.split(" · ")[0] for label, *_ in links] == [f"Scene {a}" for a, _, _ in runs], (links, runs)
    for (label, text, _, words), (a, b, want) in zip(links, runs):
        assert words == want and (text.endswith(f"(scenes {a}–{b})") if b > a else "scenes" not in text), (label, text)
    owns = 0
    for label, text, title, words in links:
        own = [name for name in ws.SENTENCES if name in by_label[label].title.lower()]
        if own:
            owns += 1
            assert words == ws.SENTENCES[own[0]] and own[0] in text and "worksheet" not in text, (label, text, words)
        else:
            assert words == worksheet and "worksheet sentence" in text, (label, text, words)
        assert words in title, (label, title)
    assert owns == 1
    assert len({text for _, text, _, _ in links}) == len({words for *_, words in links})     # one label per sentence
    wide.js("[...document.querySelectorAll('#chapter2 a[data-try]')].find(a => a.textContent.includes('cheque')).click()")
    got = wide.js(LINK_STATE)
    assert got["sentence"] == "cheque" and got["input"] == ws.SENTENCES["cheque"], got


# ---------------------------------------------------------------- the fourth page review's findings

def _page_scroll(p: Page) -> dict:
    return p.js("({ client: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth,"
                " inner: innerWidth })")


@pytest.mark.parametrize("width", [1440, 390])
def test_a_long_unknown_word_does_not_make_the_page_scroll_sideways(width, wide, narrow):
    """The fourth page reviewer typed a 3,000-letter word (and opened ?sentence= with a 299-letter
    one): the message echoed it whole, on one line, and the page scrolled 28,552 px sideways."""
    p = wide if width == 1440 else narrow
    for how, length in [("typed", 3000), ("linked", 299)]:
        word = "x" * length
        if how == "typed":
            p.goto(p.base)
            explore(p, word)
        else:
            p.goto(p.base + "?sentence=" + word + "#explorer")
        got = p.js("""(() => { const m = document.getElementById('explorer-message');
            return { hidden: m.hidden, text: m.textContent, right: m.getBoundingClientRect().right }; })()""")
        assert not got["hidden"] and "unknown word" in got["text"], (how, got)
        # the word is echoed shortened, with its length, as the link messages do (at most 40 letters)
        assert f"{length:,} characters" in got["text"] and "x" * 41 not in got["text"], (how, got["text"][:200])
        sizes = _page_scroll(p)
        assert sizes["scroll"] <= sizes["client"] == width, (how, sizes)
        assert got["right"] <= width, (how, got["right"])
    # A prompt made of one long unknown word: its <UNK> note names the word, wrapped.
    p.goto(p.base + "#demo")
    p.tab.wait_for("document.getElementById('demo').dataset.state === 'ready'", timeout=30)
    p.js("""(() => { const f = document.getElementById('demo-prompt'); f.value = 'once ' + 'q'.repeat(1990);
        f.dispatchEvent(new Event('input', { bubbles: true })); })()""")
    assert not p.js("document.getElementById('demo-unk-note').hidden")
    sizes = _page_scroll(p)
    assert sizes["scroll"] <= sizes["client"] == width, sizes


def test_the_explorers_link_is_withheld_while_its_sentence_is_refused(wide):
    """After a refused sentence, "Link to this sentence" pointed at the last good one, which is
    not the one in the box: it has no address until a sentence is computed again."""
    link = """(() => { const a = document.getElementById('explorer-link');
        return { href: a.getAttribute('href'), disabled: a.getAttribute('aria-disabled') }; })()"""
    wide.goto(wide.base)
    explore(wide, "she deposited the cheque")
    good = wide.js(link)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(good["href"]).query)["sentence"] == ["she deposited the cheque"], good
    for bad in ["she deposited the dragon", sentence(21, 7), "   "]:
        explore(wide, bad)
        assert not wide.js("document.getElementById('explorer-message').hidden"), bad
        assert wide.js(link) == {"href": None, "disabled": "true"}, bad
    explore(wide, "the river bank")
    again = wide.js(link)
    assert again["disabled"] is None and "sentence=the+river+bank" in again["href"], again


@pytest.mark.parametrize("field, typed, links_as", [
    ("temperature", ".5", "0.5"), ("temperature", "0.1234", "0.1234"), ("temperature", "1e0", "1"),
    ("seed", "1e3", "1000"), ("tokens", "2e0", "2"),
])
def test_settings_generate_takes_get_a_link_that_opens_them(wide, field, typed, links_as):
    """The fourth page reviewer typed temperature ".5" (and "0.1234", "1e0", seed "1e3"): Generate ran,
    but the link was withheld with a false reason ("not a number from 0 to 10"). The form and the
    link read a number by one rule; the link writes the number Generate used."""
    wide.goto(wide.base + "#demo")
    wide.js(f"""(() => {{ const f = document.getElementById('demo-{field}'); f.value = {json.dumps(typed)};
      f.dispatchEvent(new Event('input', {{ bubbles: true }})); }})()""")
    wide.js("document.getElementById('demo-tokens').value = document.getElementById('demo-tokens').value || '3';"
            "document.getElementById('demo-run').click()")
    wide.tab.wait_for("document.getElementById('demo').dataset.state === 'done'", timeout=60)     # Generate runs it
    got = wide.js("""(() => { const a = document.getElementById('demo-link');
        return { href: a.getAttribute('href'), status: document.getElementById('demo-link-status').textContent }; })()""")
    assert got["href"] and not got["status"], got
    query = {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(got["href"]).query).items()}
    assert query[field] == links_as, query
    # The link opens without a message, the field reading the same number.
    wide.goto(wide.base.rsplit("/", 1)[0] + "/index.html" + got["href"])
    state = wide.js(LINK_STATE)
    assert state["message"] is None and float(state["run"][["temperature", "seed", "tokens"].index(field)]) == float(links_as), state


@pytest.mark.parametrize("field, typed, says", [
    ("temperature", "10.5", "is not a number from 0 to 10"),
    ("seed", "1.5", "is not a whole number of at most 15 digits"),
    ("tokens", "501", "is not a whole number from 1 to 500"),
])
def test_a_setting_generate_refuses_gets_no_link_and_the_same_reason(wide, field, typed, says):
    wide.goto(wide.base + "#demo")
    wide.tab.wait_for("document.getElementById('demo').dataset.state === 'ready'", timeout=30)
    wide.js(f"""(() => {{ const f = document.getElementById('demo-{field}'); f.value = {json.dumps(typed)};
      f.dispatchEvent(new Event('input', {{ bubbles: true }})); document.getElementById('demo-run').click(); }})()""")
    got = wide.js("""(() => ({ href: document.getElementById('demo-link').getAttribute('href'),
        link: document.getElementById('demo-link-status').textContent,
        run: document.getElementById('demo-status').textContent, state: document.getElementById('demo').dataset.state }))()""")
    assert got["href"] is None and says in got["link"], got
    assert got["state"] == "error" and says in got["run"], got


CUES = """(() => [...document.querySelectorAll('#explorer .scroll-x')].filter(b => b.getClientRects().length).map(b => {
    const hint = b.previousElementSibling && b.previousElementSibling.classList.contains('scroll-hint') ? b.previousElementSibling : null;
    const mask = getComputedStyle(b).maskImage || getComputedStyle(b).webkitMaskImage || 'none';
    return { over: b.scrollWidth > b.clientWidth + 1, hint: !!hint && hint.getClientRects().length > 0 && !hint.hidden,
             text: hint ? hint.textContent : null, fade: mask !== 'none' }; }))()"""


def test_a_table_wider_than_a_phone_says_it_scrolls_and_one_that_fits_does_not(wide, narrow):
    """The fourth page reviewer, at 390 px: the head tables' score and α columns sat off to the
    right of a box that scrolls with no cue. Where a box overflows: a "scroll →" hint and a fade at
    its right edge (gone at the end); where it fits, neither."""
    for p in (narrow, wide):
        p.goto(p.base)
        explore(p, "The fisherman sat beside the river bank and watched the")
        boxes = p.js(CUES)
        assert len(boxes) >= 8, boxes
        for b in boxes:
            assert b["hint"] == b["over"] and b["fade"] == b["over"], (p.tab, b)
            if b["over"]:
                assert "scroll" in b["text"], b
        over = sum(b["over"] for b in boxes)
        if p is narrow:
            assert over >= 4 and over < len(boxes), boxes      # some overflow on a phone, some fit
    # Scrolled to its end, a box's fade goes (the hint stays: it still scrolls back).
    narrow.goto(narrow.base)
    got = narrow.js("""(async () => { const b = [...document.querySelectorAll('#explorer .scroll-x.overflows')][0];
        b.scrollLeft = b.scrollWidth; await new Promise(r => setTimeout(r, 100));
        return getComputedStyle(b).maskImage || getComputedStyle(b).webkitMaskImage; })()""")
    assert got == "none", got


@pytest.mark.parametrize("link", LANDING_LINKS, ids=[f"clear-{i}" for i in range(len(LANDING_LINKS))])
def test_a_bad_links_banner_leaves_the_landed_sections_heading_readable(wide, narrow, link):
    """The banner is fixed in view; it covered the heading of the section the link landed on."""
    section = link.split("#")[1].split("&")[0] if "#" in link else None
    for p in (wide, narrow):
        p.goto(p.base + link)
        p.tab.wait_for("!document.getElementById('link-message').hidden", timeout=20)
        p.js("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        got = p.js(f"""(() => {{ const m = document.getElementById('link-message').getBoundingClientRect();
            const h = document.querySelector('#{section} h2').getBoundingClientRect();
            return {{ banner: m.bottom, heading: h.top, bottom: h.bottom, height: innerHeight }}; }})()""")
        assert got["banner"] <= got["heading"] and got["bottom"] <= got["height"], (link, p.tab, got)
        # closed, the page's scroll padding goes with it
        p.key("Escape")
        assert p.js("document.documentElement.style.scrollPaddingTop") == "", link


def test_each_compare_card_names_its_heads_once(wide):
    """The Compare card read "One head · one head": the title, and what it has only where the title
    does not say it."""
    wide.goto(wide.base + "#demo")
    _run_demo(wide, "Once upon a time", 2, compare=True)
    titles = wide.js("[...document.querySelectorAll('#demo-results .model-card h3')].map(h => h.textContent.toLowerCase())")
    assert len(titles) == 3, titles
    for title in titles:
        said = [w for w in ("one head", "4 heads", "four heads", "no attention") if w in title]
        assert len(said) == 1 and title.count(said[0]) == 1 and title.count("head") <= 1, titles


def test_the_demo_runs_in_webassembly_and_says_so_or_says_it_fell_back(wide):
    """The lesson notes: "The demo runs actual checkpoints with WebGPU or WebAssembly." The page's
    products run in kernels.mjs's WebAssembly module, and its words say so; without WebAssembly the
    same loops run in JavaScript, the same words come out, and the timings say it fell back."""
    wide.goto(wide.base + "#demo")
    intro = wide.js("document.querySelector('#demo p').textContent")
    assert "WebAssembly" in intro and "plain JavaScript forward pass" not in intro, intro
    _run_demo(wide, "Once upon a time", 6, model="mlp")
    line = wide.js("document.getElementById('demo-latency').textContent")
    words = wide.js("document.getElementById('demo-output').dataset.continuation")
    assert "measured in this page (WebAssembly)" in line, line
    wide.goto(wide.base + "#demo")
    wide.js("window.WebAssembly = undefined")               # a browser without it
    _run_demo(wide, "Once upon a time", 6, model="mlp")
    fallback = wide.js("document.getElementById('demo-latency').textContent")
    assert "plain JavaScript: this browser has no WebAssembly" in fallback, fallback
    assert wide.js("document.getElementById('demo-output').dataset.continuation") == words


def test_the_timings_say_they_are_the_browsers_not_chapter_3s(wide):
    """Chapter 3 (PyTorch on a CPU) has the baseline faster on every prompt; the page's timings
    have it slower. One sentence by the timings says what they measure and what differs in the code."""
    wide.goto(wide.base + "#demo")
    _run_demo(wide, "Once upon a time", 3, compare=True)
    note = wide.js("""(() => { const n = document.getElementById('demo-latency-note'),
        l = document.getElementById('demo-latency');
        return { text: n.textContent, shown: !n.hidden && n.getClientRects().length > 0,
                 next: l.nextElementSibling === n }; })()""")
    assert note["shown"] and note["next"], note
    for phrase in ("this browser's WebAssembly forward pass", "not chapter 3's PyTorch measurement",
                   "need not put the models in the same order", "4,096 × 256 matrix", "final query only"):
        assert phrase in note["text"], (phrase, note["text"])


def test_the_pages_tokenizer_is_the_trainers_without_its_indentation(ui_site):
    """The first visit fetches the tokenizer: the page's copy is the exported JSON value itself,
    written without whitespace (a third smaller), and the manifest names both files' sha256."""
    import hashlib
    export = (ROOT / "lesson_data" / "exports" / "tokenizer.json").read_bytes()
    served = (ui_site / "web" / "models" / "tokenizer.json").read_bytes()
    assert json.loads(served) == json.loads(export)
    assert len(served) < 0.7 * len(export) and b"\n" not in served
    manifest = json.loads((ui_site / "web" / "models" / "manifest.json").read_text())
    assert manifest["tokenizer"]["sha256"] == hashlib.sha256(served).hexdigest()
    assert manifest["tokenizer"]["source_sha256"] == hashlib.sha256(export).hexdigest()
