import pytest
import torch

from circuitlab import NAC, NACConfig
from circuitlab.config_groups import GeneratorConfig
from circuitlab.nn.token_noise import add_token_noise, gaussian_jitter
from tests.test_model import SMALL


def test_token_noise_has_the_expected_length_on_real_tokens_only_and_keeps_the_flag():
    torch.manual_seed(0)
    tokens = torch.randn(200, 10, 385)
    tokens[..., -1] = (torch.rand(200, 10) < 0.5).float()  # a split sentence's flag
    mask = torch.ones(200, 10, dtype=torch.bool)
    mask[:, 7:] = False  # padding
    noised = add_token_noise(tokens, mask, 2.0, keep_last=True)
    moved = (noised - tokens).norm(dim=-1)
    assert torch.equal(noised[..., -1], tokens[..., -1])
    assert torch.equal(noised[:, 7:], tokens[:, 7:])
    assert abs(float(moved[:, :7].mean()) - 2.0) < 0.05
    everywhere = add_token_noise(tokens, None, 1.0, keep_last=False)
    assert (everywhere[..., -1] != tokens[..., -1]).all()
    assert abs(float((everywhere - tokens).norm(dim=-1).mean()) - 1.0) < 0.03


def test_token_noise_jitters_the_generators_tokens_in_training_only():
    config = NACConfig(
        **SMALL, conditional=True, generator=GeneratorConfig(cond_dim=5, token_noise=1.0)
    )
    model = NAC(config)
    x, cond = torch.randn(8, 9, 6), torch.randn(8, 7, 5)
    torch.manual_seed(3)
    trained = model.train()(x, cond)
    torch.manual_seed(3)
    jittered = model._jitter_tokens(cond, None)
    assert not torch.allclose(jittered, cond)
    assert torch.allclose(trained, model.execute(x, *model.generate(jittered)))
    model.eval()
    assert torch.allclose(model(x, cond), model.execute(x, *model.generate(cond)))
    with pytest.raises(ValueError, match="token ids"):
        model._jitter_tokens(torch.zeros(2, 3, dtype=torch.long), None)
    with pytest.raises(ValueError, match="token_noise"):
        NACConfig(**SMALL, generator=GeneratorConfig(token_noise=1.0))
    with pytest.raises(ValueError, match="token_noise"):
        NACConfig(
            **SMALL, conditional=True, generator=GeneratorConfig(cond_dim=5, token_noise=-0.5)
        )


def test_token_noise_traces_under_torch_compile_with_dynamic_shapes():
    # `circuitlab train --compile` traces the jitter with symbolic sentence lengths; a noise
    # drawn as randn(shape) cannot be traced there (it broke compiled runs once)
    jitter = torch.compile(
        lambda tokens, mask: add_token_noise(tokens, mask, 2.0, keep_last=True),
        backend="eager",
        dynamic=True,
        fullgraph=True,
    )
    for length in (5, 7):
        tokens = torch.randn(4, length, 9)
        noised = jitter(tokens, torch.ones(4, length, dtype=torch.bool))
        assert noised.shape == tokens.shape
        assert torch.equal(noised[..., -1], tokens[..., -1])
        assert not torch.equal(noised, tokens)


def test_gaussian_jitter_with_a_generator_repeats_for_its_seed():
    vectors = torch.zeros(3, 4, 16)
    first = gaussian_jitter(vectors, None, 1.0, torch.Generator().manual_seed(5))
    again = gaussian_jitter(vectors, None, 1.0, torch.Generator().manual_seed(5))
    assert torch.equal(first, again)
    assert not torch.equal(first, gaussian_jitter(vectors, None, 1.0))
