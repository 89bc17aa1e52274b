"""2-D maps of many circuits, and how well they separate reasoning categories.

As in the paper (Fig. 6): each circuit's P, lower triangle flattened, PCA to 64 dimensions,
t-SNE to 2. t-SNE runs openTSNE by default (1.2-1.8x faster than scikit-learn's from 100 to
10,000 circuits on 2 cores, bench/analysis.py); ``tsne_backend="sklearn"`` gives
scikit-learn's. Results are cached in the store: columns ``{method}_x``, ``{method}_y`` in
samples.parquet and the parameters under store.json's ``analysis["embedding_{method}"]``;
``embed`` recomputes only when the parameters differ or ``recompute=True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm import tqdm

from circuitlab.kinds import mn, nfm, ni
from circuitlab.store import CircuitStore, category_lists

# scikit-learn is imported where it is used: importing it takes ~1.6 s, and the app imports
# this module to start while an exported store's maps are cached and need none of it
if TYPE_CHECKING:
    from sklearn.decomposition import PCA

__all__ = [
    "category_separation",
    "circuit_features",
    "embed",
    "embedding_is_cached",
    "fit_pca",
    "knn_accuracy",
    "lower_triangle",
    "pca_features",
    "sentence_embeddings",
    "single_category_labels",
    "tsne",
]

METHODS = ("tsne", "pca", "umap")
TSNE_BACKENDS = ("opentsne", "sklearn")


def lower_triangle(p: np.ndarray) -> np.ndarray:
    """(..., U, U) -> (..., U (U - 1) / 2): the strict lower triangle, the features of a P.

    Parameters
    ----------
    p
        (..., U, U) link probabilities.
    """
    rows, cols = np.tril_indices(p.shape[-1], k=-1)
    return p[..., rows, cols]


def circuit_features(store: CircuitStore, batch: int = 512) -> np.ndarray:
    """(N, U (U - 1) / 2) float32: the strict lower triangle of every circuit's P; for a
    Neural Interpreter's store, every input's routing flattened, (N, steps U V); for a Modular
    Network's, its path one-hot and its controllers' probabilities (analysis.paths); for an
    NFM network's, its reads flattened (N, L (2 L + 1)).

    Parameters
    ----------
    store
        A store of any kind.
    batch
        Circuits read at a time.
    """
    if store.kind == ni.NAME:
        routing = store.array("routing")
        return np.asarray(routing, dtype=np.float32).reshape(len(store), -1)
    if store.kind == nfm.NAME:
        attention = store.array("attention")
        return np.asarray(attention, dtype=np.float32).reshape(len(store), -1)
    if store.kind == mn.NAME:
        from circuitlab.analysis.paths import path_features

        n_modules = store.meta["n_modules"]
        return path_features(store.array("paths"), store.array("probabilities"), n_modules)
    u = store.meta["n_modules"]
    out = np.empty((len(store), u * (u - 1) // 2), dtype=np.float32)
    n_batches = -(-len(store) // batch)
    batches = store.link_probability_batches(batch=batch)
    for start, p in tqdm(
        batches, total=n_batches, desc="link matrices", leave=False, disable=n_batches < 4
    ):
        out[start : start + len(p)] = lower_triangle(p)
    return out


def embed(
    store: CircuitStore,
    method: str = "tsne",
    *,
    pca_dims: int = 64,
    seed: int = 0,
    perplexity: float = 30.0,
    tsne_backend: str = "opentsne",
    recompute: bool = False,
) -> pd.DataFrame:
    """2-D embedding of every circuit in ``store``: DataFrame (id, x, y), cached in the store.

    ``method``: "tsne" (PCA to ``pca_dims``, then t-SNE), "pca" (first two components) or
    "umap" (PCA, then UMAP; needs ``pip install umap-learn``). ``perplexity`` is capped at
    (N - 1) / 3 for small stores. ``tsne_backend``: "opentsne" or "sklearn" (the cache
    records which, so switching recomputes).

    Parameters
    ----------
    store
        A NAC's store.
    method
        "tsne", "pca" or "umap", as above.
    pca_dims
        Components kept before t-SNE or UMAP.
    seed
        Seed of the PCA, t-SNE and UMAP.
    perplexity
        t-SNE's perplexity.
    tsne_backend
        As above.
    recompute
        Recompute a cached embedding.
    """
    if method not in METHODS:
        raise ValueError(f"unknown embedding method {method!r}; choose one of {METHODS}")
    if tsne_backend not in TSNE_BACKENDS:
        raise ValueError(f"unknown tsne_backend {tsne_backend!r}; choose one of {TSNE_BACKENDS}")
    if len(store) < 3:
        raise ValueError(f"an embedding needs at least 3 circuits; {store.path} has {len(store)}")
    key, x_col, y_col = f"embedding_{method}", f"{method}_x", f"{method}_y"
    params = _embedding_params(store, method, pca_dims, seed, perplexity, tsne_backend)
    if not recompute and _holds_embedding(store, method, params):
        return _frame(store, x_col, y_col)
    reduced = pca_features(store, pca_dims, seed)
    if method == "pca":
        xy = reduced[:, :2] if reduced.shape[1] >= 2 else np.pad(reduced, ((0, 0), (0, 1)))
    elif method == "tsne":
        xy = tsne(reduced, params["perplexity"], seed, tsne_backend)
    else:
        try:
            import umap
        except ImportError as err:
            raise ImportError("method='umap' needs umap-learn: pip install umap-learn") from err
        xy = umap.UMAP(random_state=seed).fit_transform(reduced)
    columns = pd.DataFrame({x_col: xy[:, 0].astype(float), y_col: xy[:, 1].astype(float)})
    store.add_analysis(key, params, columns)
    return _frame(store, x_col, y_col)


def embedding_is_cached(
    store: CircuitStore,
    method: str = "tsne",
    *,
    pca_dims: int = 64,
    seed: int = 0,
    perplexity: float = 30.0,
    tsne_backend: str = "opentsne",
) -> bool:
    """Whether ``embed`` with these settings would read ``store``'s cache rather than compute
    the embedding.

    Parameters
    ----------
    store, method, pca_dims, seed, perplexity, tsne_backend
        As ``embed`` takes them.
    """
    params = _embedding_params(store, method, pca_dims, seed, perplexity, tsne_backend)
    return _holds_embedding(store, method, params)


def _holds_embedding(store: CircuitStore, method: str, params: dict) -> bool:
    """Whether ``store`` holds the ``method`` embedding computed from ``params``."""
    cached = store.analysis_params(f"embedding_{method}")
    return cached == params and {f"{method}_x", f"{method}_y"} <= set(store.frame.columns)


def _embedding_params(
    store: CircuitStore,
    method: str,
    pca_dims: int,
    seed: int,
    perplexity: float,
    tsne_backend: str,
) -> dict:
    """What a cached embedding was computed from: the settings and the store's size."""
    params = {"method": method, "pca_dims": pca_dims, "seed": seed, "n_circuits": len(store)}
    if method == "tsne":
        params["tsne_backend"] = tsne_backend
    if method != "pca":
        params["perplexity"] = min(perplexity, (len(store) - 1) / 3)
    return params


def tsne(
    features: np.ndarray, perplexity: float = 30.0, seed: int = 0, backend: str = "opentsne"
) -> np.ndarray:
    """(N, D) -> (N, 2) t-SNE map, PCA-initialised; deterministic for a given ``seed``.
    Identical rows (every circuit the same) all map to the origin: both libraries' PCA
    initialisation divides by a zero spread there and returns NaN.

    Parameters
    ----------
    features
        (N, D) the rows to map.
    perplexity
        t-SNE's perplexity.
    seed
        Seed of the map.
    backend
        "opentsne" or "sklearn".
    """
    if np.ptp(features, axis=0).max(initial=0.0) == 0:
        return np.zeros((len(features), 2))
    if backend == "sklearn":
        from sklearn.manifold import TSNE

        return TSNE(2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(features)
    from openTSNE import TSNE as OpenTSNE

    fitted = OpenTSNE(perplexity=perplexity, initialization="pca", random_state=seed, n_jobs=-1)
    return np.asarray(fitted.fit(np.ascontiguousarray(features, dtype=np.float64)))


def fit_pca(store: CircuitStore, pca_dims: int = 64, seed: int = 0) -> tuple[PCA, np.ndarray]:
    """The PCA of ``circuit_features`` (to place new circuits with ``lower_triangle``) and
    the store's circuits in it, (N, <= pca_dims).

    Parameters
    ----------
    store
        A store.
    pca_dims
        Components kept at most.
    seed
        Seed of the PCA.
    """
    features = circuit_features(store)
    from sklearn.decomposition import PCA

    pca = PCA(max(1, min(pca_dims, features.shape[1], len(features) - 1)), random_state=seed)
    return pca, pca.fit_transform(features)


def pca_features(store: CircuitStore, pca_dims: int = 64, seed: int = 0) -> np.ndarray:
    """(N, <= pca_dims) PCA of ``circuit_features``.

    Parameters
    ----------
    store, pca_dims, seed
        As ``fit_pca`` takes them.
    """
    return fit_pca(store, pca_dims, seed)[1]


def _frame(store: CircuitStore, x_col: str, y_col: str) -> pd.DataFrame:
    frame = store.frame
    return pd.DataFrame({"id": frame["id"], "x": frame[x_col], "y": frame[y_col]})


def single_category_labels(
    frame: pd.DataFrame, categories: Sequence[str] | None = None
) -> pd.Series:
    """The category of each row that has exactly one of ``categories`` (default: all that
    occur) in its ``categories`` list; other rows are left out (a Series indexed like frame).

    Parameters
    ----------
    frame
        A store's frame with ``categories``.
    categories
        As above.
    """
    if "categories" not in frame.columns:
        raise ValueError(
            "the store has no 'categories' column; export an NLVR run (circuitlab export) "
            "or add one with store.add_analysis"
        )
    lists = category_lists(frame)
    wanted = set(categories) if categories is not None else {c for cats in lists for c in cats}
    chosen = lists.map(lambda cats: [c for c in cats if c in wanted])
    single = chosen[chosen.map(len) == 1]
    return single.map(lambda cats: cats[0])


def sentence_embeddings(texts: Sequence[str], text_encoder: str = "minilm") -> np.ndarray:
    """(N, dim) mean of the frozen text encoder's token vectors: what the generator read.

    Parameters
    ----------
    texts
        The sentences.
    text_encoder
        The frozen text encoder ("minilm").
    """
    from circuitlab.data.text import make_encoder

    encoder = make_encoder(text_encoder)
    out = []
    for start in range(0, len(texts), 256):
        tokens, mask = encoder.encode(list(texts[start : start + 256]))
        if tokens.ndim != 3:
            raise ValueError(f"text encoder {text_encoder!r} gives ids, not vectors; use minilm")
        weights = mask.unsqueeze(-1).float()
        out.append(((tokens * weights).sum(1) / weights.sum(1).clamp(min=1)).numpy())
    return np.concatenate(out)


def knn_accuracy(x: np.ndarray, y: np.ndarray, k: int = 5, seed: int = 0) -> float:
    """k-nearest-neighbour accuracy of labels ``y`` (N,) from features ``x`` (N, d), by 5-fold
    stratified cross-validation (every label needs at least 5 rows).

    Parameters
    ----------
    x, y
        As above.
    k
        Neighbours of the classifier.
    seed
        Seed of the folds.
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    return float(cross_val_score(KNeighborsClassifier(k), x, y, cv=folds).mean())


def category_separation(
    store: CircuitStore,
    embedding: pd.DataFrame,
    categories: Sequence[str] | None = None,
    *,
    k: int = 5,
    sentence_features: np.ndarray | None = None,
    text_encoder: str = "minilm",
    seed: int = 0,
) -> pd.DataFrame:
    """How well reasoning categories separate: k-NN accuracy (5-fold) and silhouette.

    Rows: the 2-D ``embedding`` of the circuits, the circuits' PCA features, and the baseline,
    the sentence embeddings the generator read (``sentence_features`` (N, dim), or computed
    with ``text_encoder``). Only circuits with exactly one of ``categories`` are scored;
    ``chance`` is the share of the largest category.

    Parameters
    ----------
    store
        A NAC's store whose frame has ``categories``.
    embedding
        The circuits' 2-D embedding (``embed``'s frame).
    categories
        The categories scored (default: every one that occurs).
    k
        Neighbours of the k-NN classifier.
    sentence_features
        (N, dim) the baseline's features; None: computed with ``text_encoder``.
    text_encoder
        The frozen text encoder that computes them.
    seed
        Seed of the PCA and the folds.
    """
    from sklearn.metrics import silhouette_score

    labels = single_category_labels(store.frame, categories)
    counts = labels.value_counts()
    labels = labels[labels.isin(counts[counts >= 5].index)]  # 5 folds need 5 of each
    if labels.nunique() < 2:
        raise ValueError("fewer than two categories with at least 5 single-category circuits")
    rows = labels.index.to_numpy()
    if sentence_features is None:
        sentence_features = sentence_embeddings(store.frame["text"].tolist(), text_encoder)
    representations = {
        "circuit embedding (2-D)": embedding[["x", "y"]].to_numpy()[rows],
        "circuit P (PCA)": pca_features(store, seed=seed)[rows],
        "sentence embedding": np.asarray(sentence_features)[rows],
    }
    y = labels.to_numpy()
    out = []
    for name, x in representations.items():
        out.append(
            {
                "representation": name,
                "knn_accuracy": knn_accuracy(x, y, k, seed),
                "silhouette": float(silhouette_score(x, y, random_state=seed)),
                "circuits": len(y),
                "classes": int(labels.nunique()),
                "chance": float(counts[labels.unique()].max() / len(y)),
            }
        )
    return pd.DataFrame(out)
