# %% [markdown]
# # Which graph prior explains a circuit?
#
# `fit_priors` fits the four families (Erdos-Renyi, planted partition, ring of cliques,
# scale-free) by two-part description length and checks the best one by simulation. We try it
# on graphs of known structure first (read as given, with no null), then on a circuit of the
# shipped NLVR model.
#
# Set `CIRCUITLAB_TINY=1` for a quick run (the tests do).

# %%
import os

import networkx as nx

from circuitlab.analysis import best_prior, degree_figure, fit_priors, to_graph

TINY = os.environ.get("CIRCUITLAB_TINY") == "1"
N = 96 if TINY else 256

# %% [markdown]
# ## Graphs of known structure

# %%
graphs = {
    "Erdos-Renyi": nx.gnp_random_graph(N, 0.08, seed=0),
    "planted partition": nx.planted_partition_graph(4, N // 4, 0.5, 0.02, seed=0),
    "ring of 16 cliques": nx.ring_of_cliques(16, N // 16),
    "Barabasi-Albert": nx.barabasi_albert_graph(N, 3, seed=0),
}
for name, graph in graphs.items():
    verdict = best_prior(graph)
    print(f"{name:20s} -> {verdict.family:18s} gap {verdict.gap:7.1f} nats")

# %% [markdown]
# The full table for one graph: description length, its parts, weights and parameters.

# %%
table = fit_priors(graphs["planted partition"])
table.drop(columns="params").round(3)

# %% [markdown]
# ## A circuit of the shipped model
# The shipped NLVR model generates one circuit per sentence; fit the priors to one. A circuit
# is read the library's one way: the families fitted to P among its processors (each entry an
# expected link), beside a null of random signatures of the same width and eps. A circuit
# inside the null's band reads `like_null`, whatever family fits it best. The graph of links
# with P > 0.5 is drawn for the degree plot only.

# %%
from circuitlab.loading import load_model  # noqa: E402
from circuitlab.nlvr_eval import nlvr_task  # noqa: E402

model, config = load_model("checkpoints/nlvr")
task = nlvr_task(config)
(circuit,) = model.circuits(*task.encode_text(["There is a yellow block on top of a tower."]))
graph = to_graph(circuit, threshold=0.5)
print(f"{graph.number_of_edges()} links at P > 0.5 among {graph.number_of_nodes()} modules")
verdict = best_prior(circuit)
print(verdict.reading, "->", verdict.family, f"(best {verdict.best}, gap {verdict.gap:.1f} nats)")
print(verdict.null.describe())
fig = degree_figure(graph)
