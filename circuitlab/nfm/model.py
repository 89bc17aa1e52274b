"""NFMNetwork: a CNN-MLP that answers questions about images, with Neural Function Modules
(``nfm``) or without (the baseline)."""

from __future__ import annotations

from itertools import pairwise

import torch
from torch import nn

from circuitlab.nfm.attention import LayerReader, LayerWriter
from circuitlab.nfm.config import NFMConfig


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
    the null slot), averaged over positions and heads. None without ``nfm``.
    """

    kind = "nfm"

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
            self.readers = nn.ModuleList(
                LayerReader(w, c.heads, c.key_dim, c.value_dim, c.top_k) for w in c.channels
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
        written: list[tuple[torch.Tensor, torch.Tensor]] = []
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
                h, attention = reader.read(h, written)
                reads.append(self._columns(attention))
        logits = self.head(torch.cat([h.flatten(1), conditioning.float()], 1))
        if not return_circuit:
            return logits
        return logits, (torch.stack(reads, 1) if reads else None), None

    def _columns(self, attention: torch.Tensor) -> torch.Tensor:
        """(B, written + 1) -> (B, 2 L + 1): layers not yet written get 0, the null slot last."""
        columns = attention.new_zeros(attention.shape[0], 2 * self.n_layers + 1)
        columns[:, : attention.shape[1] - 1] = attention[:, :-1]
        columns[:, -1] = attention[:, -1]
        return columns

    def structure_loss(self, circuit: torch.Tensor | None) -> torch.Tensor:
        """No regulariser on the reads: 0."""
        return self.head[0].weight.new_zeros(())

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


def slot_names(n_layers: int) -> list[str]:
    """The columns of a circuit: "pass 1 layer 1".. "pass 2 layer L", then "null"."""
    return [f"pass {p} layer {layer + 1}" for p in (1, 2) for layer in range(n_layers)] + ["null"]
