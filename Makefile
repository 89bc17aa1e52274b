# The two commands of the README: `make test` and `make demo`. Both set up .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
DEMO_CHECKPOINT ?= checkpoints/nlvr
DEMO_STORES ?= stores/nlvr

.PHONY: setup test lint demo notebooks clean

setup:
	@bash scripts/setup.sh

test:
	@bash scripts/setup.sh --browser
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The main job: the shipped NLVR checkpoint (a conditional NAC trained on the generated world),
# both circuit stores exported (NLVR2: one circuit per distinct sentence; NLVR: one per example),
# and a summary: accuracy, store paths, counts per category.
# In a terminal it then serves the app on both stores, NLVR2 first (Ctrl-C to stop); from a script
# (no terminal on stdin) it prints the command instead of blocking.
demo: setup
	$(VENV)/bin/circuitlab export $(DEMO_CHECKPOINT) --out $(DEMO_STORES) --overwrite
	@serve="$(VENV)/bin/circuitlab app $(DEMO_STORES)/nlvr2 --root $(DEMO_STORES) --checkpoint $(DEMO_CHECKPOINT)"; \
	if [ -t 0 ]; then $$serve; else echo "browse the circuits: $$serve"; fi

# The notebooks are jupytext percent-format sources; the .ipynb files are generated from them
# (a test checks they are in sync).
notebooks: setup
	$(VENV)/bin/jupytext --to ipynb --update examples/notebooks/*.py

clean:
	rm -rf runs stores .pytest_cache .ruff_cache
