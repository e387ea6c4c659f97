import pandas as pd
import pytest

from neurips26.cli import split_overrides
from neurips26.common.artifacts import atomic_path, write_csv


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
