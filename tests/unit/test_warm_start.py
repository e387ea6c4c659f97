"""common/warm_start.py: a warm job prints, fails and exits as a cold one; it dies with its client; its generators are fresh;
a server serves only its own environment."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from neurips26.common import warm_start
from tests.conftest import ROOT

CLIENT = ("import sys; from neurips26.common import warm_start; "
          "code = warm_start.run(sys.argv[1:]); print('WARM', code, file=sys.stderr); sys.exit(code or 0)")


def job_env() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NEURIPS26_WARM_START="1")
    env.pop("NEURIPS26_ROOT", None)
    env.pop("PYTEST_CURRENT_TEST", None)  # pytest changes it between set-up and call: the server is keyed on the env
    return env


def client(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CLIENT, *argv], cwd=ROOT, env=job_env(), capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def server():
    """A server for job_env() in the repository root, started the way a job starts it (the first client runs cold)."""
    path = warm_start.socket_path(job_env(), str(ROOT))
    first = client("papers")
    assert "WARM None" in first.stderr, first.stderr
    deadline = time.time() + 120
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.2)
    assert os.path.exists(path), "the server did not come up"
    yield path
    os.kill(int(open(f"{path}.lock").read()), signal.SIGTERM)
    os.unlink(path)
    os.unlink(f"{path}.lock")  # a killed server leaves both; one that goes idle removes them itself (tested below)


@pytest.mark.slow
def test_an_idle_server_exits_and_leaves_neither_socket_nor_lock():
    env = {**job_env(), "NEURIPS26_WARM_IDLE_S": "1"}  # its own environment, so its own server
    path = warm_start.socket_path(env, str(ROOT))
    started = subprocess.run([sys.executable, "-c", CLIENT, "papers"], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=120)
    assert "WARM None" in started.stderr, started.stderr
    deadline = time.time() + 120
    while not os.path.exists(path) and time.time() < deadline:
        time.sleep(0.1)
    assert os.path.exists(path), "the server did not come up"
    while (os.path.exists(path) or os.path.exists(f"{path}.lock")) and time.time() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(path) and not os.path.exists(f"{path}.lock")


def cold(*argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in job_env().items() if k != "NEURIPS26_WARM_START"}
    return subprocess.run([sys.executable, "-m", "neurips26", *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.slow
def test_a_warm_job_prints_what_a_cold_job_prints(server):
    warm = client("papers")
    assert "WARM 0" in warm.stderr, warm.stderr
    assert warm.stdout == cold("papers").stdout and "[mec_mmd]" in warm.stdout


def test_a_warm_job_fails_with_the_cold_exit_code_and_message(server):
    warm = client("no_such_paper", "run")
    assert "WARM 2" in warm.stderr and warm.returncode == 2
    message = cold("no_such_paper", "run").stderr.strip()
    assert message.startswith("neurips26: error:") and message in warm.stderr


def test_another_environment_finds_another_server():
    env = job_env()
    assert warm_start.socket_path(env, str(ROOT)) != warm_start.socket_path({**env, "OMP_NUM_THREADS": "7"}, str(ROOT))
    assert warm_start.socket_path(env, str(ROOT)) != warm_start.socket_path(env, "/elsewhere")


def test_without_the_flag_nothing_runs_warm(monkeypatch):
    monkeypatch.delenv("NEURIPS26_WARM_START", raising=False)
    assert warm_start.run(["papers"]) is None


def test_a_worker_dies_when_its_client_goes():
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        ours.close()
        warm_start._die_with_client(theirs)
        time.sleep(60)
        os._exit(0)
    theirs.close()
    time.sleep(0.5)
    assert os.waitpid(pid, os.WNOHANG) == (0, 0), "the worker died while its client lived"
    ours.close()
    deadline = time.time() + 10
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    pytest.fail("the worker outlived its client")


def test_every_worker_draws_fresh_global_random_numbers():
    np.random.seed(0)
    draws = []
    for _ in range(2):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            warm_start._fresh_generators()
            os.write(write, np.random.bytes(16))
            os._exit(0)
        os.waitpid(pid, 0)
        draws.append(os.read(read, 16))
        os.close(read)
        os.close(write)
    assert draws[0] != draws[1] and np.random.bytes(16) == np.random.RandomState(0).bytes(16)
