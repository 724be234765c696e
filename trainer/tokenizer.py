"""Word-level tokenizer built with `tokenizers`: NFKC + lower-case + collapsed whitespace, the
protocol's word regex (punctuation marks are tokens, contractions stay whole), WordLevel model with
the four specials, vocabulary fitted on the train split only."""
from __future__ import annotations

import re
from pathlib import Path

from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordLevel
from tokenizers.trainers import WordLevelTrainer

from trainer.config import SPECIALS, WORD_PATTERN


def new_tokenizer() -> Tokenizer:
    tok = Tokenizer(WordLevel(unk_token="<UNK>"))
    tok.normalizer = normalizers.Sequence([
        normalizers.NFKC(),
        normalizers.Lowercase(),
        normalizers.Replace(Regex(r"\s+"), " "),
        normalizers.Strip(),
    ])
    # invert=True + removed: keep only what the pattern matches (like re.findall).
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(WORD_PATTERN), behavior="removed", invert=True)
    return tok


def fit_tokenizer(train_texts: list[str], vocab_size: int, min_count: int) -> Tokenizer:
    """Most frequent first (ties by token), minimum count, `vocab_size` entries including specials."""
    tok = new_tokenizer()
    trainer = WordLevelTrainer(vocab_size=vocab_size, min_frequency=min_count,
                               special_tokens=list(SPECIALS), show_progress=False)
    tok.train_from_iterator(train_texts, trainer)
    return tok


def normalize_text(text: str) -> str:
    """The tokenizer's own normalizer, for de-duplication and split hashing."""
    return new_tokenizer().normalizer.normalize_str(text)


def encode(tok: Tokenizer, text: str) -> list[int]:
    return tok.encode(text, add_special_tokens=False).ids


def save_tokenizer(tok: Tokenizer, path: Path) -> None:
    tmp = Path(str(path) + ".tmp")
    tok.save(str(tmp))
    tmp.replace(path)


def load_tokenizer(path: Path) -> Tokenizer:
    return Tokenizer.from_file(str(path))


_NO_SPACE_BEFORE = re.compile(r" ([.,!?;:)\]}'\"])")
_NO_SPACE_AFTER = re.compile(r"([(\[{]) ")


def detokenize(words: list[str]) -> str:
    """Re-join punctuation for display: 'she said , " hi " .' -> 'she said, " hi ".'"""
    text = " ".join(w for w in words if w not in SPECIALS[:3])
    text = _NO_SPACE_BEFORE.sub(r"\1", text)
    return _NO_SPACE_AFTER.sub(r"\1", text)
