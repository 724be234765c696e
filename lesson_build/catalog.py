"""The series in viewing order: chapters, their scene files and scene classes.

Plain data (no Manim import) so the pipeline, the tests and the README agree on one list.
Each scene renders alone with `manim -pql <file> <Scene>` from the project root.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SceneEntry:
    number: int        # storyboard scene number
    file: str          # path relative to the project root
    name: str          # Scene class name
    title: str         # chapter mark shown in players


@dataclass(frozen=True)
class Chapter:
    number: int
    slug: str
    title: str
    scenes: tuple[SceneEntry, ...]


_CH2 = "scenes/chapter2"

CHAPTERS: tuple[Chapter, ...] = (
    Chapter(1, "chapter1", "Why several heads?", (
        SceneEntry(1, "scenes/chapter1_why_heads.py", "ThreeHeadsSevenRows", "Three heads, seven rows"),
        SceneEntry(2, "scenes/chapter1_why_heads.py", "TheReceiver", "The receiver"),
        SceneEntry(3, "scenes/chapter1_why_heads.py", "ParallelHeads", "Parallel heads"),
        SceneEntry(4, "scenes/chapter1_why_heads.py", "OneSharedWeight", "One shared weight per head"),
    )),
    Chapter(2, "chapter2", "The two-head worksheet", (
        SceneEntry(5, f"{_CH2}/setup_and_shapes.py", "Setup", "Setup"),
        SceneEntry(6, f"{_CH2}/setup_and_shapes.py", "ShapeFlow", "Shape flow"),
        SceneEntry(7, f"{_CH2}/setup_and_shapes.py", "Projections", "Projections"),
        SceneEntry(8, f"{_CH2}/head_walk.py", "Head1Weights", "Head 1 weights"),
        SceneEntry(9, f"{_CH2}/head_walk.py", "Head1Message", "Head 1 message"),
        SceneEntry(10, f"{_CH2}/head_walk.py", "Head2WeightsAndMessage", "Head 2 weights and message"),
        SceneEntry(11, f"{_CH2}/head_walk.py", "MaskedMatrix", "The masked matrix"),
        SceneEntry(12, f"{_CH2}/joining_heads.py", "WideHeadVersusTwo", "One wide head versus two"),
        SceneEntry(13, f"{_CH2}/joining_heads.py", "ConcatAndOutputProjection", "Concat and W_O"),
        SceneEntry(14, f"{_CH2}/joining_heads.py", "ResidualAndPrediction", "Residual and prediction"),
        SceneEntry(15, f"{_CH2}/joining_heads.py", "ChequeSentence", "The cheque sentence"),
        SceneEntry(16, f"{_CH2}/library_and_recap.py", "BiasesAndLibraryLayer", "Biases and the library layer"),
        SceneEntry(17, f"{_CH2}/library_and_recap.py", "RecapAndLoop", "Recap and the loop"),
    )),
    Chapter(3, "chapter3", "Trained models on TinyStories", (
        SceneEntry(18, "scenes/chapter3_trained_models.py", "ThreeArchitectures", "Three architectures"),
        SceneEntry(19, "scenes/chapter3_trained_models.py", "TheComparison", "The comparison"),
        SceneEntry(20, "scenes/chapter3_trained_models.py", "InsideTrainedModels", "Inside the trained models"),
    )),
    Chapter(4, "chapter4", "Roadmap to vision", (
        SceneEntry(21, "scenes/chapter4_vision_roadmap.py", "PatchesAndCLS", "Patches and CLS"),
    )),
)


def all_scenes() -> list[SceneEntry]:
    return [s for ch in CHAPTERS for s in ch.scenes]
