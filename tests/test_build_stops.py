"""Stopping, re-running and failing builds, on a throwaway project of two tiny scenes (160x90, 5 fps).

The build runs as a command (`lesson_build.__main__.run`, what `python -m lesson_build` calls) in a
subprocess, so it can be sent a real SIGTERM — to the build process alone, as a CI runner, `timeout`
or a process manager sends it. Each stall is a marker file written by the stalled child (a scene's
construct, a wrapper around ffmpeg, the worksheet export) with its pid: every child of the build
leads a session of its own, so "no process of the stopped run is left" is checked as "no process
is left in that session" (/proc/<pid>/stat), grandchildren included.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import av
import imageio_ffmpeg
import pytest

REPO = Path(__file__).resolve().parents[1]

QUICK = '''
from manim import FadeIn, Scene, Text


class Quick(Scene):
    def construct(self):
        self.add_subcaption("quick", duration=1)
        self.play(FadeIn(Text("Q", font="DejaVu Sans", font_size=144)), run_time=1)
'''

SLOW = '''
import os, time
from pathlib import Path
from manim import FadeIn, Scene, Text


class Slow(Scene):
    def construct(self):
        marker = os.environ.get("STALL_RENDER")
        if marker:                      # the test stops the build while this render runs
            Path(marker).write_text(str(os.getpid()))
            time.sleep(120)
        {body}
        self.play(FadeIn(Text("{word}", font="DejaVu Sans", font_size=144)), run_time=1)
'''

FAKE_WORKSHEET = '''
import argparse, json, os, time
from pathlib import Path
p = argparse.ArgumentParser()
p.add_argument("command")
p.add_argument("--out", required=True)
a = p.parse_args()
marker = os.environ.get("STALL_WORKSHEET")
if marker:
    Path(marker).write_text(str(os.getpid()))
    time.sleep(120)
Path(a.out).write_text(json.dumps({"fake": True}))
'''

# Stands in for imageio-ffmpeg's binary: stalls in a grandchild (`sleep`, which only a signal to the
# whole session stops), or fails as a full disk does, or runs the real ffmpeg.
FFMPEG_WRAPPER = '''#!/bin/sh
if [ -n "$STALL_FFMPEG" ]; then echo $$ > "$STALL_FFMPEG"; sleep 120; fi
if [ -n "$FAIL_FFMPEG" ]; then
  for last; do :; done
  printf 'half a video' > "$last"
  echo "[mp4 @ 0x55d0] av_interleaved_write_frame(): No space left on device" >&2
  echo "Conversion failed!" >&2
  exit 1
fi
exec {real} "$@"
'''

DRIVER = '''
import os, sys
from pathlib import Path
sys.path.insert(0, {repo!r})
from lesson_build.__main__ import run
from lesson_build.catalog import Chapter, SceneEntry

root = Path(__file__).resolve().parent
scenes = (SceneEntry(1, "scenes/quick.py", "Quick", "Quick"), SceneEntry(2, "scenes/slow.py", "Slow", "Slow"))
if os.environ.get("NO_SCENES"):       # straight to the page: one scene not written yet
    scenes = (SceneEntry(1, "scenes/absent.py", "Absent", "Absent"),)
catalog = (Chapter(1, "one", "Chapter one", scenes),)
sys.exit(run(catalog=catalog, root=root, out=root / "renders", quality="l", jobs=1,
             manim_args=("-r", "160,90", "--fps", "5"), worksheet_module="fakews"))
'''


def write_project(root: Path) -> None:
    (root / "scenes").mkdir(parents=True)
    (root / "scenes" / "quick.py").write_text(QUICK)
    write_slow(root, word="S")
    (root / "fakews").mkdir()
    (root / "fakews" / "__main__.py").write_text(FAKE_WORKSHEET)
    wrapper = root / "ffmpeg-wrapper"
    wrapper.write_text(FFMPEG_WRAPPER.format(real=imageio_ffmpeg.get_ffmpeg_exe()))
    wrapper.chmod(0o755)
    (root / "driver.py").write_text(DRIVER.format(repo=str(REPO)))


def write_slow(root: Path, *, word: str, body: str = "pass") -> None:
    (root / "scenes" / "slow.py").write_text(SLOW.format(word=word, body=body))


def start(root: Path, **env) -> subprocess.Popen:
    full = dict(os.environ, IMAGEIO_FFMPEG_EXE=str(root / "ffmpeg-wrapper"), **env)
    return subprocess.Popen([sys.executable, str(root / "driver.py")], cwd=root, env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen, timeout: float = 120) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def wait_for(marker: Path, proc: subprocess.Popen, timeout: float = 90) -> int:
    """The stalled child's pid, once it has written it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if marker.is_file() and marker.read_text().strip():
            return int(marker.read_text())
        if proc.poll() is not None:
            raise AssertionError(f"the build ended before the stall: {finish(proc)}")
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"no stall within {timeout}s: {finish(proc)}")


def session_members(sid: int) -> list[int]:
    """Live processes in session `sid` (field 6 of /proc/<pid>/stat), zombies excluded."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()   # after "pid (comm) "
        if fields[0] != "Z" and int(fields[3]) == sid:
            members.append(int(stat.parent.name))
    return members


def stop_during(root: Path, stall: str, tmp_path: Path) -> tuple[int, str, str, int]:
    """Start a build, wait until `stall` stalls, SIGTERM the build process alone; (rc, out, err, sid)."""
    marker = tmp_path / f"{stall}.pid"
    marker.unlink(missing_ok=True)
    proc = start(root, **{stall: str(marker)})
    sid = wait_for(marker, proc)
    os.kill(proc.pid, signal.SIGTERM)
    started = time.monotonic()
    rc, out, err = finish(proc, timeout=30)
    assert time.monotonic() - started < 10, "the build took more than 10 s to stop"
    return rc, out, err, sid


def published(out: Path) -> dict[str, str]:
    """Every file a viewer or the page reads (not the logs), with its sha256."""
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and "logs" not in p.parts
            and p.name != ".lesson_build.lock"}


def assert_nothing_half_written(out: Path) -> None:
    leftovers = [p for p in out.rglob("*") if ".partial" in p.name or p.name.endswith(".tmp")
                 or {".staging", ".stitching"} & set(p.parts)]
    assert not leftovers, leftovers
    for video in out.rglob("*.mp4"):
        with av.open(str(video)) as c:
            assert c.duration and c.duration > 0, video
    for manifest in out.rglob("*.json"):
        json.loads(manifest.read_text())
    index = out / "index.html"
    if index.exists():
        assert index.read_text().rstrip().endswith("</html>")


def scene_counts(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("lesson_build: "))


@pytest.fixture()
def project(tmp_path):
    root = tmp_path / "p"
    write_project(root)
    return root


def test_stopped_builds_leave_no_process_and_nothing_half_written_and_resume(project, tmp_path):
    out = project / "renders"
    scenes = out / "lesson" / "l" / "scenes"

    # 1. During a render (Quick finished, Slow rendering): the render's session dies with the build.
    rc, _, err, sid = stop_during(project, "STALL_RENDER", tmp_path)
    assert rc == 128 + signal.SIGTERM and "stopped by SIGTERM" in err, err
    assert session_members(sid) == []
    assert (scenes / "01_Quick.json").is_file() and not (scenes / "02_Slow.json").exists()
    assert_nothing_half_written(out)

    # 2. During the stitch: ffmpeg's wrapper sleeps in a grandchild, which must die too.
    rc, stdout, err, sid = stop_during(project, "STALL_FFMPEG", tmp_path)
    assert rc == 143, err
    assert "1 up to date, 1 to render" in scene_counts(stdout)     # exactly what was not finished
    assert session_members(sid) == []
    assert (scenes / "02_Slow.json").is_file() and not (out / "lesson" / "l" / "one.mp4").exists()
    assert_nothing_half_written(out)

    # 3. While the page is made (the worksheet export): the chapter is already whole.
    rc, stdout, err, sid = stop_during(project, "STALL_WORKSHEET", tmp_path)
    assert rc == 143 and "2 up to date, 0 to render" in scene_counts(stdout), err
    assert session_members(sid) == []
    assert (out / "lesson" / "l" / "one.json").is_file() and not (out / "index.html").exists()
    assert_nothing_half_written(out)

    # 4. The next run finishes without an error and renders nothing again.
    rc, stdout, err = finish(start(project))
    assert rc == 0, stdout + err
    assert "2 up to date, 0 to render" in scene_counts(stdout)
    assert (out / "index.html").is_file() and (out / "worksheet.json").is_file()
    assert_nothing_half_written(out)
    complete = published(out)

    # 5. Stopped again during a render and during a stitch, with a whole build on disk: every
    #    published file is still the old one (the re-rendered scene's own files excepted, which
    #    are new and whole).
    write_slow(project, word="T")
    rc, _, _, sid = stop_during(project, "STALL_RENDER", tmp_path)
    assert rc == 143 and session_members(sid) == []
    assert published(out) == complete
    rc, _, _, sid = stop_during(project, "STALL_FFMPEG", tmp_path)
    assert rc == 143 and session_members(sid) == []
    now = published(out)
    changed = {k for k in complete if now.get(k) != complete[k]}
    assert changed == {f"lesson/l/scenes/02_Slow.{ext}" for ext in ("mp4", "json")}, changed
    assert_nothing_half_written(out)
    rc, stdout, err = finish(start(project))
    assert rc == 0 and "2 up to date, 0 to render" in scene_counts(stdout), stdout + err


def test_a_failing_encoder_or_render_names_its_cause_in_one_line_and_keeps_the_published_files(project):
    out = project / "renders"
    rc, stdout, err = finish(start(project))
    assert rc == 0, stdout + err
    before = published(out)

    # The stitch's encoder fails as on a full disk (after writing half a file).
    write_slow(project, word="U")
    rc, stdout, err = finish(start(project, FAIL_FFMPEG="1"))
    assert rc == 1, stdout + err
    failed = [line for line in stdout.splitlines() if line.startswith("FAILED")]
    assert failed == ["FAILED: chapter one: stitching one.mp4 failed: [mp4 @ 0x55d0] "
                      "av_interleaved_write_frame(): No space left on device"], stdout
    after = published(out)
    for name in ("lesson/l/one.mp4", "lesson/l/one.srt", "lesson/l/one.vtt", "lesson/l/one.json"):
        assert after[name] == before[name], name
    assert 'src="lesson/l/one.mp4"' in (out / "index.html").read_text()   # still on the page
    assert_nothing_half_written(out)

    # A render that fails (its disk full): one line naming the scene and the cause.
    write_slow(project, word="V", body='raise OSError(28, "No space left on device")')
    rc, stdout, err = finish(start(project))
    assert rc == 1, stdout + err
    failed = [line for line in stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == 1, stdout
    assert failed[0].startswith("FAILED: scene Slow: OSError: [Errno 28] No space left on device (log: ")
    assert published(out)["lesson/l/one.mp4"] == before["lesson/l/one.mp4"]
    assert 'src="lesson/l/one.mp4"' in (out / "index.html").read_text()
    assert_nothing_half_written(out)


def test_one_build_per_output_folder_and_a_killed_builds_lock_is_taken_over(project, tmp_path):
    marker = tmp_path / "ws.pid"
    first = start(project, NO_SCENES="1", STALL_WORKSHEET=str(marker))
    sid = wait_for(marker, first)

    rc, stdout, err = finish(start(project, NO_SCENES="1"))
    assert rc == 2, stdout + err
    assert err.strip().count("\n") == 0, err
    assert f"another build is writing {project / 'renders'} (pid {first.pid} on " in err, err

    # Killed outright: its clean-up never runs, the lock file stays, and its child dies with it.
    first.kill()
    first.communicate()
    deadline = time.monotonic() + 5
    while session_members(sid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert session_members(sid) == []
    assert (project / "renders" / ".lesson_build.lock").read_text().strip()

    rc, stdout, err = finish(start(project, NO_SCENES="1"))
    assert rc == 0, stdout + err
    assert f"taking over the lock of a build that did not finish (pid {first.pid} on " in stdout


def test_stopping_make_stops_the_build_it_runs(project, tmp_path):
    """GNU make does not pass a SIGTERM on to its command; the build (asked by the Makefile, as
    `make lesson` asks) has the kernel stop it when make dies."""
    (project / "Makefile").write_text(f"lesson: export LESSON_BUILD_WITH_PARENT := 1\nlesson:\n"
                                      f"\t{sys.executable} {project / 'driver.py'}\n")
    marker = tmp_path / "render.pid"
    env = dict(os.environ, IMAGEIO_FFMPEG_EXE=str(project / "ffmpeg-wrapper"), STALL_RENDER=str(marker))
    make = subprocess.Popen(["make", "-s", "lesson"], cwd=project, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    sid = wait_for(marker, make)
    os.kill(make.pid, signal.SIGTERM)
    make.communicate(timeout=30)

    def builds() -> list[int]:
        found = []
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                if str(project / "driver.py").encode() in cmdline.read_bytes():
                    found.append(int(cmdline.parent.name))
            except OSError:
                pass
        return found

    deadline = time.monotonic() + 10
    while (builds() or session_members(sid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert builds() == [] and session_members(sid) == []
    assert_nothing_half_written(project / "renders")
