"""Narration: the spoken-form rules (hand-written expectations), the LESSON_VOICE switch and its
errors, a person's recordings replacing beats, the content cache, and one real Piper synthesis."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest
from manim import Circle, Create

from narration import speech
from narration.spoken import decimal_words, number_words, speech_faults, spoken_form
from narration.voice import (RECORDING_RATES, VoiceError, audio_key, estimated_seconds, fingerprint,
                             voice_from_env)
from scenes.style import LessonScene
from tests.scene_harness import assert_beats, build_scene

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ spoken forms

@pytest.mark.parametrize("written,spoken", [
    ("W_Q", "W Q"),
    ("e₁₀W_Q¹ + b_Q¹", "row ten of E times head one's W Q plus head one's query bias"),
    ("W_K and W_V", "W K and W V"),
    ("÷ √2", "divided by root two"),
    ("√4", "root four"),
    ("[10, 4]", "ten by four"),
    ("[1, 20]", "one by twenty"),
    ("[n_heads × d_v, d_model]", "n heads times d v by d model"),
    ("ΔE", "delta E"),
    ("E′ = E + ΔE", "E prime equals E plus delta E"),
    ("α¹₁₀,ⱼ", "head one's weight for row ten on source j"),
    ("q¹₁₀", "head one's query for row ten"),
    ("k²ⱼ", "head two's key for source j"),
    ("v¹ⱼ and k¹₁₀", "head one's value for source j and head one's key for row ten"),
    ("0.718 × 3.1 = 2.2258", "zero point seven one eight times three point one equals two point two two five eight"),
    ("an 8×8 image", "an eight by eight image"),
    ("patches, each 4×4.", "patches, each four by four."),          # a size at the end of a sentence
    ("Softmax turns them", "Soft max turns them"),
    ("H¹ and H²", "head one's H and head two's H"),
    ("W_O¹", "head one's W O"),
    ("m₁₀", "the message for row ten"),
    ("αᵢⱼ", "the weight for row i on source j"),
    ("QKᵀ", "Q K transpose"),
    ("0.718", "zero point seven one eight"),
    ("2.400", "two point four"),
    ("-0.300", "minus zero point three"),
    ("−2.3", "minus two point three"),
    ("1.000", "one"),
    ("3.293 ± 0.008", "three point two nine three plus or minus zero point zero zero eight"),
    ("8.9e-16", "eight point nine times ten to the minus sixteen"),
    ("61%", "sixty-one percent"),
    ("1,321,120", "one million three hundred twenty-one thousand one hundred twenty"),
    ("64×16", "sixty-four by sixteen"),
    ("the <UNK> bank", "the unknown bank"),
    ("§3.2.2", "section three point two point two"),
    ("Voita et al. (2019)", "Voita and colleagues twenty nineteen"),
    ("A[10, :]", "row ten of the attention matrix"),
    ("m₁₀ = Σⱼ α₁₀,ⱼ vⱼ", "the message for row ten equals the sum over j of the weight for row ten on source j "
                          "times the value for source j"),
    ("3Blue1Brown and Jay Alammar", "three blue one brown and Jay Alammar"),
    ("e′₁₀", "e prime, row ten"),
    ("q¹·k¹ + q²·k²", "head one's query dot head one's key plus head two's query dot head two's key"),
    ("E′ · W1 + b1", "E prime times W one plus b one"),
    ("river₆ and fisherman₂", "river at position six and fisherman at position two"),
    ("q = [2.3, 2.3]", "q equals two point three, two point three"),
    ("[H¹ | H²]", "head one's H joined to head two's H"),
    ("add_bias_kv", "add bias k v"),
    ("Training ran on an AMD EPYC CPU", "Training ran on an AMD Epic C P U"),   # not spelled out
    ("The receiver “the” brings its row", "The receiver the word the brings its row"),
    ("−log 0.336", "minus the log of zero point three three six"),
    ("“Ravi dropped the glass . It”", "Ravi dropped the glass. It"),
    ("Voita et al. 2019", "Voita and colleagues twenty nineteen"),
    ("6,000 updates", "six thousand updates"),
    ("Head 1 puts most of its weight on river: 0.718.",
     "Head one puts most of its weight on river: zero point seven one eight."),
])
def test_spoken_forms(written, spoken):
    assert spoken_form(written) == spoken


# ---- quoted words: "the word X", or X where the sentence makes it a noun; never between bare commas

@pytest.mark.parametrize("written,spoken", [
    ("“Coat” asks with a query", "The word coat asks with a query"),
    ("The last, “coat”, is the receiver.", "The last, the word coat, is the receiver."),
    ("A second head might read “gate” for something else", "A second head might read the word gate for something else"),
    ("Head 2 reads “she” instead of “fisherman”", "Head two reads the word she instead of fisherman"),
    ("most of its weight on “river”: 0.718", "most of its weight on river: zero point seven one eight"),
    ("the weight of “river” stays", "the weight of river stays"),
    ("Head 2, the “person” head, repeats", "Head two, the person head, repeats"),
    ("brings what it found to “usually”", "brings what it found to the word usually"),
    ("its weight on “she”", "its weight on the word she"),          # a little word is never read bare
    ("The receiver is the word “usually”: the last", "The receiver is the word usually: the last"),
    ("The last known token, “at” at position 20", "The last known token, the word at at position twenty"),
    ("moved weight from “river” to “fisherman”, so", "moved weight from river to fisherman, so"),
    ("Take the phrase “Maya wore a hooded red wool coat”.", "Take the phrase Maya wore a hooded red wool coat."),
    ("fills the blank: “…and watched the water”.", "fills the blank: and watched the water."),
])
def test_a_quoted_word_is_heard_as_a_word(written, spoken):
    assert spoken_form(written) == spoken


@pytest.mark.parametrize("written,spoken", [
    ("Token 10, “the”, is the receiver.", "Token ten, the word the, is the receiver."),
    ("“the” appears three times", "The word the appears three times"),
    ("the row of “the” plus position row 10", "the row of the word the plus position row ten"),
    ("little words like “the”.", "little words like the word the."),
    ("One head reads them for “the”, with one weight", "One head reads them for the word the, with one weight"),
    ("The receiver, the word “the”, brings its row", "The receiver, the word the, brings its row"),
])
def test_a_quoted_the_is_always_the_word_the(written, spoken):
    assert spoken_form(written) == spoken


# ---- notation as a teacher says it: possessives, no brackets or ellipses, no lone A

@pytest.mark.parametrize("written,spoken", [
    ("V¹ has one row per source", "head one's V has one row per source"),
    ("q¹₁₀ and Q¹", "head one's query for row ten and head one's Q"),
    ("m¹₁₀ carries mostly water", "head one's message for row ten carries mostly water"),
    ("W_V¹ does another job than W_K¹", "head one's W V does another job than head one's W K"),
    ("row 10 of A², one weight beside", "row ten of head two's attention matrix, one weight beside"),
    ("e₁₀", "row ten of E"),
])
def test_indexed_symbols_are_read_as_possessives(written, spoken):
    assert spoken_form(written) == spoken


@pytest.mark.parametrize("written,spoken", [
    ("2.3 × 3.1 + 2.3 × (-0.1) = 6.90",
     "two point three times three point one plus two point three times minus zero point one equals six point nine"),
    ("three times (case ignored): one token row", "three times, case ignored: one token row"),
    ("where head outputs land (hand-chosen here; in a model, learned).",
     "where head outputs land, hand-chosen here; in a model, learned."),
    ("the unrounded weight, 0.71764…, so", "the unrounded weight, zero point seven one seven six four, so"),
    ("a first … then a second", "a first, then a second"),
])
def test_no_bracket_or_ellipsis_is_spoken(written, spoken):
    assert spoken_form(written) == spoken


@pytest.mark.parametrize("written,spoken", [
    ("so A is [10, 10] too", "so the attention matrix is ten by ten too"),
    ("A times V gives H", "The attention matrix times V gives H"),
    ("Each row of A is a receiver", "Each row of the attention matrix is a receiver"),
    ("A control: set", "A control: set"),                 # the article stays
    ("A second head might", "A second head might"),
])
def test_a_lone_A_is_named_not_heard_as_the_article(written, spoken):
    assert spoken_form(written) == spoken


# ---- what a spoken line must never contain (the per-beat test over every scene uses this)

@pytest.mark.parametrize("line,fault", [
    ("the weight of, river, stays zero point seven", "comma-wrapped word ', river,'"),
    ("Dogs and, gate, both come before the receiver", "comma-wrapped word ', gate,'"),
    ("Token ten, the, is the receiver.", "comma-wrapped word ', the,'"),
    ("Together they make a next word like, broke, likely.", "comma-wrapped word ', broke,'"),
    ("two point three times (minus zero point one)", "bracket"),
    ("the unrounded weight, zero point seven one seven six four…, so", "ellipsis"),
    ("stored together in in proj bias", "doubled word 'in in'"),
    ("watched the the water", "doubled word 'the the'"),
    ("Cut it into four four by four patches.", "doubled word 'four four'"),
    ("so A is ten by ten too", "a lone letter A, heard as the article"),
    ("Head one puts 0.718 on river", "not speech: '0178'"),
    ("E prime = E", "not speech: '='"),
])
def test_speech_faults_names_each_fault(line, fault):
    assert fault in speech_faults(line)


@pytest.mark.parametrize("line", [
    "Head one puts most of its weight on river: zero point seven one eight.",
    "The rounded ones on screen add to zero point nine nine nine.",          # repeated digits
    "two point three three million parameters",
    "water, finance, person, and glue, which marks little words like the word the.",   # a list
    "Token ten, the word the, is the receiver.",
    "A control: set head one's W Q beside head two's W Q.",
    "Head one's arrows move: zero point six four five from cheque.",
])
def test_speech_faults_pass_what_a_teacher_would_say(line):
    assert speech_faults(line) == []


@pytest.mark.parametrize("n,words", [(0, "zero"), (7, "seven"), (15, "fifteen"), (20, "twenty"),
                                     (64, "sixty-four"), (100, "one hundred"), (256, "two hundred fifty-six"),
                                     (4096, "four thousand ninety-six"), (-3, "minus three"),
                                     (2_000_000, "two million")])
def test_number_words(n, words):
    assert number_words(n) == words


def test_decimals_drop_only_the_display_padding():
    assert decimal_words("0.050") == "zero point zero five"
    assert decimal_words("10.0") == "ten"
    assert decimal_words(".5") == "point five"


# ------------------------------------------------------------------ the switch

def test_default_and_named_voices():
    assert voice_from_env({}).kind == "piper"
    assert voice_from_env({"LESSON_VOICE": "none"}).kind == "none"
    assert voice_from_env({"LESSON_VOICE": "piper"}).kind == "piper"


def write_wav(path: Path, seconds: float, rate: int = 22050, width: int = 2, channels: int = 1,
              tone: bool = True) -> Path:
    n = int(seconds * rate)
    t = np.arange(n) / rate
    samples = (0.3 * 32767 * np.sin(2 * np.pi * 220 * t)).astype("<i2") if tone else np.zeros(n, "<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        data = np.repeat(samples, channels) if width == 2 else np.zeros(n * channels * width, "u1")
        w.writeframes(data.tobytes())
    return path


@pytest.mark.parametrize("make,says", [
    (lambda d: d / "nowhere", "does not exist"),
    (lambda d: write_wav(d / "file.wav", 0.1), "is not a folder"),
])
def test_a_bad_voice_value_names_itself_and_what_is_allowed(tmp_path, make, says):
    value = str(make(tmp_path))
    with pytest.raises(VoiceError) as err:
        voice_from_env({"LESSON_VOICE": value})
    message = str(err.value)
    assert says in message and value in message and "piper, none, or a folder" in message
    assert "\n" not in message


def test_an_unknown_word_is_a_missing_folder():
    with pytest.raises(VoiceError, match="'espeak': does not exist; allowed: piper, none"):
        voice_from_env({"LESSON_VOICE": "espeak"})


@pytest.mark.parametrize("name,write,says", [
    ("Setup-01.wav", lambda p: write_wav(p, 0.5, rate=16000), "sample rate 16,000 Hz"),
    ("Setup-01.wav", lambda p: p.write_bytes(b"RIFF not really"), "unreadable recording"),
    ("Setup-01.wav", lambda p: write_wav(p, 0.5, width=1), "8-bit"),
    ("Setup-01.mp3", lambda p: p.write_bytes(b"ID3"), ".mp3 audio"),
])
def test_a_bad_recording_names_the_file_and_what_is_allowed(tmp_path, name, write, says):
    write(tmp_path / name)
    with pytest.raises(VoiceError) as err:
        voice_from_env({"LESSON_VOICE": str(tmp_path)})
    message = str(err.value)
    assert says in message and name in message and "16-bit PCM WAV" in message and "\n" not in message


def test_recordings_are_read_by_beat_id_and_other_files_ignored(tmp_path):
    for rate in RECORDING_RATES:
        write_wav(tmp_path / f"Demo-{rate}.wav", 0.25, rate=rate, channels=2)
    (tmp_path / "README.txt").write_text("my takes")
    choice = voice_from_env({"LESSON_VOICE": str(tmp_path)})
    assert choice.kind == "recordings" and sorted(choice.recordings) == [f"Demo-{r}" for r in RECORDING_RATES]
    assert all(r.seconds == pytest.approx(0.25, abs=1e-3) for r in choice.recordings.values())
    assert fingerprint(choice)["recordings"]["Demo-22050"] == choice.recordings["Demo-22050"].sha256


def test_a_bad_voice_stops_a_render_before_anything_is_written(tmp_path):
    scene = tmp_path / "s.py"
    scene.write_text("from scenes.style import LessonScene\n\nclass S(LessonScene):\n"
                     "    def construct(self):\n        with self.beat('Hello.'):\n            self.wait(1)\n")
    env = {**os.environ, "LESSON_VOICE": str(tmp_path / "missing"), "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "lesson_build", "--out", str(tmp_path / "out")],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "LESSON_VOICE" in r.stderr and "does not exist" in r.stderr
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ recordings replace beats

class Recorded(LessonScene):
    def construct(self):
        with self.beat("Short."):
            self.play(Create(Circle()))
        with self.beat("Another short sentence."):
            self.wait(0.2)


def test_a_recording_replaces_its_beat_and_the_beat_stretches_to_fit(tmp_path, monkeypatch):
    write_wav(tmp_path / "Recorded-01.wav", 4.0, rate=44100)
    monkeypatch.setattr("tests.scene_harness.silent_voice", _voice(str(tmp_path), tmp_path / "cache"))
    b = build_scene(Recorded, pixel_height=180)
    first, second = b.beats
    assert first.source == "recording" and Path(first.audio) == (tmp_path / "Recorded-01.wav").resolve()
    assert first.speech_end - first.speech_start == pytest.approx(4.0, abs=1e-3)
    assert first.end - first.start >= 4.0 + LessonScene.PAUSE_S
    # no recording for beat 2: Piper speaks it (synthesized once, then cached)
    assert second.source == "piper"
    assert_beats(b, min_beats=2)


def _voice(value, cache):
    from contextlib import contextmanager

    @contextmanager
    def voice():
        old = {k: os.environ.get(k) for k in ("LESSON_VOICE", "LESSON_VOICE_CACHE")}
        os.environ.update({"LESSON_VOICE": value, "LESSON_VOICE_CACHE": str(cache)})
        try:
            yield
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return voice


# ------------------------------------------------------------------ Piper and the cache

def test_piper_speaks_a_short_sentence_once_and_then_reads_it_from_the_cache(tmp_path):
    text = spoken_form("Head 1 reads river.")
    before = dict(speech.STATS)
    path = speech.speech_file("piper", text, tmp_path)
    with wave.open(str(path)) as w:
        rate, frames = w.getframerate(), w.getnframes()
        samples = np.frombuffer(w.readframes(frames), dtype="<i2").astype(float)
    assert rate == 22050 and 0.8 < frames / rate < 4.0
    rms = np.sqrt(np.mean(samples ** 2))
    assert rms > 500                                   # speech, not silence
    assert speech.STATS["synthesized"] == before["synthesized"] + 1
    again = speech.speech_file("piper", text, tmp_path)
    assert again == path and speech.STATS["synthesized"] == before["synthesized"] + 1
    assert speech.STATS["cached"] == before["cached"] + 1
    # the estimate the silent voice uses is near Piper's real length
    assert estimated_seconds(text) == pytest.approx(frames / rate, rel=0.35)


def test_the_audio_key_changes_with_text_voice_and_settings():
    a = audio_key("piper", "one", {"v": 1})
    assert a == audio_key("piper", "one", {"v": 1})
    assert len({a, audio_key("piper", "two", {"v": 1}), audio_key("none", "one", {"v": 1}),
                audio_key("piper", "one", {"v": 2})}) == 4


# ------------------------------------------------------------------ the recording script and report

def fake_manifests(root: Path, quality: str = "m") -> None:
    from lesson_build.catalog import all_scenes
    scenes = root / "lesson" / quality / "scenes"
    scenes.mkdir(parents=True)
    for s in all_scenes():
        beats = [{"id": f"{s.name}-{k:02d}", "text": f"Line {k} of {s.name}.", "spoken": "one two three four",
                  "start": 2.0 * k, "end": 2.0 * k + 2, "speech_start": 2.0 * k, "speech_end": 2.0 * k + 1.6}
                 for k in (1, 2)]
        (scenes / f"{s.number:02d}_{s.name}.beats.json").write_text(
            json.dumps({"scene": s.name, "duration": 6.0, "beats": beats}))


def test_the_recording_script_lists_every_beat_id_with_its_line(tmp_path):
    from lesson_build.catalog import all_scenes
    from lesson_build.narration import report, script
    fake_manifests(tmp_path)
    text = script(tmp_path, "m")
    for s in all_scenes():
        assert f"- `{s.name}-01` (1.6 s now): Line 1 of {s.name}." in text
    assert text.count("`") == 2 * 2 * len(all_scenes()) + 2        # every id once, plus the .wav note
    # 21 scenes x 2 beats x 4 words over 21 x 2 x 1.6 s of speech: 2.5 words a second, by hand
    last = report(tmp_path, "m").splitlines()[-1].split()
    assert last[:6] == ["all", "42", "67.2", "126.0", "168", "2.50"]


def test_the_script_without_a_render_is_one_line_and_exit_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "lesson_build.narration", "script", "--out", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "render first" in r.stderr


# ------------------------------------------------------------------ the script without a render

def test_the_script_from_scenes_prints_each_caption_beside_its_spoken_line():
    from lesson_build.narration import listening_script
    from scenes.chapter1_why_heads import TheReceiver
    from tests.scene_harness import built

    lines = listening_script(["TheReceiver"]).splitlines()
    assert lines.index("## Chapter 1: Why several heads?") < lines.index("### Scene 2: The receiver")
    at = 0
    for k, beat in enumerate(built(TheReceiver).beats, 1):
        block = [f"- `{beat.id}` (02_{k:02d})", f"  - screen: {beat.text}", f"  - voice: {beat.spoken}"]
        at = lines.index(block[0], at)
        assert lines[at:at + 3] == block
    assert "### Scene 1: Three heads, seven rows" not in lines and lines[-1] == "0 fault(s) in the spoken lines."


def test_the_script_from_scenes_builds_the_scenes_asked_for_in_viewing_order(monkeypatch):
    """Asked out of order, the scenes come in the catalog's order, each built once, with the sentence."""
    import types

    import tests.scene_harness as harness
    from lesson_build.narration import scene_beats

    asked = []

    def fake_build(scene_cls, sentence=None, pixel_height=216):
        asked.append((scene_cls.__name__, sentence))
        return types.SimpleNamespace(beats=[scene_cls.__name__])

    monkeypatch.setattr(harness, "build_scene", fake_build)
    got = scene_beats(["PatchesAndCLS", "Setup", "TheReceiver"], sentence="cheque")
    assert [(s.number, beats) for _, s, beats in got] == [(2, ["TheReceiver"]), (5, ["Setup"]), (21, ["PatchesAndCLS"])]
    assert asked == [("TheReceiver", "cheque"), ("Setup", "cheque"), ("PatchesAndCLS", "cheque")]


def test_the_script_from_scenes_names_a_fault(monkeypatch):
    import lesson_build.narration as narration
    from lesson_build.catalog import CHAPTERS
    from scenes.style import Beat

    ch = CHAPTERS[0]
    beats = [Beat(id="X-01", text="Fine.", spoken="Fine.", start=0.0),
             Beat(id="X-02", text="“river”", spoken="the weight of, river, stays", start=1.0)]
    monkeypatch.setattr(narration, "scene_beats", lambda names, sentence: [(ch, ch.scenes[0], beats)])
    lines = narration.listening_script().splitlines()
    assert lines[lines.index("  - voice: the weight of, river, stays") + 1] == "  - FAULT: comma-wrapped word ', river,'"
    assert lines[-1] == "1 fault(s) in the spoken lines."


@pytest.mark.parametrize("args,says", [(["--from-scenes", "--scenes", "NoSuchScene"], "no scene named 'NoSuchScene'"),
                                       (["--scenes", "Setup"], "go with script --from-scenes")])
def test_the_script_from_scenes_refuses_bad_arguments_in_one_line(args, says):
    r = subprocess.run([sys.executable, "-m", "lesson_build.narration", "script", *args],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr


def test_a_scene_introduces_a_quoted_word_once_then_says_it_alone():
    """The listener heard "the word X" 51 times: within a scene, once per word (by hand)."""
    named: set = set()
    assert spoken_form("Head 1 reads “river” most.", named) == "Head one reads the word river most."
    assert spoken_form("“River” wins again; “fisherman” is second.", named) == \
        "River wins again; the word fisherman is second."
    assert spoken_form("Now “fisherman” leads.", named) == "Now fisherman leads."
    # little words and the lesson's verbs keep "the word": bare, they would be heard as grammar
    assert spoken_form("Head 2 reads “she”.", named) == "Head two reads the word she."
    assert spoken_form("Again “she” and “the”.", named) == "Again the word she and the word the."
    assert named == {"river", "fisherman"}
    # without a scene's set, every mention is introduced
    assert spoken_form("Now “fisherman” leads.") == "Now the word fisherman leads."


def test_a_unit_is_spoken_as_a_word_and_a_left_abbreviation_is_a_fault():
    from narration.spoken import speech_faults, spoken_form
    said = spoken_form("the baseline is faster on every prompt, by at least 0.016 ms; one head")
    assert "milliseconds;" in said and " ms" not in said
    assert speech_faults(said) == []
    assert speech_faults("by at least zero point zero one six ms; one head") == [
        "a unit abbreviation 'ms', spelled out as letters"]
    # an "s" earlier in the line (a possessive) does not hide it
    assert speech_faults("the model's time is five ms.") == ["a unit abbreviation 'ms', spelled out as letters"]
