"""`python -m lesson_data export`: bad input, byte-identical repeats, documented keys, exact floats."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from lesson_data.worksheet import VOCAB, compute_worksheet

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "lesson_data", *args], cwd=ROOT, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "worksheet.json"
    result = run_cli("export", "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out


@pytest.mark.parametrize(
    "sentence, named",
    [("the river heron", "'heron'"), ("", "0 words"), (" ".join(["the"] * 21), "21 words")],
)
def test_bad_sentence_exit_2_one_line_nothing_written(tmp_path, sentence, named):
    out = tmp_path / "out.json"
    result = run_cli("export", "--out", str(out), "--sentence", sentence)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip("\n").split("\n")
    assert len(lines) == 1 and named in lines[0]
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []  # no leftover temp file either


def test_bad_sentence_leaves_an_existing_file_untouched(tmp_path):
    out = tmp_path / "out.json"
    out.write_text("previous export\n")
    result = run_cli("export", "--out", str(out), "--sentence", "the dog")
    assert result.returncode == 2
    assert out.read_text() == "previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_bad_arguments_exit_2_one_line(tmp_path):
    missing_out = run_cli("export")
    assert missing_out.returncode == 2 and len(missing_out.stderr.strip().split("\n")) == 1
    no_folder = run_cli("export", "--out", str(tmp_path / "nope" / "x.json"))
    assert no_folder.returncode == 2 and len(no_folder.stderr.strip().split("\n")) == 1
    assert not (tmp_path / "nope").exists()


def test_repeated_exports_are_byte_identical(both, tmp_path):
    again = tmp_path / "again.json"
    assert run_cli("export", "--out", str(again)).returncode == 0
    assert again.read_bytes() == both.read_bytes()
    # overwriting in place gives the same bytes and leaves no temp file behind
    assert run_cli("export", "--out", str(again)).returncode == 0
    assert again.read_bytes() == both.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.json"]


def test_documented_keys(both):
    data = json.loads(both.read_text())
    assert list(data["sentences"]) == ["river", "cheque"]
    assert data["axes"] == ["water", "finance", "person", "glue"] and data["vocab"] == list(VOCAB)
    for name, sheet in data["sentences"].items():
        for key in ("tokens", "E", "heads", "delta_E", "E_prime", "probabilities", "prediction", "wide_head"):
            assert key in sheet, key
        n = len(sheet["tokens"])
        assert n == 10 and np.array(sheet["E"]).shape == (10, 4)
        assert [h["index"] for h in sheet["heads"]] == [1, 2]
        for head in sheet["heads"]:
            assert np.array(head["weights"]).shape == (n, n)
            assert np.array(head["messages"]).shape == (n, 2)
        assert np.array(sheet["wide_head"]["weights"]).shape == (n, n)
        assert list(sheet["probabilities"]) == list(VOCAB)
        assert math.fsum(sheet["probabilities"].values()) == pytest.approx(1.0, abs=1e-15)
        assert sheet["prediction"] == max(sheet["probabilities"], key=sheet["probabilities"].get)


def test_minus_infinity_is_null(both):
    head = json.loads(both.read_text())["sentences"]["river"]["heads"][0]
    # masked and shifted hold -inf above the diagonal: JSON null there, numbers on and below it
    for key in ("masked", "shifted"):
        rows = head[key]
        for i, row in enumerate(rows):
            assert all(v is None for v in row[i + 1:])
            assert all(isinstance(v, float) for v in row[: i + 1])
    assert head["weights"][0][1] == 0.0  # weights above the diagonal are zeros, not null


def test_floats_round_trip_exactly(both):
    data = json.loads(both.read_text())
    for name in ("river", "cheque"):
        ws = compute_worksheet(name)
        sheet = data["sentences"][name]
        np.testing.assert_array_equal(np.array(sheet["E_prime"]), ws.E_prime)  # bit-exact
        np.testing.assert_array_equal(np.array(sheet["delta_E"]), ws.delta_E)
        for h_json, head in zip(sheet["heads"], ws.heads):
            np.testing.assert_array_equal(np.array(h_json["weights"]), head.weights)
            np.testing.assert_array_equal(np.array(h_json["messages"]), head.messages)
        assert [sheet["probabilities"][w] for w in VOCAB] == ws.mlp.probabilities.tolist()
    # and the text carries repr precision (17 significant digits where needed), not rounded values
    text = both.read_text()
    w = compute_worksheet("river").heads[0].weights[9, 5]
    assert repr(float(w)) in text


def test_single_sentence_export(tmp_path):
    out = tmp_path / "one.json"
    result = run_cli("export", "--out", str(out), "--sentence", "The fish watched the")
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text())
    assert list(data["sentences"]) == ["the fish watched the"]
    sheet = data["sentences"]["the fish watched the"]
    assert sheet["tokens"] == ["the", "fish", "watched", "the"]
    assert np.array(sheet["heads"][1]["weights"]).shape == (4, 4)
    named = tmp_path / "cheque.json"
    assert run_cli("export", "--out", str(named), "--sentence", "CHEQUE").returncode == 0
    assert list(json.loads(named.read_text())["sentences"]) == ["cheque"]
