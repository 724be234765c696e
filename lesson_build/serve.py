"""`python -m lesson_build serve [--port 8000] [--out renders]` (also `make serve`)

Serves the built page folder on http://127.0.0.1:PORT/ until Ctrl-C: the standard library's file
server plus what a lesson page needs from one, byte ranges (so a video seeks to any point before
it has downloaded), the JavaScript type for .mjs modules, and cross-origin isolation (so the
demo's timer reads microseconds). Only this machine can connect.
The page itself needs none of this: any static host serves it.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import http.server
import os
import re
import sys
import threading
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


class LessonHandler(http.server.SimpleHTTPRequestHandler):
    """SimpleHTTPRequestHandler with single byte ranges, module MIME types and no caching."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript", ".js": "text/javascript", ".vtt": "text/vtt", ".srt": "text/plain",
        ".json": "application/json", ".bin": "application/octet-stream", ".mp4": "video/mp4", ".gif": "image/gif",
    }

    def log_message(self, *args) -> None:     # quiet: the terminal shows the URL only
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        # Cross-origin isolation: the page loads nothing from elsewhere, and in return the browser
        # times performance.now() to 5 microseconds instead of 100, which the demo's per-token
        # latency needs. (A static host without these headers serves the page just the same.)
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def send_head(self):
        self._range = None
        header = self.headers.get("Range")
        path = self.translate_path(self.path)
        if header is None or os.path.isdir(path):
            return super().send_head()
        match = _RANGE.match(header.strip())
        try:
            f = open(path, "rb")
        except OSError:
            self.send_error(404, "File not found")
            return None
        size = os.fstat(f.fileno()).st_size
        start_text, end_text = match.groups() if match else ("", "")
        if not match or (start_text == "" and end_text == ""):
            f.close()
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if start_text == "":                   # the last N bytes
            start, end = max(0, size - int(end_text)), size - 1
        else:
            start, end = int(start_text), min(int(end_text) if end_text else size - 1, size - 1)
        if start >= size or start > end:
            f.close()
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        f.seek(start)
        self._range = end - start + 1
        return f

    def copyfile(self, source, outputfile) -> None:
        left = getattr(self, "_range", None)
        if left is None:
            return super().copyfile(source, outputfile)
        while left > 0:
            block = source.read(min(1 << 16, left))
            if not block:
                break
            outputfile.write(block)
            left -= len(block)

    def handle_one_request(self) -> None:
        # A player that seeks drops its connection mid-file; that is not an error worth a traceback.
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            super().handle_one_request()


def make_server(folder: Path, port: int = 0, host: str = "127.0.0.1") -> http.server.ThreadingHTTPServer:
    handler = functools.partial(LessonHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


@contextlib.contextmanager
def serving(folder: Path, port: int = 0):
    """Serve `folder` on 127.0.0.1 in a background thread for the duration; yields the base URL."""
    server = make_server(folder, port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _port(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535; 0 picks a free one)")
    return n


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m lesson_build serve", description=__doc__.split("\n\n")[1])
    parser.add_argument("--port", type=_port, default=8000, help="port on 127.0.0.1 (default 8000; 0 = any free one)")
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "renders",
                        help="the built folder to serve (default: renders/ in the project)")
    args = parser.parse_args(argv)
    index = args.out / "index.html"
    if not index.is_file():
        print(f"{parser.prog}: error: {index} does not exist; build the lesson first (make lesson)", file=sys.stderr)
        return 2
    try:
        server = make_server(args.out.resolve(), args.port)
    except OSError as exc:
        why = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be opened ({exc.strerror})"
        print(f"{parser.prog}: error: port {args.port} {why}; pass --port N (or --port 0 for any free one)",
              file=sys.stderr)
        return 2
    print(f"Serving {args.out} at http://127.0.0.1:{server.server_address[1]}/  (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
