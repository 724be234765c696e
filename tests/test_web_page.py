"""The web lesson in headless Chromium (driven by Playwright: lesson_build/browser.py), built by the
real pipeline from a tiny throwaway project
(two chapters of narrated 160x90 scenes) with the real data layer and checkpoints, served from a
sub-folder of a static server (so any absolute URL would break it). One browser, one tab, in order:
every chapter plays with sound and subtitles and its transcript seeks; the explorer shows river ->
water and cheque -> teller with the data layer's probabilities and an unknown word's message; the
demo generates for each preset; and the page logged no error."""
from __future__ import annotations

import html.parser
import json
import os
import re
from pathlib import Path

import pytest
import srt

from lesson_build.catalog import Chapter, SceneEntry
from lesson_build.pipeline import build, summary
from lesson_data import worksheet as ws
from lesson_data.display import fmt

ROOT = Path(__file__).resolve().parents[1]
TINY = ("-r", "160,90", "--fps", "5")
TONE_RATE = 22050

SCENES = '''
from manim import FadeIn, Scene, Text


def label(word):
    return Text(word, font="DejaVu Sans", font_size=120)


class {name}(Scene):
    def construct(self):
        self.add_sound("assets/tone.wav")
        self.add_subcaption("{first}", duration=0.8)
        self.play(FadeIn(label("{word}")), run_time=0.8)
        self.add_subcaption("{second}", duration=0.8)
        self.wait(0.8)
'''

CATALOG = (
    Chapter(1, "alpha", "Alpha chapter", (
        SceneEntry(1, "scenes/tiny_one.py", "SceneOne", "Scene one"),
        SceneEntry(2, "scenes/tiny_two.py", "SceneTwo", "Scene two"),
    )),
    Chapter(2, "beta", "Beta chapter", (SceneEntry(3, "scenes/tiny_three.py", "SceneThree", "Scene three"),)),
)
LINES = {"SceneOne": ("one: the receiver", "one: & <its> sources"), "SceneTwo": ("two: weights", "two: messages"),
         "SceneThree": ("three: the prediction", "three: done")}


def chromium_or_skip():
    """Skip unless the system's Chromium and the playwright package (the dev extra) are here; with
    LESSON_REQUIRE_CHROMIUM set (CI), fail instead."""
    import importlib.util

    from lesson_build.browser import find_chromium
    missing = [what for what, ok in [("chromium (Debian: apt-get install -y chromium)", find_chromium() is not None),
                                     ("the playwright package (pip install -e '.[dev]')",
                                      importlib.util.find_spec("playwright") is not None)] if not ok]
    if missing:
        if os.environ.get("LESSON_REQUIRE_CHROMIUM"):
            pytest.fail(f"required here (LESSON_REQUIRE_CHROMIUM is set) but not installed: {'; '.join(missing)}")
        pytest.skip(f"not installed: {'; '.join(missing)}")


def write_tone(path: Path, seconds: float = 1.4) -> None:
    import wave

    import numpy as np
    t = np.arange(int(seconds * TONE_RATE)) / TONE_RATE
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(TONE_RATE)
        w.writeframes((0.4 * 32767 * np.sin(2 * np.pi * 330 * t)).astype("<i2").tobytes())


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("web-project")
    (root / "scenes").mkdir()
    (root / "scenes" / "__init__.py").write_text("")
    for entry in [s for ch in CATALOG for s in ch.scenes]:
        first, second = LINES[entry.name]
        (root / entry.file).write_text(SCENES.format(name=entry.name, first=first, second=second,
                                                     word=str(entry.number)))
    (root / "assets").mkdir()
    write_tone(root / "assets" / "tone.wav")
    # The real data layer (worksheet export) and checkpoints (the demo), read in place.
    (root / "lesson_data").symlink_to(ROOT / "lesson_data", target_is_directory=True)
    report = build(CATALOG, root=root, out=root / "site" / "renders", quality="m", manim_args=TINY, jobs=2,
                   worksheet_module="lesson_data", log=lambda s: None)
    assert report.exit_code == 0, summary(report)
    assert report.web.startswith("ready: 3 models"), report.web
    return root / "site" / "renders"


@pytest.fixture(scope="module")
def tab(site):
    chromium_or_skip()
    from lesson_build.browser import Chromium, serve

    with serve(site.parent) as base, Chromium() as browser:
        tab = browser.open(f"{base}/renders/index.html", events=True)
        tab.wait_for("document.readyState === 'complete'", timeout=30)
        tab.wait_for("document.getElementById('explorer').dataset.ready === 'true'", timeout=30)
        yield tab


# ---------------------------------------------------------------- the files

class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.resources, self.anchors = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "source", "img", "track") and a.get("src"):
            self.resources.append(a["src"])
        if tag == "video" and (a.get("poster") or a.get("data-poster")):      # (data-: fetched on approach)
            self.resources.append(a.get("poster") or a["data-poster"])
        if tag == "link" and a.get("href"):
            self.resources.append(a["href"])
        if tag == "a" and a.get("href"):
            self.anchors.append(a["href"])


def test_every_url_is_relative_and_every_file_is_there(site):
    page = (site / "index.html").read_text(encoding="utf-8")
    links = _Links()
    links.feed(page)
    local = [u for u in links.resources if not u.startswith("data:")]
    assert local and all(not re.match(r"^([a-z]+:|/)", u) for u in local), local
    for u in local + [a for a in links.anchors if not re.match(r"^([a-z]+:|#)", a)]:
        assert (site / u).is_file(), u
    assert all(a.startswith(("#", "https://")) or not re.match(r"^[a-z]+:|^/", a) for a in links.anchors)
    for module in (site / "web").glob("*.mjs"):
        for spec in re.findall(r'(?:from|import)\s*\(?\s*"([^"]+)"', module.read_text(encoding="utf-8")):
            if spec.startswith("node:"):      # worksheet.mjs's command line, behind `typeof process`
                continue
            assert spec.startswith("./") and (site / "web" / spec).is_file(), (module.name, spec)
    models = json.loads((site / "web" / "models" / "manifest.json").read_text())
    assert list(models["models"]) == ["mlp", "one_head", "four_heads"]
    assert "lesson/m/series.mp4" in page and "worksheet.json" in page and "en_US-joe-medium" in page


# ---------------------------------------------------------------- chapters

PLAY = """
(async () => {
  const v = document.getElementById(%s);
  v.currentTime = 0;
  await v.play();
  const t0 = performance.now();
  while (v.currentTime < 1.0 && performance.now() - t0 < 8000) await new Promise(r => setTimeout(r, 50));
  v.pause();
  const tracks = [...v.textTracks], track = tracks[0];
  return { time: v.currentTime, error: v.error && v.error.code, duration: v.duration,
           audioBytes: v.webkitAudioDecodedByteCount, videoBytes: v.webkitVideoDecodedByteCount,
           tracks: tracks.length, kind: track && track.kind,
           cues: track && track.cues ? [...track.cues].map(c => [c.text, c.startTime, c.endTime]) : null,
           trackMode: track && track.mode };
})()
"""

SEEK_BY_TRANSCRIPT = """
(async () => {
  const section = document.getElementById(%s);
  const v = section.querySelector('video');
  const b = section.querySelectorAll('.transcript button.cue')[%d];
  const seeked = new Promise(r => v.addEventListener('seeked', r, { once: true }));
  b.click();
  await seeked;
  v.pause();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const current = section.querySelectorAll('.transcript button.cue.current');
  return { time: v.currentTime, start: parseFloat(b.dataset.start), current: [...current].map(c => c.dataset.start),
           aria: b.getAttribute('aria-current'), scene: [...section.querySelectorAll('ol.scenes li.current')].map(li => li.textContent) };
})()
"""


def test_every_chapter_plays_with_sound_and_subtitles_and_its_transcript_seeks(site, tab):
    for ch in CATALOG:
        cues = list(srt.parse((site / "lesson" / "m" / f"{ch.slug}.srt").read_text()))
        assert [c.content for c in cues] == [line for s in ch.scenes for line in LINES[s.name]]
        state = tab.evaluate(PLAY % json.dumps(f"video-{ch.slug}"))
        assert state["error"] is None and state["time"] >= 1.0, state
        assert state["audioBytes"] > 0 and state["videoBytes"] > 0, state       # it played sound
        assert state["tracks"] == 1 and state["kind"] == "subtitles", state
        assert [c[0] for c in state["cues"]] == [c.content for c in cues], state
        assert [t for c in state["cues"] for t in c[1:]] == pytest.approx(
            [t for c in cues for t in (c.start.total_seconds(), c.end.total_seconds())], abs=1e-3), state
        assert state["trackMode"] == "hidden", state   # loaded; not drawn over the burned-in captions
        listed = tab.evaluate(f"[...document.querySelectorAll('#{ch.slug} .transcript button.cue')]"
                              ".map(b => [b.querySelector('.text').textContent, parseFloat(b.dataset.start)])")
        assert [text for text, _ in listed] == [c.content for c in cues]
        assert all(abs(t - c.start.total_seconds()) < 1e-3 for (_, t), c in zip(listed, cues))
        # Click the last line: the video goes there and that line (and its scene) is highlighted.
        k = len(cues) - 1
        seek = tab.evaluate(SEEK_BY_TRANSCRIPT % (json.dumps(ch.slug), k))
        assert abs(seek["time"] - seek["start"]) < 0.25, seek
        assert seek["current"] == [f"{cues[k].start.total_seconds():.3f}"] and seek["aria"] == "true", seek
        assert seek["scene"] and ch.scenes[-1].title in seek["scene"][0], seek
    # A scene link in the contents seeks the chapter's video to that scene's start.
    start = tab.evaluate("""(async () => {
      const a = document.querySelector('nav.toc a[data-video="video-alpha"][data-seek]:not([data-seek="0.000"])');
      const v = document.getElementById('video-alpha');
      const seeked = new Promise(r => v.addEventListener('seeked', r, { once: true }));
      a.click(); await seeked; v.pause();
      return [v.currentTime, parseFloat(a.dataset.seek)]; })()""")
    assert start[1] > 0 and abs(start[0] - start[1]) < 0.25


# ---------------------------------------------------------------- the explorer

SHOW = """
(() => {
  const root = document.getElementById('explorer');
  const probs = Object.fromEntries([...root.querySelectorAll('[data-p]')].map(e => [e.dataset.p, e.textContent]));
  const arcs = [...root.querySelectorAll('svg.arrows path.arc')].map(p => [+p.dataset.head, +p.dataset.source,
      +p.dataset.weight, parseFloat(p.getAttribute('stroke-width'))]);
  const message = document.getElementById('explorer-message');
  const messages = [...root.querySelectorAll('[data-message]')].map(e => e.textContent);
  return { sentence: root.dataset.sentence, prediction: document.getElementById('explorer-prediction').textContent,
           probs, arcs, tokens: [...root.querySelectorAll('#explorer-tokens .token')].map(t => t.firstChild.textContent),
           message: message.hidden ? null : message.textContent, messages, html: document.getElementById('explorer-output').innerHTML };
})()
"""


def _explore(tab, *, preset=None, text=None):
    if preset:
        tab.evaluate(f"document.querySelector('#explorer button[data-preset=\"{preset}\"]').click()")
    else:
        tab.evaluate(f"document.getElementById('explorer-input').value = {json.dumps(text)};"
                     "document.getElementById('explorer-form').requestSubmit()")
    return tab.evaluate(SHOW)


@pytest.mark.parametrize("name, word", [("river", "water"), ("cheque", "teller")])
def test_explorer_predicts_with_the_data_layers_numbers(tab, name, word):
    got = _explore(tab, preset=name)
    sheet = ws.compute_worksheet(name)
    assert got["sentence"] == name and got["prediction"] == word == sheet.mlp.prediction
    assert got["probs"] == {w: fmt(p) for w, p in zip(ws.VOCAB, sheet.mlp.probabilities)}
    assert got["tokens"] == list(sheet.tokens) and got["message"] is None
    assert got["messages"] == [", ".join(fmt(x) for x in head.messages[-1]) for head in sheet.heads]
    # Both heads' attention rows at the receiver, as arrows whose width grows with the weight.
    for head in sheet.heads:
        arcs = sorted((a for a in got["arcs"] if a[0] == head.index), key=lambda a: a[1])
        assert [a[1] for a in arcs] == list(range(1, sheet.n + 1))
        assert [a[2] for a in arcs] == pytest.approx(list(head.weights[-1]), abs=1e-12)
        by_weight = sorted(arcs, key=lambda a: a[2])
        assert [a[3] for a in by_weight] == sorted(a[3] for a in by_weight)


def test_explorer_names_an_unknown_word_and_clears_the_last_sentence(tab):
    before = _explore(tab, preset="cheque")
    assert before["prediction"] == "teller"
    tab.evaluate("document.getElementById('explorer-input').value = 'she deposited the dragon';"
                 "document.getElementById('explorer-form').requestSubmit()")
    after = tab.evaluate("""(() => { const m = document.getElementById('explorer-message');
      return { message: m.hidden ? null : m.textContent, html: document.getElementById('explorer-output').innerHTML,
               sentence: document.getElementById('explorer').dataset.sentence ?? null }; })()""")
    assert after["message"] and "'dragon'" in after["message"]
    assert all(w in after["message"] for w in ws.VOCAB)                     # the vocabulary, named
    assert after["html"] == "" and after["sentence"] is None                # cheque's tables are gone
    again = _explore(tab, text="She watched the river and the boats")
    assert again["message"] is None and again["sentence"] == "she watched the river and the boats"
    sheet = ws.compute_worksheet("She watched the river and the boats")
    assert again["prediction"] == sheet.mlp.prediction


# ---------------------------------------------------------------- the demo

RUN = """
(async () => {
  const root = document.getElementById('demo');
  root.scrollIntoView();
  if (%(model)s) document.getElementById('demo-model').value = %(model)s;
  if (%(preset)s) root.querySelector('#demo-presets button[data-preset=' + %(preset)s + ']').click();
  document.getElementById('demo-temperature').value = %(temperature)s;
  document.getElementById('demo-seed').value = 3;
  const out = document.getElementById('demo-output');
  delete out.dataset.continuation;
  document.getElementById('demo-form').requestSubmit();
  const t0 = performance.now();
  while (root.dataset.state !== 'done' && root.dataset.state !== 'error' && performance.now() - t0 < 30000)
    await new Promise(r => setTimeout(r, 50));
  const lat = document.getElementById('demo-latency');
  return { state: root.dataset.state, status: document.getElementById('demo-status').textContent,
           continuation: out.dataset.continuation, model: out.dataset.model, shown: out.textContent,
           median: parseFloat(lat.dataset.median), mean: parseFloat(lat.dataset.mean), calls: +lat.dataset.calls,
           latency: lat.textContent, unk: +document.getElementById('demo-seen').dataset.unk };
})()
"""


def test_demo_generates_for_each_preset_with_the_trainers_words(tab):
    lesson = json.loads((ROOT / "lesson_data" / "exports" / "continuations.json").read_text())
    for preset, prompt in lesson["prompts"].items():
        got = tab.evaluate(RUN % {"model": "null", "preset": json.dumps(preset), "temperature": 0})
        assert got["state"] == "done" and "continuation" in got, got
        assert got["model"] == "four_heads"
        assert got["continuation"] == lesson["models"]["four_heads"][preset]["continuation"], (preset, got)
        assert got["shown"].startswith(prompt) and got["continuation"] in got["shown"]
        assert got["median"] > 0 and got["mean"] > 0 and got["calls"] == lesson["tokens"], got
        assert "ms per token" in got["latency"]
        assert (got["unk"] > 0) == (preset == "outside_domain"), got         # <UNK> shown for unknown words
    # Another model, and sampling.
    got = tab.evaluate(RUN % {"model": '"mlp"', "preset": '"held_out"', "temperature": 0})
    assert got["continuation"] == lesson["models"]["mlp"]["held_out"]["continuation"], got
    got = tab.evaluate(RUN % {"model": '"one_head"', "preset": "null", "temperature": 0.8})
    assert got["state"] == "done" and got["continuation"] and got["median"] > 0, got


def test_the_page_reported_no_error(tab):
    assert tab.console_errors() == []


def test_opened_from_disk_the_videos_play_and_the_modules_say_they_need_http(site):
    chromium_or_skip()
    from lesson_build.browser import Chromium

    with Chromium() as browser:
        tab = browser.open((site / "index.html").as_uri())
        tab.wait_for("document.readyState === 'complete'", timeout=30)
        state = tab.wait_for("""(() => { const v = [...document.querySelectorAll('video')];
          if (!v.every(x => x.readyState >= 1)) return null;
          return { videos: v.length, notices: [...document.querySelectorAll('[data-needs-http]')].filter(e => !e.hidden).length,
                   transcript: document.querySelectorAll('.transcript button.cue').length }; })()""", timeout=30)
    assert state == {"videos": 2, "notices": 2, "transcript": 6}


# ---------------------------------------------------------------- serving

def test_the_server_sends_byte_ranges_and_module_types(tmp_path):
    import urllib.error
    import urllib.request

    from lesson_build.serve import serving

    (tmp_path / "clip.mp4").write_bytes(bytes(range(100)))
    (tmp_path / "m.mjs").write_text("export const x = 1;\n")

    def get(name, rng=None):
        req = urllib.request.Request(f"{base}/{name}", headers={"Range": rng} if rng else {})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, b""

    with serving(tmp_path) as base:
        assert get("clip.mp4", "bytes=10-19")[::2] == (206, bytes(range(10, 20)))
        assert get("clip.mp4", "bytes=10-19")[1]["Content-Range"] == "bytes 10-19/100"
        assert get("clip.mp4", "bytes=95-")[2] == bytes(range(95, 100))
        assert get("clip.mp4", "bytes=-3")[2] == bytes([97, 98, 99])
        assert get("clip.mp4", "bytes=100-")[0] == 416
        status, headers, body = get("clip.mp4")
        assert status == 200 and body == bytes(range(100))
        assert get("m.mjs")[1]["Content-Type"].startswith("text/javascript")


def test_serve_command_serves_the_folder_and_refuses_bad_arguments(site, tmp_path):
    import subprocess
    import sys
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "lesson_build", "serve", "--port", "0", "--out", str(site)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        with urllib.request.urlopen(url + "index.html", timeout=10) as r:
            assert r.status == 200 and b"worksheet explorer" in r.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    for args, says in [(["--out", str(tmp_path)], "index.html does not exist"),
                       (["--port", "http"], "'http' is not a port number")]:
        bad = subprocess.run([sys.executable, "-m", "lesson_build", "serve", *args], capture_output=True,
                             text=True, cwd=ROOT, timeout=30)
        assert bad.returncode == 2 and says in bad.stderr and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_the_page_template_escapes_what_it_is_given(tmp_path):
    """render_index fills web/index.html.j2 with escaping on: markup in a title, a note or a scene
    name is text on the page, never an element; an attribute cannot be broken out of."""
    from lesson_build import page

    evil = '<script>window.pwned=1</script> & "quoted" \'x\''
    ch = Chapter(1, "alpha", evil, (SceneEntry(1, "scenes/x.py", "X", evil),))
    rows = [page.ChapterRow(ch, [page.SceneRow(1, evil, "X", evil)], note=evil)]
    text = page.render_index(tmp_path / "index.html", series_title=evil, quality_label="720p30 (-qm)", chapters=rows,
                             series_video=None, series_vtt=None, series_poster=None, series_note=evil,
                             worksheet=None, generated=evil)

    class Scan(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.scripts, self.texts = [], []

        def handle_starttag(self, tag, attrs):
            if tag == "script":
                self.scripts.append(dict(attrs))

        def handle_data(self, data):
            self.texts.append(data)

    scan = Scan()
    scan.feed(text)
    assert all(s.get("src") or s.get("type") == "application/json" for s in scan.scripts), scan.scripts
    assert sum(evil in t for t in scan.texts) >= 5                  # title, h1, toc, chapter heading, note ...
