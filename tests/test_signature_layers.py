"""Self-attention over the tokens the signatures read (``signature_layers``)."""

import pytest
import torch

from circuitlab import NAC, NACConfig
from circuitlab.config_groups import GeneratorConfig
from tests.test_model import SMALL
from tests.test_sentence_parts import _split_tokens

SPLIT = dict(cond_dim=6, split_conditioning=True, signature_tokens="sentence")


def _split(**generator) -> NACConfig:
    """A NAC whose generator splits the sentence, with ``generator`` options besides."""
    return NACConfig(**SMALL, conditional=True, generator=GeneratorConfig(**SPLIT, **generator))


def test_no_layers_adds_no_parameters():
    model = NAC(_split())
    assert model.generator.signature_encoder is None
    assert not any("signature_encoder" in name for name in model.state_dict())


def test_signatures_read_the_encoded_tokens_and_codes_the_raw_ones():
    model = NAC(_split(signature_layers=2)).eval()
    tokens = _split_tokens(torch.randn(3, 4, 5), torch.randn(3, 2, 5))
    g = model.generator
    with torch.no_grad():
        sigs, codes = model.generate(tokens)
        # reference: the blocks run over every token (skeleton and content), then the queries
        context = g.cond_proj(tokens)
        for block in g.signature_encoder.blocks:
            context = block(context)
        x = g.queries.unsqueeze(0).expand(3, -1, -1)
        x = g.norm_out(g.self_attn(g.cross(x, context, None)))
        reference = g.base()[0] + g.to_signatures(x)
        plain = NAC(_split())
        plain.load_state_dict(model.state_dict(), strict=False)  # all but the blocks
        plain_sigs, plain_codes = plain.eval().generate(tokens)
    assert torch.allclose(sigs, reference, atol=1e-6)
    assert not torch.allclose(sigs, plain_sigs, atol=1e-3)  # the blocks change the wiring
    assert torch.allclose(codes, plain_codes, atol=1e-6)  # and not the codes


def test_padding_changes_nothing():
    model = NAC(_split(signature_layers=1)).eval()
    tokens = _split_tokens(torch.randn(2, 4, 5), torch.randn(2, 2, 5))
    padded = torch.cat([tokens, torch.randn(2, 3, 6)], 1)
    mask = torch.ones(2, 9, dtype=torch.bool)
    mask[:, 6:] = False
    with torch.no_grad():
        sigs, codes = model.generate(tokens)
        sigs_padded, codes_padded = model.generate(padded, mask)
    assert torch.allclose(sigs, sigs_padded, atol=1e-5)
    assert torch.allclose(codes, codes_padded, atol=1e-5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(SMALL, conditional=True, generator=dict(SPLIT, signature_layers=-1)), "must be >= 0"),
        (dict(SMALL, generator=dict(signature_layers=1)), "needs a conditional NAC"),
        (
            dict(
                SMALL,
                conditional=True,
                generator=dict(SPLIT, signature_layers=1, signature_pooling=True),
            ),
            "one or the other",
        ),
    ],
)
def test_config_errors_name_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        NACConfig.from_dict(options)
