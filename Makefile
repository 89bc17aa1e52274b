# The two commands of the README: `make test` and `make demo`. Both set up .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
DEMO_CHECKPOINT ?= checkpoints/nlvr
DEMO_STORES ?= stores/nlvr
DEMO_PAIRS_CHECKPOINT ?= checkpoints/pairs
DEMO_PAIRS_STORES ?= stores/pairs
DEMO_PRIORS_CHECKPOINTS ?= checkpoints/priors
DEMO_PRIORS_STORE ?= stores/priors
# the related systems' shipped models (a Neural Interpreter, a Modular Network, an NFM network):
# checkpoints/NAME -> stores/NAME
DEMO_RELATED ?= ni mn nfm

.PHONY: setup test lint demo docs notebooks clean

setup:
	@bash scripts/setup.sh

test:
	@bash scripts/setup.sh --browser
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) scripts/api_reference.py --check
	$(PY) scripts/results_tables.py --check
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	$(PY) -m pytest

# The documentation site in site/ (mkdocs-material; the API reference from the packages' __all__,
# docs/api.md, rewritten by scripts/api_reference.py). Open site/index.html, or serve it live
# with .venv/bin/mkdocs serve.
docs: setup
	$(PY) scripts/api_reference.py
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The main job: the two shipped conditional models' circuits exported, each with a summary
# (accuracy, store paths, counts per category): the pair-world model (checkpoints/pairs, trained
# on a two-image world in NLVR2's language) writes stores/pairs (nlvr2: one circuit per distinct
# NLVR2 sentence; pairs: held-out pair-world examples), the shapes-world model (checkpoints/nlvr)
# writes stores/nlvr (nlvr2, and nlvr: one circuit per real NLVR example), and the unconditional
# object-images NACs of Fig. 3 (checkpoints/priors: one per graph prior) write stores/priors, one
# circuit per model with the prior it trained with; the related systems' models write stores/ni
# (routing), stores/mn (paths) and stores/nfm (which layers read which).
# In a terminal it then serves the app on every store, the pair-world model's NLVR2 circuits first
# (Ctrl-C to stop); from a script (no terminal on stdin) it prints the command instead of blocking.
demo: setup
	$(VENV)/bin/circuitlab export $(DEMO_PAIRS_CHECKPOINT) --out $(DEMO_PAIRS_STORES) --overwrite
	$(VENV)/bin/circuitlab export $(DEMO_CHECKPOINT) --out $(DEMO_STORES) --overwrite
	$(VENV)/bin/circuitlab export $(DEMO_PRIORS_CHECKPOINTS) --out $(DEMO_PRIORS_STORE) --overwrite
	@for name in $(DEMO_RELATED); do \
		echo "$(VENV)/bin/circuitlab export checkpoints/$$name --out stores/$$name --overwrite"; \
		$(VENV)/bin/circuitlab export checkpoints/$$name --out stores/$$name --overwrite || exit 1; \
	done
	@serve="$(VENV)/bin/circuitlab app $(DEMO_PAIRS_STORES)/nlvr2 --root stores --checkpoint $(DEMO_PAIRS_CHECKPOINT) --checkpoint $(DEMO_CHECKPOINT)"; \
	if [ -t 0 ]; then $$serve; else echo "browse the circuits: $$serve"; fi

# The notebooks are jupytext percent-format sources; the .ipynb files are generated from them
# (a test checks they are in sync).
notebooks: setup
	$(VENV)/bin/jupytext --to ipynb --update examples/notebooks/*.py

clean:
	rm -rf runs stores site build .pytest_cache .ruff_cache
