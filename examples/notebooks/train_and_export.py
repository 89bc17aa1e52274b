# %% [markdown]
# # Train a small NAC and export its circuits
#
# A conditional NAC on the toy-sets task: one circuit per input. We train it for a few hundred
# steps on CPU, export the circuits of 256 inputs to a circuit store, and open the store the way
# any tool would: without the model code.
#
# Set `CIRCUITLAB_TINY=1` to run everything on tiny settings (the tests do).

# %%
import os
from pathlib import Path

from circuitlab import CircuitStore
from circuitlab.export import export_checkpoint
from circuitlab.train import TrainConfig, train

TINY = os.environ.get("CIRCUITLAB_TINY") == "1"
OUT = Path(os.environ.get("CIRCUITLAB_OUT", "runs/notebook-toy"))
STEPS = 4 if TINY else 600

# %% [markdown]
# ## Train
# A conditional model on `toy-sets`, with a planted-partition prior over 16 processors.

# %%
config = TrainConfig(
    task="toy-sets",
    conditional=True,
    steps=STEPS,
    eval_every=max(1, STEPS // 4),
    checkpoint_every=max(1, STEPS // 4),
    model={**TrainConfig().model, "prior": "planted_partition", "prior_params": {"n_blocks": 2}},
)
summary = train(config, OUT / "run")
print(f"validation accuracy {summary['val_acc']:.3f} after {STEPS} steps")

# %% [markdown]
# ## Export and reopen the circuits

# %%
export_checkpoint(OUT / "run", OUT / "store", n_circuits=32 if TINY else 256, overwrite=True)
store = CircuitStore.open(OUT / "store")
print(store)
store.frame.head()

# %% [markdown]
# One circuit: signatures (U, d_sig), roles, and its link-probability matrix P.

# %%
circuit = store[0]
p = circuit.link_probability()
print(circuit.signatures.shape, p.shape, f"mean P {p.mean():.3f}")
