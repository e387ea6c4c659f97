import pandas as pd
import pytest

from neurips26.cli import split_overrides
from neurips26.common.pipeline.artifacts import atomic_path, write_csv


def test_a_failed_write_leaves_neither_the_file_nor_a_temporary(tmp_path):
    target = tmp_path / "out" / "table.csv"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half a table")
            raise RuntimeError("killed mid-write")
    assert list((tmp_path / "out").iterdir()) == []


def test_csv_bytes_are_reproducible(tmp_path):
    frame = pd.DataFrame({"x": [0.1 + 0.2, 1 / 3], "n": [1, 2]})
    write_csv(tmp_path / "a.csv", frame)
    write_csv(tmp_path / "b.csv", frame.copy())
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_overrides_are_separated_from_options_wherever_they_stand():
    options, overrides = split_overrides(["run_bias", "--output", "r/x.csv", "scale=tiny", "--seed", "1", "seeds=[0,1]"])
    assert options == ["run_bias", "--output", "r/x.csv", "--seed", "1"]
    assert overrides == ["scale=tiny", "seeds=[0,1]"]


def test_a_torch_artifact_is_byte_identical_when_saved_again(tmp_path):
    """torch.save to a path names the archive's inner folder after that path, here a random temporary file: the same
    weights then gave a different file on every rerun."""
    import torch

    from neurips26.common.pipeline.artifacts import write_torch

    state = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2)}
    write_torch(tmp_path / "a" / "model.pt", state)
    write_torch(tmp_path / "b" / "model.pt", state)
    assert (tmp_path / "a" / "model.pt").read_bytes() == (tmp_path / "b" / "model.pt").read_bytes()
    loaded = torch.load(tmp_path / "a" / "model.pt", weights_only=True)
    assert torch.equal(loaded["w"], state["w"]) and torch.equal(loaded["b"], state["b"])


def test_gzipped_json_lines_are_byte_identical_and_carry_no_file_name(tmp_path):
    import gzip
    import json

    from neurips26.common.pipeline.artifacts import write_jsonl_gz

    records = [{"step": i, "action": "read"} for i in range(3)]
    write_jsonl_gz(tmp_path / "a.jsonl.gz", records)
    write_jsonl_gz(tmp_path / "b.jsonl.gz", records)
    first = (tmp_path / "a.jsonl.gz").read_bytes()
    assert first == (tmp_path / "b.jsonl.gz").read_bytes()
    assert first[3] & 0x08 == 0  # FNAME flag: no (temporary) file name in the header
    with gzip.open(tmp_path / "a.jsonl.gz", "rt") as handle:
        assert [json.loads(line) for line in handle] == records
