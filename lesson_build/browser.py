"""Open a page in headless Chromium and ask it questions, with no Python dependency beyond the
standard library: the DevTools protocol over `--remote-debugging-pipe` (JSON messages separated by
NUL bytes on file descriptors 3 and 4).

    with Chromium() as browser:
        tab = browser.open("http://127.0.0.1:8000/index.html")
        tab.wait_for("document.readyState === 'complete'")
        value = tab.evaluate("document.title")
        tab.screenshot(Path("page.png"))

Events (console messages, exceptions, log entries) are kept: `tab.enable_events()`, then
`tab.console_errors()` lists the errors the page reported.

Also a check of a built page: `python -m lesson_build.browser renders/index.html [--screenshot x.png]`
serves the folder on 127.0.0.1 (lesson_build.serve: byte ranges, module types), waits until every
<video> has metadata and every <track> has loaded, and prints what it found.
"""
from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lesson_build.serve import serving

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = [
    "--headless", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--mute-audio", "--autoplay-policy=no-user-gesture-required",
]


class BrowserError(RuntimeError):
    pass


def find_chromium() -> str | None:
    if os.environ.get("CHROMIUM") and shutil.which(os.environ["CHROMIUM"]):
        return shutil.which(os.environ["CHROMIUM"])
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _above(fd: int, floor: int = 10) -> int:
    """The same pipe end on a descriptor >= floor (the original is closed)."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, floor)
    os.close(fd)
    return high


class Tab:
    def __init__(self, browser: "Chromium", session: str):
        self.browser, self.session = browser, session

    def call(self, method: str, params: dict | None = None) -> dict:
        return self.browser.call(method, params, session=self.session)

    def evaluate(self, expression: str):
        reply = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                               "awaitPromise": True})
        if "exceptionDetails" in reply:
            raise BrowserError(f"page script failed: {reply['exceptionDetails'].get('text')} "
                               f"{reply['exceptionDetails'].get('exception', {}).get('description', '')}")
        return reply["result"].get("value")

    def enable_events(self) -> None:
        """Start collecting this tab's console calls, exceptions and log entries."""
        self.call("Runtime.enable")
        self.call("Log.enable")

    def events(self, method: str | None = None) -> list[dict]:
        return [e for e in self.browser.events
                if e.get("sessionId") == self.session and (method is None or e.get("method") == method)]

    def console_errors(self) -> list[str]:
        """One line per error the page reported: console.error/assert, uncaught exceptions, and
        error-level log entries (failed loads among them)."""
        out = []
        for e in self.events():
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                          for a in p.get("args", [])))
            elif e["method"] == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append(f"exception: {d.get('text')} {d.get('exception', {}).get('description', '')}".strip())
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                entry = p["entry"]
                out.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip())
        return out

    def wait_for(self, expression: str, timeout: float = 20.0, interval: float = 0.1):
        """Poll `expression` until it is truthy; return its value (BrowserError on timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out after {timeout}s waiting for: {expression}")
            time.sleep(interval)

    def screenshot(self, dest: Path, full_page: bool = True) -> Path:
        params = {"format": "png"}
        if full_page:
            metrics = self.call("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            params.update({"captureBeyondViewport": True,
                           "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"],
                                    "scale": 1}})
        data = self.call("Page.captureScreenshot", params)["data"]
        dest = Path(dest)
        tmp = dest.with_name(f".{dest.name}.partial")
        tmp.write_bytes(base64.b64decode(data))
        os.replace(tmp, dest)
        return dest


class Chromium:
    """A headless Chromium driven over the DevTools pipe. Use as a context manager."""

    def __init__(self, executable: str | None = None, window: tuple[int, int] = (1280, 900)):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise BrowserError("chromium not found (Debian: apt-get install -y chromium)")
        self.window = window
        self._next_id = 0
        self._buffer = b""
        self.events: list[dict] = []     # every message that was not a reply (see Tab.events)

    def __enter__(self) -> "Chromium":
        self._profile = tempfile.TemporaryDirectory(prefix="lesson_build-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._res_r, res_w = os.pipe()
        # Park the child's ends above fd 10 so the redirections below cannot clobber each other.
        cmd_r, res_w = _above(cmd_r), _above(res_w)
        args = [*FLAGS, f"--user-data-dir={self._profile.name}", "--remote-debugging-pipe",
                f"--window-size={self.window[0]},{self.window[1]}", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(0, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        # The protocol wants its pipe on fds 3 (commands in) and 4 (replies out); bash, not sh,
        # because dash cannot redirect descriptors above 9.
        launcher = f'exec "$0" "$@" 3<&{cmd_r} 4>&{res_w} {cmd_r}<&- {res_w}>&-'
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([shutil.which("bash") or "bash", "-c", launcher, self.executable, *args],
                                     pass_fds=(cmd_r, res_w), stdin=subprocess.DEVNULL,
                                     stdout=self._log, stderr=self._log)
        os.close(cmd_r)
        os.close(res_w)
        return self

    def __exit__(self, *exc) -> None:
        try:
            if self.proc.poll() is None:
                with contextlib.suppress(Exception):
                    self.call("Browser.close", timeout=5)
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            os.close(self._cmd_w)
            os.close(self._res_r)
            self._log.close()
            self._profile.cleanup()

    def _stderr_tail(self) -> str:
        self._log.seek(0)
        return " | ".join(self._log.read().decode("utf-8", "replace").strip().splitlines()[-5:])

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 30.0) -> dict:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if "method" in reply and "id" not in reply:
                    self.events.append(reply)
                    continue
                if reply.get("id") == self._next_id:
                    if "error" in reply:
                        raise BrowserError(f"{method}: {reply['error'].get('message')}")
                    return reply.get("result", {})
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"{method}: no reply in {timeout}s")
            ready, _, _ = select.select([self._res_r], [], [], left)
            if ready:
                chunk = os.read(self._res_r, 1 << 20)
                if not chunk:
                    raise BrowserError(f"chromium exited: {self._stderr_tail()}")
                self._buffer += chunk

    def open(self, url: str, events: bool = False) -> Tab:
        """A new tab on `url`; events=True collects console and log events from the first byte."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session)
        tab.call("Emulation.setDeviceMetricsOverride", {"width": self.window[0], "height": self.window[1],
                                                        "deviceScaleFactor": 1, "mobile": False})
        if events:
            tab.enable_events()
        tab.call("Page.navigate", {"url": url})
        return tab


def serve(folder: Path):
    """Serve `folder` on 127.0.0.1 (a free port) for the duration; yields the base URL."""
    return serving(Path(folder))


# What the page check reads back once every video and track has settled.
PAGE_STATE = """
(() => {
  const videos = [...document.querySelectorAll('video')];
  const settled = videos.every(v => v.readyState >= 1 || v.error) &&
    [...document.querySelectorAll('track')].every(t => t.readyState >= 2);
  if (!settled) return null;
  return {
    chapters: [...document.querySelectorAll('section.chapter')].map(s => ({
      id: s.id, heading: s.querySelector('h2').textContent,
      scenes: [...s.querySelectorAll('ol.scenes li')].map(li => li.textContent.trim()),
      transcript: [...s.querySelectorAll('.transcript button.cue')].map(b => ({
        start: parseFloat(b.dataset.start), end: parseFloat(b.dataset.end),
        text: b.querySelector('.text').textContent })),
      video: s.querySelector('video') ? s.querySelector('video').id : null })),
    videos: videos.map(v => ({
      id: v.id, duration: v.duration, error: v.error ? v.error.code : null,
      width: v.videoWidth, height: v.videoHeight,
      tracks: [...v.querySelectorAll('track')].map(t => ({
        file: t.dataset.file, readyState: t.readyState, mode: t.track.mode,
        cues: t.track.cues ? t.track.cues.length : null })) })),
    worksheet: document.getElementById('worksheet-link') ? document.getElementById('worksheet-link').href : null,
  };
})()
"""


def inspect_index(index: Path, screenshot: Path | None = None, timeout: float = 30.0,
                  via: str = "http") -> dict:
    """Load a built index.html (served on 127.0.0.1, or via="file" straight from disk) and report
    its chapters, videos and tracks."""
    index = Path(index).resolve()
    with contextlib.ExitStack() as stack:
        if via == "http":
            url = f"{stack.enter_context(serve(index.parent))}/{index.name}"
        elif via == "file":
            url = index.as_uri()
        else:
            raise ValueError(f"via must be 'http' or 'file', got {via!r}")
        browser = stack.enter_context(Chromium())
        tab = browser.open(url)
        tab.wait_for("document.readyState === 'complete'", timeout=timeout)
        state = tab.wait_for(PAGE_STATE, timeout=timeout)
        if screenshot is not None:
            tab.screenshot(screenshot)
        return state


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m lesson_build.browser",
                                     description="Check a built index.html in headless Chromium.")
    parser.add_argument("index", type=Path, nargs="?", default=Path("renders/index.html"))
    parser.add_argument("--screenshot", type=Path, default=None)
    parser.add_argument("--via", choices=["http", "file"], default="http",
                        help="serve on 127.0.0.1 (default) or open from disk as file://")
    args = parser.parse_args(argv)
    if not args.index.is_file():
        print(f"error: {args.index} does not exist; run `python -m lesson_build` first", file=sys.stderr)
        return 2
    state = inspect_index(args.index, args.screenshot, via=args.via)
    bad = 0
    for v in state["videos"]:
        tracks = ", ".join(f"{t['file']} ({t['cues']} cues)" for t in v["tracks"]) or "no track"
        ok = v["error"] is None and (v["duration"] or 0) > 0 and all(t["readyState"] == 2 for t in v["tracks"])
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {v['id']}: {v['duration']:.2f}s {v['width']}x{v['height']}; {tracks}")
    print(f"{len(state['chapters'])} chapters listed; worksheet link: {state['worksheet']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
