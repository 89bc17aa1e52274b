"""NFMNetwork: a CNN-MLP that answers questions about images, with Neural Function Modules
(``nfm``) or without (the baseline)."""

from __future__ import annotations

from itertools import pairwise

import torch
from torch import nn

from circuitlab.nfm.attention import LayerReader, LayerWriter
from circuitlab.nfm.config import NFMConfig

__all__ = ["NFMNetwork", "slot_names"]


def conv_block(in_channels: int, out_channels: int) -> nn.Sequential:
    """3x3 convolution with stride 2, ReLU, batch norm (the order of the authors' code)."""
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.BatchNorm2d(out_channels),
    )


class NFMNetwork(nn.Module):
    """Images (B, C, S, S) and question vectors (B, question_dim) -> logits (B, n_answers).

    The circuit of an input (``return_circuit``) is ``attention`` (B, L, 2 L + 1): for each
    layer of the second pass (the reader), the weight it puts on what each layer wrote (columns
    0..L-1: the first pass's layers, L..2L-1: the second pass's, those it has reached; the last:
    the null slot), averaged over positions and heads; 0 where the config's ablations forbid a
    read, and a row of 0 for a layer that does not attend. None without ``nfm``.

    Parameters
    ----------
    config
        The architecture (``NFMConfig``).
    """

    def __init__(self, config: NFMConfig) -> None:
        super().__init__()
        self.config = c = config
        widths = [c.in_channels, *c.channels]
        self.convs = nn.ModuleList(conv_block(a, b) for a, b in pairwise(widths))
        side = c.image_size // 2 ** len(c.channels)
        self.head = nn.Sequential(
            nn.Linear(c.channels[-1] * side * side + c.question_dim, c.hidden),
            nn.ReLU(),
            nn.Linear(c.hidden, c.hidden),
            nn.ReLU(),
            nn.Linear(c.hidden, c.n_answers),
        )
        if c.nfm:
            self.first_pass = nn.ModuleList(conv_block(a, b) for a, b in pairwise(widths))
            self.writers = nn.ModuleList(
                LayerWriter(w, c.heads, c.key_dim, c.value_dim) for w in c.channels
            )
            attending = c.attending_layers or range(1, len(c.channels) + 1)
            self.readers = nn.ModuleList(
                LayerReader(w, c.heads, c.key_dim, c.value_dim, c.top_k, c.null_slot)
                if layer in attending
                else LayerWriter(w, c.heads, c.key_dim, c.value_dim)  # writes, never reads
                for layer, w in enumerate(c.channels, start=1)
            )

    @property
    def n_layers(self) -> int:
        return len(self.config.channels)

    def forward(
        self,
        inputs: torch.Tensor,
        conditioning: torch.Tensor | None = None,
        *,
        input_mask: torch.Tensor | None = None,
        conditioning_mask: torch.Tensor | None = None,
        return_circuit: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor | None, None]:
        """Logits for ``inputs`` (images) and ``conditioning`` (question vectors); with
        ``return_circuit``: (logits, attention or None, None), as a NAC returns."""
        if conditioning is None:
            raise ValueError("an NFM network answers a question: give its vectors (B, dim)")
        c = self.config
        images = inputs.view(inputs.shape[0], c.in_channels, c.image_size, c.image_size)
        written: list[tuple[torch.Tensor, torch.Tensor]] = []  # column j of the circuit
        if c.nfm:
            h = images
            for block, writer in zip(self.first_pass, self.writers, strict=True):
                h = block(h)
                written.append(writer.write(h))
        h, reads = images, []
        for index, block in enumerate(self.convs):
            h = block(h)
            if c.nfm:
                reader = self.readers[index]
                written.append(reader.write(h))
                if not isinstance(reader, LayerReader):  # a layer that does not attend
                    reads.append(h.new_zeros(h.shape[0], 2 * self.n_layers + 1))
                    continue
                # without top-down reads, first-pass layers deeper than this one stay unread
                columns = [
                    j for j in range(len(written)) if c.top_down or not index < j < self.n_layers
                ]
                h, attention = reader.read(h, [written[j] for j in columns])
                reads.append(self._columns(attention, columns))
        logits = self.head(torch.cat([h.flatten(1), conditioning.float()], 1))
        if not return_circuit:
            return logits
        return logits, (torch.stack(reads, 1) if reads else None), None

    def _columns(self, attention: torch.Tensor, columns: list[int]) -> torch.Tensor:
        """(B, len(columns) + 1) -> (B, 2 L + 1): the weights on the written layers read into
        their ``columns``, 0 elsewhere, the null slot last."""
        out = attention.new_zeros(attention.shape[0], 2 * self.n_layers + 1)
        out[:, columns] = attention[:, :-1]
        out[:, -1] = attention[:, -1]
        return out

    def structure_loss(self, circuit: torch.Tensor | None) -> torch.Tensor:
        """No regulariser on the reads: 0."""
        return self.head[0].weight.new_zeros(())

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


def slot_names(n_layers: int) -> list[str]:
    """The columns of a circuit: "pass 1 layer 1".. "pass 2 layer L", then "null".

    Parameters
    ----------
    n_layers
        Layers L of each pass.
    """
    return [f"pass {p} layer {layer + 1}" for p in (1, 2) for layer in range(n_layers)] + ["null"]
