"""The committed trainer exports: checksummed checkpoints, golden continuations, results file."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import torch

from lesson_data import comparison
from trainer.checkpoints import CheckpointError, load_checkpoint
from trainer.generate import generate
from trainer.tokenizer import load_tokenizer

EXPORTS = Path(comparison.__file__).resolve().parent / "exports"

# Written down when the seed-11 checkpoints were exported; the committed fp16 weights must keep
# producing it (greedy decoding, 20 tokens).
GOLDEN_FOUR_HEADS_TRAINING = ("one day, a little fish named fin",
                              "was playing in the sea. he was very excited to explore the lake. he was so excited to")


def test_golden_greedy_continuation_from_committed_checkpoint():
    torch.set_num_threads(1)
    model, entry = load_checkpoint(EXPORTS, "four_heads")
    tok = load_tokenizer(EXPORTS / "tokenizer.json")
    prompt, expected = GOLDEN_FOUR_HEADS_TRAINING
    out = generate(model, tok, prompt, 20, entry["config"]["context"])
    assert out["continuation"] == expected


def test_every_exported_continuation_is_reproduced():
    data = comparison.load_continuations()
    tok = load_tokenizer(EXPORTS / "tokenizer.json")
    for name, by_kind in data["models"].items():
        model, entry = load_checkpoint(EXPORTS, name)
        for kind, rec in by_kind.items():
            out = generate(model, tok, data["prompts"][kind], data["tokens"], entry["config"]["context"])
            assert out["token_ids"] == rec["token_ids"], (name, kind)


def test_checkpoints_fit_the_budget_and_match_the_protocol_counts():
    manifest = json.loads((EXPORTS / "checkpoints" / "manifest.json").read_text())
    total = sum((EXPORTS / "checkpoints" / e["file"]).stat().st_size for e in manifest["models"].values())
    assert total <= 25 * 1024 * 1024
    counts = {name: e["parameters"] for name, e in manifest["models"].items()}
    assert counts == {"mlp": 2_332_832, "one_head": 1_321_120, "four_heads": 1_321_120}


def test_a_corrupted_checkpoint_is_refused(tmp_path):
    shutil.copytree(EXPORTS / "checkpoints", tmp_path / "checkpoints")
    path = tmp_path / "checkpoints" / "one_head-s11.pt"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="checksum mismatch"):
        load_checkpoint(tmp_path, "one_head")


def test_a_checkpoint_with_another_config_is_refused(tmp_path):
    shutil.copytree(EXPORTS / "checkpoints", tmp_path / "checkpoints")
    manifest_path = tmp_path / "checkpoints" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["models"]["mlp"]["config"]["d_hidden"] = 512
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="config"):
        load_checkpoint(tmp_path, "mlp")


def test_results_summary_is_mean_and_sample_std_of_the_runs():
    results = comparison.load_results()
    for name, summary in results["summary"].items():
        runs = [r for r in results["runs"] if r["model"] == name]
        losses = [r["test_loss"] for r in runs]
        assert summary["test_loss"]["mean"] == pytest.approx(sum(losses) / len(losses), rel=1e-12)
        if len(losses) > 1:
            mean = sum(losses) / len(losses)
            sample_sd = math.sqrt(sum((x - mean) ** 2 for x in losses) / (len(losses) - 1))
            assert summary["test_loss"]["std"] == pytest.approx(sample_sd, rel=1e-9)
        for r in runs:
            assert r["test_perplexity"] == pytest.approx(math.exp(r["test_loss"]), rel=1e-12)
            assert r["selection_loss"] == min(t["selection_loss"] for t in r["trace"])
            assert [t["step"] for t in r["trace"]] == [1, *range(750, 6001, 750)]


def test_exported_attention_rows_are_causal_distributions():
    att = comparison.load_attention()
    assert len(att["tokens"]) == 64 and att["tokens"][0] == "<BOS>"
    for name, heads in (("one_head", 1), ("four_heads", 4)):
        w = torch.tensor(att["models"][name]["heads"])
        assert w.shape == (heads, 64, 64)
        assert (w.triu(1) == 0).all()
        torch.testing.assert_close(w.sum(-1), torch.ones(heads, 64), rtol=0, atol=1e-5)


def test_missing_export_names_the_file(tmp_path):
    with pytest.raises(comparison.MissingExportError, match="results.json"):
        comparison.load_results(tmp_path)
