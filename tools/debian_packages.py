"""Install the Debian packages of config/debian-packages.txt that are missing, or say exactly how to.

Standard library only: it runs before the project's virtual environment exists (`make install`, .ci/run).
    python3 tools/debian_packages.py            # the `run` packages
    python3 tools/debian_packages.py --test     # the `run` and `test` packages
As root it installs directly; otherwise through `sudo -n` where that works; otherwise it stops (exit 1) before any other
work, printing the single `apt-get install` line to run. On a machine without dpkg it lists the packages and goes on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

LIST = Path(__file__).resolve().parents[1] / "config" / "debian-packages.txt"


def read_list(path: Path = LIST, with_test: bool = False) -> list[str]:
    wanted = {"run", "test"} if with_test else {"run"}
    packages = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) < 2 or fields[1] not in ("run", "test"):
            raise SystemExit(f"{path}:{number}: expected '<package> run|test <why>', got {line!r}")
        if fields[1] in wanted:
            packages.append(fields[0])
    return packages


def installed(package: str) -> bool:
    result = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return result.returncode == 0 and result.stdout.strip().endswith(" installed")


def plan(missing: list[str], is_root: bool, sudo_works: bool, has_dpkg: bool = True) -> tuple[str, list[list[str]]]:
    """What to do about the missing packages: ("ok" | "install" | "stop" | "unknown", commands to run)."""
    if not has_dpkg:
        return "unknown", []
    if not missing:
        return "ok", []
    prefix = [] if is_root else ["sudo", "-n"]
    commands = [[*prefix, "apt-get", "update", "-qq"],
                [*prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq",
                 "--no-install-recommends", *missing]]
    if is_root or sudo_works:
        return "install", commands
    return "stop", [["sudo", "apt-get", "install", "-y", *missing]]


def sudo_works() -> bool:
    return shutil.which("sudo") is not None and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0


def main(argv: list[str]) -> int:
    packages = read_list(with_test="--test" in argv)
    has_dpkg = shutil.which("dpkg-query") is not None
    missing = [p for p in packages if not installed(p)] if has_dpkg else packages
    action, commands = plan(missing, os.geteuid() == 0, not has_dpkg or sudo_works(), has_dpkg)
    if action == "unknown":
        print(f"not a Debian system: make sure these are installed (or their equivalents): {' '.join(packages)}",
              file=sys.stderr)
    elif action == "stop":
        print(f"missing Debian packages: {' '.join(missing)}. Run this once, then make again:\n  "
              + " ".join(commands[0]), file=sys.stderr)
        return 1
    elif action == "install":
        print(f"installing Debian packages: {' '.join(missing)}", file=sys.stderr)
        for command in commands:
            subprocess.run(command, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
