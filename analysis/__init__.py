"""circuitlab.analysis: graphs, prior fits, embeddings and figures of learned circuits.

Everything here reads circuit stores, ``Circuit`` objects, networkx graphs or plain (U, U)
numpy matrices, and never imports torch. The names below are imported on first use, so
``from circuitlab.analysis import best_prior`` loads only what fitting a prior needs.
(On disk this is the top-level ``analysis/`` folder, mapped by pyproject's package-dir.)
"""

from circuitlab._lazy import lazy_exports

_MODULES = {
    "circuitlab.analysis.graphs": ["to_graph"],
    "circuitlab.analysis.matrix": ["link_matrix", "check_link_matrix", "LinkMatrixError"],
    "circuitlab.analysis.stats": ["graph_stats"],
    "circuitlab.analysis.communities": ["communities", "modularity"],
    "circuitlab.analysis.prior_verdict": ["fit_priors", "best_prior", "PriorVerdict"],
    "circuitlab.analysis.prior_null": ["PriorNull", "random_signature_null", "NullComparison"],
    "circuitlab.analysis.prior_families": [
        "PriorFit",
        "ErdosRenyiFit",
        "PlantedPartitionFit",
        "RingOfCliquesFit",
        "ScaleFreeFit",
    ],
    "circuitlab.analysis.goodness": ["goodness_of_fit", "GoodnessOfFit"],
    "circuitlab.analysis.embedding": [
        "embed",
        "category_separation",
        "knn_accuracy",
        "single_category_labels",
        "sentence_embeddings",
    ],
    "circuitlab.analysis.layout": ["module_layout", "module_colors"],
    "circuitlab.analysis.figures": [
        "draw_circuit",
        "prior_samples_figure",
        "dropping_figure",
        "embedding_figure",
        "degree_figure",
        "embedding_plotly",
        "save_figure",
    ],
    "circuitlab.analysis.scenes": ["pair_figure"],
    "circuitlab.analysis.paths": ["layered_graph", "path_graph", "usage_by_label"],
    "circuitlab.analysis.layer_reads": ["read_graph", "top_down_share"],
    "circuitlab.analysis.store_analysis": ["analyze_store", "analyze_graphs", "write_figures"],
    "circuitlab.analysis.synthetic": ["synthetic_graphs"],
    "circuitlab.analysis.recovery": ["recovery", "recovered_prior", "PriorRecovery"],
    "circuitlab.analysis.movement": ["graph_movement"],
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
