"""lesson_data.comparison: the helpers that decide from results.json, checked against hand arithmetic,
and the readers of protocol.json / attention.json / continuations.json, which name a missing or bad field."""
from __future__ import annotations

import copy
import json
import math

import numpy as np
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


# ---- chapter 3's picture decisions, by hand ----------------------------------------------------------


def test_millions_widths_and_classes():
    assert C.millions(2_332_832) == "2.33 million" and C.millions(1_321_120) == "1.32 million"
    p = {"context": 64, "d_model": 64, "n_heads_multi": 4}
    assert C.input_width(p) == 4_096 and C.head_width(p) == 16                 # 64 · 64; 64 / 4
    with pytest.raises(ValueError, match="not a multiple"):
        C.head_width({"d_model": 64, "n_heads_multi": 5})
    assert C.MODEL_CLASSES["mlp"] == "FixedWindowMLP"


def test_mean_gap_and_whether_the_seeds_overlap_by_hand():
    res = synthetic_results()            # mlp 1, 2, 4 | one_head 2, 3, 5 | four_heads 3, 4, 6
    assert C.mean_gap(res, "mlp", "four_heads") == pytest.approx(13 / 3 - 7 / 3, abs=1e-15)      # = 2
    assert C.runs_apart(res, "mlp", "four_heads") is False                  # 4 (mlp's worst) > 3 (four's best)
    assert C.closest_runs(res, "mlp", "four_heads") == (4.0, 3.0)
    apart = synthetic_results(values=(1.0, 1.1, 1.2))                       # 1.0-1.2 | 2.0-2.2 | 3.0-3.2
    assert C.runs_apart(apart, "mlp", "one_head") is True
    committed = C.load_results()
    assert round(C.mean_gap(committed, "four_heads", "one_head"), 3) == 0.064
    assert C.runs_apart(committed, "four_heads", "one_head") is True


def test_value_range_and_tick_places_by_hand():
    # 3.2864 .. 3.3611: span 0.0747, /6 = 0.0125 -> 0.01 gives 7.5 intervals, 0.02 gives 3.7: step 0.02,
    # floor(164.3) = 164 -> 3.28, ceil(168.1) = 169 -> 3.38
    assert C.value_range([3.2864, 3.3611, 3.3]) == (3.28, 3.38, 0.02)
    # 3.2864 .. 3.8738: span 0.587 -> 0.1 gives 5.9 intervals: (3.2, 3.9, 0.1)
    assert C.value_range([3.2864, 3.8738]) == (3.2, 3.9, 0.1)
    assert C.value_range([5.0, 5.0]) == (5.0, 6.0, 1.0)                     # no span: one step
    assert [C.tick_places(s) for s in (1.0, 0.2, 0.02, 0.025, 750)] == [0, 1, 2, 3, 0]


def test_ranking_and_early_states():
    res = synthetic_results()
    for r in res["runs"]:
        r["selection_loss"] = {"mlp": 9.0, "one_head": 5.0, "four_heads": 7.0}[r["model"]]
        r["selected_step"] = 750 if r["model"] == "mlp" else 6000
    res["protocol"] = {"steps": 6000}
    assert C.ranking(res, "selection_loss") == ["one_head", "four_heads", "mlp"]
    assert C.kept_early(res, "mlp") is True and C.kept_early(res, "one_head") is False
    committed = C.load_results()
    assert C.ranking(committed, "test_loss") == ["four_heads", "one_head", "mlp"]
    assert C.kept_early(committed, "mlp") is True            # its selection loss rises after step 2,250


def tiny_map(rows_by_head) -> "C.AttentionMap":
    """A 10-token story, context 10, one model ('m') whose receiver 9 reads `rows_by_head`."""
    tokens = ("<BOS>", "a", "b", "c", "a", "d", "e", "f", "a", "g")
    n, T = len(tokens), 10
    heads = np.zeros((len(rows_by_head), n, n))
    for h, row in enumerate(rows_by_head):
        heads[h, n - 1] = row
        for i in range(n - 1):
            heads[h, i, : i + 1] = 1.0 / (i + 1)
    sources = tuple(tuple(range(0, i + 1)) for i in range(n))
    window = np.zeros((len(rows_by_head), n, T))
    model = C.ModelAttention("m", "M", len(rows_by_head), 4, heads, window)
    return C.AttentionMap(tokens=tokens, ids=tuple(range(n)), context=T, pad_id=0, checkpoint_seed=11,
                          protocol_seeds=(11,), split="test", story_index=0, story_tokens=n,
                          window_ids=np.zeros((n, T), int), real=np.ones((n, T), bool), sources=sources,
                          models={"m": model}, checks={})

# receiver 9 ('g'): 'a' at 1, 4 and 8 gets 0.30 + 0.20 + 0.40 = 0.90; the top source is 8 (0.40)
REPEATED = [0.02, 0.30, 0.01, 0.01, 0.20, 0.01, 0.01, 0.02, 0.40, 0.02]
UNIFORM = [0.1] * 10
SINGLE = [0.0] * 8 + [0.1, 0.9]


def test_story_line_by_hand():
    amap = tiny_map([REPEATED])
    line = C.story_line(amap, 9, [("m", 0)], max_entries=7)
    # chosen (>= 0.05): 1, 4, 8, 9; gaps (0), (2-3), (5-7); unfolding the 1-token gap keeps 7 boxes,
    # the 2-token gap would make 8
    assert line.chosen == (1, 4, 8, 9) and line.threshold == 0.05
    assert [(e.first, e.last) for e in line.entries] == [(0, 0), (1, 1), (2, 3), (4, 4), (5, 7), (8, 8), (9, 9)]
    assert line.tokens() == ["<BOS>", "a", "⋯", "a", "⋯", "a", "g"]
    assert line.weights("m", 0) == pytest.approx([0.02, 0.30, 0.02, 0.20, 0.04, 0.40, 0.02], abs=1e-12)
    assert line.index_of(6) == 4 and line.index_of(9) == 6
    # the heaviest gap: (5-7) holds 0.01 + 0.01 + 0.02 = 0.04, more than (2-3)'s 0.02 (entry 4, not 2)
    assert line.heaviest_gap("m", 0) == 4
    # room for 4 boxes only: the threshold rises by half (0.05, 0.075, ..., 0.253 drops 4's 0.20, 0.380
    # drops 1's 0.30) until [0-7], 8, 9 fit
    tight = C.story_line(amap, 9, [("m", 0)], max_entries=4)
    assert [(e.first, e.last) for e in tight.entries] == [(0, 7), (8, 8), (9, 9)]
    assert tight.threshold == pytest.approx(0.05 * 1.5 ** 5) and tight.chosen == (8, 9)
    assert tight.heaviest_gap("m", 0) == 0
    # nothing folded: no heaviest gap
    assert C.story_line(amap, 9, [("m", 0)], max_entries=18).heaviest_gap("m", 0) is None
    with pytest.raises(ValueError, match="at least two boxes"):
        C.story_line(amap, 9, [("m", 0)], max_entries=1)


def test_story_line_of_the_committed_story():
    amap = C.load_attention_map()
    r = amap.n - 1
    heads = [("one_head", 0)] + [("four_heads", h) for h in range(4)]
    line = C.story_line(amap, r, heads, max_entries=18)
    assert len(line.entries) <= 18
    covered = [j for e in line.entries for j in range(e.first, e.last + 1)]
    assert covered == list(range(r + 1))                                   # every position once, in order
    for m, h in heads:                                                     # every source above the threshold shown
        row = amap.model(m).heads[h, r]
        for j in np.flatnonzero(row >= line.threshold):
            assert not line.entries[line.index_of(int(j))].is_gap
        w = line.weights(m, h)
        assert w.sum() == pytest.approx(row[: r + 1].sum(), abs=1e-12)      # the gaps hold the rest
    assert {16, 18, 53, 62} <= set(line.chosen)                            # the four 'tim' tokens


def test_head_reading_and_order_by_hand():
    amap = tiny_map([REPEATED, UNIFORM, SINGLE])
    rep = C.head_reading(amap, "m", 0, 9)
    assert (rep.kind, rep.token, rep.positions, rep.top) == ("repeated", "a", (1, 4, 8), 8)
    assert rep.total == pytest.approx(0.90, abs=1e-12) and rep.top_weight == pytest.approx(0.40)
    spread = C.head_reading(amap, "m", 1, 9)
    assert spread.kind == "spread" and spread.top_weight == pytest.approx(0.1)   # 0.1 < 0.15
    single = C.head_reading(amap, "m", 2, 9)
    assert (single.kind, single.token, single.top) == ("single", "g", 9)
    assert C.head_order(amap, "m", 9) == [1, 2, 0]                          # spread, single, repeated last
    committed = C.load_attention_map()
    r = committed.n - 1
    assert C.head_order(committed, "four_heads", r) == [0, 1, 3, 2]
    three = C.head_reading(committed, "four_heads", 2, r)
    assert three.kind == "repeated" and three.positions == (16, 18, 53, 62) and round(three.total, 3) == 0.894


def test_inset_columns_by_hand():
    amap = tiny_map([REPEATED, [0.0, 0.9] + [0.0125] * 8])
    assert C.inset_columns(amap, "m", 0, 9) == (6, 7, 8, 9)      # the top (8) is among the last four
    assert C.inset_columns(amap, "m", 1, 9) == (0, 1, 2, 3)      # top 1: centred, clipped at the start
    committed = C.load_attention_map()
    assert C.inset_columns(committed, "one_head", 0, committed.n - 1) == (60, 61, 62, 63)


def test_shown_parts_sum_by_hand():
    from lesson_data.comparison import shown_parts_sum
    # 0.1234 + 0.1234 = 0.2468 -> shown 0.247, but the shown parts 0.123 + 0.123 add to 0.246
    assert shown_parts_sum([0.1234, 0.1234], 0.2468) == 0.246
    # 0.1 + 0.2 shown exactly: the parts agree with the total
    assert shown_parts_sum([0.1, 0.2], 0.3) is None


# ---- scene 19's readings ----------------------------------------------------------------------------


def test_optimizer_settings_per_model_from_the_protocol(results):
    raw = json.loads((C.EXPORTS / "protocol.json").read_text())["config"]
    for m in C.MODEL_ORDER:
        o = C.optimizer_of(results, m)
        assert (o.lr, o.weight_decay) == (raw["lr"][m], raw["weight_decay"][m])
    assert C.same_optimizer(results, ("one_head", "four_heads"))
    assert not C.same_optimizer(results, ("mlp", "one_head"))
    assert [C.decimal_places(v) for v in (0.001, 0.0001, 0.003, 0.5, 2.0)] == [3, 4, 3, 1, 0]
    broken = copy.deepcopy(results)
    del broken["protocol"]["lr"]["mlp"]
    with pytest.raises(ValueError, match="protocol.lr has no entry for 'mlp'"):
        C.optimizer_of(broken, "mlp")


def test_gap_in_spreads_by_hand():
    # synthetic: every model's values are (1, 2, 4) shifted by its index, so each std is sqrt(7/3) and the
    # gap between four heads (+2) and one head (+1) is 1: 1 / 1.5275 = 0.6547
    r = synthetic_results()
    assert C.largest_std(r, ("one_head", "four_heads")) == pytest.approx(HAND_STD)
    assert C.gap_in_spreads(r, "one_head", "four_heads") == pytest.approx(1 / HAND_STD)    # worse minus better
    assert C.gap_in_spreads(r, "mlp", "four_heads") == pytest.approx(2 / HAND_STD)
    # the widest spread's model, named: widen four heads' values and it is four heads; ties go to the first
    assert C.widest_spread_model(r, ("one_head", "four_heads")) == "one_head"
    wide = copy.deepcopy(r)
    for run in wide["runs"]:
        if run["model"] == "four_heads":
            run["test_loss"] = 2 * run["test_loss"]
    from trainer.export import summarize
    wide["summary"] = summarize(wide["runs"])
    assert C.widest_spread_model(wide, ("one_head", "four_heads")) == "four_heads"
    assert C.widest_spread_model(wide, ("mlp", "one_head")) == "mlp"


def test_kept_last_and_the_validation_slices(results):
    steps = results["protocol"]["steps"]
    raw = [(r["model"], r["seed"]) for r in results["runs"] if r["selected_step"] == steps]
    assert C.kept_last(results, "one_head") == sorted(s for m, s in raw if m == "one_head") == [11, 29, 47]
    assert C.kept_last(results, "four_heads") == [47] and C.kept_last(results, "mlp") == []
    sl = C.loss_slices(results)
    assert (sl.selection_windows, sl.val_targets, sl.test_targets) == (20000, 120695, 116443)
    for m in C.MODEL_ORDER:
        runs = [r for r in results["runs"] if r["model"] == m]
        sel = sum(r["selection_loss"] for r in runs) / 3
        test = sum(r["test_loss"] for r in runs) / 3
        val = sum(r["val_loss"] for r in runs) / 3
        assert sl.below_curve(m) == pytest.approx(sel - test, abs=1e-12)
        assert sl.full_val_to_test(m) == pytest.approx(abs(val - test), abs=1e-12)
        assert 0.16 < sl.below_curve(m) < 0.18 and sl.full_val_to_test(m) < 0.03
        assert sel > val + 0.1                      # the first 20,000 windows are harder than the whole split
    assert sl.selection_harder
    # and the claim is refused where one model's selection windows were easier
    easier = C.Slices(sl.selection_windows, sl.val_targets, sl.test_targets,
                      {**sl.means, "mlp": (1.0, 2.0, 2.0)})
    assert not easier.selection_harder


def test_timing_range_and_cpu_name(results):
    m, lo, hi = C.timing_range(results)
    secs = {mm: [r["train_seconds"] for r in results["runs"] if r["model"] == mm] for mm in C.MODEL_ORDER}
    assert m == max(secs, key=lambda k: max(secs[k]) - min(secs[k])) == "one_head"
    assert (lo, hi) == (min(secs[m]), max(secs[m]))
    assert C.cpu_name(results) == "AMD EPYC"
    assert C.cpu_name({"runs": [{"device": "cpu"}]}) is None
    # the continuations' latencies name their device the same way, with a thread count
    assert C.cpu_threads(C.load_continuation_set().device) == ("AMD EPYC", 1)
    assert C.cpu_threads("CPU (AMD EPYC), 2 threads") == ("AMD EPYC", 2)
    assert C.cpu_threads("cuda:0") is None


# ---- scene 20's readings ------------------------------------------------------------------------------


def test_repeated_phrase_counts_words_only_by_hand():
    toks = ("he", "wanted", "to", "help", ".", "he", "wanted", "to", "go")
    assert C.repeated_phrase(toks) == ("he", "wanted", "to")
    assert C.repeated_phrase((".", ",", ".", ".", ",", ".")) is None          # punctuation never counts
    assert C.repeated_phrase(("a", "b", "c", "d")) is None


def test_latency_reading_and_prompt_words_on_the_export():
    cont = C.load_continuation_set()
    raw = json.loads((C.EXPORTS / "continuations.json").read_text())["models"]
    lat = {(m, k): raw[m][k]["latency_ms_median"] for m in raw for k in raw[m]}
    kinds = sorted({k for _, k in lat})
    lr = C.latency_reading(cont)
    assert lr.baseline_margin == pytest.approx(
        min(min(lat[("one_head", k)], lat[("four_heads", k)]) - lat[("mlp", k)] for k in kinds))
    assert lr.pair_gap == pytest.approx(max(abs(lat[("one_head", k)] - lat[("four_heads", k)]) for k in kinds))
    assert lr.same_speed and lr.pair_gap < 0.005 < lr.pair_spread
    assert C.prompt_content_words(cont, "outside_domain") == ["bank", "raised", "because"]
    assert all(C.prompt_words_kept(cont, "outside_domain", m) == [] for m in C.MODEL_ORDER)
    assert C.repeaters(cont, "training") == ["one_head"]
