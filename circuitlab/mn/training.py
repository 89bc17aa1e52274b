"""The losses of one training step of a Modular Network, by method.

- "em", generalised Viterbi EM: on every ``e_step_every``-th minibatch an E-step scores, for
  each example n, its best path so far a*_n and ``e_step_samples - 1`` paths drawn from the
  controller by log p(y | x, a) + log p(a | x) and keeps the best in the table (a*_n is a
  candidate, so the score of the table's path never goes down under the current parameters);
  the M-step loss is -log p(y | x, a*) - log p(a* | x). The authors' code runs either an E-step
  or an M-step on a minibatch; here an E-step minibatch also takes its M-step.
- "reinforce": a path sampled from the controller; the modules minimise -log p(y | x, a), the
  controller the score-function surrogate -(r - b) log p(a | x) with reward r = log p(y | x, a)
  and b a moving average of the batch-mean reward.
- "topk": noisy top-k gating; the gates carry the gradient to the controller.
Every method adds ``balance_weight * (log M - H_b)`` when the weight is positive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from circuitlab.mn.diagnostics import batch_selection_entropy, selection_entropy
from circuitlab.mn.model import ModularCircuit, ModularNetwork, path_log_prob
from circuitlab.task import Batch

__all__ = ["training_losses", "viterbi_e_step"]


@dataclass
class StepLosses:
    """One step's ``outputs`` (B, n_outputs), ``task_loss`` (-mean log p(y | x, a)),
    ``structure_loss`` (the controller's terms) and ``metrics`` (logged: h_a, h_b)."""

    outputs: torch.Tensor
    task_loss: torch.Tensor
    structure_loss: torch.Tensor
    metrics: dict[str, float]


@torch.no_grad()
def viterbi_e_step(
    model: ModularNetwork, inputs: torch.Tensor, targets: torch.Tensor, index: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Update ``model.best_paths[index]`` to the best of the current path and S - 1 sampled
    ones; returns the scores (B,) of the old and of the new best paths.

    Parameters
    ----------
    model
        The Modular Network.
    inputs, targets
        The examples.
    index
        (B,) their rows in the training set.
    """
    samples = model.config.e_step_samples
    batch = inputs.shape[0]
    best = model.best_paths[index]  # (B, L, K)
    sample = model.pick_sample()

    def pick(layer: int, logits: torch.Tensor, x: torch.Tensor) -> tuple:
        selection, _ = sample(layer, logits, x)
        selection[:batch] = best[:, layer]  # candidate 0 of every example: its a*
        return model.select(selection)

    repeated = inputs.repeat(samples, *[1] * (inputs.dim() - 1))
    outputs, circuit = model.run(repeated, pick)
    targets = targets.repeat(samples, *[1] * (targets.dim() - 1))
    score = model.log_likelihood(outputs, targets) + path_log_prob(circuit.logits, circuit.paths)
    score = score.view(samples, batch)
    winner = score.argmax(0)  # ties keep the first candidate, the current a*
    candidates = circuit.paths.view(samples, batch, *circuit.paths.shape[1:])
    model.best_paths[index] = candidates[winner, torch.arange(batch)]
    return score[0], score.max(0).values


def _metrics(circuit: ModularCircuit) -> dict[str, float]:
    probabilities = circuit.probabilities.detach()
    return {
        "h_a": selection_entropy(probabilities).item(),
        "h_b": batch_selection_entropy(probabilities).item(),
    }


def _balance(model: ModularNetwork, circuit: ModularCircuit) -> torch.Tensor:
    weight = model.config.balance_weight
    if weight == 0:
        return circuit.logits.new_zeros(())
    h_b = batch_selection_entropy(circuit.probabilities)
    return weight * (math.log(model.config.n_modules) - h_b)


def training_losses(model: ModularNetwork, batch: Batch, step: int) -> StepLosses:
    """The losses of training step ``step`` on ``batch`` (targets in ``batch.labels``).

    Parameters
    ----------
    model
        The Modular Network.
    batch
        The step's examples.
    step
        The step (when the E-step runs).
    """
    method = model.config.method
    if method == "em":
        if batch.index is None:
            raise ValueError(
                "Viterbi EM needs each example's row in the training set (Batch.index): the "
                "task must be a finite dataset (mixture-regression, digits)"
            )
        if step % model.config.e_step_every == 0:
            viterbi_e_step(model, batch.inputs, batch.labels, batch.index)
        paths = model.best_paths[batch.index]
        outputs, circuit = model.run(batch.inputs, model.pick_given(paths))
        log_likelihood = model.log_likelihood(outputs, batch.labels)
        structure = -path_log_prob(circuit.logits, circuit.paths).mean()
    elif method == "reinforce":
        outputs, circuit = model.run(batch.inputs, model.pick_sample())
        log_likelihood = model.log_likelihood(outputs, batch.labels)
        reward = log_likelihood.detach()
        baseline = model.reward_baseline
        if torch.isnan(baseline):
            baseline.copy_(reward.mean())
        advantage = reward - baseline
        structure = -(advantage * path_log_prob(circuit.logits, circuit.paths)).mean()
        decay = model.config.reinforce_baseline_decay
        baseline.mul_(decay).add_((1 - decay) * reward.mean())
    else:
        outputs, circuit = model.run(batch.inputs, model.pick_noisy_top_k())
        log_likelihood = model.log_likelihood(outputs, batch.labels)
        structure = outputs.new_zeros(())
    return StepLosses(
        outputs=outputs,
        task_loss=-log_likelihood.mean(),
        structure_loss=structure + _balance(model, circuit),
        metrics=_metrics(circuit),
    )
