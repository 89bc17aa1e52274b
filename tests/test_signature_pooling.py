"""Signatures generated from each part's mean token (``signature_pooling``)."""

import pytest
import torch

from circuitlab import NAC, NACConfig
from circuitlab.config_groups import GeneratorConfig
from circuitlab.nn.generators import pooled_parts
from tests.test_model import SMALL
from tests.test_sentence_parts import _split_tokens

SPLIT = dict(cond_dim=6, split_conditioning=True, signature_tokens="sentence")


def _split(**generator) -> NACConfig:
    """A NAC whose generator splits the sentence, with ``generator`` options besides."""
    return NACConfig(**SMALL, conditional=True, generator=GeneratorConfig(**SPLIT, **generator))


def test_pooled_parts_are_the_means_of_their_tokens_and_empty_parts_are_masked():
    tokens = torch.arange(24.0).view(2, 4, 3)
    first = torch.tensor([[True, True, False, False], [False, False, False, False]])
    second = torch.tensor([[False, False, True, False], [True, False, True, True]])
    pooled, mask = pooled_parts(tokens, [first, second])
    assert pooled.shape == (2, 2, 3)
    assert torch.equal(pooled[0, 0], tokens[0, :2].mean(0))
    assert torch.equal(pooled[0, 1], tokens[0, 2])
    assert torch.equal(pooled[1, 1], tokens[1, [0, 2, 3]].mean(0))
    assert torch.equal(pooled[1, 0], torch.zeros(3))
    assert mask.tolist() == [[True, True], [False, True]]


def test_pooled_signatures_read_one_mean_token_per_part():
    model = NAC(_split(signature_pooling=True)).eval()
    skeleton, content = torch.randn(3, 4, 5), torch.randn(3, 2, 5)
    tokens = _split_tokens(skeleton, content)
    g = model.generator
    with torch.no_grad():
        sigs, codes = model.generate(tokens)
        # reference: the signature queries attend over the two means, flag feature included
        means = torch.stack([tokens[:, :4].mean(1), tokens[:, 4:].mean(1)], dim=1)
        x = g.queries.unsqueeze(0).expand(3, -1, -1)
        x = g.norm_out(g.self_attn(g.cross(x, g.cond_proj(means), None)))
        reference = g.base()[0] + g.to_signatures(x)
        unpooled = NAC(_split())
        unpooled.load_state_dict(model.state_dict())
        _, codes_unpooled = unpooled.eval().generate(tokens)
    assert torch.allclose(sigs, reference, atol=1e-6)
    assert torch.allclose(codes, codes_unpooled, atol=1e-6)  # the codes still read the tokens


def test_pooled_signatures_ignore_word_order_within_a_part_and_padding():
    model = NAC(_split(signature_pooling=True)).eval()
    skeleton, content = torch.randn(2, 4, 5), torch.randn(2, 2, 5)
    shuffled = skeleton[:, [2, 0, 3, 1]]
    padded = torch.cat([_split_tokens(skeleton, content), torch.randn(2, 3, 6)], 1)
    mask = torch.ones(2, 9, dtype=torch.bool)
    mask[:, 6:] = False
    with torch.no_grad():
        sigs, _ = model.generate(_split_tokens(skeleton, content))
        sigs_shuffled, _ = model.generate(_split_tokens(shuffled, content))
        sigs_padded, _ = model.generate(padded, mask)
        unpooled = NAC(_split())
        unpooled.load_state_dict(model.state_dict())
        sigs_unpooled, _ = unpooled.eval().generate(_split_tokens(shuffled, content))
    assert torch.allclose(sigs, sigs_shuffled, atol=1e-5)
    assert torch.allclose(sigs, sigs_padded, atol=1e-5)
    assert not torch.allclose(sigs, sigs_unpooled, atol=1e-3)


def test_unsplit_pooled_signatures_read_the_mean_of_every_token():
    config = NACConfig(
        **SMALL, conditional=True, generator=GeneratorConfig(cond_dim=5, signature_pooling=True)
    )
    model = NAC(config).eval()
    cond = torch.randn(2, 7, 5)
    with torch.no_grad():
        sigs, _ = model.generate(cond)
        sigs_mean, _ = model.generate(cond.mean(1, keepdim=True))
    assert torch.allclose(sigs, sigs_mean, atol=1e-5)


def test_signature_pooling_needs_a_conditional_nac():
    with pytest.raises(ValueError, match="signature_pooling"):
        NACConfig(**SMALL, generator=GeneratorConfig(signature_pooling=True))
