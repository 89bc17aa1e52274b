import pytest
import torch

from circuitlab import NAC, NACConfig
from circuitlab.config_groups import GeneratorConfig
from circuitlab.nn.token_dropout import drop_tokens
from tests.test_model import SMALL


def test_drop_tokens_hides_about_p_of_the_real_tokens_and_never_reveals_padding():
    torch.manual_seed(0)
    mask = torch.rand(400, 12) < 0.7
    mask[:, 0] = True
    kept = drop_tokens(mask, 0.3)
    assert not (kept & ~mask).any()
    share = 1 - kept.sum() / mask.sum()
    assert 0.25 < float(share) < 0.33  # emptied rows get theirs back, so a little under 0.3
    assert kept.any(dim=1).all()


def test_drop_tokens_keeps_a_token_in_each_part_of_every_row():
    torch.manual_seed(1)
    mask = torch.ones(300, 10, dtype=torch.bool)
    mask[:, 8:] = False  # padding
    parts = torch.zeros(300, 10, dtype=torch.bool)
    parts[:, 5:] = True  # tokens 5-7 are the content, 0-4 the skeleton
    kept = drop_tokens(mask, 0.95, parts)
    assert (kept & ~parts).any(dim=1).all() and (kept & parts).any(dim=1).all()
    assert not kept[:, 8:].any()
    # a row whose content all went keeps all of it: so some rows have every content token
    assert (kept[:, 5:8].all(dim=1)).any()


def test_token_dropout_trains_on_a_masked_sentence_and_evaluates_on_the_whole():
    config = NACConfig(
        **SMALL, conditional=True, generator=GeneratorConfig(cond_dim=5, token_dropout=0.5)
    )
    model = NAC(config)
    x, cond = torch.randn(8, 9, 6), torch.randn(8, 7, 5)
    torch.manual_seed(3)
    trained = model.train()(x, cond)
    torch.manual_seed(3)
    mask = model._drop_tokens(cond, None)
    assert 0 < int(mask.sum()) < mask.numel()
    assert not torch.allclose(model.generate(cond, mask)[0], model.generate(cond)[0])
    assert torch.allclose(trained, model.execute(x, *model.generate(cond, mask)))
    model.eval()
    assert torch.allclose(model(x, cond), model.execute(x, *model.generate(cond)))
    with pytest.raises(ValueError, match="token_dropout"):
        NACConfig(**SMALL, generator=GeneratorConfig(token_dropout=0.5))
    with pytest.raises(ValueError, match="token_dropout"):
        NACConfig(
            **SMALL, conditional=True, generator=GeneratorConfig(cond_dim=5, token_dropout=1.0)
        )
