"""One build per output folder at a time.

    with output_lock(out):        # raises Busy when another build holds <out>/.lesson_build.lock
        ...

The lock is an flock on <out>/.lesson_build.lock, which the kernel drops when its holder dies, however
it dies: a lock file left by a killed build holds no flock, and the next build takes it over (and
says so). The file's text, the holder's pid, host and start time, is only for the messages.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from pathlib import Path
from typing import Callable, Iterator

LOCK_NAME = ".lesson_build.lock"


class Busy(RuntimeError):
    """Another build holds the folder's lock."""


def _holder(text: str) -> str:
    try:
        info = json.loads(text)
        return f"pid {info['pid']} on {info['host']}, started {info['started']}"
    except (ValueError, KeyError, TypeError):
        return "a build that left no details"


@contextlib.contextmanager
def output_lock(out: Path, log: Callable[[str], None] = print) -> Iterator[Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(f"another build is writing {out} ({_holder(path.read_text(errors='replace'))}); "
                       "wait for it to finish or stop it") from None
        previous = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
        if previous:
            log(f"lesson_build: taking over the lock of a build that did not finish ({_holder(previous)})")
        mine = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                           "started": time.strftime("%Y-%m-%d %H:%M:%S")})
        os.ftruncate(fd, 0)
        os.pwrite(fd, mine.encode(), 0)
        try:
            yield path
        finally:
            os.ftruncate(fd, 0)       # a finished build leaves an empty file: nothing to take over
    finally:
        os.close(fd)                  # closing drops the flock
