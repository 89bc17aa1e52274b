import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from circuitlab import NAC, Circuit, NACConfig
from circuitlab.circuit import link_probabilities
from circuitlab.config_groups import GeneratorConfig, KernelConfig, PenaltyConfig, ReadInConfig
from circuitlab.nn import link_probability

SMALL = dict(
    input_dim=6,
    n_processors=12,
    n_readouts=2,
    n_classes=3,
    dim=32,
    heads=2,
    head_dim=8,
    code_dim=8,
    sig_dim=4,
    depth=2,
)
# the generator's width in every conditional model here
GENERATOR_DIM = 32


def _flops(model, *args):
    counter = FlopCounterMode(display=False)
    with counter:  # FlopCounterMode's module tracker needs autograd on
        model(*args)
    return counter.get_total_flops()


def test_forward_shapes_and_circuit():
    model = NAC(NACConfig(**SMALL))
    x = torch.randn(5, 9, 6)
    logits, sigs, codes = model(x, return_circuit=True)
    assert logits.shape == (5, 3) and sigs.shape == (1, 14, 4) and codes.shape == (1, 14, 8)
    circuit = model.circuit()
    assert isinstance(circuit, Circuit)
    assert (
        list(circuit.roles).count("processor") == 12 and list(circuit.roles).count("readout") == 2
    )
    np.testing.assert_allclose(
        circuit.link_probability(), link_probability(sigs, sigs)[0].detach().numpy(), atol=1e-6
    )


def test_numpy_and_torch_link_probabilities_agree():
    s = np.random.default_rng(0).normal(size=(3, 10, 5)).astype(np.float32)
    t = torch.from_numpy(s)
    for truncation in (None, 0.8):
        np.testing.assert_allclose(
            link_probabilities(s, 0.7, truncation),
            link_probability(t, t, 0.7, truncation).numpy(),
            atol=1e-6,
        )


def test_input_mask_hides_padding_tokens():
    model = NAC(NACConfig(**SMALL)).eval()
    x = torch.randn(2, 9, 6)
    mask = torch.ones(2, 9, dtype=torch.bool)
    mask[:, 6:] = False
    padded = x.clone()
    padded[:, 6:] = 100.0
    torch.testing.assert_close(
        model(x, input_mask=mask), model(padded, input_mask=mask), rtol=1e-5, atol=1e-5
    )


def test_conditional_nac_makes_one_circuit_per_input():
    model = NAC(
        NACConfig(
            **SMALL, conditional=True, generator=GeneratorConfig(dim=GENERATOR_DIM, cond_vocab=11)
        )
    ).eval()
    cond = torch.randint(1, 11, (4, 5))
    logits, sigs, _ = model(torch.randn(4, 9, 6), cond, return_circuit=True)
    assert logits.shape == (4, 3) and sigs.shape == (4, 14, 4)
    circuits = model.circuits(cond)
    assert len(circuits) == 4
    assert not np.allclose(circuits[0].signatures, circuits[1].signatures)
    with pytest.raises(ValueError, match="conditional"):
        model(torch.randn(4, 9, 6))
    with pytest.raises(ValueError, match="one circuit per input"):
        model.circuit()


def test_conditioning_mask_ignores_padding():
    model = NAC(
        NACConfig(
            **SMALL, conditional=True, generator=GeneratorConfig(dim=GENERATOR_DIM, cond_dim=7)
        )
    ).eval()
    cond = torch.randn(2, 6, 7)
    mask = torch.tensor([[True] * 4 + [False] * 2] * 2)
    other = cond.clone()
    other[:, 4:] = -50.0
    a, _ = model.generate(cond, mask)
    b, _ = model.generate(other, mask)
    torch.testing.assert_close(a, b)


def test_logic_contrast_is_a_hinge_on_the_log_ratio_of_p_shifts():
    config = NACConfig(
        **SMALL,
        conditional=True,
        generator=GeneratorConfig(dim=GENERATOR_DIM, cond_dim=7),
        penalties=PenaltyConfig(logic_contrast_weight=2.0, logic_contrast_margin=0.5),
    )
    model = NAC(config).eval()
    torch.manual_seed(0)
    base, noun, logic = torch.randn(3, 4, 5, 7)
    tokens, mask = torch.cat([base, noun, logic]), torch.ones(12, 5, dtype=torch.bool)
    u = config.n_processors

    def p_of(x):
        signatures, _ = model.generate(x, torch.ones(4, 5, dtype=torch.bool))
        return model.link_probabilities(signatures[:, :u])

    p_base, p_noun, p_logic = p_of(base), p_of(noun), p_of(logic)
    noun_shift = (p_noun - p_base).flatten(1).norm(dim=1)
    logic_shift = (p_logic - p_base).flatten(1).norm(dim=1)
    ratio = torch.log(logic_shift + 1e-6) - torch.log(noun_shift + 1e-6)
    expected = 2.0 * (np.log(1.5) - ratio).clamp(min=0).mean()
    loss = model.logic_contrast_loss(tokens, mask)
    torch.testing.assert_close(loss, expected)
    # a "logic change" that leaves the sentence as it is pays the most; gradients reach the
    # generator
    same = model.logic_contrast_loss(torch.cat([base, noun, base]), mask)
    assert same > loss and same > 2.0 * 10
    same.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.generator.parameters())
    off = NAC(
        NACConfig(
            **SMALL, conditional=True, generator=GeneratorConfig(dim=GENERATOR_DIM, cond_dim=7)
        )
    )
    assert off.logic_contrast_loss(tokens, mask) == 0
    with pytest.raises(ValueError, match="needs a conditional NAC"):
        NACConfig(**SMALL, penalties=PenaltyConfig(logic_contrast_weight=1.0))


def test_noun_invariance_adds_the_noun_swaps_rms_link_shift_to_the_contrast():
    def model_with(weight):
        penalties = PenaltyConfig(logic_contrast_weight=1.0, noun_invariance_weight=weight)
        generator = GeneratorConfig(dim=GENERATOR_DIM, cond_dim=7)
        torch.manual_seed(3)
        return NAC(NACConfig(**SMALL, conditional=True, generator=generator, penalties=penalties))

    plain, pulled = model_with(0.0).eval(), model_with(3.0).eval()
    torch.manual_seed(0)
    base, noun, logic = torch.randn(3, 4, 5, 7)
    tokens, mask = torch.cat([base, noun, logic]), torch.ones(12, 5, dtype=torch.bool)
    u = plain.config.n_processors
    signatures, _ = pulled.generate(torch.cat([base, noun]), torch.ones(8, 5, dtype=torch.bool))
    p_base, p_noun = pulled.link_probabilities(signatures[:, :u]).view(2, 4, u, u).unbind(0)
    rms_shift = ((p_noun - p_base) ** 2).mean(dim=(1, 2)).sqrt().mean()
    torch.testing.assert_close(
        pulled.logic_contrast_loss(tokens, mask),
        plain.logic_contrast_loss(tokens, mask) + 3.0 * rms_shift,
    )
    # a noun swap that changes nothing pays nothing more
    same = torch.cat([base, base, logic])
    torch.testing.assert_close(
        pulled.logic_contrast_loss(same, mask), plain.logic_contrast_loss(same, mask)
    )
    with pytest.raises(ValueError, match="needs the logic contrast"):
        PenaltyConfig(noun_invariance_weight=1.0)


def test_perceiver_io_configuration_has_no_code_conditioning():
    pio = NAC(NACConfig.perceiver_io(**SMALL))
    assert pio.kernel.dense and not pio.read_in.to_k.conditioned
    assert not any("alpha" in name or "code_proj" in name for name, _ in pio.named_parameters())
    nac = NAC(NACConfig(**SMALL))
    assert nac.n_parameters() > pio.n_parameters()


def test_frozen_graph_does_not_train_signatures():
    model = NAC(NACConfig(**SMALL, graph="frozen"))
    assert not model.generator.signatures.requires_grad
    model(torch.randn(2, 9, 6)).sum().backward()
    assert model.generator.signatures.grad is None and model.generator.codes.grad is not None


def test_prior_regulariser_is_wired_to_the_processors():
    model = NAC(NACConfig(**SMALL, prior="scale_free"))
    _, sigs, _ = model(torch.randn(2, 9, 6), return_circuit=True)
    loss = model.structure_loss(sigs)
    loss.backward()
    assert loss.item() > 0 and model.generator.signatures.grad.abs().sum() > 0
    assert model.regularizer.target.shape == (12, 12)
    with pytest.raises(ValueError, match="dense"):
        NACConfig(**SMALL, prior="scale_free", graph="dense")


@pytest.mark.parametrize("order", ["connectivity", "readout", "random"])
def test_drop_modules_keeps_outputs_and_computes_less(order):
    model = NAC(NACConfig(**SMALL)).eval()
    x = torch.randn(3, 9, 6)
    dropped = model.drop_modules(8, order=order)
    assert dropped.config.n_processors == 4 and model.config.n_processors == 12
    assert dropped(x).shape == model(x).shape == (3, 3)
    assert dropped.circuit().n_modules == 4 + 2
    assert _flops(dropped, x) < 0.6 * _flops(model, x)


def test_drop_modules_removes_the_least_connected_first():
    model = NAC(NACConfig(**SMALL)).eval()
    connectivity = model.connectivity()
    dropped = model.drop_modules(5)
    kept = torch.tensor(sorted(connectivity.argsort(descending=True)[:7].tolist()))
    torch.testing.assert_close(
        dropped.generator.signatures.data[:7], model.generator.signatures.data[kept]
    )
    torch.testing.assert_close(
        dropped.generator.signatures.data[7:], model.generator.signatures.data[12:]
    )


def test_drop_modules_by_readout_keeps_the_processors_the_readouts_listen_to():
    model = NAC(NACConfig(**SMALL)).eval()
    u = model.config.n_processors
    p = model.link_probabilities(model.generator.signatures.data)
    reach = p[u:, :u].sum(0)  # P(read-out, processor) summed over the read-outs
    torch.testing.assert_close(model.readout_reach(), reach)
    dropped = model.drop_modules(5, order="readout")
    kept = reach.argsort(descending=True)[: u - 5].sort().values
    torch.testing.assert_close(
        dropped.generator.signatures.data[: u - 5], model.generator.signatures.data[kept]
    )
    with pytest.raises(ValueError, match="order must be"):
        model.drop_modules(1, order="alphabetical")


def test_drop_modules_rebuilds_the_prior_for_the_processors_left():
    prior = dict(prior="planted_partition", prior_params={"n_blocks": 4})
    model = NAC(NACConfig(**SMALL, **prior)).eval()
    x = torch.randn(3, 9, 6)
    kept_prior = model.drop_modules(4)  # 8 processors: still room for 4 blocks
    assert kept_prior.config.prior == "planted_partition"
    assert kept_prior.regularizer.target.shape == (8, 8)
    sigs = kept_prior.generate()[0]
    assert kept_prior.structure_loss(sigs) > 0
    no_room = model.drop_modules(10)  # 2 processors cannot hold 4 blocks
    assert no_room.config.prior is None and no_room.regularizer is None
    assert no_room(x).shape == (3, 3) and model.config.prior == "planted_partition"


def test_drop_modules_on_a_conditional_nac_needs_conditioning():
    model = NAC(
        NACConfig(
            **SMALL, conditional=True, generator=GeneratorConfig(dim=GENERATOR_DIM, cond_vocab=11)
        )
    ).eval()
    cond = torch.randint(1, 11, (4, 5))
    with pytest.raises(ValueError, match="conditioning"):
        model.drop_modules(3)
    dropped = model.drop_modules(6, conditioning=cond)
    x = torch.randn(4, 9, 6)
    assert dropped(x, cond).shape == (4, 3)
    assert _flops(dropped, x, cond) < _flops(model, x, cond)


@pytest.mark.parametrize(
    "tokenizer, inputs",
    [
        ("patches", torch.randn(2, 3, 16, 16)),
        ("bytes", torch.randint(0, 256, (2, 20))),
    ],
)
def test_tokenizers(tokenizer, inputs):
    config = NACConfig(
        **{**SMALL, "input_dim": 3}, read_in=ReadInConfig(tokenizer=tokenizer, max_tokens=64)
    )
    assert NAC(config)(inputs).shape == (2, 3)


@pytest.mark.parametrize(
    "tokenizer, inputs",
    [
        ("features", torch.randn(2, 9, 3)),
        ("patches", torch.randn(2, 3, 16, 16)),
        ("bytes", torch.randint(0, 256, (2, 20))),
    ],
)
def test_token_dim_narrows_the_tokens_the_read_in_attends_to(tokenizer, inputs):
    wide = NAC(
        NACConfig(
            **{**SMALL, "input_dim": 3}, read_in=ReadInConfig(tokenizer=tokenizer, max_tokens=64)
        )
    )
    narrow = NAC(
        NACConfig(
            **{**SMALL, "input_dim": 3},
            read_in=ReadInConfig(tokenizer=tokenizer, max_tokens=64, token_dim=4),
        )
    )
    assert wide.tokenizer(inputs).shape[-1] == SMALL["dim"]
    assert narrow.tokenizer(inputs).shape[-1] == 4
    assert narrow.read_in.to_k.linear.in_features == 4
    assert narrow(inputs).shape == (2, 3)
    assert _flops(narrow, inputs) < _flops(wide, inputs)
    assert NACConfig(dim=48, read_in=ReadInConfig(token_dim=None)).token_width == 48
    with pytest.raises(ValueError, match="token_dim"):
        NACConfig(read_in=ReadInConfig(token_dim=0))


def test_byte_encoding_pads_and_masks():
    from circuitlab.nn import ByteTokenizer

    data, mask = ByteTokenizer.encode(["ab", "été"], max_tokens=8)
    assert data.shape == (2, 5) and mask.sum(1).tolist() == [2, 5]
    assert data[0, :2].tolist() == [97, 98]


def test_config_rejects_bad_values_with_the_field_name():
    with pytest.raises(ValueError, match="graph"):
        NACConfig(graph="sparse")
    with pytest.raises(ValueError, match="prior"):
        NACConfig(prior="small_world")
    with pytest.raises(ValueError, match="unknown NACConfig fields"):
        NACConfig.from_dict({"width": 3})


def test_learnable_eps_gets_gradients():
    model = NAC(NACConfig(**SMALL, kernel=KernelConfig(learn_eps=True)))
    model(torch.randn(2, 9, 6)).sum().backward()
    assert model.kernel.log_eps.grad is not None


def test_perceiver_io_has_no_trainable_signatures():
    for conditional in (False, True):
        extra = dict(conditional=True, cond_vocab=5) if conditional else {}
        pio = NAC(NACConfig.perceiver_io(**SMALL, **extra))
        assert all(not p.requires_grad for p in pio.generator.signature_parameters())
        dropped = pio.drop_modules(2, order="random")
        assert all(not p.requires_grad for p in dropped.generator.signature_parameters())


def test_sample_kernel_false_trains_on_p_itself():
    x = torch.randn(4, 9, 6)
    sampled = NAC(NACConfig(**SMALL)).train()
    assert not torch.equal(sampled(x), sampled(x))  # a fresh relaxed-Bernoulli sample each call
    plain = NAC(NACConfig(**SMALL, kernel=KernelConfig(sample=False))).train()
    first = plain(x)
    assert torch.equal(first, plain(x))
    assert torch.allclose(first, plain.eval()(x), atol=1e-6)  # the same kernel as evaluation


def test_density_target_pulls_the_mean_link_probability():
    from circuitlab.model import link_density

    p = torch.tensor([[1.0, 0.2, 0.4], [0.2, 1.0, 0.6], [0.4, 0.6, 1.0]])
    assert link_density(p).item() == pytest.approx(0.4)
    model = NAC(
        NACConfig(**SMALL, penalties=PenaltyConfig(density_target=0.25, density_weight=2.0))
    )
    sigs = torch.randn(3, 14, 4, requires_grad=True)
    density = link_density(model.link_probabilities(sigs[:, :12])).mean()
    loss = model.structure_loss(sigs)
    assert loss.item() == pytest.approx(2.0 * (density.item() - 0.25) ** 2, rel=1e-5)
    loss.backward()
    assert sigs.grad[:, :12].abs().sum() > 0 and sigs.grad[:, 12:].abs().sum() == 0
    assert NAC(NACConfig(**SMALL)).structure_loss(sigs).item() == 0.0
    with pytest.raises(ValueError, match="density_target"):
        NACConfig(**SMALL, penalties=PenaltyConfig(density_target=1.5))


def test_per_circuit_density_pulls_each_circuit_apart():
    from circuitlab.model import link_density

    config = NACConfig(
        **SMALL, penalties=PenaltyConfig(density_target=0.25, density_scope="circuit")
    )
    model = NAC(config)
    sigs = torch.randn(3, 14, 4)
    each = link_density(model.link_probabilities(sigs[:, :12]))  # (3,)
    expected = ((each - 0.25) ** 2).mean().item()
    assert model.structure_loss(sigs).item() == pytest.approx(expected, rel=1e-5)
    batch_mean = (
        NAC(NACConfig(**SMALL, penalties=PenaltyConfig(density_target=0.25)))
        .structure_loss(sigs)
        .item()
    )
    assert batch_mean == pytest.approx((each.mean().item() - 0.25) ** 2, rel=1e-5)
    assert expected >= batch_mean  # Jensen: spread in density costs only per circuit
    with pytest.raises(ValueError, match="density_scope"):
        NACConfig(**SMALL, penalties=PenaltyConfig(density_scope="sentence"))


def test_density_band_charges_only_circuits_outside_it():
    from circuitlab.model import link_density

    batch_only = NAC(
        NACConfig(**SMALL, penalties=PenaltyConfig(density_target=0.25, density_weight=2.0))
    )
    sigs = torch.randn(4, 14, 4)
    each = link_density(batch_only.link_probabilities(sigs[:, :12]))  # (4,)
    base = batch_only.structure_loss(sigs).item()
    band = 0.5 * (each - 0.25).abs().max().item()  # at least the farthest circuit is outside
    banded = NAC(
        NACConfig(
            **SMALL,
            penalties=PenaltyConfig(density_target=0.25, density_weight=2.0, density_band=band),
        )
    )
    excess = ((each - 0.25).abs() - band).clamp(min=0)
    assert (excess > 0).any()
    expected = base + 2.0 * (excess**2).mean().item()
    assert banded.structure_loss(sigs).item() == pytest.approx(expected, rel=1e-5)
    wide = NAC(
        NACConfig(
            **SMALL,
            penalties=PenaltyConfig(density_target=0.25, density_weight=2.0, density_band=1.0),
        )
    )
    assert wide.structure_loss(sigs).item() == pytest.approx(base, rel=1e-6)
    for bad in (
        {"density_band": 0.1},  # no target
        {"density_band": 0.0, "density_target": 0.25},
        {"density_band": 0.1, "density_target": 0.25, "density_scope": "circuit"},
    ):
        with pytest.raises(ValueError, match="density_band"):
            NACConfig(**SMALL, penalties=PenaltyConfig(**bad))


def test_wiring_only_generator_keeps_one_code_per_module():
    config = NACConfig(
        **SMALL,
        conditional=True,
        generator=GeneratorConfig(dim=GENERATOR_DIM, cond_dim=5, sentence_codes=False),
    )
    model = NAC(config)
    sigs, codes = model.generate(torch.randn(3, 4, 5))
    assert codes.shape == (3, 14, 8) and torch.equal(codes[0], codes[2])
    assert not torch.allclose(sigs[0], sigs[2])
    assert torch.equal(codes[0], model.generator.base.codes)
    assert model.generator.to_codes is None


def test_read_in_code_scope_confines_the_circuits_codes_to_what_processors_look_for():
    generator = dict(dim=GENERATOR_DIM, cond_dim=5)
    scoped = NACConfig(
        **SMALL, conditional=True, generator=GeneratorConfig(**generator, code_scope="read_in")
    )
    scoped = NAC(scoped).eval()
    everywhere = NAC(
        NACConfig(**SMALL, conditional=True, generator=GeneratorConfig(**generator))
    ).eval()
    everywhere.load_state_dict(scoped.state_dict())
    x = torch.randn(3, 9, 6)
    sigs, codes = scoped.generate(torch.randn(3, 4, 5))
    own = scoped.module_codes()
    with torch.no_grad():
        # given the modules' own codes, both scopes compute the same thing
        same = own.expand(3, -1, -1)
        assert torch.allclose(scoped.execute(x, sigs, same), everywhere.execute(x, sigs, same))
        # the read-outs' codes (rows 12, 13) no longer act; the processors' do
        moved = codes.clone()
        moved[:, 12:] += 3.0
        assert torch.allclose(scoped.execute(x, sigs, codes), scoped.execute(x, sigs, moved))
        assert not torch.allclose(
            everywhere.execute(x, sigs, codes), everywhere.execute(x, sigs, moved)
        )
        moved[:, :12] += 3.0
        assert not torch.allclose(scoped.execute(x, sigs, codes), scoped.execute(x, sigs, moved))
    with pytest.raises(ValueError, match="code_scope"):
        NACConfig(**SMALL, generator=GeneratorConfig(dim=GENERATOR_DIM, code_scope="read_in"))
    with pytest.raises(ValueError, match="code_scope"):
        NACConfig(
            **SMALL,
            conditional=True,
            generator=GeneratorConfig(**generator, code_scope="everywhere"),
        )


def test_code_dropout_gives_some_training_examples_the_modules_own_codes():
    config = NACConfig(
        **SMALL,
        conditional=True,
        generator=GeneratorConfig(dim=GENERATOR_DIM, cond_dim=5, code_dropout=0.5),
    )
    model = NAC(config)
    x, cond = torch.randn(64, 9, 6), torch.randn(64, 4, 5)
    _, _, codes = model.train()(x, cond, return_circuit=True)
    own = model.module_codes()[0]
    dropped = torch.tensor([torch.equal(c, own) for c in codes])
    assert 10 < int(dropped.sum()) < 54  # about half, never all or none
    sigs, generated = model.generate(cond)
    assert torch.equal(codes[~dropped], generated[~dropped])
    assert torch.equal(model.eval()(x, cond, return_circuit=True)[2], generated)  # eval: none
    with pytest.raises(ValueError, match="code_dropout"):
        NACConfig(**SMALL, generator=GeneratorConfig(dim=GENERATOR_DIM, code_dropout=0.5))
