# The two commands of the README: `make test` and `make demo`. Both set up .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python
DEMO_RUN ?= runs/demo-toy-sets
DEMO_STORE ?= stores/demo-toy-sets

.PHONY: setup test lint demo clean

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

# The main job until the NLVR task lands: train a conditional NAC on the toy task (or resume the
# interrupted run), export one circuit per conditioning sentence, and summarise the store.
demo: setup
	@if [ -f $(DEMO_RUN)/summary.json ]; then echo "demo: $(DEMO_RUN) already trained"; \
	elif [ -f $(DEMO_RUN)/checkpoint.pt ]; then $(VENV)/bin/circuitlab train --out $(DEMO_RUN) --resume; \
	else $(VENV)/bin/circuitlab train --config configs/toy-sets-conditional.yaml --out $(DEMO_RUN); fi
	$(VENV)/bin/circuitlab export $(DEMO_RUN) --out $(DEMO_STORE) --overwrite
	$(VENV)/bin/circuitlab info $(DEMO_STORE)

clean:
	rm -rf runs stores .pytest_cache .ruff_cache
