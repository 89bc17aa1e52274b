"""Checks of the tensors a researcher passes to the public model and intervention API.

Each refuses a bad tensor with an ``InputError`` that names the argument and the fix, before
it reaches a layer that would fail with a bare torch error or, worse, run and answer NaN.
"""

from __future__ import annotations

import numpy as np
import torch

from circuitlab.circuit import zero_signature_error
from circuitlab.errors import InputError

__all__ = ["as_circuit_tensor", "check_finite", "check_token_ids", "worth_checking"]


def check_finite(name: str, value: torch.Tensor) -> None:
    """Refuse NaN or inf entries in a floating ``value``, naming the first one.

    Parameters
    ----------
    name
        The argument's name, for the error.
    value
        The tensor.
    """
    if value.dtype.is_floating_point and not bool(torch.isfinite(value).all()):
        first = tuple(int(i) for i in torch.nonzero(~torch.isfinite(value))[0])
        raise InputError(name, f"has NaN or inf entries (the first at index {first})")


def as_circuit_tensor(
    name: str, value: object, *, batch: int, n_modules: int, width: int
) -> torch.Tensor:
    """``value`` as a float tensor (B or 1, n_modules, width) of finite entries: the signatures
    or codes of a circuit passed in from outside. A numpy array is taken as a tensor. Signatures
    must not hold an all-zero vector (no cosine, so no P).

    Parameters
    ----------
    name
        The argument's name, for the error.
    value
        As above.
    batch
        Examples B (a batch of 1 is used for every example).
    n_modules
        Modules U.
    width
        The signatures' or codes' width.
    """
    if isinstance(value, np.ndarray):
        value = torch.from_numpy(value)
    if not isinstance(value, torch.Tensor):
        raise InputError(name, f"must be a tensor, got {type(value).__name__}")
    if not value.dtype.is_floating_point:
        raise InputError(
            name, f"must hold floats, got {value.dtype}", f"pass {name}.float() if it is numeric"
        )
    shape = tuple(value.shape)
    if len(shape) != 3 or shape[1:] != (n_modules, width) or shape[0] not in (1, batch):
        raise InputError(
            name,
            f"must be (B or 1, {n_modules}, {width}) for a batch of {batch} and this model's "
            f"{n_modules} modules of {name} width {width}, got {shape}",
            "pass the model's own kind of vectors (signatures are sig_dim wide, codes code_dim)",
        )
    check_finite(name, value)
    if name == "signatures" and not bool(value.abs().sum(-1).gt(0).all()):
        first = tuple(int(i) for i in torch.nonzero(value.abs().sum(-1) == 0)[0])
        raise zero_signature_error(f"circuit {first[0]}, module {first[1]}")
    return value


def check_token_ids(name: str, ids: torch.Tensor, vocab: int) -> None:
    """Refuse token ids outside [0, vocab) with the first bad id and its place.

    Parameters
    ----------
    name
        The argument's name, for the error.
    ids
        Token ids.
    vocab
        The vocabulary's size.
    """
    bad = (ids < 0) | (ids >= vocab)
    if bool(bad.any()):
        place = tuple(int(i) for i in torch.nonzero(bad)[0])
        raise InputError(
            name,
            f"holds token id {int(ids[place])} at {place}, outside this model's vocabulary of "
            f"{vocab} (ids 0..{vocab - 1})",
            "encode the text with the model's own tokenizer (the task or CircuitGenerator does)",
        )


def worth_checking(value: torch.Tensor, training: bool) -> bool:
    """Whether to run a value check on ``value``: always, except in a training step on an
    accelerator or under torch.compile, where reading the check's answer back would stall the
    device (or break the compiled graph) every step; training batches come from the project's
    own tasks, and the same call outside training is checked.

    Parameters
    ----------
    value
        The tensor.
    training
        Whether this is a training step.
    """
    if not training:
        return True
    return value.device.type == "cpu" and not torch.compiler.is_compiling()
