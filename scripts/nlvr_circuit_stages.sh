#!/usr/bin/env bash
# Train the issue-18 NLVR circuit model: the seven --init-from stages of docs/experiments.md
# ("Circuits that decide the answer"), 88,000 steps in all, about 7.5 hours on one core.
#
#   scripts/nlvr_circuit_stages.sh OUT [SEED_SHIFT]
#
# Stage k trains in OUT/<k>-<name> from the weights of stage k-1. SEED_SHIFT 0 (the default)
# gives the seeds of the reported row (0, 1, 2, 4, 6, 7, 9); another shift is added to every
# stage's seed, which is how the seeds of the configuration are trained (shifts 100, 200).
# Run it again to go on after an interruption: a finished stage (its summary.json written) is
# kept, an interrupted one resumes from its last checkpoint (every 500 steps).
set -euo pipefail
out=$(realpath -m "${1:?"usage: $0 OUT [SEED_SHIFT]  (OUT: folder for the seven stage runs)"}")
cd "$(dirname "$0")/.."
seed_shift=${2:-0}
case $seed_shift in
    '' | *[!0-9]*) echo "SEED_SHIFT must be a whole number, got '$seed_shift'" >&2; exit 2 ;;
esac
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
source scripts/stages.sh

previous=""
stage() {  # stage NAME SEED [train options...]
    local dir="$out/$1" seed=$(($2 + seed_shift))
    shift 2
    run_stage "$dir" "$seed" --config configs/experiments/circuits/split-sentence.yaml "$@"
    previous=$dir
}

repulsion=(-m signature_repulsion=0.1 -m repulsion_hinge=0.1)
whole=(-m signature_tokens=sentence)
stage 1-split-16k 0
stage 2-28k 1 --init-from "$previous" --steps 12000 --lr 0.0005
stage 3-repulsion-40k 2 --init-from "$previous" --steps 12000 --lr 0.0005 "${repulsion[@]}"
stage 4-sentence-52k 4 --init-from "$previous" --steps 12000 --lr 0.0005 "${repulsion[@]}" "${whole[@]}"
stage 5-sentence-64k 6 --init-from "$previous" --steps 12000 --lr 0.001 "${repulsion[@]}" "${whole[@]}"
stage 6-sentence-76k 7 --init-from "$previous" --steps 12000 --lr 0.001 "${repulsion[@]}" "${whole[@]}"
stage 7-sigmoid-88k 9 --init-from "$previous" --steps 12000 --lr 0.001 "${repulsion[@]}" "${whole[@]}" \
    -m read_in_weights=sigmoid
echo "done: $out/7-sigmoid-88k (measure it with: python bench/circuit_causality.py $out/7-sigmoid-88k --name ... --append)"
