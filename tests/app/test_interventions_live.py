"""Live interventions in the app: the store's examples rerun with their stored circuits, edits
as toggles, the URL's form of an edit."""

import numpy as np
import pytest

from circuitlab.app.callbacks.intervene import edit_of, edits_query, mark_edits, parse_edits
from circuitlab.app.intervention_view import Edit
from circuitlab.app.stores import AppStores
from circuitlab.data.world import Scene


@pytest.fixture(scope="module")
def nlvr_stores(nlvr2_store):
    return AppStores(nlvr2_store.parent, checkpoint="checkpoints/nlvr")


def test_the_stored_circuits_and_scenes_give_back_the_stored_predictions(nlvr_stores):
    intervener = nlvr_stores.intervener("nlvr")
    rows, _, baseline = intervener.probe()
    stored = intervener.view.frame["p_true"].to_numpy()[rows]
    np.testing.assert_allclose(baseline, stored, atol=2e-4)  # the export rounds to 4 places
    outcome = intervener.outcome(int(rows[3]), Edit())
    assert outcome.p_before == outcome.p_after == pytest.approx(stored[3], abs=2e-4)
    labels = intervener.view.frame["label"].to_numpy()[rows].astype(bool)
    assert outcome.accuracy_before == np.mean((stored > 0.5) == labels)


def test_an_edit_moves_the_answer_only_through_links_that_exist(nlvr_stores):
    intervener = nlvr_stores.intervener("nlvr")
    view, row = intervener.view, int(intervener.rows[0])
    u = view.n_modules
    readouts = [m for m in range(u) if view.store.roles[m] == "readout"]
    between_readouts = Edit(cut=((readouts[0], readouts[1]),))  # no such link in a NAC
    same = intervener.outcome(row, between_readouts)
    assert same.p_after == same.p_before and same.accuracy_after == same.accuracy_before
    processors = tuple(m for m in range(u) if m not in readouts)
    silenced = intervener.outcome(row, Edit(knocked_out=processors))
    rows, _, baseline = intervener.probe()
    assert silenced.p_after != pytest.approx(silenced.p_before, abs=1e-3)
    assert len(rows) == min(256, len(intervener.rows))


def test_a_store_without_scenes_or_model_says_why(nlvr2_store):
    with pytest.raises(ValueError, match="interventions need an NLVR store"):
        AppStores(nlvr2_store.parent, checkpoint="checkpoints/nlvr").intervener("nlvr2")
    with pytest.raises(ValueError, match="--checkpoint to cut links"):
        AppStores(nlvr2_store.parent).intervener("nlvr")


def test_edits_toggle_and_survive_the_url():
    actions = [["cut", 3, 1], ["knock", 5], ["cut", 1, 3], ["cut", 2, 4], ["knock", 7]]
    edit = edit_of(actions)
    assert edit == Edit(cut=((2, 4),), knocked_out=(5, 7))  # the second cut of 1-3 restored it
    query = edits_query(actions)
    assert query == {"cut": "2-4", "knock": "5,7"}
    restored, problems = parse_edits(query, n_modules=18)
    assert edit_of(restored) == edit and problems == []
    _, problems = parse_edits({"cut": "2-40,x,3-3", "knock": "18,<b>"}, n_modules=18)
    assert len(problems) == 5 and "'<b>'" in problems[-1]
    assert edit_of([]) == Edit() and not Edit() and edits_query([]) == {}


def test_cut_links_and_knocked_out_modules_are_marked_without_touching_the_cache():
    elements = [
        {"data": {"id": "1"}, "classes": "processor"},
        {"data": {"id": "5"}, "classes": "processor"},
        {"data": {"id": "4-2", "source": "4", "target": "2"}},
        {"data": {"id": "1-5", "source": "1", "target": "5"}},
    ]
    marked = mark_edits(elements, Edit(cut=((2, 4),), knocked_out=(5,)))
    assert [e.get("classes") for e in marked] == ["processor", "processor knocked", "cut", None]
    assert elements[1]["classes"] == "processor" and "classes" not in elements[2]


def test_a_modules_knockout_is_measured_overall_and_by_category(nlvr_stores):
    intervener = nlvr_stores.intervener("nlvr")
    groups = intervener.knockout(3)
    name, n, before, after = groups[0]
    assert (name, n) == ("all", 256)
    assert (before, after) == intervener.accuracy(Edit(knocked_out=(3,)))
    rows = intervener.probe()[0]
    frame = intervener.view.frame.iloc[rows]
    for category, count, _, _ in groups[1:]:
        assert count == frame["categories"].map(lambda cats, c=category: c in cats).sum()


def test_generated_world_scenes_carry_the_grammars_truth_where_it_knows_the_sentence(
    nlvr_stores,
):
    probe = nlvr_stores.world_probe()
    sentence = nlvr_stores.generator.task.val_pool[0]
    answers = probe.answers(sentence.text)
    assert len(answers) == 3 and all(0 <= a.p_true <= 1 for a in answers)
    for answer in answers:  # the truth is the logical form's, on the drawn scene
        assert answer.truth == sentence.label(Scene(answer.boxes))
        if sentence.towers:  # a tower sentence is asked of tower scenes
            assert all(p.level >= 0 for box in Scene(answer.boxes).placed for p in box)
    again = probe.answers(sentence.text)
    assert [a.boxes for a in again] == [a.boxes for a in answers]  # the same scenes each time
    unknown = probe.answers("Two dogs are sitting on a red couch.")
    assert [a.truth for a in unknown] == [None, None, None]
