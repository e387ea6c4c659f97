"""FCS files: read with flowkit (FCS 2.0/3.0/3.1; compensation from the file's spill matrix; arcsinh or logicle), write
with flowio (the FCS layer flowkit itself exports through), both with clear errors and atomic outputs.

Reading policy (see README): a data offset off by exactly one byte, a common vendor bug (Miltenyi MACSQuant), is
tolerated when `tolerate_off_by_one` (flowio then warns); any other inconsistency is an error naming the file. A file with
several data sets gives one sample per data set. A spill keyword without its matrix values means no matrix. Time
channels are dropped; scatter and fluorescence channels are kept, named by their harmonised marker ($PnS, else $PnN),
and transformed alike.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from neurips26.common.pipeline.artifacts import atomic_path
from neurips26.common.pipeline.errors import UserError
from neurips26.papers.cytometry_encoder.markers import harmonise, is_time


@dataclass
class FcsData:
    """One data set of an FCS file, compensated and transformed: events x markers."""
    events: np.ndarray            # float32 [n_events, n_markers]
    markers: list[str]            # harmonised names, unique
    channels: list[str]           # $PnN of each kept column
    labels: list[str]             # the raw label each marker was harmonised from
    compensated: bool
    data_set: int
    version: str


def asinh_transform(cofactor: float, m: float = 4.5):
    """flowkit's Gating-ML arcsinh with T chosen so that (output * M ln10) = arcsinh(x / cofactor), the usual
    cytometry transform; returns (transform, rescale factor)."""
    import flowkit as fk

    t = cofactor * math.sinh(m * math.log(10))
    return fk.transforms.AsinhTransform(param_t=t, param_m=m, param_a=0.0), m * math.log(10)


def make_transform(spec):
    import flowkit as fk

    spec = SimpleNamespace(**dict(spec))  # plain values: omegaconf look-ups are slow in a per-file loop
    if spec.kind == "asinh":
        return asinh_transform(float(spec.cofactor))
    if spec.kind == "logicle":
        return fk.transforms.LogicleTransform(param_t=float(spec.t), param_w=float(spec.w), param_m=float(spec.m),
                                              param_a=0.0), float(spec.m) * math.log(10)
    raise UserError(f"config key 'fcs.transform.kind': {spec.kind!r} is not one of asinh, logicle")


def _flow_data_sets(path: Path, tolerate_off_by_one: bool) -> list:
    import flowio

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # flowio warns on non-standard bit widths and on a tolerated offset
        try:
            return [flowio.FlowData(str(path), ignore_offset_error=tolerate_off_by_one)]
        except flowio.exceptions.MultipleDataSetsError:
            return list(flowio.read_multiple_data_sets(str(path), ignore_offset_error=tolerate_off_by_one))


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def _spill(metadata: dict, where: str) -> str | None:
    """The file's spill matrix keyword, or None. A keyword that names its n channels but carries no n x n values (seen
    in Miltenyi MACSQuant files) means no matrix: the data are used uncompensated, with a warning in the log."""
    text = metadata.get("spill") or metadata.get("spillover")
    if not text:
        return None
    fields = [f for f in str(text).split(",") if f.strip()]
    n = int(fields[0]) if fields and fields[0].strip().isdigit() else -1
    if n > 0 and len(fields) == 1 + n:
        print(f"warning: {where}: the spill keyword lists {n} channels but no matrix; left uncompensated", file=sys.stderr)
        return None
    return text


def read_fcs(path: str | Path, transform_spec, tolerate_off_by_one: bool = True) -> list[FcsData]:
    """Every data set of an FCS file as compensated, transformed events; UserError naming the file when unreadable."""
    import flowkit as fk

    path = Path(path)
    if not path.is_file():
        raise UserError(f"FCS file {path} is missing")
    transform, scale = make_transform(transform_spec)
    try:
        data_sets = _flow_data_sets(path, tolerate_off_by_one)
    except Exception as exc:  # flowio raises ValueError, struct.error, FCSParsingError, ... on a damaged file
        raise UserError(f"FCS file {path} cannot be read: {type(exc).__name__}: {exc}") from None
    out = []
    for index, flow_data in enumerate(data_sets):
        where = f"FCS file {path}" + (f" (data set {index})" if len(data_sets) > 1 else "")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sample = fk.Sample(flow_data)
                spill = _spill(sample.metadata, where)
                if spill:
                    sample.apply_compensation(spill)
                sample.apply_transform(transform, include_scatter=True)
                events = sample.get_events(source="xform")
        except Exception as exc:
            raise UserError(f"{where}: {type(exc).__name__}: {exc}") from None
        labels = [pns.strip() or pnn for pnn, pns in zip(sample.pnn_labels, sample.pns_labels)]
        keep = [i for i, (pnn, label) in enumerate(zip(sample.pnn_labels, labels)) if not (is_time(pnn) or is_time(label))]
        if sample.event_count == 0 or not keep:
            raise UserError(f"{where} has no events or no marker channels")
        values = (events[:, keep] * scale).astype(np.float32)
        if not np.isfinite(values).all():
            raise UserError(f"{where}: non-finite values after compensation and transform")
        out.append(FcsData(values, _unique([harmonise(labels[i]) for i in keep]), [sample.pnn_labels[i] for i in keep],
                           [labels[i] for i in keep], bool(spill), index, str(flow_data.version)))
    return out


def spill_text(channels: list[str], matrix: np.ndarray) -> str:
    """The $SPILLOVER keyword value: n, the n channel names, then the n x n matrix row by row."""
    return ",".join([str(len(channels)), *channels, *(f"{v:.6g}" for v in np.asarray(matrix).ravel())])


def write_fcs(path: str | Path, raw: np.ndarray, pnn: list[str], pns: list[str], spill: np.ndarray | None = None,
              keywords: dict | None = None) -> None:
    """Write linear-scale events as an FCS 3.1 file (float32), with $PnS marker labels and an optional spill matrix
    over the fluorescence channels (names not starting with FSC/SSC/Time), atomically."""
    import flowio

    keywords = dict(keywords or {})
    if spill is not None:
        fluoro = [c for c in pnn if not c.upper().startswith(("FSC", "SSC", "TIME"))]
        keywords["SPILLOVER"] = spill_text(fluoro, spill)
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        flowio.create_fcs(handle, np.asarray(raw, dtype=np.float32).ravel(), pnn, opt_channel_names=pns,
                          metadata_dict=keywords)
