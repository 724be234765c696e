"""Chapter 2, scenes 5–7 (Setup, ShapeFlow, Projections): they build without LaTeX, every number on
screen is the data layer's number with its own precision — for both sentences (and a 20-word
sentence where the layout depends on n) — and each picture appears in the beat of the sentence
that names it."""
from __future__ import annotations

import numpy as np
import pytest

from lesson_data.display import fmt, places_for
from lesson_data.projections import shown_rows
from lesson_data.worksheet import AXES, compute_worksheet
from scenes.chapter2.setup_and_shapes import Projections, Setup, ShapeFlow, display_words
from scenes.style import BACKGROUND, HIGHLIGHT_OPACITY, RECEIVER_COLOR, TEXT_COLOR, format_shape, head_color
from tests.scene_harness import assert_builds_cleanly, assert_matrix_on_screen, blend, build_scene, built

SENTENCES = ("river", "cheque")
# twenty vocabulary words: the longest sentence the position table allows
TWENTY = ("the fisherman sat beside the river bank and watched the water "
          "boats fish ducks teller clerk queue money she at")


def texts_of(b) -> set:
    return {t.original_text for t in b.texts}


def kinds(changes) -> str:
    return " ".join(c.what for c in changes)


def test_a_bad_sentence_switch_fails_with_the_data_layer_message():
    with pytest.raises(ValueError, match="unknown word 'zebra'"):
        build_scene(Setup, sentence="the zebra")


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("scene_cls", [Setup, ShapeFlow, Projections], ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls, sentence):
    b = built(scene_cls, sentence)
    assert_builds_cleanly(b, min_sections=2, min_beats=8)


@pytest.mark.parametrize("scene_cls", [Setup, ShapeFlow, Projections], ids=lambda c: c.__name__)
def test_scene_builds_cleanly_for_twenty_words(scene_cls):
    b = built(scene_cls, TWENTY)
    assert_builds_cleanly(b, min_sections=2, min_beats=8)


def test_setup_twenty_words_shows_the_first_and_last_rows_the_receiver_among_them():
    ws = compute_worksheet(TWENTY)
    b = built(Setup, TWENTY)
    E = b.by_tag("E")
    rows = sorted({i for i, _ in E})
    assert rows == [0, 1, 2, 3, 15, 16, 17, 18, 19]          # 4 first, "⋮", 5 last: ten slots
    for (i, j), m in E.items():
        assert m.value == ws.E[i, j]
    assert (ws.n - 1) in rows and b.scene.tables.receiver_row == rows.index(ws.n - 1)


# ------------------------------------------------------------------------------------ Setup


@pytest.mark.parametrize("sentence", SENTENCES)
def test_setup_shows_token_rows_position_rows_and_E(sentence):
    ws = compute_worksheet(sentence)
    b = built(Setup, sentence)
    assert_matrix_on_screen(b, "token_rows", ws.token_rows)
    assert_matrix_on_screen(b, "position_rows", ws.position_rows)
    assert_matrix_on_screen(b, "E", ws.E)
    token_m = b.scene.embedding_sum.token_m
    # the words as written (the sentence's own capital) become the row labels
    assert [t.original_text for t in token_m.row_labels] == display_words(ws)
    assert [w.lower() for w in display_words(ws)] == list(ws.tokens)
    assert [t.original_text for t in token_m.col_labels] == list(AXES)
    assert f"E  {format_shape(ws.E.shape)}" in texts_of(b)
    assert [t.original_text for t in b.scene.prefix.positions] == [str(p) for p in range(1, ws.n + 1)]
    b.beat_of(f"Here is our sentence: “{ws.text}”, and then a blank.")
    b.beat_of(f"The last known token, “{ws.tokens[-1]}”, at position {ws.n}, is the receiver")
    b.beat_of("It has no query yet.")


def test_setup_pictures_play_in_their_own_beats():
    b = built(Setup, "river")
    rows = b.beat_of("Each token becomes a row of four numbers")
    tags = {m.tag for m in b.numbers_in(rows)}
    assert tags == {"token_rows", "position_rows"}           # E is not shown a sentence early
    assert {m.tag for m in b.numbers_in(b.beat_of("Add them, and you get E"))} == {"E"}
    assert "LaggedStart" in kinds(b.changes_in(b.beat_of("Row 10 of E is the receiver")))   # the row boxes
    assert "FadeIn" in kinds(b.changes_in(b.beat_of("The blank is the word we want to predict")))
    # the tokens become E's row labels, and the axes its column headers, by motion in their own beat
    moved = b.beat_of("From here on, E is the input")
    assert "ReplacementTransform" in kinds(b.changes_in(moved))
    e2 = b.scene.e_final
    assert [t.original_text for t in e2.row_labels] == display_words(b.scene.ws)
    assert [t.original_text for t in e2.col_labels] == list(AXES)
    assert "Create" in kinds(b.changes_in(b.beat_of("Glue, the last column")))  # glue box


def test_setup_opens_the_chapter_by_saying_what_it_does():
    b = built(Setup, "river")
    first = b.beats[0]
    # a teacher's opening line, with the title: the worksheet, one sentence, every number by hand, to a prediction
    for part in ("two-head worksheet", "one sentence", "every number by hand", "step by step",
                 "from the input rows to a prediction"):
        assert part in first.text and part in first.spoken, part
    assert len(first.spoken.split()) <= 30                                          # short: it delays the lesson
    assert "FadeIn" in kinds(b.changes_in(first))                                   # the title comes in with it
    assert b.beats[1].text.startswith("Here is our sentence:")


def test_setup_names_the_four_invented_axes_when_the_rows_first_show():
    b = built(Setup, "river")
    rows = b.beat_of("Each token becomes a row of four numbers")
    # named in the columns' order, said as made up for this lesson, as their headers light one by one
    assert "on axes made up for this lesson: water, finance, person and glue." in rows.spoken
    assert list(AXES) == ["water", "finance", "person", "glue"]
    assert "LaggedStart" in kinds(b.changes_in(rows))
    # the glue beat then says only what glue means (the names are not said twice)
    glue = b.beat_of("Glue, the last column")
    assert "water" not in glue.spoken and "finance" not in glue.spoken
    assert "highest for the word the" in glue.spoken and "near zero for nouns such as river and fisherman" in glue.spoken


def test_setup_river_rows_worked_by_hand():
    b = built(Setup, "river")
    E = b.by_tag("E")
    # position 6 is "river": token row [3, 0, 0, 0] + position row 6 [0.1, -0.1, 0, 0.1], tenths as tenths
    assert [E[(5, j)].original_text for j in range(4)] == ["3.1", "-0.1", "0.0", "0.1"]
    # the receiver "the" at 10: [0, 0, 0, 2.4] + [0, 0, 0, -0.1]
    assert [E[(9, j)].original_text for j in range(4)] == ["0.0", "0.0", "0.0", "2.3"]


def test_setup_cheque_rows_worked_by_hand():
    b = built(Setup, "cheque")
    E = b.by_tag("E")
    # position 4 is "cheque": [0, 3, 0, 0] + position row 4 [0, -0.1, 0.1, 0]
    assert [E[(3, j)].original_text for j in range(4)] == ["0.0", "2.9", "0.1", "0.0"]
    assert [t.original_text for t in b.scene.embedding_sum.token_m.row_labels][:2] == ["She", "deposited"]


def test_setup_last_frame_highlights_the_receiver_row():
    b = built(Setup, "river")
    e_m = b.scene.e_final                 # E, centred, with the words and axes as its labels
    n = b.scene.ws.n
    # between two digits of the receiver's row: highlight colour over the background
    x = (e_m.cell(n - 1, 0).get_right()[0] + e_m.cell(n - 1, 1).get_left()[0]) / 2
    y = e_m.cell_center(n - 1, 0)[1]
    assert np.abs(b.pixel((x, y)) - blend(RECEIVER_COLOR, BACKGROUND, HIGHLIGHT_OPACITY)).max() <= 3
    # the same spot one row up is not highlighted
    y_above = e_m.cell_center(n - 2, 0)[1]
    assert np.abs(b.pixel((x, y_above)) - np.array([int(BACKGROUND[k:k + 2], 16) for k in (1, 3, 5)])).max() <= 3


# -------------------------------------------------------------------------------- ShapeFlow


@pytest.mark.parametrize("sentence", [*SENTENCES, TWENTY])
def test_shape_flow_labels_every_stage_with_its_shape(sentence):
    ws = compute_worksheet(sentence)
    b = built(ShapeFlow, sentence)
    texts = texts_of(b)
    h1 = ws.heads[0]
    expected_shapes = {
        format_shape(ws.E.shape),                          # E, ΔE, E′, the concat
        f"each {format_shape(h1.W_Q.shape)}",              # W_Q, W_K, W_V per head, drawn as shapes
        format_shape(h1.Q.shape),                          # Q, K, V, H per head
        format_shape(h1.scores.shape),                     # QKᵀ and A
        format_shape(ws.W_O.shape),
        format_shape((1, ws.E.shape[1])),                  # the last row
        f"{format_shape((1, len(ws.mlp.probabilities)))} words",
        "in general [n_heads × d_v, d_model]",
    }
    assert expected_shapes <= texts
    for label in ("W_Q¹", "W_K¹", "W_V¹", "W_Q²", "W_K²", "W_V²", "Q¹", "K¹", "V¹", "Q²", "K²", "V²",
                  "Q¹(K¹)ᵀ", "Q²(K²)ᵀ", "(K¹)ᵀ", "(K²)ᵀ", "A¹", "A²", "H¹", "H²", "[H¹ | H²]", "W_O", "ΔE", "E′", "MLP",
                  "residual: + E", "E"):
        assert label in texts, label
    assert f"÷√{h1.Q.shape[1]}" in texts
    assert b.numbers == []                                  # a shapes-only scene shows no numbers
    # the stated shapes are the data layer's: [n, 2] per head, [n, n] weights, [n, 4] joined
    assert h1.Q.shape == (ws.n, 2) and h1.weights.shape == (ws.n, ws.n) and ws.H_joined.shape == (ws.n, 4)


def test_shape_flow_river_shapes_worked_by_hand():
    b = built(ShapeFlow, "river")
    words = [bt.text for bt in b.beats]
    # ten tokens of four numbers; two heads of width two; twenty vocabulary words
    assert "We follow one sentence, with no batch axis: E is [10, 4], one row per token." in words
    assert "Q times K transpose, [10, 2] by [2, 10], gives [10, 10] scores." in words
    assert "The MLP and a softmax give each of the twenty vocabulary words a probability: p is [1, 20]." in words
    # the shapes stay on screen; the voice says what the product is (ten receivers by ten sources)
    assert b.beat_of("Q times K transpose").spoken == (
        "Q times K transpose gives a ten by ten grid of scores: one for every receiver and source.")


def test_shape_flow_pictures_play_in_their_own_beats():
    b = built(ShapeFlow, "river")
    # V's own path (W_V → V, around the scores) is drawn when the sentence names Q, K and V
    assert "Create" in kinds(b.changes_in(b.beat_of("gives each head a Q, a K and a V")))
    # the projection matrices appear with the sentence that names them, growing out of E
    assert "GrowArrow" in kinds(b.changes_in(b.beat_of("Each head has its own W_Q, W_K and W_V")))
    # the residual path from E is drawn in the residual's sentence; the MLP in the last-row one;
    # p [1, 20] only in the last sentence
    assert "Create" in kinds(b.changes_in(b.beat_of("The residual adds E back")))
    last_row = kinds(b.changes_in(b.beat_of("Only its last row")))
    assert "ReplacementTransform" in last_row and "GrowArrow" in last_row
    assert "GrowArrow" in kinds(b.changes_in(b.beat_of("The MLP and a softmax give each of")))
    assert b.beats[-1].text.startswith("The MLP and a softmax give each of")
    # the lanes leave inside the joining sentence, and H¹ and H² slide together there (not between beats)
    join = b.beat_of("The two messages join side by side")
    assert kinds(b.changes_in(join)).count("ReplacementTransform") >= 3     # H¹, H², and E into the chain
    assert "FadeOut" in kinds(b.changes_in(join))
    # K turns into a flat Kᵀ in the sentence that names K transpose; Q and Kᵀ both feed the scores
    scores = kinds(b.changes_in(b.beat_of("Q times K transpose")))
    assert "ReplacementTransform" in scores and scores.count("GrowArrow") >= 4
    # the row and column tags in the sentence that names rows and columns
    assert {"row =", "receiver i", "column = source j"} <= texts_of(b)


def test_shape_flow_keeps_E_in_view_for_the_residual():
    b = built(ShapeFlow, "river")
    scene = b.scene
    on_screen = {id(m) for top in scene.mobjects for m in top.get_family()}
    assert id(scene.e_box.box) in on_screen
    # the residual starts over E and ends in the sum
    residual = scene.parts["residual"]
    start = residual.legs[0].get_start()
    assert abs(start[0] - scene.e_box.box.get_x()) < 1e-6
    assert np.linalg.norm(residual.tip.get_end() - scene.parts["plus"].circle.get_top()) < 0.05
    # E's box is drawn in the last frame (sampled inside a row, between its row stripes)
    box = scene.e_box.box
    inside_row = box.get_center() + np.array([0, box.height / 20, 0])
    assert np.abs(b.pixel(inside_row) - blend(TEXT_COLOR, BACKGROUND, 0.25)).max() <= 3


def test_shape_flow_last_frame_colours_the_two_heads_in_the_concat():
    b = built(ShapeFlow, "river")
    concat = b.scene.parts["concat"]
    for half, index in zip(concat.halves, (1, 2)):
        want = blend(head_color(index), BACKGROUND, 0.6)
        assert np.abs(b.pixel(half.get_center()) - want).max() <= 3


# ------------------------------------------------------------------------------ Projections


@pytest.mark.parametrize("sentence", SENTENCES)
def test_projections_show_the_receiver_row_W_Q_and_both_queries(sentence):
    ws = compute_worksheet(sentence)
    b = built(Projections, sentence)
    n = ws.n
    assert_matrix_on_screen(b, "E_row", ws.E[n - 1])
    assert_matrix_on_screen(b, "E_rows", ws.E)
    for head in ws.heads:
        h = head.index
        assert_matrix_on_screen(b, f"W_Q{h}", head.W_Q)
        assert_matrix_on_screen(b, f"W_K{h}", head.W_K)
        assert_matrix_on_screen(b, f"q{h}", head.Q[n - 1])
        assert_matrix_on_screen(b, f"K{h}", head.K)
    # the one written-out dot product: e_n[i] × W_Q¹[i, a] for every i, = q¹_n(a)
    head = ws.heads[0]
    terms = [(b.by_tag("dot_e1")[(0, i)], b.by_tag("dot_w1")[(0, i)]) for i in range(4)]
    assert [e.value for e, _ in terms] == list(ws.E[n - 1])
    assert [w.value for _, w in terms] == list(head.W_Q[:, 0])
    assert all(e.places == places_for(ws.E[n - 1]) and w.places == places_for(head.W_Q) for e, w in terms)
    result = b.by_tag("dot_q1")[0]
    assert result.value == head.Q[n - 1, 0]
    # a second method: the shown terms' unrounded products add up to the shown result
    assert sum(e.value * w.value for e, w in terms) == pytest.approx(result.value, abs=1e-12)


def test_projections_river_queries_worked_by_hand():
    b = built(Projections, "river")
    # e10 = [0, 0, 0, 2.3]; W_Q¹ reads glue into both coordinates, W_Q² into the first only
    assert [b.by_tag("q1")[(0, k)].original_text for k in range(2)] == ["2.3", "2.3"]
    assert [b.by_tag("q2")[(0, k)].original_text for k in range(2)] == ["2.3", "0.0"]
    assert [b.by_tag("E_row")[(0, k)].original_text for k in range(4)] == ["0.0", "0.0", "0.0", "2.3"]
    # the written-out line: 0.0 × 0 + 0.0 × 0 + 0.0 × 0 + 2.3 × 1 = 2.3
    assert [b.by_tag("dot_w1")[(0, i)].original_text for i in range(4)] == ["0", "0", "0", "1"]
    assert b.by_tag("dot_q1")[0].original_text == "2.3"
    # K¹ is E's water and finance columns: river's row 6 reads 3.1, -0.1
    assert [b.by_tag("K1")[(5, j)].original_text for j in range(2)] == ["3.1", "-0.1"]
    assert [b.by_tag("K2")[(1, j)].original_text for j in range(2)] == ["2.1", "0.0"]   # fisherman: person, glue


def test_projections_name_the_axes_each_head_reads():
    b = built(Projections, "river")
    layout = b.scene.reads
    assert [t.original_text for t in layout.heads[0].k.col_labels] == ["water", "finance"]
    assert [t.original_text for t in layout.heads[1].k.col_labels] == ["person", "glue"]
    # q²₁₀ = [2.3, 0.0] (by hand: the receiver's glue 2.3 times W_Q²'s glue-to-person 1, nothing into
    # glue): head 2's glue key coordinate moves none of its scores, and the sentence says so
    b.beat_of("So head 1 reads water and finance; head 2 reads person and glue, from every source row. "
              "Head 2’s query here is 0 on glue, so its scores come from person alone.")
    texts = texts_of(b)
    for caveat in ("Query/key width is two per head here; Part II’s single-head toy used three.",
                   "These sparse matrices are hand-chosen; learned projections need not be sparse or interpretable."):
        assert any(caveat in t.replace("\n", " ") for t in texts), caveat
    # the separate-parameters caveat is the caption itself (no fine print repeating it)
    b.beat_of("They are still two separate parameters, picked by hand here; "
              "learned ones need not be equal, or this tidy.")
    assert "K¹ = V¹  [10, 2]" in texts and "K² = V²  [10, 2]" in texts
    # W_V is on screen: the W_K matrices are named W_V too (equal entries, said so from the start),
    # in the sentence that says so, and both matrices light up there
    assert {"W_K¹", "W_V¹", "W_K²", "W_V²", "="} <= texts
    values = kinds(b.changes_in(b.beat_of("W_V has the same entries as W_K here")))
    assert values.count("ReplacementTransform") >= 4 and "Indicate" in values
    # one convention for a head's coordinates: W_Q's, q's, W_K's and K's columns say what K copies
    for panel, names in zip(b.scene.panels, (["water", "finance"], ["person", "glue"])):
        assert [t.original_text for t in panel.w_q.col_labels] == names
        assert [t.original_text for t in panel.q.col_labels] == names
    assert [t.original_text for t in layout.heads[0].w_k.col_labels] == ["water", "finance"]
    # "from every source row": a bar sweeps down the rows in that sentence
    assert "FadeIn" in kinds(b.changes_in(b.beat_of("So head 1 reads water and finance")))


def test_projections_pictures_play_in_their_own_beats():
    b = built(Projections, "river")
    dot = b.beat_of("A query coordinate: multiply this row by one column of W_Q term by term, and add")
    assert {"dot_e1", "dot_w1", "dot_q1"} <= {m.tag for m in b.numbers_in(dot)}
    assert {m.tag for m in b.numbers_in(b.beat_of("Head 1’s W_K has ones at water and finance"))} >= {"K1", "W_K1"}
    assert "K2" not in {m.tag for m in b.numbers_in(b.beat_of("Head 1’s W_K has ones"))}
    assert {m.tag for m in b.numbers_in(b.beat_of("Head 2’s W_K keeps person and glue"))} >= {"K2", "W_K2"}
    # the columns of E travel into K (a transform, not a fade)
    assert "ReplacementTransform" in kinds(b.changes_in(b.beat_of("Head 2’s W_K keeps")))
    # one query coordinate is written out; the other three appear in the next beat, not before
    assert {m.tag for m in b.numbers_in(b.beat_of("The other coordinates work the same way"))} == {"q1", "q2"}


def test_projections_twenty_words_show_the_first_and_last_rows():
    ws = compute_worksheet(TWENTY)
    b = built(Projections, TWENTY)
    rows = [r for r in shown_rows(ws.n) if r is not None]
    assert rows[-1] == ws.n - 1 and len(rows) == 9
    for tag, array in (("E_rows", ws.E), ("K1", ws.heads[0].K), ("K2", ws.heads[1].K)):
        shown = b.by_tag(tag)
        assert set(shown) == {(r, j) for r in rows for j in range(array.shape[1])}, tag
        for (r, j), m in shown.items():
            assert m.value == array[r, j] and m.original_text == fmt(array[r, j], places_for(array))
    assert "⋮" in texts_of(b)


def test_projections_last_frame_highlights_the_rows_each_head_reads():
    b = built(Projections, "river")
    for head, group in zip(b.scene.ws.heads, b.scene.reads.heads):
        w_k = group.w_k
        for i, axis in enumerate(AXES):
            x = (w_k.cell(i, 0).get_right()[0] + w_k.cell(i, 1).get_left()[0]) / 2
            got = b.pixel((x, w_k.cell_center(i, 0)[1]))
            if axis in group.reads:
                want = blend(head_color(head.index), BACKGROUND, HIGHLIGHT_OPACITY)
            else:
                want = blend(BACKGROUND, BACKGROUND, 1.0)
            assert np.abs(got - want).max() <= 3, (head.index, axis)


def test_projections_second_review_pictures_play_in_their_sentences():
    b = built(Projections, "river")
    # a query column is named for the key column it meets: said once, its label lit in that beat
    named = b.beat_of("A query column is named for the key column it meets")
    assert "Indicate" in kinds(b.changes_in(named))
    assert "q¹₁₀[water]  =" in texts_of(b)
    # "picked by hand": the hand-chosen entries dim and return while the sentence is said, and the
    # notes' caveat arrives as fine print (the caption does not repeat it)
    separate = b.beat_of("They are still two separate parameters")
    assert len(b.changes_in(separate)) >= 2 and "FadeIn" in kinds(b.changes_in(separate))
    # one name for the earlier lesson, defined where it is first said
    assert "Part II" not in b.beat_of("One query per head at the receiver, two numbers each.").text


def test_setup_caveat_stays_with_e_and_the_receiver_reads_itself():
    b = built(Setup, "river")
    assert b.beat_of("it gathers information from itself and the tokens before it.")
    # the "not token IDs" caveat stays on screen, under E, to the end of the scene
    note = b.scene.fine_print
    assert note.sentence == "E contains position-aware embedding rows, not token IDs."
    assert note in b.scene.mobjects
    assert note.get_top()[1] < b.scene.e_final.get_bottom()[1]
    # the four column headers light one after another as the sentence names them (with the token rows);
    # later, on E, the glue header lights as the glue sentence names it
    assert "LaggedStart" in kinds(b.changes_in(b.beat_of("Each token becomes a row of four numbers")))
    assert "Indicate" in kinds(b.changes_in(b.beat_of("Glue, the last column")))


def test_projections_third_review_pictures_play_in_their_sentences():
    ws = compute_worksheet("river")
    b = built(Projections, "river")
    scene = b.scene
    # "compared with each key's water": a faint K¹ header (water | finance) and a link to it, in that beat
    named = kinds(b.changes_in(b.beat_of("A query column is named for the key column it meets")))
    assert "Create" in named and "FadeIn" in named
    assert [t.original_text for t in scene.key_ghost.labels] == ["water", "finance"]
    assert {"keys", "K¹"} <= texts_of(b)
    # the queries stay, small, under their keys while the keys arrive: q¹₁₀ = [2.3, 2.3], q²₁₀ = [2.3, 0.0]
    for head, badge, group in zip(ws.heads, scene.query_badges, scene.reads.heads):
        assert_matrix_on_screen(b, f"q{head.index}_badge", head.Q[ws.n - 1])
        assert badge in scene.mobjects or any(badge.vector.cell(0, 0) in m.get_family() for m in scene.mobjects)
        assert badge.get_top()[1] < group.k.brackets.get_bottom()[1]
        assert abs(badge.get_x() - group.k.brackets.get_x()) < 1e-6
    assert [b.by_tag("q1_badge")[(0, k)].original_text for k in range(2)] == ["2.3", "2.3"]
    assert [b.by_tag("q2_badge")[(0, k)].original_text for k in range(2)] == ["2.3", "0.0"]
    assert any(t.name == "queries kept, the rest cleared" for t in scene.transitions)
    # one beat for both caveats of the hand-made matrices (no separate "picked by hand" beat)
    assert not any(bt.text.startswith("We picked these sparse matrices") for bt in b.beats)
    # the layout keeps clear of the frame's edges, its highlight boxes too
    from scenes.style import FRAME_WIDTH
    last = scene.reads.heads[-1].k
    assert last.brackets.get_right()[0] < FRAME_WIDTH / 2 - 0.4
    assert scene.reads.e.get_left()[0] > -FRAME_WIDTH / 2 + 0.3


def test_projections_close_on_both_heads_reading_every_token_without_saying_in_parallel():
    b = built(Projections, "river")
    last = b.beat_of("Both heads read all ten known tokens")
    # each head's keys framed with its query, in that sentence; "in parallel" is chapter 1's point
    assert "Create" in kinds(b.changes_in(last))
    assert last.spoken == "Both heads read all ten known tokens, each with its own query and keys."
    assert not any("in parallel" in bt.spoken for bt in b.beats)


def test_setup_third_review_pictures_play_in_their_sentences():
    ws = compute_worksheet("river")
    b = built(Setup, "river")
    scene = b.scene
    # "itself and the tokens before it": a bracket under tokens 1-10, drawn in that sentence
    receiver = kinds(b.changes_in(b.beat_of("it gathers information from itself and the tokens before it.")))
    assert "Create" in receiver
    assert "readable sources 1–10" in texts_of(b)
    # "the" is tokens 1, 5 and 10: the same token row, three different rows of E (position-aware)
    same = b.beat_of("“the” appears three times")
    assert "LaggedStart" in kinds(b.changes_in(same)) and "Indicate" in kinds(b.changes_in(same))
    assert len(scene.same_token_boxes) == 2 * 2            # rows 1 and 5, in the token and position tables
    # in E only the cells that read differently: rows 1 and 5 read 0.1 0.0 0.1 2.3 and 0.1 0.1 0.0 2.3,
    # row 10 reads 0.0 0.0 0.0 2.3 (by hand): water, finance and person differ, glue does not
    assert len(scene.differing_cells) == 2 * 3
    assert "(case ignored)" in same.text             # "The" and "the" are one token
    assert np.array_equal(ws.token_rows[0], ws.token_rows[9]) and not np.array_equal(ws.E[0], ws.E[9])
    # the invented axes: in the notes' words as fine print, not repeated by the caption
    axes = b.beat_of("Glue, the last column")
    note = "The water, finance, person and glue axes are invented for teaching; glue is our toy feature for function words such as “the”."
    assert scene.axes_note.sentence == note and "invented for teaching" not in axes.text
    # shown with the axes' names (the token rows' headers), not five beats later
    assert scene.axes_note_beat == b.beat_of("Each token becomes a row of four numbers").id
    assert "Create" in kinds(b.changes_in(axes))


def test_shape_flow_third_review_pictures_play_in_their_sentences():
    b = built(ShapeFlow, "river")
    scene = b.scene
    # E alone and large first, then into its place as the heads' matrices arrive
    assert "ReplacementTransform" in kinds(b.changes_in(b.beat_of("Each head has its own W_Q, W_K and W_V")))
    assert b.beat_of("Dividing by √2, masking the future")
    # heard as three short steps, with why root two (the fourth listener: the reason split the list)
    assert b.beat_of("Dividing by √2").spoken.startswith("Divide by root two, since each key is two numbers wide.")
    # the legend in the band between the lanes, with A's receiver row lit too
    legend = scene.legend
    assert scene.lanes[1].q.name_label.get_top()[1] < legend.get_bottom()[1]
    assert legend.get_top()[1] < scene.lanes[0].v_path.get_bottom()[1]
    # the receiver's own rows only (q, A, H): its score and message read every key and value
    lane = scene.lanes[0]
    assert len(scene.receiver_strips) == 3
    lit = [strip.get_center()[1] for strip in scene.receiver_strips]
    for part in (lane.kt, lane.v):
        assert not any(part.get_left()[0] - 1e-6 <= s.get_center()[0] <= part.get_right()[0] + 1e-6
                       and part.get_bottom()[1] - 1e-6 <= y <= part.get_top()[1] + 1e-6
                       for s, y in zip(scene.receiver_strips, lit))
    # "last row" over its arrow, and p's capped width said
    p = scene.parts
    assert p["last_label"].get_bottom()[1] > p["a_last"].get_top()[1]
    assert "width not to scale" in texts_of(b)
    assert "FadeIn" in kinds(b.changes_in(b.beat_of("The MLP and a softmax give each of")))


def test_projections_fourth_review_causes_before_results():
    b = built(Projections, "river")
    scene = b.scene
    # head 2's keys arrive while head 1's W_K and keys stay on screen (dimmed, then restored)
    keys2 = kinds(b.changes_in(b.beat_of("Head 2’s W_K keeps person and glue")))
    before, _, after = keys2.partition("ReplacementTransform")
    assert "Restore" in after and "FadeOut" not in before
    # "the other coordinates work the same way": the column box walks through each of the three
    rest = b.changes_in(b.beat_of("The other coordinates work the same way"))
    assert kinds(rest).count("Transform") >= 3
    # "two separate parameters": W_K and W_V have their own names, each boxed in that sentence
    separate = kinds(b.changes_in(b.beat_of("They are still two separate parameters")))
    assert "LaggedStart" in separate and len(scene.parameter_frames) == 4


def test_shape_flow_fourth_review_labels_and_stripes():
    b = built(ShapeFlow, "river")
    scene = b.scene
    # E keeps its ten row stripes from the first beat to the chain (one row per token)
    assert len(scene.e_rows) == 9 and scene.e_rows in scene.mobjects
    # the row-10 legend writes α for the attention row, as scene 8 does, and three symbols only
    assert "α¹₁₀" in scene.legend.original_text and "k¹₁₀" not in scene.legend.original_text
    # A's column tag sits under A and above head 1's V path: its tick crosses no line
    a, tag = scene.lanes[0].weights, scene.a_strips[2][1][0]
    assert scene.lanes[0].v_path.get_bottom()[1] < tag.get_bottom()[1] and tag.get_top()[1] < a.box.get_bottom()[1]
    # the general W_O shape points at W_O's own [4, 4]
    assert "GrowArrow" in kinds(b.changes_in(b.beat_of("W_O is square here only because")))
    # a shape stays on one caption line
    assert "so A is [10, 10] too." in b.beat_of("Dividing by √2").text


def test_the_glue_column_is_what_its_sentence_says():
    """05: "Glue ... is highest for “the” and near zero for nouns like “river” and “fisherman”" — in the
    token table and in E (positions included), where the verbs sat and watched carry glue too (so not
    "zero for content words", the listener's catch)."""
    from lesson_data.worksheet import AXES, TOKEN_TABLE, VOCAB, compute_worksheet
    glue = TOKEN_TABLE[:, AXES.index("glue")]
    assert glue[VOCAB.index("the")] == glue.max() and glue[VOCAB.index("river")] == glue[VOCAB.index("fisherman")] == 0.0
    assert glue[VOCAB.index("sat")] > 1.0 and glue[VOCAB.index("watched")] > 1.0
    ws = compute_worksheet("river")
    e_glue = ws.E[:, AXES.index("glue")]
    assert max(e_glue[ws.tokens.index("river")], e_glue[ws.tokens.index("fisherman")]) <= 0.1 + 1e-12
    assert e_glue[ws.tokens.index("the")] == e_glue.max()
    b = built(Setup, "river")
    b.beat_of("Glue, the last column, is highest for “the” and near zero for nouns like “river” and “fisherman”.")
