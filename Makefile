# The two commands of the README. Each creates .venv on first use.
VENV    := .venv
PY      := $(VENV)/bin/python
QUALITY ?= l

.PHONY: lesson test

$(VENV)/.installed: pyproject.toml tools/setup.sh
	bash tools/setup.sh

# Render every scene of the series to renders/ (QUALITY=l default, QUALITY=h for 1080p60).
lesson: $(VENV)/.installed
	$(PY) -m lesson_build --quality $(QUALITY)

test: $(VENV)/.installed
	$(PY) -m pytest
