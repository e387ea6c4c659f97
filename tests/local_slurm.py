"""A real one-node Slurm cluster on this machine, for testing profiles/slurm against a real scheduler (not a mock).

    python -m tests.local_slurm start [--dir DIR]   # start munged, slurmctld, slurmd; print the environment to use
    python -m tests.local_slurm stop  [--dir DIR]   # cancel leftover jobs, stop the daemons by their PIDs
    python -m tests.local_slurm status [--dir DIR]

Needs root and the Debian packages slurmctld slurmd slurm-client munge (.ci/run installs them). Everything lives under
one directory (default /tmp/neurips26-slurm): its own munge key and socket, slurm.conf on free ports, state, spool and logs,
so it never touches /etc/slurm or a system munged. Job status is read with squeue (no slurmdbd/MariaDB: accounting is
off); the scheduler's own record of every finished job goes to jobcomp.log (jobcomp/filetxt), which the tests read.
Eight fake GPUs (device files linked to /dev/null) are declared as generic resources, so jobs that request
`--gpus`/`--gres=gpu` are scheduled and recorded as such (there is no device behind them: a CPU-only torch on the job
runs on the CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_DIR = Path("/tmp/neurips26-slurm")
PACKAGES = ["slurmctld", "slurmd", "slurm-client", "munge"]
CLIENTS = ["sbatch", "srun", "squeue", "scontrol", "scancel", "sinfo", "sacct"]
DAEMONS = ["munged", "slurmctld", "slurmd"]  # start order; stopped in reverse
# Slurm marks a node invalid when it has fewer CPUs or less memory than configured; config_overrides lets the node declare
# more. Nothing is enforced here (no cgroups; a tiny job uses a few hundred MB), so the node is declared large enough for
# the profile's paper-scale requests summed over the test's bundles (tests/cluster: one sbatch job per paper asks for the
# threads, memory and GPUs of all its jobs that may run side by side, e.g. 12 runs of 8 GB and one GPU each): all bundles
# start at once, and the tiny jobs (seconds each, mostly Python start-up) share the real cores instead of queueing.
FAKE_GPUS = 32
MIN_CPUS = 128
MIN_MEMORY_MB = 1_000_000
SECOND_PARTITION = "batch"  # a non-default partition, so a test can check that the user's choice reaches sbatch


def missing_requirements() -> str | None:
    """Why a local cluster cannot start here, or None when it can."""
    if sys.platform != "linux":
        return "a local Slurm cluster needs Linux"
    if os.geteuid() != 0:
        return "a local Slurm cluster needs root (the daemons run as root here)"
    absent = [tool for tool in ("munged", "slurmctld", "slurmd", *CLIENTS)
              if _binary(tool) == tool]
    if absent:
        how = "apt-get install -y " + " ".join(PACKAGES)
        if shutil.which("apt-get") is None:
            return f"Slurm is not installed ({', '.join(absent)} missing) and there is no apt-get to install it"
        return f"Slurm is not installed ({', '.join(absent)} missing): run `{how}` (or .ci/run)"
    return None


def _binary(name: str) -> str:
    """The real program (never one of the wrappers below, which may already be on PATH)."""
    for folder in ("/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin"):
        if Path(folder, name).exists():
            return str(Path(folder, name))
    return shutil.which(name) or name


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _node_memory_mb() -> int:
    """slurmd's own view of the memory minus 2 GB for the system, but at least MIN_MEMORY_MB: the profile asks for
    paper-scale memory (8 GB per training run) while tiny jobs use a few hundred MB (config_overrides allows it)."""
    out = subprocess.run([_binary("slurmd"), "-C"], capture_output=True, text=True, check=True).stdout
    real = int(out.split("RealMemory=")[1].split()[0])
    return max(MIN_MEMORY_MB, real - 2000)


class LocalSlurm:
    """munged + slurmctld + slurmd in the foreground (-F/-D), so that their PIDs are ours to stop."""

    def __init__(self, directory: Path = DEFAULT_DIR):
        self.dir = Path(directory)
        self.conf = self.dir / "slurm.conf"
        self.jobcomp = self.dir / "jobcomp.log"
        self.pidfile = self.dir / "daemons.json"

    # -- configuration -------------------------------------------------------------------------------------------------
    def env(self, base: dict | None = None) -> dict:
        """The environment for clients (sbatch, squeue, snakemake): it points at this cluster's slurm.conf only, through
        SLURM_CONF and through wrappers first on PATH (the job-step plugin drops SLURM_* variables before its inner srun,
        which on a real cluster finds /etc/slurm/slurm.conf; this cluster leaves /etc alone)."""
        env = dict(os.environ if base is None else base)
        env["SLURM_CONF"] = str(self.conf)
        env["PATH"] = f"{self.dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return env

    def _write_config(self) -> None:
        host = socket.gethostname().split(".")[0]
        cpus = max(os.cpu_count() or 1, MIN_CPUS)
        d = self.dir
        for sub in ("state", "spool", "munge"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        os.chmod(d, 0o755)
        os.chmod(d / "munge", 0o755)  # munged refuses a key or socket directory that others may write to
        key = d / "munge" / "munge.key"
        if not key.exists():
            key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o600)
        (d / "bin").mkdir(exist_ok=True)
        for tool in CLIENTS:
            wrapper = d / "bin" / tool
            wrapper.write_text(f"#!/bin/sh\nSLURM_CONF={self.conf} exec {_binary(tool)} \"$@\"\n")
            wrapper.chmod(0o755)
        self.conf.write_text("\n".join([
            "# written by tests/local_slurm.py: a throwaway one-node cluster",
            "ClusterName=neurips26test",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={_free_port()}",
            f"SlurmdPort={_free_port()}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={d / 'munge' / 'munge.socket'}",
            f"StateSaveLocation={d / 'state'}",
            f"SlurmdSpoolDir={d / 'spool'}",
            f"SlurmctldPidFile={d / 'slurmctld.pid'}",
            f"SlurmdPidFile={d / 'slurmd.pid'}",
            f"SlurmctldLogFile={d / 'slurmctld.log'}",
            f"SlurmdLogFile={d / 'slurmd.log'}",
            "ProctrackType=proctrack/linuxproc",   # no cgroups/systemd in containers
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            "DefMemPerCPU=1000",                   # else a job without --mem takes the whole node
            "SlurmdParameters=config_overrides",
            "MpiDefault=none",
            "MailProg=/bin/true",
            "ReturnToService=2",
            "SchedulerType=sched/builtin",
            "AccountingStorageType=accounting_storage/none",
            "JobAcctGatherType=jobacct_gather/none",
            "JobCompType=jobcomp/filetxt",         # the scheduler's record of every finished job
            f"JobCompLoc={self.jobcomp}",
            "MinJobAge=3600",                      # squeue/scontrol see finished jobs for an hour (>= 3x the poll interval)
            "GresTypes=gpu",
            f"NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={_node_memory_mb()} Gres=gpu:{FAKE_GPUS}"
            " State=UNKNOWN",
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
            f"PartitionName={SECOND_PARTITION} Nodes=ALL Default=NO MaxTime=INFINITE State=UP",  # chosen by name only
            "",
        ]))
        # Slurm drops a GPU without a device file; each fake GPU is a link to /dev/null (no cgroups here, nothing opens it)
        for index in range(FAKE_GPUS):
            (d / f"gpu{index}").symlink_to("/dev/null")
        (d / "gres.conf").write_text(f"AutoDetect=off\nNodeName={host} Name=gpu File={d}/gpu[0-{FAKE_GPUS - 1}]\n")

    # -- daemons -------------------------------------------------------------------------------------------------------
    def _commands(self) -> dict[str, list[str]]:
        m = self.dir / "munge"
        return {
            "munged": [_binary("munged"), "-F", "--force", f"--socket={m / 'munge.socket'}", f"--key-file={m / 'munge.key'}",
                       f"--log-file={self.dir / 'munged.log'}", f"--pid-file={m / 'munged.pid'}",
                       f"--seed-file={m / 'munged.seed'}"],
            "slurmctld": [_binary("slurmctld"), "-D", "-i", "-f", str(self.conf)],
            "slurmd": [_binary("slurmd"), "-D", "-f", str(self.conf)],
        }

    def pids(self) -> dict[str, int]:
        """The daemons this directory's cluster started: name -> PID."""
        return json.loads(self.pidfile.read_text()) if self.pidfile.exists() else {}

    @staticmethod
    def running(pids: dict[str, int]) -> list[str]:
        return [name for name, pid in pids.items() if _running(pid)]

    def start(self, timeout: float = 60) -> LocalSlurm:
        reason = missing_requirements()
        if reason:
            raise RuntimeError(reason)
        if self._alive():
            raise RuntimeError(f"a local cluster from {self.dir} is already running: stop it first")
        if self.dir.exists():
            shutil.rmtree(self.dir)  # a clean state: no jobs or node records from an earlier run
        self._write_config()
        pids = {}
        try:
            for name, command in self._commands().items():
                with open(self.dir / f"{name}.out", "w") as log:
                    pids[name] = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=self.env(),
                                                  start_new_session=True).pid
                self.pidfile.write_text(json.dumps(pids))
                if name == "munged":
                    self._wait_for(lambda: (self.dir / "munge" / "munge.socket").exists(), timeout, "munged")
            self._wait_for(self.ready, timeout, "the node to become idle")
        except BaseException:
            self.stop()
            raise
        return self

    def ready(self) -> bool:
        result = subprocess.run(["sinfo", "--noheader", "--format=%T"], env=self.env(), capture_output=True, text=True)
        return result.returncode == 0 and result.stdout.strip() in {"idle", "mixed", "allocated"}

    def _wait_for(self, condition, timeout: float, what: str) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            for name, pid in self.pids().items():
                if not _running(pid):
                    raise RuntimeError(f"{name} exited while waiting for {what}:\n{self.logs()}")
            if condition():
                return
            time.sleep(0.2)
        raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}:\n{self.logs()}")

    def _alive(self) -> list[str]:
        return self.running(self.pids())

    def stop(self, timeout: float = 30) -> None:
        """Cancel any job still queued (so no slurmstepd outlives its daemon), then stop each daemon by its PID."""
        pids = self.pids()
        if pids.get("slurmctld") and _running(pids["slurmctld"]):
            subprocess.run(["scancel", "--full", "--user=root"], env=self.env(), capture_output=True, timeout=30)
            deadline = time.time() + timeout
            while time.time() < deadline and self.queue():
                time.sleep(0.5)
        for name in reversed(DAEMONS):
            pid = pids.get(name)
            if pid and _running(pid):
                _terminate(pid, timeout)
        self.pidfile.unlink(missing_ok=True)

    # -- what the scheduler saw ----------------------------------------------------------------------------------------
    def queue(self) -> list[str]:
        """Job ids still pending or running."""
        result = subprocess.run(["squeue", "--noheader", "--format=%i", "--states=PENDING,RUNNING,COMPLETING"],
                                env=self.env(), capture_output=True, text=True, timeout=30)
        return result.stdout.split() if result.returncode == 0 else []

    def finished_jobs(self) -> list[dict]:
        """The scheduler's record of every finished job (jobcomp/filetxt: one line of key=value pairs per job)."""
        if not self.jobcomp.exists():
            return []
        records = []
        for line in self.jobcomp.read_text().splitlines():
            fields = {}
            for token in line.split():
                key, _, value = token.partition("=")
                fields[key] = value
            records.append(fields)
        return records

    def logs(self) -> str:
        parts = []
        for name in ("munged.out", "munged.log", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"):
            path = self.dir / name
            if path.exists():
                parts.append(f"--- {name}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-15:]))
        return "\n".join(parts)


def _running(pid: int) -> bool:
    try:
        finished, _ = os.waitpid(pid, os.WNOHANG)  # reap our own child, if it is one
        if finished == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat")
    return not (state.exists() and state.read_text().split(") ")[-1].startswith("Z"))


def _terminate(pid: int, timeout: float) -> None:
    os.kill(pid, signal.SIGTERM)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not _running(pid):
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    while _running(pid):
        time.sleep(0.1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.local_slurm", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["start", "stop", "status"])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=f"state directory (default {DEFAULT_DIR})")
    args = parser.parse_args(argv)
    cluster = LocalSlurm(args.dir)
    if args.action == "start":
        started = time.time()
        cluster.start()
        print(f"local Slurm up in {time.time() - started:.1f} s; daemons {cluster.pids()}", file=sys.stderr)
        print(f"export SLURM_CONF={cluster.conf} PATH={cluster.dir / 'bin'}:$PATH")
    elif args.action == "stop":
        cluster.stop()
        print("stopped", file=sys.stderr)
    else:
        alive = cluster._alive()
        print(f"running: {', '.join(alive)}" if alive else "not running")
        return 0 if alive else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
