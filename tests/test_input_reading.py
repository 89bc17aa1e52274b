"""The two ways a NAC can read its input more than once: self-attention among the input tokens
before the read-in (``input_layers``) and a read-in after every propagation round
(``read_in_every_round``)."""

import pytest
import torch

from circuitlab.config import NACConfig
from circuitlab.config_groups import ReadInConfig
from circuitlab.model import NAC
from circuitlab.nn.blocks import TokenEncoder


def _zero_(linear: torch.nn.Module) -> None:
    with torch.no_grad():
        for parameter in linear.parameters():
            parameter.zero_()


def test_token_encoder_is_permutation_equivariant_and_ignores_padding():
    torch.manual_seed(0)
    encoder = TokenEncoder(16, 4, layers=2).eval()
    tokens = torch.randn(1, 5, 16)
    out = encoder(tokens)
    order = torch.tensor([3, 0, 4, 1, 2])
    torch.testing.assert_close(encoder(tokens[:, order]), out[:, order], rtol=1e-5, atol=1e-5)
    padded = torch.cat([tokens, 50 * torch.randn(1, 3, 16)], dim=1)
    mask = torch.tensor([[True] * 5 + [False] * 3])
    torch.testing.assert_close(encoder(padded, mask)[:, :5], out, rtol=1e-5, atol=1e-5)


def test_token_encoder_lets_each_token_see_the_others():
    torch.manual_seed(0)
    encoder = TokenEncoder(16, 4, layers=1).eval()
    tokens = torch.randn(1, 4, 16)
    moved = tokens.clone()
    moved[0, 3] = torch.randn(16)
    changed = (encoder(moved) - encoder(tokens))[0, :3].abs().amax()
    assert changed > 1e-3  # token 3 moved, and tokens 0-2 read it


def _pair(**options) -> tuple[NAC, NAC]:
    """A NAC with ``options`` and one without, sharing every parameter they both have."""
    base = dict(
        input_dim=6,
        n_processors=6,
        n_readouts=2,
        dim=16,
        depth=2,
        heads=2,
        head_dim=8,
        code_dim=8,
        sig_dim=4,
        conditional=True,
        cond_dim=10,
        generator_dim=16,
        null_token=True,
    )
    torch.manual_seed(0)
    with_options = NAC(NACConfig.from_dict({**base, **options})).eval()
    without = NAC(NACConfig.from_dict(base)).eval()
    without.load_state_dict(with_options.state_dict(), strict=False)
    return with_options, without


def _inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    torch.manual_seed(1)
    mask = torch.ones(3, 5, dtype=torch.bool)
    mask[0, 3:] = False
    return torch.randn(3, 5, 6), torch.randn(3, 4, 10), mask


def test_input_layers_that_add_nothing_leave_the_nac_as_it_was():
    model, reference = _pair(input_layers=2)
    x, cond, mask = _inputs()
    assert not torch.allclose(model(x, cond, input_mask=mask), reference(x, cond, input_mask=mask))
    for block in model.token_encoder.blocks:  # each block's residual updates are zero
        _zero_(block.attn.out_proj)
        _zero_(block.ffn[-1])
    torch.testing.assert_close(model(x, cond, input_mask=mask), reference(x, cond, input_mask=mask))


def test_rereads_that_add_nothing_leave_the_nac_as_it_was():
    model, reference = _pair(read_in_every_round=True)
    assert len(model.rereads) == model.config.depth
    x, cond, mask = _inputs()
    assert not torch.allclose(model(x, cond, input_mask=mask), reference(x, cond, input_mask=mask))
    for reread in model.rereads:
        _zero_(reread.to_out)
    torch.testing.assert_close(model(x, cond, input_mask=mask), reference(x, cond, input_mask=mask))


@pytest.mark.parametrize("options", [{"input_layers": 1}, {"read_in_every_round": True}])
def test_padding_tokens_do_not_change_the_answer(options):
    model, _ = _pair(**options)
    x, cond, mask = _inputs()
    garbage = x.clone()
    garbage[0, 3:] = 100.0
    torch.testing.assert_close(
        model(garbage, cond, input_mask=mask), model(x, cond, input_mask=mask)
    )


def test_input_layers_need_heads_that_divide_the_token_width():
    with pytest.raises(ValueError, match="token_dim"):
        NACConfig(dim=30, heads=4, head_dim=8, read_in=ReadInConfig(input_layers=1))
    with pytest.raises(ValueError, match="input_layers"):
        NACConfig(read_in=ReadInConfig(input_layers=-1))
