"""Video plumbing: probe with PyAV, stitch and mux with ffmpeg (ffmpeg-python driving the binary
from imageio-ffmpeg), merge subtitles, cut a thumbnail and a GIF preview.

Times are kept as Fractions of a second from the container's own time bases, so chapter marks and
subtitle offsets add up exactly; they are rounded only where a file format demands it.
Every output is written under a temporary name beside its destination and os.replace'd.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import os
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Iterator, Sequence

import av
import ffmpeg
import imageio_ffmpeg
import srt

from lesson_build import processes

FFMPEG = imageio_ffmpeg.get_ffmpeg_exe()


class MediaError(RuntimeError):
    """An ffmpeg step failed; the message names the step and ends with ffmpeg's line saying why."""


# ---------------------------------------------------------------- probing

@dataclass(frozen=True)
class VideoInfo:
    duration: Fraction          # seconds, from the video stream's own duration
    frames: int
    width: int
    height: int
    fps: Fraction
    time_base: Fraction
    signature: tuple            # everything that must match for a stream-copy concat of the video
    has_audio: bool


def probe(path: Path) -> VideoInfo:
    """Duration, frame count and codec parameters of a video file (PyAV; no ffprobe needed)."""
    with av.open(str(path)) as container:
        if not container.streams.video:
            raise MediaError(f"{path}: no video stream")
        v = container.streams.video[0]
        cc = v.codec_context
        if v.duration is not None and v.time_base is not None:
            duration = Fraction(v.duration) * Fraction(v.time_base)
        elif container.duration is not None:
            duration = Fraction(container.duration, av.time_base)
        else:
            raise MediaError(f"{path}: duration unknown")
        frames = v.frames or sum(1 for p in container.demux(v) if p.size)
        audio = [
            (a.codec_context.name, a.codec_context.sample_rate, a.codec_context.layout.name,
             a.codec_context.format.name if a.codec_context.format else None)
            for a in container.streams.audio
        ]
        # The nominal rate, not average_rate: the latter is frames / duration and wobbles in the
        # last digits when the final frame is held, which made equal scenes look unequal (and
        # forced a re-encode of the whole series).
        rate = v.guessed_rate or v.average_rate
        rate = Fraction(rate) if rate else None
        # Audio is not part of it: the stitched sound track is always made anew (see stitch).
        signature = (
            cc.name, cc.width, cc.height, cc.pix_fmt, cc.profile,
            rate, Fraction(v.time_base),
            bytes(cc.extradata or b""),
        )
        return VideoInfo(
            duration=duration, frames=frames, width=cc.width, height=cc.height,
            fps=rate or Fraction(0),
            time_base=Fraction(v.time_base), signature=signature, has_audio=bool(audio),
        )


# ---------------------------------------------------------------- atomic outputs

@contextlib.contextmanager
def atomic_output(dest: Path) -> Iterator[Path]:
    """Yield a temp path beside `dest` (same suffix, so ffmpeg picks the format); replace on success."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.stem}.", suffix=f".partial{dest.suffix}")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text_atomic(dest: Path, text: str) -> None:
    with atomic_output(dest) as tmp:
        tmp.write_text(text, encoding="utf-8")


def _run(stream, what: str) -> None:
    """Run one ffmpeg command as a stoppable child of the build (lesson_build.processes)."""
    try:
        proc = processes.run(stream.compile(cmd=FFMPEG, overwrite_output=True))
    except OSError as exc:
        raise MediaError(f"{what} failed: cannot start {FFMPEG}: {exc}") from None
    if proc.returncode != 0:
        lines = [line.strip() for line in (proc.stderr or b"").decode("utf-8", "replace").splitlines()]
        # ffmpeg's last line is often a generic sign-off; the cause is the line before it.
        said = [line for line in lines if line and line != "Conversion failed!"]
        raise MediaError(f"{what} failed: {said[-1] if said else f'ffmpeg exited {proc.returncode}'}")


# ---------------------------------------------------------------- subtitles

def _td(seconds: Fraction) -> dt.timedelta:
    return dt.timedelta(microseconds=round(seconds * 1_000_000))


def read_srt(path: Path | None) -> list[srt.Subtitle]:
    if path is None or not Path(path).is_file():
        return []
    return list(srt.parse(Path(path).read_text(encoding="utf-8-sig")))


def merge_subtitles(parts: Sequence[tuple[Path | None, Fraction, Fraction]]) -> list[srt.Subtitle]:
    """Concatenate per-scene cues: each (srt path or None, start offset s, scene duration s).

    A cue is shifted by its scene's offset and clipped to its scene, so a caption that outlasts
    the scene's last frame never spills over the next scene.
    """
    merged: list[srt.Subtitle] = []
    for path, offset, duration in parts:
        scene_end = _td(duration)
        for cue in read_srt(path):
            if cue.start >= scene_end:
                continue
            merged.append(srt.Subtitle(
                index=len(merged) + 1,
                start=cue.start + _td(offset),
                end=min(cue.end, scene_end) + _td(offset),
                content=cue.content,
            ))
    return merged


def compose_srt(cues: Sequence[srt.Subtitle]) -> str:
    return srt.compose(list(cues), reindex=True) if cues else ""


def _vtt_time(t: dt.timedelta) -> str:
    ms = round(t.total_seconds() * 1000)
    h, rem = divmod(ms, 3_600_000)
    m, rem = divmod(rem, 60_000)
    s, ms = divmod(rem, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def compose_vtt(cues: Sequence[srt.Subtitle]) -> str:
    """WebVTT for browsers' <track> (they do not read SRT)."""
    out = ["WEBVTT", ""]
    for i, cue in enumerate(cues, 1):
        text = cue.content.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        # A blank line would end the cue early in VTT.
        text = "\n".join(line for line in text.splitlines() if line.strip()) or " "
        out += [str(i), f"{_vtt_time(cue.start)} --> {_vtt_time(cue.end)}", text, ""]
    return "\n".join(out)


# ---------------------------------------------------------------- stitching

def _quote(path: Path) -> str:
    return "'" + str(Path(path).resolve()).replace("'", "'\\''") + "'"


def _seconds(x: Fraction) -> str:
    return f"{float(x):.9f}"


def ffmetadata(title: str, marks: Sequence[tuple[str, Fraction, Fraction]], time_base: Fraction) -> str:
    """An ffmetadata file: the video's title and one [CHAPTER] per (title, start, end)."""
    def esc(s: str) -> str:
        for ch in "\\=;#\n":
            s = s.replace(ch, "\\" + ch)
        return s

    lines = [";FFMETADATA1", f"title={esc(title)}", ""]
    for name, start, end in marks:
        lines += [
            "[CHAPTER]",
            f"TIMEBASE={time_base.numerator}/{time_base.denominator}",
            f"START={round(start / time_base)}",
            f"END={round(end / time_base)}",
            f"title={esc(name)}",
            "",
        ]
    return "\n".join(lines)


@dataclass(frozen=True)
class Part:
    video: Path
    title: str                  # the chapter mark's title
    info: VideoInfo
    subtitles: Path | None = None


AUDIO_RATE = 48000
AUDIO_BITRATE = "128k"


def _sound_track(parts: Sequence[Part]):
    """One continuous sound track for `parts`, each part's sound cut or padded with silence to
    exactly its video's length and joined end to end; a part without sound is silence.

    Copying the parts' AAC streams would drift: each scene's AAC runs a few tens of milliseconds
    past its last frame (whole 1024-sample packets, encoder priming), and the concat demuxer would
    place every later scene's sound that much late. Decoding, trimming and encoding once keeps each
    scene's speech under its own pictures, to the sample."""
    tracks = []
    for p in parts:
        length = _seconds(p.info.duration)
        if p.info.has_audio:
            track = (ffmpeg.input(str(p.video)).audio
                     .filter("aresample", AUDIO_RATE)
                     .filter("aformat", sample_fmts="fltp", channel_layouts="mono")
                     .filter("atrim", end=length).filter("asetpts", "PTS-STARTPTS")
                     .filter("apad", whole_dur=length))
        else:
            track = ffmpeg.input(f"anullsrc=r={AUDIO_RATE}:cl=mono", f="lavfi", t=length).audio
        tracks.append(track)
    return tracks[0] if len(tracks) == 1 else ffmpeg.concat(*tracks, v=0, a=1)


def stitch(parts: Sequence[Part], dest: Path, *, title: str,
           srt_dest: Path, vtt_dest: Path) -> dict:
    """Concatenate `parts` into `dest` with one chapter mark per part and the merged subtitles
    (as a mov_text track, plus .srt and .vtt files beside it). The video is a stream copy when
    every part shares its codec parameters, otherwise one re-encode to the first part's size and
    rate. When any part has sound, the sound track is made anew from the parts' sound, each cut or
    padded to its video's length (_sound_track), so speech stays under its scene across the joins.

    Returns {"copy": bool, "marks": [(title, start, end)], "duration": Fraction, "cues": int,
    "audio": bool}.
    """
    if not parts:
        raise ValueError("stitch: no parts")
    offsets, t = [], Fraction(0)
    for p in parts:
        offsets.append(t)
        t += p.info.duration
    total = t
    marks = [(p.title, o, o + p.info.duration) for p, o in zip(parts, offsets)]
    bases = {p.info.time_base for p in parts}
    mark_base = bases.pop() if len(bases) == 1 else Fraction(1, 1_000_000)
    cues = merge_subtitles([(p.subtitles, o, p.info.duration) for p, o in zip(parts, offsets)])
    copy = len({p.info.signature for p in parts}) == 1
    audio = any(p.info.has_audio for p in parts)

    with tempfile.TemporaryDirectory(prefix="lesson_build-") as work:
        work = Path(work)
        listing = work / "parts.ffconcat"
        listing.write_text("ffconcat version 1.0\n" + "".join(
            # The duration line makes the demuxer place each part exactly where the marks say.
            f"file {_quote(p.video)}\nduration {_seconds(p.info.duration)}\n" for p in parts
        ))
        meta = work / "chapters.ffmetadata"
        meta.write_text(ffmetadata(title, marks, mark_base), encoding="utf-8")
        # The track is muxed from WebVTT, not SRT: ffmpeg reads SRT text as HTML-ish markup and
        # drops anything in <...>, while VTT's &lt; escapes come through as the literal text.
        subs = work / "subtitles.vtt"
        subs.write_text(compose_vtt(cues), encoding="utf-8")

        video_in = ffmpeg.input(str(listing), f="concat", safe=0)
        meta_in = ffmpeg.input(str(meta), f="ffmetadata")
        streams = [video_in["v"]]
        if audio:
            streams.append(_sound_track(parts))
        kwargs: dict = {"movflags": "+faststart"}
        if cues:
            # A chapter without captions gets no track (an empty one confuses some players).
            streams.insert(1, ffmpeg.input(str(subs), f="webvtt")["s"])
            kwargs.update({"scodec": "mov_text", "metadata:s:s:0": "language=eng"})
        # The ffmetadata input has no streams; an optional map keeps it in the command.
        streams.append(meta_in["s?"])
        first = parts[0].info
        if copy:
            kwargs["c:v"] = "copy"
        else:
            kwargs.update({
                "c:v": "libx264", "pix_fmt": "yuv420p", "crf": 18,
                "vf": f"scale={first.width}:{first.height},fps={first.fps.numerator}/{first.fps.denominator}",
            })
        if audio:
            kwargs.update({"c:a": "aac", "b:a": AUDIO_BITRATE, "ar": AUDIO_RATE})
        with atomic_output(dest) as tmp:
            # Title and chapter marks come from the ffmetadata input, whose number depends on how
            # many inputs the sound track brings: read it off the command itself.
            probe_args = ffmpeg.output(*streams, str(tmp), f="mp4").get_args()
            inputs = [probe_args[k + 1] for k, a in enumerate(probe_args) if a == "-i"]
            kwargs["map_metadata"] = kwargs["map_chapters"] = inputs.index(str(meta))
            _run(ffmpeg.output(*streams, str(tmp), f="mp4", **kwargs), f"stitching {dest.name}")
        write_text_atomic(srt_dest, compose_srt(cues))
        write_text_atomic(vtt_dest, compose_vtt(cues))
    return {"copy": copy, "marks": marks, "duration": total, "cues": len(cues), "audio": audio}


# ---------------------------------------------------------------- previews

def _frame_gray(path: Path, t: Fraction):
    """The decoded frame shown at time t, as a grayscale array (None past the end)."""
    with av.open(str(path)) as container:
        v = container.streams.video[0]
        container.seek(int(t / Fraction(v.time_base)), stream=v, backward=True)
        shown = None
        for frame in container.decode(v):
            if frame.time is not None and frame.time > float(t) + 1e-6:
                break
            shown = frame
        return None if shown is None else shown.to_ndarray(format="gray")


def pick_thumbnail_time(path: Path, candidates: Sequence[Fraction]) -> Fraction:
    """The candidate time whose frame has the most going on (largest pixel spread): the scenes
    open on an empty screen and often fade out, so neither end makes a useful still."""
    best, best_score = candidates[0], -1.0
    for t in candidates:
        frame = _frame_gray(path, t)
        if frame is not None and float(frame.std()) > best_score:
            best, best_score = t, float(frame.std())
    return best


# A poster's JPEG quality (ffmpeg's -q:v, 2 best .. 31 worst): at 5 a 640×360 frame of the lesson's
# flat colours and text is ~40 kB and looks like the video's own frame (a PNG of it is ~140 kB,
# and four of them were most of a first visit's weight).
POSTER_QUALITY = 5


def thumbnail(src: Path, dest: Path, at: Fraction, width: int = 640) -> None:
    """One frame at `at`, at most `width` wide, as a JPEG (the page's poster)."""
    with atomic_output(dest) as tmp:
        stream = ffmpeg.input(str(src), ss=_seconds(at)).output(
            str(tmp), vframes=1, vf=f"scale='min({width},iw)':-2", f="image2", vcodec="mjpeg",
            **{"q:v": POSTER_QUALITY})
        _run(stream, f"thumbnail {dest.name}")


def gif_preview(src: Path, dest: Path, start: Fraction, seconds: float = 4.0,
                width: int = 320, fps: int = 10) -> None:
    """A small looping GIF (own palette, so flat colours stay flat)."""
    with atomic_output(dest) as tmp:
        clip = ffmpeg.input(str(src), ss=_seconds(start), t=f"{seconds:.3f}").video
        clip = clip.filter("fps", fps).filter("scale", f"min({width},iw)", -2, flags="lanczos")
        split = clip.split()
        a, b = split[0], split[1]
        palette = b.filter("palettegen", stats_mode="diff")
        out = ffmpeg.filter([a, palette], "paletteuse").output(str(tmp), f="gif", loop=0)
        _run(out, f"GIF {dest.name}")
