"""Pure data layer for the multi-head attention lesson (float64 numpy; no torch, no manim here).

`lesson_data.parity` (PyTorch cross-check) is imported explicitly by those who need it.
"""

from lesson_data.display import PLACES, fmt, fmt_int, fmt_pct
from lesson_data.worksheet import (
    AXES,
    CANDIDATES,
    HEAD_NAMES,
    SENTENCES,
    VOCAB,
    Head,
    Prediction,
    Worksheet,
    bias_illustration,
    compute_worksheet,
    sentence_from_env,
    single_head_reference,
    tokenize,
    two_source_illustration,
    worksheet_to_dict,
)
from lesson_data.vision_roadmap import vision_roadmap

__all__ = [
    "PLACES", "fmt", "fmt_int", "fmt_pct",
    "AXES", "CANDIDATES", "HEAD_NAMES", "SENTENCES", "VOCAB",
    "Head", "Prediction", "Worksheet",
    "bias_illustration", "compute_worksheet", "sentence_from_env", "single_head_reference",
    "tokenize", "two_source_illustration", "vision_roadmap", "worksheet_to_dict",
]
