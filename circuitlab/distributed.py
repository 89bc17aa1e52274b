"""Multi-process training under torchrun: which process this is, and the helpers it needs.

``torchrun --nproc_per_node=N -m circuitlab train ...`` starts N processes with RANK, WORLD_SIZE
and LOCAL_RANK set; ``circuitlab train`` then trains with DistributedDataParallel (gloo on CPU,
nccl on CUDA). Each rank takes its slice of the same global batch, so a run of N processes
follows the single-process run with the same options, up to the order of float additions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist

from circuitlab.device import pick_device

__all__ = ["Rank", "mean_over_ranks", "parameter_checksums", "shard", "start", "stop"]


@dataclass(frozen=True)
class Rank:
    """This process's place in the job: rank, world_size and local_rank (0, 1, 0 when alone).

    Parameters
    ----------
    rank, world_size, local_rank
        This process's rank, the processes, and its rank on its machine.
    """

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1


def start(device_name: str | None) -> tuple[Rank, torch.device]:
    """Join the process group torchrun set up (if any) and pick this rank's device.

    Parameters
    ----------
    device_name
        ``TrainConfig.device``.
    """
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size == 1:
        return Rank(), pick_device(device_name)
    rank = Rank(int(os.environ["RANK"]), world_size, int(os.environ.get("LOCAL_RANK", "0")))
    device = pick_device(device_name)
    if device.type == "cuda":
        device = torch.device("cuda", rank.local_rank)
        torch.cuda.set_device(device)
    if not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return rank, device


def stop(rank: Rank) -> None:
    """End the process group a torchrun job started (nothing when alone).

    Parameters
    ----------
    rank
        This process's place.
    """
    if rank.distributed and dist.is_initialized():
        dist.destroy_process_group()


def shard(batch_size: int, rank: Rank) -> slice:
    """This rank's rows of a global batch; the batch size must divide evenly.

    Parameters
    ----------
    batch_size
        The batch's rows.
    rank
        This process's place.
    """
    if batch_size % rank.world_size:
        raise ValueError(
            f"batch_size {batch_size} does not split evenly over {rank.world_size} processes"
        )
    per_rank = batch_size // rank.world_size
    return slice(rank.rank * per_rank, (rank.rank + 1) * per_rank)


def mean_over_ranks(values: list[float], rank: Rank, device: torch.device) -> list[float]:
    """The mean of each value over all ranks (the values themselves when alone).

    Parameters
    ----------
    values
        This process's numbers.
    rank
        This process's place.
    device
        Where the reduction runs.
    """
    if not rank.distributed:
        return values
    tensor = torch.tensor(values, dtype=torch.float64, device=device)
    dist.all_reduce(tensor)
    return (tensor / rank.world_size).tolist()


def parameter_checksums(model: torch.nn.Module, rank: Rank) -> list[float]:
    """A float64 checksum of the parameters of every rank: equal values mean equal copies.

    Parameters
    ----------
    model
        The model.
    rank
        This process's place.
    """
    total = sum(
        float(
            (p.detach().double() * torch.arange(1, p.numel() + 1, device=p.device).view_as(p)).sum()
        )
        for p in model.parameters()
    )
    if not rank.distributed:
        return [total]
    gathered: list[float] = [0.0] * rank.world_size
    dist.all_gather_object(gathered, total)
    return gathered
