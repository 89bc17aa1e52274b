import gzip
import json

import pytest

from circuitlab.data import nlvr


def test_shipped_nlvr_scenes_are_complete_and_valid():
    for name, rows in (("nlvr-dev", 989), ("nlvr-test", 990)):
        examples = nlvr.read_nlvr(name)
        assert len(examples) == rows
        for e in examples:
            assert len(e.boxes) == 3 and all(len(box) <= 8 for box in e.boxes)
            for box in e.boxes:
                for obj in box:
                    assert 0 <= obj.x <= nlvr.BOX_SIZE and 0 <= obj.y <= nlvr.BOX_SIZE
        frame = nlvr.nlvr_frame(examples)
        assert 200 < frame["sentence_id"].nunique() < 300  # about 4 scenes per sentence
        assert 0.4 < frame["label"].mean() < 0.6


def test_shipped_nlvr2_and_annotations():
    dev, test = nlvr.read_nlvr2("nlvr2-dev"), nlvr.read_nlvr2("nlvr2-test1")
    assert len(dev) == 6982 and len(test) == 6967
    assert dev["label"].dtype == bool and dev["identifier"].str.startswith("dev-").all()
    annotations = nlvr.read_annotations()
    assert len(annotations) == 800
    assert (annotations["categories"].map(len) == 0).sum() == 25
    assert annotations["sentence"].isin(set(dev["sentence"])).mean() > 0.95
    counts = annotations["categories"].explode().value_counts()
    assert counts["hard cardinality"] > 100 and counts["spatial relation"] > 100


def _write_lines(path, lines, compress=False):
    text = "\n".join(lines) + "\n"
    if compress:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)


def test_reads_a_users_file_plain_or_gzip(tmp_path):
    record = {
        "sentence": "There is a black circle.",
        "label": "false",
        "identifier": "7-2",
        "structured_rep": [
            [{"x_loc": 5, "y_loc": 9, "size": 30, "type": "circle", "color": "Black"}],
            [],
            [],
        ],
    }
    for compress, name in ((False, "train.json"), (True, "train.json.gz")):
        _write_lines(tmp_path / name, [json.dumps(record)], compress)
        (example,) = nlvr.read_nlvr(tmp_path / name)
        assert example.label is False and example.sentence_id == "7"
        assert example.boxes[0][0] == nlvr.SceneObject(5, 9, 30, "circle", "Black")


def test_format_errors_name_the_file_and_line(tmp_path):
    good = json.dumps({"identifier": "a", "sentence": "s", "label": "True"})
    path = tmp_path / "nlvr2.json"
    _write_lines(path, [good, "{not json"])
    with pytest.raises(nlvr.NLVRFormatError, match=r"nlvr2\.json, line 2: not JSON"):
        nlvr.read_nlvr2(path)
    _write_lines(path, [good, json.dumps({"identifier": "b", "sentence": "s", "label": "maybe"})])
    with pytest.raises(nlvr.NLVRFormatError, match="line 2: label must be true or false"):
        nlvr.read_nlvr2(path)
    _write_lines(path, [json.dumps({"identifier": "b", "label": "true"})])
    with pytest.raises(nlvr.NLVRFormatError, match=r"line 1: missing \['sentence'\]"):
        nlvr.read_nlvr2(path)
    with pytest.raises(FileNotFoundError, match="shipped files are named"):
        nlvr.read_nlvr2(tmp_path / "absent.json")


def test_annotation_format_errors(tmp_path):
    path = tmp_path / "ann.txt"
    _write_lines(path, ["* negation"])
    with pytest.raises(nlvr.NLVRFormatError, match="before any sentence"):
        nlvr.read_annotations(path)
    _write_lines(path, ["A sentence.", "* sarcasm"])
    with pytest.raises(nlvr.NLVRFormatError, match="unknown category 'sarcasm'"):
        nlvr.read_annotations(path)


def test_out_of_spec_nlvr_lines_are_refused_with_file_and_line(tmp_path):
    good = json.loads(gzip.open(nlvr.resolve("nlvr-dev"), "rt").readline())
    box = good["structured_rep"][0]
    cases = {
        "numeric identifier": ({**good, "identifier": 1572}, "identifier must be a string"),
        "one box": ({**good, "structured_rep": [box]}, "has 3 boxes, got 1"),
        "six boxes": ({**good, "structured_rep": [box] * 6}, "has 3 boxes, got 6"),
        "200 objects": (
            {**good, "structured_rep": [[box[0]] * 200, box, box]},
            "holds 200 objects; at most 100",
        ),
        "far away": (
            {**good, "structured_rep": [[{**box[0], "x_loc": 10**9}], box, box]},
            "lies outside its 100 x 100 box",
        ),
    }
    for name, (record, message) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
        with pytest.raises(nlvr.NLVRFormatError, match=f"{name}.json, line 2[:,] .*{message}"):
            nlvr.read_nlvr(path)
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps(good).encode() + b"\n" + b'{"sentence": "caf\xe9"}\n')
    with pytest.raises(nlvr.NLVRFormatError, match=r"latin1.json, line 2: not UTF-8"):
        nlvr.read_nlvr(path)


def test_a_scene_survives_json_in_nlvrs_own_form():
    """scene_json writes NLVR's structured_rep (the shipped file's own records, in its order)
    and scene_from_json reads it back; a damaged scene is refused like a bad NLVR line."""
    example = nlvr.read_nlvr("nlvr-dev")[0]
    text = nlvr.scene_json(example.boxes)
    with gzip.open(nlvr.resolve("nlvr-dev"), "rt") as lines:
        raw = json.loads(next(lines))["structured_rep"]
    assert json.loads(text) == raw
    assert nlvr.scene_from_json(text) == example.boxes
    with pytest.raises(nlvr.NLVRFormatError, match="a list of 3 lists"):
        nlvr.scene_from_json(json.dumps(json.loads(text)[:2]))
    with pytest.raises(nlvr.NLVRFormatError, match="box 1: unknown object"):
        broken = json.loads(text)
        broken[1][0]["type"] = "hexagon"
        nlvr.scene_from_json(json.dumps(broken))
    with pytest.raises(nlvr.NLVRFormatError, match="not JSON"):
        nlvr.scene_from_json("[[")
