"""The command line the pilots share (control_pilot, specialist_pilot): `run` one pilot seed on a default run's data,
then `select` over the seeds' JSON reports by the rule the pilot module fixes."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

# Every seed of the configured seed sets (config seeds 0-2, the re-checks 3-5 and 10-12): a pilot never runs on them.
RESERVED = set(range(6)) | {10, 11, 12}


def pilot_main(run: Callable, select: Callable[[list[Path]], dict],
               add_run_arguments: Callable[[argparse.ArgumentParser], None]) -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--data", type=Path, required=True, help="a default run's runs/ folder")
    r.add_argument("--world", type=int, default=0, help="the run seed whose world (runs/anndata/seed<N>) it reads")
    r.add_argument("--workdir", type=Path, required=True)
    add_run_arguments(r)
    r.add_argument("--set", dest="overrides", action="append", default=[], help="a config override (smoke runs only)")
    s = sub.add_parser("select")
    s.add_argument("reports", type=Path, nargs="+")
    args = parser.parse_args()
    if args.command == "run":
        if args.seed in RESERVED:
            raise SystemExit(f"the pilot seed must lie outside the configured seed sets {sorted(RESERVED)}")
        run(args)
    else:
        print(json.dumps(select(args.reports), indent=1))
