"""Open a page in headless Chromium and ask it questions, through Playwright (its Python package
drives the system's Chromium: no browser download).

    with Chromium() as browser:
        tab = browser.open("http://127.0.0.1:8000/index.html")
        tab.wait_for("document.readyState === 'complete'")
        value = tab.evaluate("document.title")
        tab.screenshot(Path("page.png"))

`Chromium(window=(390, 844), mobile=True)` emulates a phone (touch, overlay scrollbars). Console
errors and uncaught exceptions are kept: `tab.console_errors()` lists them. `tab.page` is the
Playwright page (keyboard, clicks); `tab.call(method, params)` sends a DevTools command.

Also a check of a built page: `python -m lesson_build.browser renders/index.html [--screenshot x.png]`
serves the folder on 127.0.0.1 (lesson_build.serve: byte ranges, module types), waits until every
<video> has metadata and every <track> has loaded, and prints what it found.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import time
from pathlib import Path

from lesson_build.serve import serving

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = [
    "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
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


_PLAYWRIGHT = None


def _playwright():
    """One Playwright driver per process (its sync API allows one), started on first use."""
    global _PLAYWRIGHT
    if _PLAYWRIGHT is None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:
            raise BrowserError("the playwright package is missing (pip install -e '.[dev]')") from exc
        _PLAYWRIGHT = sync_playwright().start()
        atexit.register(_PLAYWRIGHT.stop)
    return _PLAYWRIGHT


class Tab:
    def __init__(self, page):
        from playwright.sync_api import Error
        self.page, self._error = page, Error
        self._cdp = None
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}")
                if m.type in ("error", "assert") else None)
        page.on("pageerror", lambda e: self.errors.append(f"exception: {e}"))

    def evaluate(self, expression: str):
        """The value of a JavaScript expression (awaited when it is a promise)."""
        try:
            return self.page.evaluate(expression)
        except self._error as exc:
            raise BrowserError(f"page script failed: {str(exc).splitlines()[0]}") from None

    def console_errors(self) -> list[str]:
        """One line per console.error/assert and uncaught exception (failed loads among them)."""
        return list(self.errors)

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

    def goto(self, url: str) -> None:
        """Navigate and return once the response has started (wait for the page with wait_for)."""
        self.page.goto(url, wait_until="commit")

    def call(self, method: str, params: dict | None = None) -> dict:
        """A DevTools protocol command on this tab (e.g. DOM.getDocument)."""
        if self._cdp is None:
            self._cdp = self.page.context.new_cdp_session(self.page)
        return self._cdp.send(method, params or {})

    def screenshot(self, dest: Path, full_page: bool = True) -> Path:
        dest = Path(dest)
        tmp = dest.with_name(f".{dest.name}.partial.png")
        self.page.screenshot(path=str(tmp), full_page=full_page)
        os.replace(tmp, dest)
        return dest


class Chromium:
    """A headless Chromium (the system's) through Playwright. Use as a context manager."""

    def __init__(self, executable: str | None = None, window: tuple[int, int] = (1280, 900), mobile: bool = False):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise BrowserError("chromium not found (Debian: apt-get install -y chromium)")
        self.window, self.mobile = window, mobile

    def __enter__(self) -> "Chromium":
        args = list(FLAGS)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(0, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.browser = _playwright().chromium.launch(executable_path=self.executable, args=args, headless=True)
        return self

    def __exit__(self, *exc) -> None:
        with contextlib.suppress(Exception):
            self.browser.close()

    def open(self, url: str, events: bool = False, window: tuple[int, int] | None = None,
             mobile: bool | None = None) -> Tab:
        """A new tab (in its own context: a cold cache) on `url`, at this browser's window size or
        `window` (a phone with `mobile`); console errors are collected from the first byte
        (`events` is kept for older callers)."""
        width, height = window or self.window
        mobile = self.mobile if mobile is None else mobile
        context = self.browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1,
                                           is_mobile=mobile, has_touch=mobile)
        tab = Tab(context.new_page())
        tab.goto(url)
        return tab


def serve(folder: Path):
    """Serve `folder` on 127.0.0.1 (a free port) for the duration; yields the base URL."""
    return serving(Path(folder))


# What the page check reads back once every video and track has settled.
PAGE_STATE = """
(() => {
  const videos = [...document.querySelectorAll('video')];
  const settled = videos.every(v => v.readyState >= 1 || v.error);
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
      // (player.js builds each track from the transcript: kind, mode and every cue)
      tracks: [...v.textTracks].map(t => ({
        kind: t.kind, label: t.label, mode: t.mode,
        cues: t.cues ? [...t.cues].map(c => ({ start: c.startTime, end: c.endTime, text: c.text })) : null })) })),
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
        tracks = ", ".join(f"{t['kind']} ({len(t['cues'] or [])} cues, {t['mode']})" for t in v["tracks"]) or "no track"
        ok = v["error"] is None and (v["duration"] or 0) > 0 and all(t["cues"] for t in v["tracks"])
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {v['id']}: {v['duration']:.2f}s {v['width']}x{v['height']}; {tracks}")
    print(f"{len(state['chapters'])} chapters listed; worksheet link: {state['worksheet']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
