"""The render/stitch pipeline on three tiny scenes (160x90 at 5 fps) in a throwaway project.

Expected times are derived independently of the pipeline: scene lengths by decoding every frame
with PyAV and dividing by the frame rate we asked manim for, caption times from the scene code
written below, and chapter marks read back from the container.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import av
import pytest
import srt

from lesson_build import media
from lesson_build.catalog import Chapter, SceneEntry
from lesson_build.inputs import input_hash, scene_inputs
from lesson_build.pipeline import build, summary

FPS = 5
TINY = ("-r", "160,90", "--fps", str(FPS))
FRAME = Fraction(1, FPS)
MS = Fraction(1, 1000)

COMMON = '''
from manim import Text

def get_label(word):
    return Text(word, font="DejaVu Sans", font_size=144)
'''

ALPHA = '''
from manim import FadeIn, Scene
from scenes.tiny_common import get_label


class AlphaOne(Scene):
    def construct(self):
        self.add_subcaption("alpha one", duration=1)
        self.add_sound("assets/tone_long.wav")       # "speech" from 0 to 0.8 s, inside its cue
        self.play(FadeIn(get_label("A1")), run_time=1)
        self.wait(0.4)


class AlphaTwo(Scene):
    def construct(self):
        self.wait(0.2)
        self.add_subcaption("alpha two", duration=0.6)
        self.add_sound("assets/tone_short.wav", time_offset=0)    # 0.2 to 0.7 s
        self.play(FadeIn(get_label("A2")), run_time=1)
'''

BETA = '''
from manim import Scene, Text, Write


class BetaOne(Scene):
    def construct(self):
        self.play(Write(Text("{word}", font="DejaVu Sans", font_size=144)), run_time=1)
        # Outlasts the scene: must be cut at the scene's end, not spill into what follows.
        self.add_subcaption("beta & <one>", duration=2)
        self.wait(1)
'''

BROKEN = '''
from manim import Scene


class Broken(Scene):
    def construct(self):
        self.wait(0.2)
        raise RuntimeError("the broken scene broke on purpose")
'''

FAKE_WORKSHEET = '''
import argparse, json
p = argparse.ArgumentParser()
p.add_argument("command")
p.add_argument("--out", required=True)
a = p.parse_args()
open(a.out, "w").write(json.dumps({"fake": True}))
'''

# The scenes' sound, as written above: (scene, file, start, seconds) in scene time. AlphaOne's sound
# ends 0.6 s before its picture does: a stitch that copied the sound streams would start AlphaTwo's
# sound 0.6 s early.
SOUNDS = [("AlphaOne", "tone_long.wav", Fraction(0), Fraction(4, 5)),
          ("AlphaTwo", "tone_short.wav", Fraction(1, 5), Fraction(1, 2))]
TONE_RATE = 22050


def write_tone(path: Path, seconds: Fraction) -> None:
    import wave

    import numpy as np
    t = np.arange(int(seconds * TONE_RATE)) / TONE_RATE
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(TONE_RATE)
        w.writeframes((0.5 * 32767 * np.sin(2 * np.pi * 440 * t)).astype("<i2").tobytes())


# Caption cues as written in the scene code above: (scene, text, start, end) in scene time.
CUES = [
    ("AlphaOne", "alpha one", Fraction(0), Fraction(1)),
    ("AlphaTwo", "alpha two", Fraction(1, 5), Fraction(4, 5)),
    ("BetaOne", "beta & <one>", Fraction(1), Fraction(3)),   # end clipped to the scene's length
]

CATALOG = (
    Chapter(1, "alpha", "Alpha chapter", (
        SceneEntry(1, "scenes/tiny_alpha.py", "AlphaOne", "Alpha one"),
        SceneEntry(2, "scenes/tiny_alpha.py", "AlphaTwo", "Alpha two"),
    )),
    Chapter(2, "beta", "Beta chapter", (
        SceneEntry(3, "scenes/tiny_beta.py", "BetaOne", "Beta one"),
    )),
)


def write_project(root: Path) -> None:
    (root / "scenes").mkdir(parents=True)
    (root / "scenes" / "__init__.py").write_text("")
    (root / "scenes" / "tiny_common.py").write_text(COMMON)
    (root / "scenes" / "tiny_alpha.py").write_text(ALPHA)
    (root / "scenes" / "tiny_beta.py").write_text(BETA.format(word="B1"))
    (root / "scenes" / "tiny_broken.py").write_text(BROKEN)
    (root / "assets").mkdir()
    for _, name, _, seconds in SOUNDS:
        write_tone(root / "assets" / name, seconds)
    (root / "fakews").mkdir()
    (root / "fakews" / "__main__.py").write_text(FAKE_WORKSHEET)


def frames_and_length(path: Path) -> tuple[int, Fraction]:
    """Decode every frame: an independent count, and length = frames / the fps we asked for."""
    with av.open(str(path)) as c:
        n = sum(1 for _ in c.decode(video=0))
    return n, n * FRAME


def container_length(path: Path) -> Fraction:
    with av.open(str(path)) as c:
        return Fraction(c.duration, av.time_base)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    write_project(root)
    out = root / "renders"
    # an older pipeline's PNG poster, left where alpha's JPEG will go
    (out / "lesson" / "l").mkdir(parents=True)
    (out / "lesson" / "l" / "alpha.png").write_bytes(b"\x89PNG stale")
    report = build(CATALOG, root=root, out=out, manim_args=TINY, jobs=2,
                   worksheet_module="fakews", log=lambda s: None)
    assert report.exit_code == 0, summary(report)
    return root, out, report


def scene_video(out: Path, stem: str) -> Path:
    return out / "lesson" / "l" / "scenes" / f"{stem}.mp4"


# ---------------------------------------------------------------- stitching

def test_chapter_and_series_files_exist(built):
    _, out, report = built
    q = out / "lesson" / "l"
    for name in ["alpha", "beta", "series"]:
        for ext in ["mp4", "srt", "vtt"]:
            assert (q / f"{name}.{ext}").is_file(), f"{name}.{ext}"
    for name in ["alpha", "beta"]:
        jpg, gif = q / f"{name}.jpg", q / f"{name}.gif"
        assert jpg.read_bytes()[:3] == b"\xff\xd8\xff"            # a JPEG's start of image
        assert gif.read_bytes()[:6] in (b"GIF89a", b"GIF87a")
    assert not (q / "alpha.png").exists()                        # the old PNG poster went with it
    assert (out / "index.html").is_file()
    assert json.loads((out / "worksheet.json").read_text()) == {"fake": True}
    assert [r.status for r in report.scenes] == ["rendered"] * 3
    # No temp or staging leftovers.
    assert not [p for p in q.rglob("*") if ".partial" in p.name or ".staging" in p.parts]


def test_durations_add_up_within_a_frame(built):
    _, out, _ = built
    lengths = {stem: frames_and_length(scene_video(out, stem))
               for stem in ["01_AlphaOne", "02_AlphaTwo", "03_BetaOne"]}
    q = out / "lesson" / "l"
    expect = {
        "alpha": [lengths["01_AlphaOne"], lengths["02_AlphaTwo"]],
        "beta": [lengths["03_BetaOne"]],
        "series": list(lengths.values()),
    }
    for name, parts in expect.items():
        frames, length = frames_and_length(q / f"{name}.mp4")
        assert frames == sum(n for n, _ in parts), name
        assert abs(length - sum(t for _, t in parts)) <= FRAME, name
        assert abs(container_length(q / f"{name}.mp4") - sum(t for _, t in parts)) <= FRAME, name


def test_chapter_marks_sit_at_scene_boundaries(built):
    _, out, _ = built
    q = out / "lesson" / "l"
    lengths = [frames_and_length(scene_video(out, s))[1] for s in ["01_AlphaOne", "02_AlphaTwo", "03_BetaOne"]]
    titles = [s.title for ch in CATALOG for s in ch.scenes]
    for name, idx in [("alpha", [0, 1]), ("beta", [2]), ("series", [0, 1, 2])]:
        with av.open(str(q / f"{name}.mp4")) as c:
            marks = [(m["metadata"]["title"], m["start"] * Fraction(m["time_base"]),
                      m["end"] * Fraction(m["time_base"])) for m in c.chapters()]
        assert [m[0] for m in marks] == [titles[i] for i in idx], name
        start = Fraction(0)
        for (_, s, e), i in zip(marks, idx):
            assert abs(s - start) <= FRAME and abs(e - (start + lengths[i])) <= FRAME, (name, i)
            start += lengths[i]


def expected_cues(out: Path, scenes: list[str]) -> list[tuple[str, Fraction, Fraction]]:
    """Hand-written cue times shifted by the lengths of the scenes before them."""
    cues, offset = [], Fraction(0)
    for stem in scenes:
        length = frames_and_length(scene_video(out, stem))[1]
        for scene, text, s, e in CUES:
            if stem.endswith(scene):
                cues.append((text, offset + s, offset + min(e, length)))
        offset += length
    return cues


def test_subtitles_are_shifted_by_the_scenes_before_them(built):
    _, out, _ = built
    q = out / "lesson" / "l"
    for name, scenes in [("alpha", ["01_AlphaOne", "02_AlphaTwo"]), ("beta", ["03_BetaOne"]),
                         ("series", ["01_AlphaOne", "02_AlphaTwo", "03_BetaOne"])]:
        want = expected_cues(out, scenes)
        got = [(c.content, Fraction(c.start.total_seconds()), Fraction(c.end.total_seconds()))
               for c in srt.parse((q / f"{name}.srt").read_text())]
        assert [g[0] for g in got] == [w[0] for w in want], name
        for g, w in zip(got, want):
            assert abs(g[1] - w[1]) <= MS and abs(g[2] - w[2]) <= MS, (name, g, w)
        # The same cues travel inside the MP4 as a mov_text track.
        with av.open(str(q / f"{name}.mp4")) as c:
            (sub,) = c.streams.subtitles
            assert sub.codec_context.name == "mov_text"
            packets = [(p.pts * Fraction(p.time_base), bytes(p)[2:].decode())
                       for p in c.demux(sub) if p.size > 2]
        assert [(text, start) for start, text in packets if text] == [(w[0], pytest.approx(w[1], abs=1e-3))
                                                                       for w in want], name
        vtt = (q / f"{name}.vtt").read_text()
        assert vtt.startswith("WEBVTT\n") and vtt.count(" --> ") == len(want)
    assert "beta &amp; &lt;one&gt;" in (q / "beta.vtt").read_text()


def decoded_sound(path: Path):
    """(mono float samples, rate) of a file's sound track, decoded with PyAV."""
    import numpy as np
    with av.open(str(path)) as c:
        stream = c.streams.audio[0]
        rate = stream.codec_context.sample_rate
        chunks = [f.to_ndarray().astype(float).mean(axis=0) for f in c.decode(stream)]
    return np.concatenate(chunks), rate


def rms(samples, rate, start, end) -> float:
    import numpy as np
    part = samples[int(float(start) * rate):int(float(end) * rate)]
    return float(np.sqrt(np.mean(part ** 2))) if len(part) else 0.0


def test_stitched_sound_lasts_as_long_as_the_picture_and_each_sound_stays_in_its_scene(built):
    _, out, _ = built
    q = out / "lesson" / "l"
    stems = ["01_AlphaOne", "02_AlphaTwo", "03_BetaOne"]
    lengths = {s: frames_and_length(scene_video(out, s))[1] for s in stems}
    for name, scenes in [("alpha", stems[:2]), ("series", stems)]:
        samples, rate = decoded_sound(q / f"{name}.mp4")
        picture = sum(lengths[s] for s in scenes)
        assert abs(Fraction(len(samples), rate) - picture) <= FRAME, name
        offset, loud, quiet = Fraction(0), [], []
        for stem in scenes:
            ends = [(offset + start, offset + start + secs) for scene, _, start, secs in SOUNDS
                    if stem.endswith(scene)]
            for a, b in ends:
                loud.append(rms(samples, rate, a + Fraction(1, 20), b - Fraction(1, 20)))
            quiet_from = max([b for _, b in ends], default=offset) + Fraction(1, 10)
            quiet.append(rms(samples, rate, quiet_from, offset + lengths[stem] - Fraction(1, 20)))
            offset += lengths[stem]
        assert min(loud) > 0.1 and max(quiet) < 0.01, (name, loud, quiet)
    # The chapter without sound gets none; the sound inside a cue is where its subtitle is.
    with av.open(str(q / "beta.mp4")) as c:
        assert not c.streams.audio
    cues = expected_cues(out, stems[:2])
    samples, rate = decoded_sound(q / "alpha.mp4")
    for text, start, end in cues:
        assert rms(samples, rate, start + Fraction(1, 10), min(end, start + Fraction(2, 5))) > 0.1, text


# ---------------------------------------------------------------- failures, missing scenes

def copy_project(src_root: Path, dest: Path) -> tuple[Path, Path]:
    """A second project with the first one's renders, so its videos count as a warm cache."""
    shutil.copytree(src_root, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest, dest / "renders"


def test_failing_scene_keeps_other_videos_and_builds_no_incomplete_set(built, tmp_path):
    root, out = copy_project(built[0], tmp_path / "p")
    q = out / "lesson" / "l"
    for old in q.glob("*.*"):      # keep the scene videos (a warm cache), drop every stitched file
        old.unlink()
    catalog = (
        Chapter(1, "broken-alpha", "Alpha with a broken scene", (
            SceneEntry(1, "scenes/tiny_alpha.py", "AlphaOne", "Alpha one"),
            SceneEntry(4, "scenes/tiny_broken.py", "Broken", "Broken"),
        )),
        Chapter(2, "beta", "Beta chapter", (SceneEntry(3, "scenes/tiny_beta.py", "BetaOne", "Beta one"),)),
        Chapter(3, "future", "Not written", (
            SceneEntry(5, "scenes/not_there.py", "Nope", "No file"),
            SceneEntry(6, "scenes/tiny_beta.py", "NoSuchClass", "No class"),
        )),
    )
    report = build(catalog, root=root, out=out, manim_args=TINY, worksheet_module=None, log=lambda s: None)
    status = {r.job.entry.name: r for r in report.scenes}
    assert status["Broken"].status == "failed"
    assert "the broken scene broke on purpose" in status["Broken"].error
    assert status["AlphaOne"].status == "cached" and status["BetaOne"].status == "cached"
    assert status["Nope"].status == "not yet written" and status["NoSuchClass"].status == "not yet written"
    assert scene_video(out, "01_AlphaOne").is_file() and scene_video(out, "03_BetaOne").is_file()
    assert not scene_video(out, "04_Broken").exists()
    assert not (q / "broken-alpha.mp4").exists() and not (q / "future.mp4").exists()
    assert not (q / "series.mp4").exists()
    assert (q / "beta.mp4").is_file()          # a complete chapter is still built
    assert report.exit_code == 1
    index = (out / "index.html").read_text()
    assert "scenes/01_AlphaOne.mp4" in index and "broken-alpha.mp4" not in index
    text = summary(report)
    assert "Broken" in text and "the broken scene broke on purpose" in text and "not yet written" in text


def test_not_yet_written_scenes_alone_do_not_fail_the_run(tmp_path):
    catalog = (Chapter(1, "later", "Later", (SceneEntry(1, "scenes/later.py", "Later", "Later"),)),)
    report = build(catalog, root=tmp_path, out=tmp_path / "renders", manim_args=TINY,
                   worksheet_module=None, log=lambda s: None)
    assert [r.status for r in report.scenes] == ["not yet written"]
    assert report.chapters[0].status == "not built" and report.exit_code == 0
    assert "Later" in (tmp_path / "renders" / "index.html").read_text()


# ---------------------------------------------------------------- the hash cache

def chapter_sections(index: Path) -> dict[str, str]:
    """Each chapter's <section> of the page, by its id."""
    text = index.read_text()
    return {slug: text.split(f'<section class="chapter" id="{slug}"', 1)[1].split("</section>", 1)[0]
            for slug in ("alpha", "beta") if f'<section class="chapter" id="{slug}"' in text}


def test_a_draft_or_partial_build_keeps_every_published_chapter_on_the_page_at_its_best_quality(built, tmp_path):
    root, out = copy_project(built[0], tmp_path / "p")
    # As if the whole lesson had been built at 720p (m) before: the same files under lesson/m.
    shutil.copytree(out / "lesson" / "l", out / "lesson" / "m")
    report = build(CATALOG, root=root, out=out, manim_args=TINY, chapters=[1],
                   worksheet_module="fakews", log=lambda s: None)
    assert report.exit_code == 0, summary(report)
    sections = chapter_sections(out / "index.html")
    assert set(sections) == {"alpha", "beta"}
    for slug in ("alpha", "beta"):
        assert f'src="lesson/m/{slug}.mp4"' in sections[slug] and "lesson/l/" not in sections[slug]
        assert 'data-quality="720p30"' in sections[slug] and 'class="draft"' not in sections[slug]
    assert 'href="lesson/m/series.mp4"' in (out / "index.html").read_text()

    # Beta exists only as a draft now: listed at 480p15, marked as a draft; alpha stays at 720p.
    for old in (out / "lesson" / "m").glob("beta.*"):
        old.unlink()
    (out / "lesson" / "m" / "series.json").unlink()
    build(CATALOG, root=root, out=out, manim_args=TINY, chapters=[1], worksheet_module="fakews",
          log=lambda s: None)
    sections = chapter_sections(out / "index.html")
    assert 'src="lesson/m/alpha.mp4"' in sections["alpha"]
    assert 'src="lesson/l/beta.mp4"' in sections["beta"] and 'class="draft"' in sections["beta"]
    text = (out / "index.html").read_text()
    assert 'href="lesson/l/series.mp4"' in text

    # A chapter whose scene is missing now is still listed from the files it was built from.
    (out / "lesson" / "l" / "scenes" / "03_BetaOne.json").unlink()
    report = build(CATALOG, root=root, out=out, manim_args=TINY, chapters=[1], worksheet_module="fakews",
                   log=lambda s: None)
    assert [c.status for c in report.chapters] == ["up to date", "not built"]
    assert 'src="lesson/l/beta.mp4"' in chapter_sections(out / "index.html")["beta"]


def test_cache_skips_unchanged_and_rerenders_changed(built, tmp_path):
    root, out = copy_project(built[0], tmp_path / "p")
    videos = {s: scene_video(out, s) for s in ["01_AlphaOne", "02_AlphaTwo", "03_BetaOne"]}
    before = {s: p.stat().st_mtime_ns for s, p in videos.items()}
    chapter_before = (out / "lesson" / "l" / "alpha.mp4").stat().st_mtime_ns

    def run():
        report = build(CATALOG, root=root, out=out, manim_args=TINY, worksheet_module=None,
                       log=lambda s: None)
        assert report.exit_code == 0, summary(report)
        return {r.job.stem: r.status for r in report.scenes}, report

    # Edit the beta scene: only it renders again; the alpha chapter is not re-stitched.
    (root / "scenes" / "tiny_beta.py").write_text(BETA.format(word="B2"))
    status, report = run()
    assert status == {"01_AlphaOne": "cached", "02_AlphaTwo": "cached", "03_BetaOne": "rendered"}
    after = {s: p.stat().st_mtime_ns for s, p in videos.items()}
    assert after["01_AlphaOne"] == before["01_AlphaOne"] and after["03_BetaOne"] != before["03_BetaOne"]
    assert {c.slug: c.status for c in report.chapters} == {"alpha": "up to date", "beta": "built"}
    assert (out / "lesson" / "l" / "alpha.mp4").stat().st_mtime_ns == chapter_before

    # Edit a helper only the alpha scenes import: both alpha scenes render, beta does not.
    (root / "scenes" / "tiny_common.py").write_text(COMMON + "\n# a changed helper\n")
    status, _ = run()
    assert status == {"01_AlphaOne": "rendered", "02_AlphaTwo": "rendered", "03_BetaOne": "cached"}


def test_inputs_follow_local_imports_and_hash_reads_quality_and_sentence(built, monkeypatch):
    root = built[0]
    names = [p.name for p in scene_inputs(root, Path("scenes/tiny_alpha.py"))]
    assert names == ["__init__.py", "tiny_alpha.py", "tiny_common.py"]
    assert [p.name for p in scene_inputs(root, Path("scenes/tiny_beta.py"))] == ["tiny_beta.py"]
    monkeypatch.delenv("LESSON_SENTENCE", raising=False)
    base = input_hash(root, Path("scenes/tiny_beta.py"), "BetaOne", "l")[0]
    assert input_hash(root, Path("scenes/tiny_beta.py"), "BetaOne", "l")[0] == base
    assert input_hash(root, Path("scenes/tiny_beta.py"), "BetaOne", "h")[0] != base
    monkeypatch.setenv("LESSON_SENTENCE", "cheque")
    assert input_hash(root, Path("scenes/tiny_beta.py"), "BetaOne", "l")[0] != base


def test_atomic_output_leaves_nothing_when_interrupted(tmp_path):
    dest = tmp_path / "video.mp4"
    dest.write_bytes(b"old complete video")
    with pytest.raises(KeyboardInterrupt):
        with media.atomic_output(dest) as tmp:
            tmp.write_bytes(b"half a vid")
            raise KeyboardInterrupt
    assert dest.read_bytes() == b"old complete video"
    assert [p.name for p in tmp_path.iterdir()] == ["video.mp4"]


# ---------------------------------------------------------------- command line

@pytest.mark.parametrize("args, says", [
    (["--quality", "x"], "--quality"),
    (["--chapters", "9"], "no chapter 9"),
    (["--jobs", "0"], "--jobs"),
])
def test_cli_rejects_bad_arguments_in_one_line(args, says, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "lesson_build", *args, "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 2
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())


# ---------------------------------------------------------------- the index page in Chromium

def chromium_or_skip():
    from lesson_build.browser import find_chromium
    if find_chromium() is None:
        if os.environ.get("LESSON_REQUIRE_CHROMIUM"):
            pytest.fail("chromium is required here (LESSON_REQUIRE_CHROMIUM is set) but not installed")
        pytest.skip("chromium not installed (Debian: apt-get install -y chromium)")


@pytest.mark.parametrize("via", ["http", "file"])
def test_index_page_plays_every_chapter_with_subtitles(built, via, tmp_path):
    chromium_or_skip()
    from lesson_build.browser import inspect_index

    _, out, _ = built
    shot = tmp_path / "index.png"
    state = inspect_index(out / "index.html", screenshot=shot, via=via)
    assert [c["heading"] for c in state["chapters"]] == [f"Chapter {c.number} — {c.title}" for c in CATALOG]
    for listed, ch in zip(state["chapters"], CATALOG):
        assert len(listed["scenes"]) == len(ch.scenes)
        assert all(s.title in text for s, text in zip(ch.scenes, listed["scenes"]))
    q = out / "lesson" / "l"
    by_id = {v["id"]: v for v in state["videos"]}
    assert set(by_id) == {"video-alpha", "video-beta"}      # one player per chapter
    for listed, name in zip(state["chapters"], ["alpha", "beta"]):
        v = by_id[f"video-{name}"]
        assert v["error"] is None and v["duration"] > 0
        assert abs(Fraction(v["duration"]) - frames_and_length(q / f"{name}.mp4")[1]) <= FRAME
        (track,) = v["tracks"]
        assert track["kind"] == "subtitles" and track["mode"] == "hidden", track   # loaded, not drawn
        cues = list(srt.parse((q / f"{name}.srt").read_text()))
        # the track player.js builds from the transcript: the .srt's own lines at their own times
        assert [c["text"] for c in track["cues"]] == [c.content for c in cues]
        assert [t for c in track["cues"] for t in (c["start"], c["end"])] == pytest.approx(
            [t for c in cues for t in (c.start.total_seconds(), c.end.total_seconds())], abs=1e-3)
        # The transcript beside the player: the same lines at the same times.
        assert [t["text"] for t in listed["transcript"]] == [c.content for c in cues]
        assert [t["start"] for t in listed["transcript"]] == pytest.approx(
            [c.start.total_seconds() for c in cues], abs=1e-3)
    # The whole series is a download (with its subtitles), not a third player.
    index = (out / "index.html").read_text()
    assert 'href="lesson/l/series.mp4"' in index and 'href="lesson/l/series.vtt"' in index
    assert state["worksheet"].endswith("worksheet.json")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_chapters_option_limits_rendering_not_assembly(built, tmp_path):
    root, out = copy_project(built[0], tmp_path / "p")
    (root / "scenes" / "tiny_beta.py").write_text(BETA.format(word="B3"))
    beta_before = scene_video(out, "03_BetaOne").stat().st_mtime_ns
    report = build(CATALOG, root=root, out=out, manim_args=TINY, chapters=[1], worksheet_module=None,
                   log=lambda s: None)
    assert [r.status for r in report.scenes] == ["cached", "cached", "not selected, needs a render"]
    assert scene_video(out, "03_BetaOne").stat().st_mtime_ns == beta_before
    assert [c.status for c in report.chapters] == ["up to date", "not built"]
    assert report.series.status == "not built" and report.exit_code == 0


# ---------------------------------------------------------------- the benchmark command

def test_benchmark_prints_ratios_and_speedup(built):
    from lesson_build.benchmark import run

    lines: list[str] = []
    catalog = CATALOG + (Chapter(3, "later", "Later", (SceneEntry(9, "scenes/later.py", "Later", "Later"),)),)
    code = run(catalog, root=built[0], qualities=["l"], names=["BetaOne", "Later"], manim_args=TINY,
               out=lines.append)
    text = "\n".join(lines)
    assert code == 0, text
    assert "not yet written: Later" in text
    row = next(line for line in lines if line.strip().startswith("BetaOne"))
    render_s, video_s, ratio = row.split()[1:4]
    video = frames_and_length(scene_video(built[1], "03_BetaOne"))[1]
    assert float(video_s.rstrip("s")) == pytest.approx(float(video), abs=0.05)
    assert float(ratio.rstrip("x")) == pytest.approx(float(render_s.rstrip("s")) / float(video), rel=0.1)
    assert "parallel speed-up over one process:" in text and "stitching the series (stream copy)" in text


def test_stitch_without_captions_still_marks_chapters(built, tmp_path):
    _, out, _ = built
    parts = [media.Part(scene_video(out, s), f"part {i}", media.probe(scene_video(out, s)), None)
             for i, s in enumerate(["01_AlphaOne", "03_BetaOne"])]
    dest = tmp_path / "plain.mp4"
    media.stitch(parts, dest, title="plain", srt_dest=tmp_path / "plain.srt", vtt_dest=tmp_path / "plain.vtt")
    first = frames_and_length(scene_video(out, "01_AlphaOne"))[1]
    with av.open(str(dest)) as c:
        assert not c.streams.subtitles
        marks = [(m["metadata"]["title"], m["start"] * Fraction(m["time_base"])) for m in c.chapters()]
        assert c.metadata.get("title") == "plain"
    assert [m[0] for m in marks] == ["part 0", "part 1"] and abs(marks[1][1] - first) <= FRAME
    assert (tmp_path / "plain.vtt").read_text().strip() == "WEBVTT"
    assert (tmp_path / "plain.srt").read_text() == ""
