"""The embedded default: a synthetic cytometry universe written as real FCS files plus a study manifest.

One world per run seed (drawn from the seed's 'universe' stream, `seed_streams.rng(seed, 'universe')`: a different
seed set re-draws the data, not only the training; the design, every setting below, stays fixed in the config): markers
with the alias spellings of
markers.ALIASES, cell populations with on/off expression profiles in arcsinh space, studies with their own random panels,
per-study per-marker batch effects (shift and scale), spill matrices on some studies, and sample labels that move the
proportions of two populations (one up, one down) and shift one marker's expression inside a third population (a
phenotype shift). Pretraining studies use only the 'common' markers; novel-panel task studies are held out and carry
markers the corpus never shows. The negative control's labels are independent of the data. The positive-control task
(taxonomy positive_control) gives each of its studies its own panel sharing only `shared_markers` markers: a population
is then defined by different markers in each study, and only an encoder that learnt, across the corpus's panels, what a
population looks like in any panel can put its samples in one space (pretraining must help there). Its label moves
population FREQUENCIES only (two populations' log-proportions by +-`effect`, no phenotype shift); with `core: agree` the
shared core is drawn from the markers on which the two moved populations agree (both on or both off), so the shift is
hardly visible on the shared markers alone. It is drawn from its own random stream (the seed's `universe_stream<stream>`
stream): the other
studies' draws do not depend on its settings (README: the positive control).
Events are stored on the linear scale (sinh(x) * cofactor, spilled), so reading them back exercises
FCS -> compensation -> arcsinh exactly as real data does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from neurips26.common.pipeline.seed_streams import rng as seed_stream
from neurips26.papers.cytometry_encoder.fcs import write_fcs
from neurips26.papers.cytometry_encoder.manifest import write_manifest
from neurips26.papers.cytometry_encoder.markers import ALIASES, FLUOROCHROMES

MARKERS = [m for m in ALIASES if not m.startswith(("FSC", "SSC"))]


def populations(rng: np.random.Generator, n_pop: int, n_markers: int, on_probability: float) -> np.ndarray:
    """Mean arcsinh level of every population x marker: 'on' ~ U(2.5, 4), 'off' ~ U(0, 0.8)."""
    on = rng.random((n_pop, n_markers)) < on_probability
    return np.where(on, rng.uniform(2.5, 4.0, on.shape), rng.uniform(0.0, 0.8, on.shape))


def spelling(rng: np.random.Generator, marker: str) -> str:
    """A file label for a marker: one of its spellings plus a fluorochrome, as instruments write them."""
    name = str(rng.choice([marker, *ALIASES[marker]]))
    return f"{name}{rng.choice([' ', '-', '_'])}{rng.choice(FLUOROCHROMES[:20])}"


def sample_cells(rng, profile, base_logp, shift_logp, study_shift, study_scale, u, frequencies=None) -> np.ndarray:
    """Linear-scale events of one sample: population draw, expression noise, study batch effect, sinh * cofactor.
    `profile` is the populations x panel-markers mean matrix of this sample (phenotype shift included); the sample's
    population frequencies are appended to `frequencies` when given (no extra draw)."""
    proportions = rng.dirichlet(u.concentration * np.exp(base_logp + shift_logp) / np.exp(base_logp + shift_logp).sum())
    pop = rng.choice(len(profile), size=u.cells_per_sample, p=proportions)
    x = profile[pop] + u.noise_sd * rng.standard_normal((u.cells_per_sample, profile.shape[1]))
    if frequencies is not None:
        frequencies.append(np.bincount(pop, minlength=len(profile)) / len(pop))
    return np.sinh(x * study_scale + study_shift) * u.cofactor


def spill_matrix(rng, k: int, max_spill: float) -> np.ndarray:
    """Identity plus spill into the next two detectors (what neighbouring emission spectra look like)."""
    s = np.eye(k)
    for i in range(k):
        for j in (i + 1, i + 2):
            if j < k:
                s[i, j] = rng.uniform(0, max_spill)
    return s


def world(u, seed: int) -> tuple[np.random.Generator, dict]:
    """The shared stream after the world's draws, and the world of run seed `seed`: markers, novel / common markers,
    population profiles [populations x markers] and base log-proportions."""
    rng = seed_stream(int(seed), "universe")
    markers = MARKERS[: int(u.n_markers)]
    novel = sorted(rng.choice(markers, size=int(u.n_novel_markers), replace=False).tolist())
    common = [m for m in markers if m not in novel]
    profile = populations(rng, int(u.n_populations), len(markers), float(u.on_probability))
    base_logp = np.log(rng.dirichlet(np.full(int(u.n_populations), 2.0)) + 0.02)
    return rng, {"markers": markers, "novel": novel, "common": common, "profile": profile, "base_logp": base_logp}


def positive_control(u, t, index: int, w: dict, seed: int) -> tuple[dict, np.random.Generator, list[dict]]:
    """The positive-control task's design from its own stream (run seed, t.stream): the two populations its label
    moves (frequencies only), the shared core (`core: agree`: drawn among the common markers on which the two agree,
    both on or both off; `random`: any common marker) and every study's panel (the core + its own common markers).
    Returns the task info, the stream (which then writes the task's studies) and the study plans."""
    rng = seed_stream(int(seed), f"universe_stream{int(t.get('stream', index + 1))}")
    on = w["profile"] >= 1.65  # 'on' levels are >= 2.5, 'off' ones <= 0.8
    common, markers = w["common"], w["markers"]
    up, down = (int(v) for v in rng.choice(int(u.n_populations), 2, replace=False))
    kind = str(t.get("core", "agree"))
    if kind not in ("agree", "random"):
        raise ValueError(f"task {t.name}: core must be agree or random, not {kind}")
    pool = [m for m in common if kind == "random" or on[up, markers.index(m)] == on[down, markers.index(m)]]
    core = sorted(str(m) for m in rng.choice(pool, int(t.shared_markers), replace=False))
    rest = [m for m in common if m not in core]
    size = int(u.task_panel_size)
    panels = [sorted(core + [str(m) for m in rng.choice(rest, size - len(core), replace=False)])
              for _ in range(int(u.studies_per_task))]
    info = dict(taxonomy=str(t.taxonomy), panel=core, up=up, down=down, signal=bool(t.signal),
                effect=float(t.get("effect", u.effect)), phenotype_population=None, phenotype_marker=None, core=kind)
    plans = [dict(id=f"{t.name}_{k}", role="heldout", panel=panels[k], samples=int(u.task_samples_per_study),
                  task=str(t.name)) for k in range(int(u.studies_per_task))]
    return info, rng, plans


def write_frequencies(path: Path, frequencies: dict[str, np.ndarray]) -> None:
    """One row per sample: its true population frequencies p0, p1, ... (what the universe drew)."""
    import pandas as pd

    from neurips26.common.pipeline.artifacts import write_csv

    frame = pd.DataFrame(np.stack(list(frequencies.values())), columns=[f"p{k}" for k in range(len(
        next(iter(frequencies.values()))))])
    write_csv(path, frame.assign(sample=list(frequencies))[["sample", *frame.columns]])


def read_frequencies(path: Path) -> dict[str, np.ndarray]:
    import pandas as pd

    frame = pd.read_csv(path)
    return dict(zip(frame["sample"].astype(str), frame.drop(columns="sample").to_numpy(float)))


def write_positive_controls(u, tasks, root: Path, seed: int) -> dict:
    """Only the (positive-control) tasks' studies, manifest and frequencies.csv: the control pilot's candidates."""
    _, w = world(u, seed)
    studies, frequencies, info = [], {}, {}
    for index, t in enumerate(tasks):
        info[str(t.name)], own, plans = positive_control(u, t, index, w, seed)
        studies += [_write_study(own, plan, w["markers"], w["profile"], w["base_logp"], info[str(t.name)], u, root,
                                 frequencies) for plan in plans]
    write_manifest(root / "manifest.yaml", studies)
    write_frequencies(root / "frequencies.csv", frequencies)
    return {"tasks": info}


def generate(u, tasks, root: Path, seed: int) -> dict:
    """Write the world of run seed `seed`: root/fcs/<study>/<sample>.fcs, root/manifest.yaml and root/frequencies.csv
    (every sample's true population frequencies); return the universe summary (for panels.csv)."""
    rng, w = world(u, seed)
    markers, novel, common, profile, base_logp = (w[k] for k in ("markers", "novel", "common", "profile", "base_logp"))
    lo, hi = (int(v) for v in u.panel_size)
    plans = [dict(id=f"S{i:03d}", role="pretrain",
                  panel=sorted(str(m) for m in rng.choice(common, rng.integers(lo, hi + 1), replace=False)),
                  samples=int(u.samples_per_study), task=None) for i in range(int(u.pretrain_studies))]
    task_info, own_streams = {}, []
    size = int(u.task_panel_size)
    for index, t in enumerate(tasks):
        n_novel = int(t.novel_markers)
        panel = sorted(rng.choice(common, size - n_novel, replace=False).tolist()
                       + rng.choice(novel, n_novel, replace=False).tolist())
        if t.taxonomy == "positive_control":
            # the earlier design's draws on the shared stream, discarded: kept so that every other study (the corpus
            # and the five paper tasks) is drawn as before the control was redesigned (JOURNAL; the world of a seed
            # then does not depend on the control's settings)
            core = rng.choice(common, int(t.shared_markers), replace=False).tolist()
            rest = [m for m in common if m not in core]
            for _ in range(int(u.studies_per_task)):
                rng.choice(rest, size - len(core), replace=False)
            rng.choice(int(u.n_populations), 3, replace=False)
            rng.choice(sorted(core))
            task_info[t.name], own, own_plans = positive_control(u, t, index, w, seed)
            own_streams.append((own, own_plans))
            continue
        up, down, pheno = (int(v) for v in rng.choice(int(u.n_populations), 3, replace=False))
        task_info[t.name] = dict(taxonomy=t.taxonomy, panel=panel, up=up, down=down, signal=bool(t.signal),
                                 effect=float(u.effect), phenotype_population=pheno,
                                 phenotype_marker=str(rng.choice(panel)))
        role = "pretrain" if t.taxonomy == "in_distribution" else "heldout"
        plans += [dict(id=f"{t.name}_{k}", role=role, panel=panel, samples=int(u.task_samples_per_study),
                       task=t.name) for k in range(int(u.studies_per_task))]
    studies, frequencies = [], {}
    for plan in plans:
        studies.append(_write_study(rng, plan, markers, profile, base_logp, task_info.get(plan["task"]), u, root,
                                    frequencies))
    for own, own_plans in own_streams:  # each positive control from its own stream, after the shared one's studies
        studies += [_write_study(own, plan, markers, profile, base_logp, task_info[plan["task"]], u, root, frequencies)
                    for plan in own_plans]
    write_manifest(root / "manifest.yaml", studies)
    write_frequencies(root / "frequencies.csv", frequencies)
    return {"markers": markers, "novel_markers": novel, "tasks": task_info}


def _write_study(rng, plan, markers, profile, base_logp, task, u, root, frequencies=None) -> dict:
    cols = [markers.index(m) for m in plan["panel"]]
    k = len(cols)
    shift = rng.normal(0, u.batch_shift_sd, k)
    scale = np.exp(rng.normal(0, u.batch_scale_sd, k))
    spill = spill_matrix(rng, k, u.spill_max) if rng.random() < u.spill_fraction else None
    pnn = [f"FL{i + 1}-A" for i in range(k)] + ["Time"]
    pns = [spelling(rng, m) for m in plan["panel"]] + [""]
    labels = np.arange(plan["samples"]) % 2 if task else np.zeros(plan["samples"], int)
    files = []
    for s, label in enumerate(rng.permutation(labels)):
        shift_logp = np.zeros(len(base_logp))
        if task and task["signal"] and label:
            shift_logp[task["up"]], shift_logp[task["down"]] = task["effect"], -task["effect"]
        prof = profile[:, cols].copy()
        if task and task["signal"] and label and task["phenotype_marker"] in plan["panel"]:
            prof[task["phenotype_population"], plan["panel"].index(task["phenotype_marker"])] += u.phenotype_shift
        recorded: list[np.ndarray] = []
        raw = sample_cells(rng, prof, base_logp, shift_logp, shift, scale, u, frequencies=recorded)
        if spill is not None:
            raw = raw @ spill
        time = np.sort(rng.uniform(0, 1000, (len(raw), 1)), axis=0)
        name = f"{plan['id']}_{s:03d}"
        if frequencies is not None:
            frequencies[name] = recorded[0]
        write_fcs(root / "fcs" / plan["id"] / f"{name}.fcs", np.hstack([raw, time]), pnn, pns, spill,
                  {"SRC": "neurips26 synthetic cytometry universe", "STUDY": plan["id"]})
        files.append({"path": f"{name}.fcs", "sample": name, "labels": {"label": str(int(label))} if task else {}})
    return {"id": plan["id"], "source": "synthetic", "license": "generated by this project (MIT)",
            "panel": list(plan["panel"]), "role": plan["role"], "task": plan["task"],
            "taxonomy": task["taxonomy"] if task else None, "spill": spill is not None, "files": files}
