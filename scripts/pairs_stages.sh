#!/usr/bin/env bash
# Train the pair-world recipe for one seed: configs/pairs/1-general-nouns.yaml (88,000 steps,
# about 5 hours on one core with --compile), 2-wider-kernel.yaml (8,000) and
# 3-logic-contrast.yaml (3,000), each from the weights of the stage before.
#
#   scripts/pairs_stages.sh OUT SEED [CONFIGS]
#
# CONFIGS: the folder of the three stage configs (default configs/pairs; a lever's, e.g.
# configs/experiments/pairs/wide).
#
# Stage k trains in OUT/<k>-<name> with seed SEED. Run it again to go on after an interruption:
# a finished stage (its summary.json written) is kept, an interrupted one resumes from its last
# checkpoint (every 500 steps). Measure the last stage with bench/pair_circuits.py and
# bench/minimal_pair_kinds.py.
set -euo pipefail
out=$(realpath -m "${1:?"usage: $0 OUT SEED  (OUT: folder for the three stage runs)"}")
seed=${2:?"usage: $0 OUT SEED [CONFIGS]"}
configs=${3:-configs/pairs}
case $seed in
    '' | *[!0-9]*) echo "SEED must be a whole number, got '$seed'" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
source scripts/stages.sh

previous=""
for name in 1-general-nouns 2-wider-kernel 3-logic-contrast; do
    init=()
    if [ -n "$previous" ]; then init=(--init-from "$previous"); fi
    run_stage "$out/$name" "$seed" --config "$configs/$name.yaml" "${init[@]}"
    previous=$out/$name
done
