"""The build's child processes (manim renders, ffmpeg, the worksheet export), so that stopping the
build stops them too.

    run(cmd, ...) -> subprocess.CompletedProcess   like subprocess.run(capture_output=True)
    stop_all()                                     no new child starts; every live one is stopped
    reset()                                        allow children again (a new build in this process)
    stop_on_signals()                              SIGINT / SIGTERM raise Interrupted (the command)
    stop_with_parent()                             SIGTERM to this process when its parent dies
    with held(): ...                               a stop waits until the block is done

Every child starts in a session of its own, so one signal reaches it and whatever it starts (a
render's encoder, a shell's sleep): `stop_all` sends SIGTERM to each group, and SIGKILL to any still
alive after a grace period. On Linux each child is also told to die with the build (prctl
PR_SET_PDEATHSIG), so even a build killed with SIGKILL, whose own clean-up never runs, leaves no
render behind.

A terminal's Ctrl-C reaches the build's process group only, not these sessions: the build's signal
handler (lesson_build.__main__) turns SIGINT and SIGTERM into `Interrupted`, and the build calls
`stop_all` on its way out.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time

GRACE_S = 3.0            # SIGTERM, then this long before SIGKILL

# Runs in the child before the real command: ask the kernel for SIGKILL when the build (the parent)
# dies, check the parent did not die before that, then become the command. `-S`: no site imports.
_GUARD = ("import ctypes, os, signal, sys\n"
          "try:\n"
          "    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG\n"
          "except (OSError, AttributeError):\n"
          "    pass\n"
          "if os.getppid() != int(sys.argv[1]):\n"
          "    os._exit(1)\n"
          "os.execvp(sys.argv[2], sys.argv[2:])\n")

_live: set[subprocess.Popen] = set()
_lock = threading.Lock()
_stopping = threading.Event()
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_held = 0                 # depth of `held()` blocks in the main thread
_pending: int | None = None   # a stop signal that arrived inside one


class Interrupted(BaseException):
    """The build was asked to stop (SIGINT or SIGTERM). A BaseException, like KeyboardInterrupt, so
    no `except Exception` on the way out swallows it."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _command(cmd: list[str]) -> list[str]:
    if sys.platform.startswith("linux"):
        return [sys.executable, "-S", "-c", _GUARD, str(os.getpid()), *map(str, cmd)]
    return list(map(str, cmd))


def run(cmd: list[str], *, text: bool = False, **kwargs) -> subprocess.CompletedProcess:
    """Run `cmd` to the end with its output captured, as a stoppable child of the build. Raises
    Interrupted instead of starting anything once `stop_all` was called."""
    with _lock:
        if _stopping.is_set():
            raise Interrupted()
        proc = subprocess.Popen(_command(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, text=text, **kwargs)
        _live.add(proc)
    try:
        out, err = proc.communicate()
    except BaseException:
        _stop(proc)
        raise
    finally:
        with _lock:
            _live.discard(proc)
    if _stopping.is_set() and proc.returncode != 0:
        raise Interrupted()       # it died because the build is stopping: not the scene's failure
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stop_groups(procs) -> None:
    """SIGTERM to each child's group, up to GRACE_S seconds for them all, then SIGKILL to the groups
    (a child's own children too)."""
    for proc in procs:
        _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    for proc in procs:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for proc in procs:
        _signal_group(proc, signal.SIGKILL)


def _stop(proc: subprocess.Popen) -> None:
    _stop_groups([proc])
    proc.wait()


def stop_all() -> None:
    """Start no more children; stop every live one (and its group) within about GRACE_S seconds."""
    with _lock:
        _stopping.set()
        live = list(_live)
    _stop_groups(live)


def reset() -> None:
    with _lock:
        _stopping.clear()


def _on_signal(signum, frame):
    global _pending
    if _held:
        _pending = signum
        return
    for sig in STOP_SIGNALS:      # one stop is enough; the clean-up takes a few seconds
        signal.signal(sig, signal.SIG_IGN)
    raise Interrupted(signum)


def stop_on_signals():
    """From now on SIGINT and SIGTERM raise Interrupted in the main thread (after any `held` block).
    Returns a function that puts the previous handlers back."""
    previous = {sig: signal.signal(sig, _on_signal) for sig in STOP_SIGNALS}

    def restore():
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return restore


@contextlib.contextmanager
def held():
    """A block a stop signal does not cut in two (moving a set of finished files into place): the
    signal is acted on right after it."""
    global _held, _pending
    _held += 1
    try:
        yield
    finally:
        _held -= 1
    if not _held and _pending is not None:
        signum, _pending = _pending, None
        _on_signal(signum, None)


def stop_with_parent() -> None:
    """Have the kernel send this process SIGTERM when its parent dies (Linux; elsewhere nothing).
    For `make lesson`: GNU make does not pass a SIGTERM on to the command it runs, so without this
    a build whose make was stopped would go on rendering alone. Not for a build started by a shell
    under nohup, which is meant to outlive it: the Makefile asks for it (LESSON_BUILD_WITH_PARENT)."""
    parent = os.getppid()
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)    # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:      # the parent died before the request: stop now
        os.kill(os.getpid(), signal.SIGTERM)
