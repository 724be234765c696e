"""`python -m lesson_data export --out FILE [--sentence river|cheque|"<text>"]`

Writes the worksheet as JSON with full-precision floats (repr round-trip), fixed key order,
byte-identical on repeat. Bad input: one line on stderr, exit 2, nothing written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from lesson_data import worksheet as wsmod

EXPORT_FORMAT = "lesson_data.worksheet/1"


def build_export(sentence: str | None = None) -> dict:
    names = [sentence] if sentence is not None else list(wsmod.SENTENCES)
    sheets = [wsmod.compute_worksheet(s) for s in names]  # raises ValueError on bad input
    return {
        "format": EXPORT_FORMAT,
        "axes": list(wsmod.AXES),
        "vocab": list(wsmod.VOCAB),
        "candidates": list(wsmod.CANDIDATES),
        "head_names": list(wsmod.HEAD_NAMES),
        "sentences": {ws.name: wsmod.worksheet_to_dict(ws) for ws in sheets},
    }


def dumps(data: dict) -> str:
    # json writes floats with repr(), which round-trips float64 exactly; NaN/inf are refused.
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_atomic(path: str, text: str) -> None:
    """Write to a temp file beside `path`, then os.replace: never a half-written output."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".lesson_data-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the export ordinary permissions
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default prints the whole usage)
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m lesson_data", description="Export the worksheet numbers as JSON.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    export = sub.add_parser("export", help="write the worksheet JSON")
    export.add_argument("--out", required=True, help="output JSON file")
    export.add_argument("--sentence", default=None, help='river, cheque or "<1-20 vocabulary words>"')
    args = parser.parse_args(argv)

    try:
        text = dumps(build_export(args.sentence))
    except ValueError as exc:
        print(f"error: bad --sentence: {exc}", file=sys.stderr)
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_dir):
        print(f"error: --out folder does not exist: {out_dir}", file=sys.stderr)
        return 2
    try:
        write_atomic(args.out, text)
    except OSError as exc:
        print(f"error: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
