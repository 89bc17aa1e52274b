"""One reading of "which prior explains this circuit", with its null, wherever it is asked.

On the shipped Fig. 3 models (``make demo``'s stores/priors: one unconditional NAC per imposed
prior), the library's default (``best_prior(store[i])``), ``circuitlab analyze`` and the app's
prior panel must give the same verdict; untrained models read ``like_null``."""

import numpy as np
import pytest
from typer.testing import CliRunner

from circuitlab.analysis.prior_null import PriorNull, random_signature_null
from circuitlab.analysis.prior_verdict import LIKE_NULL, best_prior
from circuitlab.analysis.recovery import graphon_recovery, recovered_prior
from circuitlab.app.callbacks.circuit import prior_summary
from circuitlab.app.store_view import StoreView
from circuitlab.circuit import Circuit
from circuitlab.cli import app
from circuitlab.prior_targets import planted_partition
from circuitlab.store import CircuitStore
from circuitlab.train import load_model
from circuitlab.untrained import untrained_link_probabilities
from tests.conftest import ROOT

PRIORS = ROOT / "checkpoints" / "priors"


@pytest.fixture(scope="module")
def priors_store(tmp_path_factory) -> CircuitStore:
    """``circuitlab export checkpoints/priors`` then ``circuitlab analyze`` on it."""
    out = tmp_path_factory.mktemp("priors") / "store"
    runner = CliRunner()
    exported = runner.invoke(app, ["export", str(PRIORS), "--out", str(out)])
    assert exported.exit_code == 0, exported.output
    analyzed = runner.invoke(app, ["analyze", str(out), "--method", "pca"])
    assert analyzed.exit_code == 0, analyzed.output
    assert "null: random signatures (d_sig 16, eps 0.25), 20 draws" in analyzed.output
    return CircuitStore.open(out)


@pytest.mark.slow(60)
def test_library_cli_and_app_give_one_verdict_per_shipped_model(priors_store):
    view = StoreView(priors_store)
    frame = priors_store.frame
    verdicts = {}
    for i in range(len(priors_store)):
        library = best_prior(priors_store[i])
        panel = view.prior_fit({"index": i})
        assert frame["prior"].iloc[i] == library.family == panel["family"]
        assert frame["prior_best"].iloc[i] == library.best == panel["best"]
        assert prior_summary(panel)[0].children == library.family
        assert library.reading == "P among 128 processors"
        verdicts[frame["imposed_prior"].iloc[i]] = library

    # the no-prior model learned a graph (outside the null's band) that no family describes
    none = verdicts.pop("none")
    assert none.null.distinguishable and not none.names_family
    imposed = {
        "erdos_renyi": {},
        "planted_partition": {"n_blocks": 12},
        "ring_of_cliques": {"n_blocks": 12, "p_out": 0.01},
        "scale_free": {},
    }
    recovered = {
        prior: recovered_prior(verdict, prior, 128, **imposed[prior]).recovered
        for prior, verdict in verdicts.items()
    }
    # measured on the shipped seed-0 models (docs/results.md, Fig. 3): 3 of 4 families
    # recovered; the scale-free model's P is like an untrained one's
    assert recovered == {
        "erdos_renyi": True,
        "planted_partition": True,
        "ring_of_cliques": True,
        "scale_free": False,
    }
    assert verdicts["scale_free"].family == LIKE_NULL


@pytest.mark.slow(40)
def test_an_untrained_model_of_each_shipped_config_names_no_family():
    for prior in ("none", "erdos_renyi", "planted_partition", "ring_of_cliques", "scale_free"):
        _, config = load_model(PRIORS / prior)
        verdict = best_prior(_untrained_circuit(config, seed=1000))
        assert verdict.family == LIKE_NULL, (prior, verdict.null.describe())
    # the untrained model's null and random signatures of its width and eps are one band
    draws = untrained_link_probabilities(config, readouts=True)
    assert draws.shape == (20, 132, 132)
    untrained = PriorNull(draws[:, :128, :128], "untrained object-images NACs, 20 seeds")
    signatures = random_signature_null(128, 16, eps=0.25)
    mine, theirs = untrained.band("erdos_renyi"), signatures.band("erdos_renyi")
    assert mine["density"][0] == pytest.approx(theirs["density"][0], rel=0.05)


def _untrained_circuit(config, seed: int) -> Circuit:
    import torch

    from circuitlab.loading import build_model
    from circuitlab.worlds.tasks import make_task

    task = make_task(config.task, conditional=False, **config.task_options)
    torch.manual_seed(seed)
    return build_model(config, task).circuit()


def test_the_null_turns_a_verdict_like_null_and_keeps_a_learned_one():
    """A planted partition stands far outside the band of random signatures; random signatures
    of the null's own kind stay inside it, whatever family fits them best."""
    null = random_signature_null(48, 8, eps=0.3)
    learned = best_prior(planted_partition(48, n_blocks=4), null=null)
    assert learned.family == "planted_partition" and learned.null.distinguishable
    assert set(learned.null.outside) == {"density", "structure"}
    rng = np.random.default_rng(7)
    like = [
        best_prior(Circuit(rng.standard_normal((48, 8)), ["processor"] * 48, eps=0.3)).family
        for _ in range(5)
    ]
    assert like == [LIKE_NULL] * 5
    with pytest.raises(ValueError, match="null has 48 modules but the reading has 40"):
        best_prior(planted_partition(40, n_blocks=4), null=null)


def test_readouts_are_left_out_unless_asked_for():
    rng = np.random.default_rng(0)
    circuit = Circuit(rng.standard_normal((10, 4)), ["processor"] * 8 + ["readout"] * 2, eps=0.5)
    assert best_prior(circuit, check=False).reading == "P among 8 processors"
    kept = best_prior(circuit, check=False, readouts=True)
    assert kept.reading == "P among 10 modules"
    assert kept.null.source.startswith("random signatures (d_sig 4, eps 0.5)")
    assert best_prior(np.asarray(circuit.link_probability()), check=False).null is None


@pytest.mark.slow(45)
def test_graphs_drawn_from_the_priors_targets_are_recovered_with_their_parameters():
    """The graphon check of bench/prior_graphons.py, two draws a cell: Erdos-Renyi and the
    planted partition (at U = 64 and 128: at 32 its four blocks are within 3 nats of a ring, at
    256 Louvain merges its 24 small blocks) come back with their parameters, untrained circuits
    name no family. The ring of cliques and
    scale-free targets miss the goal (docs/results.md, "Prior fits"): a ring's first modules
    link two blocks and are fitted as blocks of their own; the scale-free target is too sparse
    below U = 128 to be told from Erdos-Renyi."""
    frame = graphon_recovery(
        2, sizes=(64, 128), families=("erdos_renyi", "planted_partition", "untrained")
    )
    assert frame.groupby("family")["recovered"].all().all(), frame[["family", "n", "detail"]]
    assert set(frame[frame.family == "untrained"]["verdict"]) == {LIKE_NULL}
