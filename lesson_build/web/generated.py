"""The command line of a generated, committed file (web/unicode_tables.mjs, web/worksheet_tables.mjs):

    python -m <module>            write the file (atomically)
    python -m <module> --check    exit 1 if the committed file differs from what would be written
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable


def generated_file_main(argv: list[str] | None, *, prog: str, description: str, path: Path,
                        generate: Callable[[], str]) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--check", action="store_true", help=f"exit 1 if the committed {path.name} is stale")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            print(f"{path.name} is stale: run {prog}", file=sys.stderr)
            return 1
        print(f"{path.name} is up to date")
        return 0
    tmp = path.with_name(f".{path.name}.partial")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    print(f"wrote {path}")
    return 0
