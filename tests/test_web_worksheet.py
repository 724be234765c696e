"""lesson_build/web/worksheet.mjs against the Python data layer: computeWorksheet, the CLI, the
display rule `fmt`, and the error messages. Each test runs one node process for all its cases."""
from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lesson_data import worksheet as ws
from lesson_data.__main__ import build_export
from lesson_data.display import fmt

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "lesson_build" / "web" / "worksheet.mjs"
NODE = shutil.which("node")
if NODE is None and (os.environ.get("LESSON_REQUIRE_NODE") or os.environ.get("LESSON_REQUIRE_CHROMIUM")):
    raise RuntimeError("node is required here (LESSON_REQUIRE_NODE / LESSON_REQUIRE_CHROMIUM is set) but not installed")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (Debian: apt-get install -y nodejs)")
TOL = 1e-12


def run_node(script: str, stdin: str = "") -> str:
    """Run an ES-module script (with `W` bound to worksheet.mjs) and return its stdout."""
    code = f'import * as W from {json.dumps(MODULE.as_uri())};\nimport fs from "node:fs";\n{script}'
    proc = subprocess.run([NODE, "--input-type=module", "-e", code], input=stdin, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def assert_same(js, py, where="sentence"):
    """Same keys in the same order, same shapes, null where Python has None, numbers to 1e-12."""
    if isinstance(js, np.ndarray):   # (only in the self-check of arrays_of)
        js = np.where(np.isneginf(js), None, js).tolist()
    if isinstance(py, np.ndarray):
        got = _as_array(js)
        assert got is not None and got.shape == py.shape, f"{where}: shape differs from {py.shape}"
        assert (np.isnan(got) == np.isneginf(py)).all(), f"{where}: null where Python has no -inf"
        assert np.isfinite(py[~np.isneginf(py)]).all(), f"{where}: NaN or +inf in the data layer"
        diff = np.abs(np.where(np.isnan(got), 0.0, got) - np.where(np.isneginf(py), 0.0, py))
        assert diff.max(initial=0.0) <= TOL, f"{where}: differs by {diff.max()}"
        return
    if isinstance(py, dict):
        assert isinstance(js, dict) and list(js) == list(py), f"{where}: keys {list(js)} != {list(py)}"
        for key in py:
            assert_same(js[key], py[key], f"{where}.{key}")
    elif isinstance(py, list):
        assert isinstance(js, list) and len(js) == len(py), f"{where}: length {len(js)} != {len(py)}"
        numeric = _as_array(py)
        if numeric is not None:   # a (nested) list of floats and Nones: compare it in one go
            got = _as_array(js)
            assert got is not None and got.shape == numeric.shape, f"{where}: shape differs"
            assert (np.isnan(got) == np.isnan(numeric)).all(), f"{where}: null (-inf) in other places"
            diff = np.abs(np.nan_to_num(got) - np.nan_to_num(numeric))
            assert diff.max(initial=0.0) <= TOL, f"{where}: differs by {diff.max()}"
            return
        for i, (a, b) in enumerate(zip(js, py)):
            assert_same(a, b, f"{where}[{i}]")
    elif py is None:
        assert js is None, f"{where}: {js} where Python has None (-inf)"
    elif isinstance(py, bool) or isinstance(py, str):
        assert js == py, f"{where}: {js!r} != {py!r}"
    elif isinstance(py, int):
        assert js == py and float(js).is_integer(), f"{where}: {js} != {py}"
    else:
        assert isinstance(js, (int, float)) and not isinstance(js, bool), f"{where}: {js!r} is not a number"
        assert math.isfinite(js) and abs(js - py) <= TOL, f"{where}: {js!r} != {py!r}"


def _as_array(value) -> np.ndarray | None:
    """A nested list of numbers (None as nan), or None when it holds anything else. (JSON.stringify
    writes 0.0 as 0, so the JavaScript side's whole floats come back as ints.)"""
    flat = value
    while isinstance(flat, list) and flat and isinstance(flat[0], list):
        flat = [x for row in flat for x in row]
    if not isinstance(flat, list) or not all(x is None or (isinstance(x, (int, float)) and not isinstance(x, bool))
                                             for x in flat):
        return None
    try:
        return np.array(value, dtype=float)
    except ValueError:   # ragged
        return None


def random_sentences(count: int = 200, seed: int = 13) -> list[str]:
    """Seeded sentences of 1-20 vocabulary words, some in odd case or with odd spacing."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        words = [rng.choice(ws.VOCAB) for _ in range(rng.randint(1, ws.MAX_WORDS))]
        if k % 5 == 1:
            words = [w.upper() if rng.random() < 0.5 else w.capitalize() for w in words]
        sep = " " if k % 7 else rng.choice(["  ", "\t", " \n ", "\u00a0", "\u3000"])
        out.append(("  " if k % 11 == 0 else "") + sep.join(words))
    # Every length, and both named sentences in the ways a user may type them.
    out += [" ".join(ws.VOCAB[:n]) for n in range(1, ws.MAX_WORDS + 1)]
    out += ["river", "cheque", "RIVER", "  Cheque\n", ws.SENTENCES["river"], ws.SENTENCES["cheque"].upper()]
    return out


def arrays_of(sheet: ws.Worksheet) -> dict:
    """worksheet_to_dict's structure with the numpy arrays themselves (-inf kept) in place of the
    nested lists: the same numbers, without the export's slow per-element conversion."""
    def head(h):
        return {"index": h.index, "name": h.name, "scale": h.scale,
                **{f: getattr(h, f) for f in ws.HEAD_ARRAY_FIELDS}}
    m = sheet.mlp
    probs = {w: float(p) for w, p in zip(ws.VOCAB, m.probabilities)}
    mlp = {"input": m.input, "pre_activation": m.pre_activation, "hidden": m.hidden, "logits": m.logits,
           "probabilities": probs, "prediction": m.prediction, "ranked": [[w, p] for w, p in m.ranked]}
    return {"name": sheet.name, "text": sheet.text, "tokens": list(sheet.tokens), "n": sheet.n,
            "receiver": sheet.receiver, "token_rows": sheet.token_rows, "position_rows": sheet.position_rows,
            "E": sheet.E, "heads": [head(h) for h in sheet.heads], "H_joined": sheet.H_joined, "W_O": sheet.W_O,
            "delta_E": sheet.delta_E, "E_prime": sheet.E_prime, "mlp": mlp, "probabilities": dict(probs),
            "prediction": m.prediction, "wide_head": head(sheet.wide_head)}


def test_compute_worksheet_equals_the_data_layer_on_seeded_random_sentences():
    sentences = random_sentences()
    assert len(sentences) >= 200 and all(1 <= len(s.split()) <= 20 for s in sentences)
    got = json.loads(run_node(
        "const sentences = JSON.parse(fs.readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(sentences.map((s) => W.computeWorksheet(s))));",
        json.dumps(sentences)))
    predictions = set()
    for k, (sentence, js) in enumerate(zip(sentences, got)):
        sheet = ws.compute_worksheet(sentence)
        if k % 10 == 0 or k >= len(sentences) - 6:
            # The export's own dict: keys, order, types, None for -inf (slow, so every tenth).
            exported = ws.worksheet_to_dict(sheet)
            assert_same(js, exported, f"{sentence!r}")
            assert_same(arrays_of(sheet), exported, "arrays_of")   # the fast form is the same thing
        else:
            assert_same(js, arrays_of(sheet), f"{sentence!r}")
        predictions.add(sheet.mlp.prediction)
    assert len(predictions) > 1, "the sample should not all predict the same word"


def test_the_named_sentences_predict_water_and_teller():
    got = json.loads(run_node("process.stdout.write(JSON.stringify(['river', 'cheque'].map((s) => "
                              "[W.computeWorksheet(s).prediction, W.computeWorksheet(s).probabilities])));"))
    assert [g[0] for g in got] == ["water", "teller"]
    for (_, probs), name in zip(got, ["river", "cheque"]):
        assert_same(probs, ws.worksheet_to_dict(ws.compute_worksheet(name))["probabilities"], name)


def _numbers_blanked(text: str) -> str:
    return re.sub(r"-?\d+(\.\d+)?(e[+-]\d+)?", "N", text)


def test_cli_prints_the_sentence_object_as_python_writes_it():
    proc = subprocess.run([NODE, str(MODULE), "She watched the river and the boats"], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 0 and proc.stderr == ""
    py = build_export("She watched the river and the boats")["sentences"]["she watched the river and the boats"]
    assert_same(json.loads(proc.stdout), py)
    # The same text as json.dumps(indent=2) writes, up to the last digits of a few floats.
    assert _numbers_blanked(proc.stdout) == _numbers_blanked(json.dumps(py, indent=2, ensure_ascii=False) + "\n")
    assert '"n": 7,' in proc.stdout and '"scale": 1.4142135623730951,' in proc.stdout
    assert '"index": 1,' in proc.stdout and "0.0," in proc.stdout     # ints as ints, floats as floats

    whole = subprocess.run([NODE, str(MODULE), "--export", "cheque"], capture_output=True, text=True, timeout=30)
    assert whole.returncode == 0
    assert_same(json.loads(whole.stdout), build_export("cheque"))


@pytest.mark.parametrize("args, says", [
    (["the river dragon"], ["'dragon'", "money", "fisherman"]),
    ([" ".join(["the"] * 21)], ["21 words", "at most 20"]),
    (["   "], ["empty sentence"]),
    ([], ["no sentence"]),
    (["--sentence", "river"], ["--sentence", "--export"]),
])
def test_cli_bad_input_is_one_line_and_exit_2(args, says):
    proc = subprocess.run([NODE, str(MODULE), *args], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for s in says:
        assert s in proc.stderr


def test_errors_read_as_the_data_layers():
    bad = ["the river dragon", "", "  \t ", " ".join(["bank"] * 21), "river's bank", 'a "quoted" word',
           "the caf\u00e9", "zero\u200bwidth", "back\\slash", "it's \"both\"", "\U0001f600 fish"]
    got = json.loads(run_node(
        "const out = JSON.parse(fs.readFileSync(0, 'utf8')).map((s) => {\n"
        "  try { W.computeWorksheet(s); return null; } catch (e) { return [e.name, e.message, e.word]; } });\n"
        "process.stdout.write(JSON.stringify(out));", json.dumps(bad)))
    for sentence, js in zip(bad, got):
        with pytest.raises(ValueError) as err:
            ws.compute_worksheet(sentence)
        assert js is not None and js[0] == "WorksheetInputError"
        assert js[1] == str(err.value), sentence
    assert got[0][2] == "dragon"


def _fmt_cases() -> list[tuple[str, int]]:
    rng = random.Random(5)
    values = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.0005, -0.0005, 1e-9, -1e-9, 4e-4, -4e-4,
              0.1, 0.2, 0.3, 2 / 3, -2 / 3, 1e15, 1e16 + 2, 1e21, 1e22, -1e22, 1.7976931348623157e308,
              5e-324, -5e-324, 123456.0005, 0.9995, -0.9995, 0.6025, 1.0005]
    values += [k / 16 for k in range(-40, 41)] + [k / 2048 for k in range(-30, 31)]   # exact ties
    values += [rng.uniform(-10, 10) for _ in range(300)]
    values += [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 25) for _ in range(300)]
    values += [round(rng.uniform(-5, 5), 4) for _ in range(200)]                        # near ties
    cases = [(repr(v), 3) for v in values]
    cases += [(repr(v), p) for v in values[::7] for p in (0, 1, 2, 6)]
    cases += [("nan", 3), ("inf", 3), ("-inf", 3), ("inf", 0)]
    return cases


def test_fmt_is_the_python_display_rule_exactly():
    cases = _fmt_cases()
    got = json.loads(run_node(
        "const parse = (s) => ({nan: NaN, inf: Infinity, '-inf': -Infinity})[s] ?? Number(s);\n"
        "const cases = JSON.parse(fs.readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(cases.map(([s, p]) => W.fmt(parse(s), p))));",
        json.dumps(cases)))
    want = [fmt(float(s), p) for s, p in cases]
    wrong = [(s, p, g, w) for (s, p), g, w in zip(cases, got, want) if g != w]
    assert not wrong, wrong[:10]
    assert fmt(0.0625) == "0.062" and fmt(-1e-9) == "0.000"   # ties to even; no "-0.000"


def test_whitespace_is_pythons_on_every_code_point():
    py = [c for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    js = json.loads(run_node(
        "const re = new RegExp(`^[${W.PY_WHITESPACE}]$`, 'u'); const out = [];\n"
        "for (let c = 0; c <= 0x10ffff; c++) if (!(c >= 0xd800 && c <= 0xdfff) && re.test(String.fromCodePoint(c))) out.push(c);\n"
        "process.stdout.write(JSON.stringify(out));"))
    assert js == py


def test_the_parameters_are_typed_once_in_python():
    """worksheet.mjs's tables are lesson_build/web/worksheet_tables.mjs, generated from
    lesson_data/worksheet.py: the committed file is current, and what node reads from it is the
    Python data layer's, number for number (bit-exact float64)."""
    from lesson_build.web import worksheet_tables as wt

    assert (MODULE.parent / "worksheet_tables.mjs").read_text(encoding="utf-8") == wt.generate(), \
        "stale: run python -m lesson_build.web.worksheet_tables"
    assert "export const TOKEN_TABLE = [" not in MODULE.read_text(encoding="utf-8")   # no second copy
    got = json.loads(run_node(f"process.stdout.write(JSON.stringify(Object.fromEntries({json.dumps(list(wt.NAMES))}"
                              ".map((k) => [k, W[k]]))));"))
    for name in wt.NAMES:
        want = getattr(ws, name)
        want = want.tolist() if hasattr(want, "tolist") else (list(want) if isinstance(want, tuple) else want)
        assert got[name] == want, name
    assert json.loads(run_node("process.stdout.write(JSON.stringify([Object.isFrozen(W.W2), Object.isFrozen(W.W2[0])]))")) == [True, True]
    stale = subprocess.run([sys.executable, "-m", "lesson_build.web.worksheet_tables", "--check"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    assert stale.returncode == 0 and "up to date" in stale.stdout, stale.stderr
