"""The web lesson's build-time helpers (Python) beside its browser code (ES modules, *.mjs).

    weights.py   checkpoints (.pt, fp16) -> <page>/web/models/*.bin + manifest.json, cached by checksum
    tables.py    regenerates unicode_tables.mjs from `tokenizers` (Oniguruma's \\w and \\s, NFKC gaps)
    site.py      copies the page's scripts and styles, and writes the models, into <page>/web/
"""
