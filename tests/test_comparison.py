"""lesson_data.comparison: the helpers that decide from results.json, checked against hand arithmetic,
and the readers of protocol.json / attention.json / continuations.json, which name a missing or bad field."""
from __future__ import annotations

import copy
import json
import math

import pytest

from lesson_data import comparison as C

# Three seeds of one metric, small enough to do by hand:
#   mean = (1 + 2 + 4) / 3 = 7/3
#   deviations -4/3, -1/3, 5/3; squares 16/9 + 1/9 + 25/9 = 42/9; / (3 - 1) = 21/9 = 7/3
#   sample std = sqrt(7/3) = 1.5275252316519468
HAND_VALUES = (1.0, 2.0, 4.0)
HAND_MEAN, HAND_STD = 7 / 3, math.sqrt(7 / 3)


METRICS = ("test_loss", "test_perplexity", "val_loss", "val_perplexity", "train_seconds", "final_train_loss")


def synthetic_results(values=HAND_VALUES, seeds=(11, 29, 47), complete=True) -> dict:
    """Runs whose metrics are `values` (+ 1 for one_head, + 2 for four_heads), summarized by the trainer."""
    from trainer.export import summarize
    runs = []
    for k, m in enumerate(C.MODEL_ORDER):
        for s, v in zip(seeds, values):
            runs.append({"model": m, "seed": s, "parameters": 10, "device": "cpu", "torch_version": "x",
                         **{key: v + k for key in METRICS},
                         "trace": [{"step": 1, "selection_loss": 8.0 - k}, {"step": 750, "selection_loss": v + k}]})
    return {"runs": runs, "summary": summarize(runs), "complete": complete}


@pytest.fixture(scope="module")
def results():
    return C.load_results()


# ---- spread ---------------------------------------------------------------------------------------


def test_spread_is_mean_and_sample_std_of_three_numbers_by_hand():
    s = C.spread(synthetic_results(), "mlp", "test_loss")
    assert s.values == HAND_VALUES and s.seeds == (11, 29, 47)
    assert s.mean == pytest.approx(HAND_MEAN, abs=1e-15)
    assert s.std == pytest.approx(HAND_STD, abs=1e-15) and round(s.std, 4) == 1.5275
    shifted = C.spread(synthetic_results(), "four_heads", "test_loss")       # values 3, 4, 6
    assert shifted.mean == pytest.approx(13 / 3, abs=1e-15) and shifted.std == pytest.approx(HAND_STD, abs=1e-15)


def test_spread_of_one_seed_has_no_std_and_a_summary_that_disagrees_is_refused():
    one = synthetic_results(values=(1.0,), seeds=(11,))
    assert C.spread(one, "mlp", "test_loss").std is None
    bad = synthetic_results()
    bad["summary"]["mlp"]["test_loss"]["values"] = [1.0, 2.0, 5.0]
    with pytest.raises(ValueError, match="does not match its runs"):
        C.spread(bad, "mlp", "test_loss")
    with pytest.raises(ValueError, match="no runs of model 'mlp'"):
        C.spread({"runs": [], "summary": {}}, "mlp", "test_loss")


def test_the_committed_spreads_and_the_heads_verdict(results):
    one, four = C.spread(results, "one_head", "test_loss"), C.spread(results, "four_heads", "test_loss")
    for s in (one, four):
        m = sum(s.values) / 3
        assert s.mean == pytest.approx(m, rel=1e-12)
        assert s.std == pytest.approx(math.sqrt(sum((v - m) ** 2 for v in s.values) / 2), rel=1e-9)
    assert round(four.mean, 3) == 3.293 and round(one.mean, 3) == 3.357
    assert C.heads_helped(results) is True
    assert C.models_in(results) == list(C.MODEL_ORDER)
    assert [r["seed"] for r in C.runs_of(results, "mlp")] == [11, 29, 47]


# ---- parameters -----------------------------------------------------------------------------------


def test_parameter_parts_by_hand_and_the_check_against_the_runs(results):
    p = {"vocab_size": 4000, "context": 64, "d_model": 64, "d_hidden": 256}
    mlp = C.parameter_parts(p, "mlp")
    # 4000*64 = 256,000; 4096*256 + 256 = 1,048,832; 256*4000 + 4000 = 1,028,000
    assert [n for _, _, n in mlp] == [256_000, 1_048_832, 1_028_000] and sum(n for *_, n in mlp) == 2_332_832
    att = C.parameter_parts(p, "one_head")
    # + 64*64 = 4,096 positions; 4*64*64 = 16,384 for W_Q, W_K, W_V, W_O; 64*256 + 256 = 16,640
    assert [n for _, _, n in att] == [256_000, 4_096, 16_384, 16_640, 1_028_000]
    assert sum(n for *_, n in att) == 1_321_120
    assert mlp[1][1] == "4,096 × 256 + 256"
    parts, recorded = C.checked_parameters(results, "four_heads")
    assert recorded == 1_321_120 == sum(n for *_, n in parts) == C.parameter_of(results, "four_heads")
    wrong = copy.deepcopy(results)
    for r in wrong["runs"]:
        r["parameters"] += 1
    with pytest.raises(ValueError, match="protocol sizes give 2,332,832 parameters"):
        C.checked_parameters(wrong, "mlp")
    wrong["runs"][0]["parameters"] += 1
    with pytest.raises(ValueError, match="disagree on the parameter count"):
        C.parameter_of(wrong, "mlp")


# ---- axes, notes, words ----------------------------------------------------------------------------


def test_loss_range_by_hand():
    res = synthetic_results()
    # selection losses from step 750: 1, 2, 4 | 2, 3, 5 | 3, 4, 6 -> span 5; 5/1 = 5 <= 6 ticks: step 1
    assert C.loss_range(res, from_step=750) == (1.0, 6.0, 1.0)
    # all steps add 8, 7, 6: span 7 (1..8); step 1 gives 7 ticks > 6, step 2 gives 3.5: (0, 8, 2)
    assert C.loss_range(res) == (0.0, 8.0, 2.0)
    assert C.nice_step(1.31) == 0.25 and C.nice_step(0.5) == 0.1 and C.nice_step(100.0) == 10.0


def test_runs_note_and_words():
    assert C.runs_note(synthetic_results(), (11, 29, 47)) is None
    partial = synthetic_results(values=(1.0,), seeds=(11,), complete=False)
    assert C.runs_note(partial, (11, 29, 47)) == "partial export: 3 of 9 runs (the rest are still training)"
    assert C.seeds_words((11, 29, 47)) == "11, 29 and 47" and C.seeds_words([11]) == "11"
    assert C.top_sources([0.1, 0.3, 0.3, 0.2], 3) == [1, 2, 3]             # ties: the earlier source first
    assert C.device_words("CPU, 1 threads") == "CPU, 1 thread"
    assert C.model_title({"summary": {}}, "mlp", {"mlp": "FixedWindowMLP"}) == "FixedWindowMLP"
    assert C.model_title({"summary": {}}, "mlp") == "mlp"


# ---- protocol.json ----------------------------------------------------------------------------------


def test_the_protocol_export_carries_the_seeds_and_titles(results):
    from trainer import config
    p = C.load_protocol()
    assert p.seeds == (11, 29, 47) == config.SEEDS and C.SEEDS == p.seeds
    assert p.checkpoint_seed == 11
    assert p.models == C.MODEL_ORDER == config.MODEL_NAMES
    assert p.titles == config.MODEL_TITLES == C.MODEL_TITLES
    assert p.heads == {"one_head": 1, "four_heads": 4}
    assert p.config == results["protocol"]                               # the protocol the runs recorded
    assert sorted({r["seed"] for r in results["runs"]}) == list(p.seeds)


# ---- bad exports name the field ---------------------------------------------------------------------


def _broken(tmp_path, name: str, edit) -> None:
    data = json.loads((C.EXPORTS / name).read_text())
    edit(data)
    (tmp_path / name).write_text(json.dumps(data))


@pytest.mark.parametrize("name, edit, message", [
    ("attention.json", lambda d: d["models"]["one_head"].pop("window_weights"), "'models.one_head.window_weights'"),
    ("attention.json", lambda d: d["models"]["four_heads"]["heads"].pop(), "'models.four_heads.heads' has shape"),
    ("attention.json", lambda d: d["models"]["one_head"]["window_weights"][0][0].__setitem__(0, 0.5),
     "puts weight on a PAD slot"),
    ("attention.json", lambda d: d["windows"]["sources"].__setitem__(5, [0, 1]), "'windows.sources[5]'"),
    ("attention.json", lambda d: d.__setitem__("format", "old"), "field 'format'"),
    ("protocol.json", lambda d: d.pop("seeds"), "missing field 'seeds'"),
    ("protocol.json", lambda d: d.__setitem__("checkpoint_seed", 12), "'checkpoint_seed' 12"),
    ("continuations.json", lambda d: d["read_as"]["outside_domain"].pop("tokens"), "'read_as.outside_domain.tokens'"),
    ("continuations.json", lambda d: d["models"]["four_heads"]["outside_domain"].__setitem__("unk_positions", [1]),
     "models.four_heads.outside_domain"),
], ids=lambda v: v if isinstance(v, str) and v.endswith(".json") else None)
def test_a_bad_field_is_named(tmp_path, name, edit, message):
    _broken(tmp_path, name, edit)
    reader = {"attention.json": C.load_attention_map, "protocol.json": C.load_protocol,
              "continuations.json": C.load_continuation_set}[name]
    with pytest.raises(C.ExportFormatError) as err:
        reader(tmp_path)
    assert message in str(err.value) and name in str(err.value)


def test_a_missing_export_names_the_file_and_the_command(tmp_path):
    for reader, name in ((C.load_protocol, "protocol.json"), (C.load_attention_map, "attention.json"),
                         (C.load_continuation_set, "continuations.json")):
        with pytest.raises(C.MissingExportError, match="python -m trainer export") as err:
            reader(tmp_path)
        assert str(tmp_path / name) in str(err.value)
    (tmp_path / "protocol.json").write_text("{not json")
    with pytest.raises(C.ExportFormatError, match="protocol.json: not JSON"):
        C.load_protocol(tmp_path)


def test_the_committed_exports_pass_their_readers():
    amap, cont, p = C.load_attention_map(), C.load_continuation_set(), C.load_protocol()
    assert set(amap.models) == set(p.attention_models)
    assert {m: a.n_heads for m, a in amap.models.items()} == p.heads
    assert amap.protocol_seeds == p.seeds and amap.checkpoint_seed == p.checkpoint_seed
    assert {m for m, _ in cont.runs} == set(p.models) and cont.n_tokens == 20
