# %% [markdown]
# # Per-sentence circuits of NLVR2
#
# The shipped conditional NAC generates one circuit per sentence. Here we map all of them
# (P -> PCA -> t-SNE), colour the map by reasoning category, ask whether categories separate
# better in circuit space or in the sentence embeddings the generator read, and draw a few
# circuits on one shared layout.
#
# It uses the NLVR2 store that `make demo` writes to `stores/nlvr/nlvr2`; with
# `CIRCUITLAB_TINY=1` (the tests) it exports the first 300 sentences itself.

# %%
import os
from pathlib import Path

from circuitlab import CircuitStore
from circuitlab.analysis import category_separation, embed, embedding_figure
from circuitlab.export import export_checkpoint

TINY = os.environ.get("CIRCUITLAB_TINY") == "1"
if TINY:
    out = Path(os.environ.get("CIRCUITLAB_OUT", "runs/notebook-nlvr2"))
    store = export_checkpoint("checkpoints/nlvr", out, overwrite=True, limit=300)["nlvr2"]
else:
    store = CircuitStore.open(os.environ.get("CIRCUITLAB_STORE", "stores/nlvr/nlvr2"))
print(store)

# %% [markdown]
# ## The map (cached in the store after the first run)

# %%
embedding = embed(store, "tsne", seed=0)
embedding.head()

# %% [markdown]
# ## Do reasoning categories separate?
# k-NN accuracy (5-fold) and silhouette of the circuits with exactly one category, against
# the raw sentence embeddings. `chance` is the largest category's share.

# %%
category_separation(store, embedding).round(3)

# %% [markdown]
# ## The figure (paper Fig. 6)

# %%
fig = embedding_figure(store, embedding)
