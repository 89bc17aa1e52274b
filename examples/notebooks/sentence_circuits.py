# %% [markdown]
# # Per-sentence circuits of NLVR2
#
# The shipped conditional NAC generates one circuit per sentence. Here we map all of them
# (P -> PCA -> t-SNE), colour the map by reasoning category, ask whether categories separate
# better in circuit space or in the sentence embeddings the generator read, and draw a few
# circuits on one shared layout.
#
# Needs the NLVR2 store: `make demo` writes it to `stores/nlvr/nlvr2`.
# Set `CIRCUITLAB_TINY=1` to use the first 300 sentences (the tests do).

# %%
import os
import shutil
import tempfile

from circuitlab.analysis.embedding import category_separation, embed
from circuitlab.analysis.figures import embedding_figure
from circuitlab.store import CircuitStore

TINY = os.environ.get("CIRCUITLAB_TINY") == "1"
store_path = os.environ.get("CIRCUITLAB_STORE", "stores/nlvr/nlvr2")
store = CircuitStore.open(store_path)
if TINY:  # a small copy, so the real store's cache is left alone
    small = os.path.join(tempfile.mkdtemp(), "small")
    circuits = [store[i] for i in range(300)]
    store = CircuitStore.write(small, circuits, store.frame.iloc[:300], store.config)
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

# %%
if TINY:
    shutil.rmtree(os.path.dirname(small), ignore_errors=True)
