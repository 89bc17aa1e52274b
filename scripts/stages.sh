# Sourced by the stage scripts (pairs_stages.sh, nlvr_circuit_stages.sh): one resumable stage.
#
#   run_stage DIR SEED TRAIN_OPTION...
#
# A stage whose DIR holds summary.json is finished and kept; one with only checkpoint.pt was
# interrupted and resumes from it (its own config.json holds the options); otherwise
# `$CIRCUITLAB train` (circuitlab by default) trains it with --compile, seed SEED and the
# options given (a --config, an --init-from, ...).
run_stage() {
    local dir=$1 seed=$2
    shift 2
    if [ -f "$dir/summary.json" ]; then
        echo "stage $dir: finished"
    elif [ -f "$dir/checkpoint.pt" ]; then
        echo "stage $dir: resuming"
        "${CIRCUITLAB:-circuitlab}" train --out "$dir" --resume --no-progress
    else
        echo "stage $dir: training (seed $seed)"
        "${CIRCUITLAB:-circuitlab}" train "$@" --compile --no-progress --seed "$seed" --out "$dir"
    fi
}
