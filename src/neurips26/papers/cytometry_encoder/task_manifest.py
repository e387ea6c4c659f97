"""The task manifest of the real corpus (issue 70 item 7): which studies pretrain the encoder and, per clinical task,
which studies it is evaluated on and which sample label it predicts. Checked against the study manifest (manifest.py)
before any stage reads it:

    pretrain: [STUDY, ...]            # the pretraining corpus (labels never used)
    tasks:
      - name: aml
        label: condition              # a key of every evaluated file's `labels` in the study manifest
        heldout: [STUDY, ...]         # the studies the task is evaluated on (at least one)
        in_distribution: false        # true: its studies are in the pretraining corpus (the paper's seen-panel task)
        negative_control: false       # true: the label is independent of the data (chosen before any look at it)

Refused, naming the task and key: an unknown study, a held-out file without the task's label, a task with no
held-out study, a held-out study that also pretrains (unless in_distribution), duplicate task names. The taxonomy
(seen panel, some or half the markers unseen) is not written here: it is computed from the harmonised panels against
the pretraining panels (tables.table_panels). Not wired into the stages yet (no real study is verified; README).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from neurips26.common.pipeline.errors import UserError
from neurips26.papers.cytometry_encoder.manifest import Study


@dataclass(frozen=True)
class Task:
    name: str
    label: str
    heldout: tuple[str, ...]
    in_distribution: bool = False
    negative_control: bool = False


def _refuse(where: str, message: str) -> None:
    raise UserError(f"task manifest {where}: {message}")


def parse_tasks(document: dict, studies: list[Study], where: str = "") -> tuple[list[str], list[Task]]:
    """(pretraining study ids, tasks) of a task-manifest document, checked against the study manifest's `studies`."""
    known = {s.id: s for s in studies}
    pretrain = [str(s) for s in document.get("pretrain") or []]
    for study in pretrain:
        if study not in known:
            _refuse(f"{where} pretrain", f"unknown study {study!r} (not in the study manifest)")
    tasks, names = [], set()
    for k, entry in enumerate(document.get("tasks") or []):
        name = str(entry.get("name", ""))
        at = f"{where} tasks[{k}] ({name or 'no name'})"
        if not name or name in names:
            _refuse(at, "every task needs a name of its own")
        names.add(name)
        label, heldout = entry.get("label"), [str(s) for s in entry.get("heldout") or []]
        if not label:
            _refuse(at, "no label key")
        if not heldout:
            _refuse(at, "no held-out study: a task is evaluated on at least one study")
        in_distribution = bool(entry.get("in_distribution", False))
        for study in heldout:
            if study not in known:
                _refuse(at, f"unknown study {study!r} (not in the study manifest)")
            if study in pretrain and not in_distribution:
                _refuse(at, f"study {study!r} is held out and also pretrains the encoder (in_distribution: false)")
            missing = [f.sample for f in known[study].files if str(label) not in f.labels]
            if missing:
                _refuse(at, f"study {study!r}: {len(missing)} file(s) without the label {label!r}, e.g. {missing[0]!r}")
        tasks.append(Task(name, str(label), tuple(heldout), in_distribution, bool(entry.get("negative_control", False))))
    if not tasks:
        _refuse(where, "lists no task")
    return pretrain, tasks


def load_tasks(path: Path, studies: list[Study]) -> tuple[list[str], list[Task]]:
    document = yaml.safe_load(Path(path).read_text()) or {}
    return parse_tasks(document, studies, str(path))
