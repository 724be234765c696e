"""Trainer mechanics on the smoke profile: shapes, masks, windows, determinism, resumption, errors."""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import torch

from trainer.config import BOS, DEFAULT_DATA_FILES, EOS, PAD, SPECIALS, WORD_PATTERN, get_config
from trainer.data import make_windows, open_stories
from trainer.model import build_model, n_params
from trainer.tokenizer import fit_tokenizer, normalize_text

ROOT = Path(__file__).resolve().parents[1]
STORIES = Path(DEFAULT_DATA_FILES)          # the vendored sample, inside the repository


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    from trainer.corpus_cache import load_or_prepare
    cfg = get_config("smoke")
    root = tmp_path_factory.mktemp("smoke")
    windows, record, tok = load_or_prepare(cfg, str(STORIES), root)
    return cfg, windows, record, tok, root


# ---- models -----------------------------------------------------------------------------------

def test_parameter_counts_match_the_protocol():
    cfg = get_config("full")
    V, T, C, H = 4000, 64, 64, 256
    mlp = V * C + (T * C * H + H) + (H * V + V)                      # embedding, 4096->256, 256->4000
    attention = V * C + T * C + 4 * C * C + (C * H + H) + (H * V + V)  # + positions, Q K V O, MLP
    assert (mlp, attention) == (2_332_832, 1_321_120)
    assert n_params(build_model("mlp", cfg)) == mlp
    assert n_params(build_model("one_head", cfg)) == attention
    assert n_params(build_model("four_heads", cfg)) == attention


def _batch_with_padding(vocab=4000, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(4, vocab, (3, 64), generator=g)
    x[1, :40] = PAD                      # a short story: left padding
    x[1, 40] = BOS
    x[2, :63] = PAD                      # the very first target: only BOS
    x[2, 63] = BOS
    return x


@pytest.mark.parametrize("name", ["one_head", "four_heads"])
def test_final_query_logits_equal_last_row_of_full_path(name):
    torch.manual_seed(1)
    model = build_model(name, get_config("full")).eval()
    x = _batch_with_padding()
    with torch.no_grad():
        final = model(x)
        full, _ = model.forward_full(x)
    torch.testing.assert_close(final, full[:, -1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,heads", [("one_head", 1), ("four_heads", 4)])
def test_final_query_weights_come_with_the_same_logits(name, heads):
    """forward_with_weights is forward's own computation: identical logits, and the receiver's weights
    (zero on PAD slots) equal the full-sequence path's last row."""
    torch.manual_seed(4)
    model = build_model(name, get_config("full")).eval()
    x = _batch_with_padding()
    with torch.no_grad():
        logits, w = model.forward_with_weights(x)
        _, full = model.forward_full(x)
        assert torch.equal(logits, model(x))
    assert w.shape == (3, heads, 64)
    assert (w[(x == PAD)[:, None, :].expand_as(w)] == 0).all()
    torch.testing.assert_close(w, full[:, :, -1], rtol=0, atol=1e-6)


@pytest.mark.parametrize("name,heads", [("one_head", 1), ("four_heads", 4)])
def test_no_weight_on_future_or_pad_and_rows_sum_to_one(name, heads):
    torch.manual_seed(2)
    model = build_model(name, get_config("full")).eval()
    x = _batch_with_padding()
    with torch.no_grad():
        _, w = model.forward_full(x)                                   # (B, h, T, T)
    assert w.shape == (3, heads, 64, 64)
    future = torch.ones(64, 64, dtype=torch.bool).triu(1)
    assert (w[:, :, future] == 0).all()
    pad_source = (x == PAD)[:, None, None, :].expand_as(w)
    assert (w[pad_source] == 0).all()
    real_rows = (x != PAD)[:, None, :].expand(3, heads, 64)
    sums = w.sum(-1)
    torch.testing.assert_close(sums[real_rows], torch.ones(int(real_rows.sum())), rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", ["one_head", "four_heads"])
def test_earlier_rows_unchanged_when_later_tokens_change(name):
    torch.manual_seed(3)
    model = build_model(name, get_config("full")).eval()
    x = _batch_with_padding()
    y = x.clone()
    y[:, 50:] = torch.randint(4, 4000, (3, 14))
    with torch.no_grad():
        lx, wx = model.forward_full(x)
        ly, wy = model.forward_full(y)
    torch.testing.assert_close(lx[:, :50], ly[:, :50], rtol=0, atol=0)
    torch.testing.assert_close(wx[:, :, :50, :50], wy[:, :, :50, :50], rtol=0, atol=0)
    assert not torch.allclose(lx[:, 50:], ly[:, 50:])


@pytest.mark.parametrize("name", ["mlp", "one_head", "four_heads"])
def test_a_tiny_batch_overfits(name):
    cfg = get_config("smoke")
    torch.manual_seed(0)
    model = build_model(name, cfg, vocab=50)
    x = torch.randint(4, 50, (8, 64))
    y = torch.randint(4, 50, (8,))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(150):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 0.05, loss.item()          # log(50) = 3.9 at the start


# ---- tokenizer and windows ----------------------------------------------------------------------

def test_tokenizer_vocabulary_matches_an_independent_count():
    with open_stories(STORIES, "rt") as f:
        texts = [json.loads(line)["text"] for line, _ in zip(f, range(200))]
    tok = fit_tokenizer(texts, vocab_size=300, min_count=2)
    counts = Counter(w for t in texts for w in re.findall(WORD_PATTERN, " ".join(t.lower().split())))
    expected = [w for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if c >= 2][:296]
    vocab = tok.get_vocab()
    assert [vocab[s] for s in SPECIALS] == [0, 1, 2, 3]
    assert sorted(vocab, key=vocab.get)[4:] == expected


def test_tokenizer_normalizes_and_keeps_contractions():
    tok = fit_tokenizer(["can't stop , the dog . the dog can't"] * 2, vocab_size=20, min_count=2)
    words = tok.encode("The   DOG can't,stop.", add_special_tokens=False).tokens
    assert words == ["the", "dog", "can't", ",", "stop", "."]
    assert normalize_text("Ａ  B\n c") == "a b c"          # NFKC full-width A, lower-case, whitespace


def test_windows_never_cross_stories_and_each_story_yields_len_plus_one_targets():
    stories = [[10, 11, 12], [20, 21], [30]]
    w = make_windows(stories, context=4)
    assert len(w) == sum(len(s) + 1 for s in stories)
    x, y = w.batch(torch.arange(len(w)))
    assert y.tolist() == [10, 11, 12, EOS, 20, 21, EOS, 30, EOS]
    assert x.tolist() == [
        [PAD, PAD, PAD, BOS], [PAD, PAD, BOS, 10], [PAD, BOS, 10, 11], [BOS, 10, 11, 12],
        [PAD, PAD, PAD, BOS], [PAD, PAD, BOS, 20], [PAD, BOS, 20, 21],
        [PAD, PAD, PAD, BOS], [PAD, PAD, BOS, 30],
    ]


def test_long_story_windows_slide_without_padding():
    w = make_windows([list(range(100, 110))], context=4)
    x, y = w.batch(torch.tensor([9]))
    assert x.tolist() == [[105, 106, 107, 108]] and y.tolist() == [109]


def test_splits_are_whole_and_disjoint(smoke):
    cfg, windows, record, tok, root = smoke
    ids = torch.load(root / "corpus.pt", weights_only=False)["ids"]
    assert record["stories"] == {k: len(v) for k, v in ids.items()}
    assert record["targets"] == {k: sum(len(s) + 1 for s in v) for k, v in ids.items()}
    assert sum(record["stories"].values()) == record["after_dedup"] <= cfg.n_stories


# ---- training -----------------------------------------------------------------------------------

def test_same_seed_same_loss_trace_and_resume_is_exact(smoke, tmp_path, monkeypatch):
    from trainer import train as train_mod
    cfg, windows, record, tok, root = smoke
    vocab = tok.get_vocab_size()
    a = train_mod.train_run("four_heads", 11, cfg, windows, vocab, tmp_path / "a", progress=False)
    b = train_mod.train_run("four_heads", 11, cfg, windows, vocab, tmp_path / "b", progress=False)
    assert a["trace"] == b["trace"] and a["test_loss"] == b["test_loss"]

    # Kill a run after its second evaluation; the restart resumes from resume.pt and ends identically.
    real_save, calls = train_mod.atomic_save, []

    def save_then_die(obj, path):
        real_save(obj, path)
        calls.append(path)
        if path.name == "resume.pt" and len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(train_mod, "atomic_save", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        train_mod.train_run("four_heads", 11, cfg, windows, vocab, tmp_path / "c", progress=False)
    assert (tmp_path / "c" / "resume.pt").exists() and not (tmp_path / "c" / "result.json").exists()
    monkeypatch.setattr(train_mod, "atomic_save", real_save)
    c = train_mod.train_run("four_heads", 11, cfg, windows, vocab, tmp_path / "c", progress=False)
    assert c["trace"] == a["trace"] and c["test_loss"] == a["test_loss"]
    assert math.isclose(c["test_perplexity"], math.exp(c["test_loss"]))
    assert c["selection_loss"] == min(t["selection_loss"] for t in c["trace"])


def test_non_finite_loss_stops_with_a_clear_error(smoke, tmp_path, monkeypatch):
    from trainer import train as train_mod
    cfg, windows, record, tok, root = smoke
    real_build = train_mod.build_model

    def poisoned(name, cfg, vocab):          # a model whose logits turn NaN
        model = real_build(name, cfg, vocab)
        model.out.bias.data[0] = float("nan")
        return model

    monkeypatch.setattr(train_mod, "build_model", poisoned)
    with pytest.raises(train_mod.TrainingError, match="non-finite"):
        train_mod.train_run("mlp", 11, cfg, windows, tok.get_vocab_size(), tmp_path / "nan", progress=False)


# ---- bad input through the CLI --------------------------------------------------------------------

def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "trainer", *args], cwd=cwd, capture_output=True,
                          text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


@pytest.mark.parametrize("content,message", [
    (None, "data file not found"),
    ('{"text": "ok story"}\n{"text": oops}\n', ":2: malformed JSON"),
    ('{"text": "ok story"}\n{"text": "   "}\n', ":2: empty text"),
])
def test_bad_data_is_one_line_nonzero_and_writes_nothing(tmp_path, content, message):
    data = tmp_path / "stories.jsonl"
    if content is not None:
        data.write_text(content)
    r = _cli("prepare", "--profile", "smoke", "--data-files", str(data), "--runs", str(tmp_path / "runs"),
             cwd=tmp_path)
    assert r.returncode == 2
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not any((tmp_path / "runs").rglob("*.pt")) and not any((tmp_path / "runs").rglob("*.json"))


def test_unknown_profile_is_refused(tmp_path):
    r = _cli("prepare", "--profile", "huge", "--runs", str(tmp_path), cwd=tmp_path)
    assert r.returncode == 2 and "unknown profile 'huge'" in r.stderr


@pytest.mark.parametrize("flag,value,allowed", [
    ("--tokens", "0", "whole number of tokens >= 1"),
    ("--tokens", "-3", "whole number of tokens >= 1"),
    ("--tokens", "two", "whole number of tokens >= 1"),
    ("--temperature", "-1", "finite number > 0"),
    ("--temperature", "nan", "finite number > 0"),
    ("--temperature", "inf", "finite number > 0"),
])
def test_bad_generation_flags_are_one_line_and_exit_2(tmp_path, flag, value, allowed):
    r = _cli("generate", "--exports", str(ROOT / "lesson_data" / "exports"), "--prompt", "Once upon a time",
             flag, value, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"'{value}'" in lines[0] and allowed in lines[0], r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_a_corrupt_gzip_is_one_line_and_nonzero(tmp_path):
    data = tmp_path / "stories.jsonl.gz"
    data.write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    r = _cli("prepare", "--profile", "smoke", "--data-files", str(data), "--runs", str(tmp_path / "runs"),
             cwd=tmp_path)
    assert r.returncode == 2
    assert "unreadable stories file" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_the_vendored_sample_is_the_data_the_comparison_used():
    """The sha256 in results.json is of the raw stories; recompute it from the .gz independently."""
    import gzip
    import hashlib
    results = json.loads((ROOT / "lesson_data" / "exports" / "results.json").read_text())
    source = results["corpus"]["source"]
    raw = gzip.decompress(STORIES.read_bytes())
    assert hashlib.sha256(raw).hexdigest() == source["sha256"]
    assert (ROOT / source["path"]).resolve() == STORIES.resolve()
    assert len(raw.splitlines()) == results["corpus"]["available"] == 8038
    # provenance and licence travel with the data
    notice = (STORIES.parent / "NOTICE").read_text()
    assert "CDLA-Sharing-1.0" in notice and "arXiv:2305.07759" in notice
