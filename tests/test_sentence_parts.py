"""A sentence split into skeleton and content, the split encoder, and the generator that reads
the two parts apart."""

import random
import re

import pytest
import torch

from circuitlab import NAC, NACConfig
from circuitlab.config_groups import GeneratorConfig
from circuitlab.data.text import SplitEncoder, make_encoder
from circuitlab.task import trim_text
from circuitlab.worlds.minimal_pairs import WORDING_RULES, logic_variant
from circuitlab.worlds.pair_world import random_pair_sentence, world_nouns
from circuitlab.worlds.sentence_parts import PLACEHOLDER, content, skeleton
from circuitlab.worlds.vocabularies import vocabulary
from circuitlab.worlds.world import random_sentence
from tests.test_model import SMALL


@pytest.mark.parametrize(
    ("text", "expected_skeleton", "expected_content"),
    [
        (
            "There are at least two yellow squares touching the wall.",
            "There are at least two things touching the wall.",
            "yellow squares",
        ),
        (
            "There is a black circle above a blue triangle",
            "There is a thing above a thing",
            "black circle blue triangle",
        ),
        ("There is no tower.", "There is no tower.", "nothing"),
        ("Each box has a Large block", "Each box has a thing", "large block"),
    ],
)
def test_skeleton_and_content_of_a_sentence(text, expected_skeleton, expected_content):
    assert skeleton(text) == expected_skeleton
    assert content(text) == expected_content


def test_colour_and_shape_changes_leave_the_skeleton_and_logic_changes_the_content():
    rng = random.Random(3)
    sentences = [random_sentence(rng).text for _ in range(400)]
    colour_shape = [r for r in WORDING_RULES if "touching" not in r[0]]
    moved = 0
    for text in sentences:
        for pattern, replacement in colour_shape:
            other = re.sub(pattern, replacement, text)
            if other != text:
                assert skeleton(other) == skeleton(text), (text, other)
                assert content(other) != content(text)
        changed = logic_variant(text, rng)
        if changed is not None:
            assert skeleton(changed) != skeleton(text)
            moved += content(changed) == content(text)
    assert moved > 100  # logic changes mostly keep the content


@pytest.mark.parametrize(
    ("text", "expected_skeleton", "expected_content"),
    [
        (
            "The left image contains two white dogs facing left.",
            "The left image contains two things.",
            "white dogs facing left",
        ),
        (
            "A bottle turned to the left is left of a cup lying down in the image on the left",
            "A thing is left of a thing in the image on the left",
            "bottle turned to the left cup lying down",
        ),
        (
            "Each image shows exactly one dog that is not standing",
            "Each image shows exactly one thing that is not",
            "dog standing",
        ),
        (
            "An animal is next to a large dog",
            "A thing is next to a thing",
            "animal large dog",
        ),
    ],
)
def test_the_pair_vocabulary_tells_a_facing_from_an_image_or_a_relation(
    text, expected_skeleton, expected_content
):
    pairs = vocabulary("pairs")
    assert skeleton(text, pairs) == expected_skeleton
    assert content(text, pairs) == expected_content


def test_only_the_pair_vocabulary_makes_the_article_agree_with_its_placeholder():
    """The shapes-world models were trained on "an thing": its skeletons must not change."""
    assert skeleton("There is an object touching the wall") == (
        "There is an thing touching the wall"
    )
    assert skeleton("There is an animal touching the wall", vocabulary("pairs")) == (
        "There is a thing touching the wall"
    )
    # "an" that does not stand before a placeholder is left alone
    assert skeleton("an image shows an", vocabulary("pairs")) == "an image shows an"


def test_pair_sentences_split_into_words_that_rebuild_them():
    """Every word of a pair-world sentence lands in exactly one part (the skeleton's words but
    its placeholders, with the content's, are the sentence's words), one placeholder per
    content noun, and neither a named noun nor a colour is left in the skeleton."""
    pairs = vocabulary("pairs")
    nouns = [f.singular for f in world_nouns()]
    rng = random.Random(5)
    for _ in range(300):
        sentence = random_pair_sentence(rng, nouns)
        words = re.findall(r"[a-z]+", sentence.text.lower())
        skeleton_words = re.findall(r"[a-z]+", skeleton(sentence.text, pairs).lower())
        content_words = content(sentence.text, pairs).split()
        assert not set(sentence.nouns) & set(skeleton_words), sentence.text
        assert not {"white", "brown", "red", "green"} & set(skeleton_words), sentence.text
        placeholders = sum(w in PLACEHOLDER for w in skeleton_words)
        nouns_in_content = sum(w in pairs.nouns for w in content_words)
        assert placeholders == nouns_in_content, sentence.text
        kept = [w for w in skeleton_words if w not in PLACEHOLDER]
        assert sorted(kept + content_words) == sorted(words), sentence.text


def test_a_split_encoder_splits_by_its_vocabulary(tmp_path):
    encoder = make_encoder("minilm-split", vocabulary="pairs", cache_dir=tmp_path)
    sentence = ["The right image shows two dogs facing left."]
    tokens, mask = encoder.encode(sentence)
    skeletons, _ = encoder.base.encode(["The right image shows two things."])
    contents, _ = encoder.base.encode(["dogs facing left"])
    assert tokens.shape[1] == skeletons.shape[1] + contents.shape[1]
    assert torch.allclose(tokens[:, : skeletons.shape[1], :384], skeletons)
    assert torch.allclose(tokens[:, skeletons.shape[1] :, :384], contents)
    with pytest.raises(ValueError, match="vocabulary 'nlvr3'"):
        make_encoder("minilm-split", vocabulary="nlvr3")


def test_trim_text_keeps_tokens_after_padding_inside_the_mask():
    text = torch.arange(2 * 6, dtype=torch.float32).reshape(2, 6)
    mask = torch.tensor([[1, 1, 0, 1, 0, 0], [1, 0, 0, 1, 1, 0]], dtype=torch.bool)
    trimmed, trimmed_mask = trim_text(text, mask)
    assert trimmed.shape == (2, 5) and torch.equal(trimmed_mask, mask[:, :5])


def test_split_encoder_lays_out_skeleton_then_content_with_a_flag(tmp_path):
    encoder = SplitEncoder(cache_dir=tmp_path)
    sentences = ["There are two black squares.", "There is no tower."]
    tokens, mask = encoder.encode(sentences)
    base = encoder.base
    skeletons, skeleton_mask = base.encode([skeleton(s) for s in sentences])
    contents, content_mask = base.encode([content(s) for s in sentences])
    t1 = skeletons.shape[1]
    assert tokens.shape == (2, t1 + contents.shape[1], 385) and encoder.dim == 385
    assert torch.equal(mask, torch.cat([skeleton_mask, content_mask], 1))
    assert torch.allclose(tokens[:, :t1, :384], skeletons * skeleton_mask[..., None])
    assert torch.allclose(tokens[:, t1:, :384], contents * content_mask[..., None])
    assert (tokens[:, :t1, -1] == 0).all()
    assert torch.equal(tokens[:, t1:, -1] == 1, content_mask)


def _split_tokens(skeleton_part: torch.Tensor, content_part: torch.Tensor) -> torch.Tensor:
    flags = [
        torch.full((*p.shape[:2], 1), float(i)) for i, p in enumerate((skeleton_part, content_part))
    ]
    return torch.cat(
        [torch.cat([skeleton_part, flags[0]], -1), torch.cat([content_part, flags[1]], -1)], 1
    )


def test_split_generator_makes_signatures_from_the_skeleton_and_codes_from_the_content():
    config = NACConfig(
        **SMALL, conditional=True, generator=GeneratorConfig(cond_dim=6, split_conditioning=True)
    )
    model = NAC(config).eval()
    skeleton_a, skeleton_b = torch.randn(2, 3, 4, 5).unbind(0)
    content_a, content_b = torch.randn(2, 3, 2, 5).unbind(0)
    with torch.no_grad():
        sigs, codes = model.generate(_split_tokens(skeleton_a, content_a))
        sigs_new_content, codes_new_content = model.generate(_split_tokens(skeleton_a, content_b))
        sigs_new_skeleton, codes_new_skeleton = model.generate(_split_tokens(skeleton_b, content_a))
    assert torch.allclose(sigs, sigs_new_content, atol=1e-6)
    assert not torch.allclose(codes, codes_new_content)
    assert torch.allclose(codes, codes_new_skeleton, atol=1e-6)
    assert not torch.allclose(sigs, sigs_new_skeleton)


def test_signatures_from_the_whole_sentence_read_the_content_too_and_match_a_plain_read():
    config = NACConfig(
        **SMALL,
        conditional=True,
        generator=GeneratorConfig(cond_dim=6, split_conditioning=True, signature_tokens="sentence"),
    )
    model = NAC(config).eval()
    skeleton, content_a, content_b = torch.randn(3, 3, 4, 5).unbind(0)
    tokens = _split_tokens(skeleton, content_a)
    generator = model.generator
    with torch.no_grad():
        sigs, codes = model.generate(tokens)
        sigs_new_content, _ = model.generate(_split_tokens(skeleton, content_b))
        # reference: the signature queries attend over every token, no mask
        x = generator.queries.unsqueeze(0).expand(3, -1, -1)
        x = generator.cross(x, generator.cond_proj(tokens), None)
        x = generator.norm_out(generator.self_attn(x))
        reference = generator.base()[0] + generator.to_signatures(x)
        skeleton_only = NAC(
            NACConfig(
                **SMALL,
                conditional=True,
                generator=GeneratorConfig(cond_dim=6, split_conditioning=True),
            )
        )
        skeleton_only.load_state_dict(model.state_dict())
        _, codes_skeleton_only = skeleton_only.eval().generate(tokens)
    assert torch.allclose(sigs, reference, atol=1e-6)
    assert not torch.allclose(sigs, sigs_new_content)
    assert torch.allclose(codes, codes_skeleton_only, atol=1e-6)  # codes: content alone still


def test_split_conditioning_needs_sentence_codes_and_vector_conditioning():
    with pytest.raises(ValueError, match="split_conditioning"):
        NACConfig(
            **SMALL,
            conditional=True,
            generator=GeneratorConfig(cond_dim=6, split_conditioning=True, sentence_codes=False),
        )
    with pytest.raises(ValueError, match="split_conditioning"):
        NACConfig(**SMALL, generator=GeneratorConfig(split_conditioning=True))
    with pytest.raises(ValueError, match="signature_tokens"):
        NACConfig(
            **SMALL,
            conditional=True,
            generator=GeneratorConfig(cond_dim=6, signature_tokens="sentence"),
        )
