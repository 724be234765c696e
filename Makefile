# The two commands of the README. Each creates .venv on first use.
VENV    := .venv
PY      := $(VENV)/bin/python
QUALITY ?= m
PORT    ?= 8000

.PHONY: lesson test serve

$(VENV)/.installed: pyproject.toml tools/setup.sh
	bash tools/setup.sh

# Render every scene of the series to renders/ (QUALITY=m 720p30 default, QUALITY=h 1080p60, QUALITY=l 480p15 drafts).
# make does not pass a SIGTERM on to its command: the build asks the kernel to stop it with make.
lesson: export LESSON_BUILD_WITH_PARENT := 1
lesson: $(VENV)/.installed
	$(PY) -m lesson_build --quality $(QUALITY)

test: $(VENV)/.installed
	$(PY) -m pytest

# The built page on http://127.0.0.1:$(PORT)/ (Ctrl-C stops); any static host serves renders/ as well.
# The server is the standard library's: no set-up needed, the venv's Python if there is one.
serve:
	$(if $(wildcard $(PY)),$(PY),python3) -m lesson_build.serve --port $(PORT)
