"""Parameter counts of a NAC and its Perceiver IO configuration at equal size.

Run: python bench/param_count.py   (prints a table; no timing, so it is exact on any machine)
"""

from __future__ import annotations

from circuitlab import NAC, NACConfig
from circuitlab.train import TOY_MODEL

SIZES = {
    "toy (train default)": dict(TOY_MODEL, input_dim=13, n_classes=4),
    "medium": dict(input_dim=64, n_classes=10, n_processors=64, n_readouts=4, dim=256, depth=4),
    "paper-like (U=320)": dict(
        input_dim=256,
        n_classes=1000,
        n_processors=320,
        n_readouts=64,
        dim=384,
        depth=8,
        heads=8,
        head_dim=48,
        code_dim=384,
        sig_dim=64,
    ),
}


def main() -> None:
    print(f"{'size':<22}{'NAC':>14}{'Perceiver IO':>14}{'NAC / PIO':>11}")
    for name, size in SIZES.items():
        nac = NAC(NACConfig.from_dict(size)).n_parameters()
        pio = NAC(NACConfig.perceiver_io(**size)).n_parameters()
        print(f"{name:<22}{nac:>14,}{pio:>14,}{nac / pio:>11.2f}")


if __name__ == "__main__":
    main()
