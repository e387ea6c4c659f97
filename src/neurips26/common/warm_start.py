"""Warm start: a job forked from an interpreter that has already imported torch, pandas, scipy, scikit-learn, matplotlib.

A tiny-scale job spends most of its CPU importing libraries (3 to 7 s per job; CI's tiny run has ~170 jobs). With
NEURIPS26_WARM_START=1 in its environment, `python -m neurips26 ...` asks a server to fork a child that runs the same
command in the job's working directory, with its environment, arguments and stdin/stdout/stderr, and exits with the
child's exit code. The first job that finds no server starts one and runs cold itself.

Why the child computes what a cold job computes:
- a server serves only jobs whose interpreter, working directory and environment equal its own (the socket's name is
  their hash), so whatever a library reads at import time (thread counts, backends, offline flags) is what the cold job
  would read; a job with other settings finds its own server;
- the server imports no neurips26 code: the child imports the project from disk, as a cold job does; nothing runs in
  the server but imports, so torch's generator and thread pools are as a fresh process has them;
- the child re-seeds Python's and NumPy's global generators from the OS, as a fresh process does.
It dies with its job: killing the client (Snakemake's kill, a crash) closes the socket and the child kills its process
group. Snakemake's benchmark files then time the client: the wall time is the job's, the CPU time is not (the CPU goes to
the forked child), so leave it off where CPU matters (default-scale timings). CI's tiny run and the pipeline benchmark
use it; default and cluster runs do not.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
import time

FLAG = "NEURIPS26_WARM_START"
PRELOAD = ("numpy", "pandas", "scipy.stats", "scipy.optimize", "sklearn.linear_model", "sklearn.metrics",
           "matplotlib.pyplot", "PIL.Image", "torch")
IDLE_EXIT_S = float(os.environ.get("NEURIPS26_WARM_IDLE_S", "30"))  # no job this long: remove socket and lock, exit
ACCEPTED = b"A"  # the server read the request and forks: from here on the job runs warm or fails, never twice


def socket_path(env: dict | None = None, cwd: str | None = None) -> str:
    env = dict(os.environ if env is None else env)
    key = json.dumps([sys.executable, cwd or os.getcwd(), sorted(env.items())])
    return f"/tmp/neurips26-warm-{hashlib.sha256(key.encode()).hexdigest()[:24]}.sock"


# ---- client (the job's own process) ------------------------------------------------------------------------------------

def run(argv: list[str]) -> int | None:
    """The exit code of `python -m neurips26 argv` run warm, or None: not enabled or no server (then run it cold)."""
    if os.environ.get(FLAG) != "1":
        return None
    path = socket_path()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        start_server(path)
        return None
    with conn:
        body = json.dumps({"argv": [sys.argv[0], *argv], "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        try:
            socket.send_fds(conn, [len(body).to_bytes(8, "big")], [0, 1, 2])
            conn.sendall(body)
            if _recv_exact(conn, 1) != ACCEPTED:
                return None  # the server was exiting: nothing ran
        except OSError:
            return None
        code = _recv_exact(conn, 4)
    if len(code) != 4:
        print("neurips26: error: the warm-start worker died before it reported an exit code", file=sys.stderr)
        return 1
    return int.from_bytes(code, "big", signed=True)


def start_server(path: str) -> None:
    """Start a detached server for this environment (a no-op when one is starting: it holds the lock)."""
    import fcntl
    import subprocess

    try:
        with open(f"{path}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        subprocess.Popen([sys.executable, "-m", "neurips26.common.warm_start", path], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:  # a server holds the lock, or /tmp refuses: this job (and the next) simply run cold
        return


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


# ---- server ------------------------------------------------------------------------------------------------------------

def serve(path: str) -> None:
    import importlib

    if os.fork():  # detach from the job that started us, so its benchmark does not count our imports
        os._exit(0)
    lock = _locked(f"{path}.lock")
    if lock is None:
        return  # another server for this environment is starting or running
    lock.truncate(0)
    lock.write(f"{os.getpid()}\n")  # who holds it (tests and a curious user: `kill $(cat /tmp/neurips26-warm-*.lock)`)
    lock.flush()
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    staging = f"{path}.{os.getpid()}"
    listener.bind(staging)
    listener.listen(64)
    os.replace(staging, path)  # clients see the socket only once every import is done
    listener.settimeout(0.5)
    children: set[int] = set()
    last_job = time.monotonic()
    while children or time.monotonic() - last_job < IDLE_EXIT_S:
        children -= _reaped(children)
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        last_job = time.monotonic()
        pid = _fork_job(listener, conn)
        if pid:
            children.add(pid)
    os.unlink(path)
    listener.close()
    os.unlink(lock.name)  # while still held: a server starting from now on creates and locks a new file
    lock.close()


def _locked(path: str):
    """The open lock file at `path`, locked, or None if another server holds it. A server removes its lock file when it
    exits, so a lock won on a file that is no longer the one at `path` is no lock: the inode is compared."""
    import fcntl

    lock = open(path, "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(path).st_ino == os.fstat(lock.fileno()).st_ino:
            return lock
    except OSError:  # held by another server, or removed meanwhile (FileNotFoundError)
        pass
    lock.close()
    return None


def _reaped(children: set[int]) -> set[int]:
    done = set()
    for pid in children:
        if os.waitpid(pid, os.WNOHANG)[0]:
            done.add(pid)
    return done


def _fork_job(listener: socket.socket, conn: socket.socket) -> int | None:
    conn.settimeout(10.0)
    fds: list[int] = []
    try:
        header, fds, _, _ = socket.recv_fds(conn, 8, 3)
        request = json.loads(_recv_exact(conn, int.from_bytes(header, "big")))
        if len(fds) != 3:
            raise ValueError("a request carries the job's stdin, stdout and stderr")
        conn.sendall(ACCEPTED)
        pid = os.fork()
    except (OSError, ValueError):  # the client ran cold (nothing accepted) or sees the worker fail (accepted)
        pid = None
    if pid == 0:
        listener.close()
        conn.settimeout(None)
        _child(conn, fds, request)
    conn.close()
    for fd in fds:
        os.close(fd)
    return pid


def _child(conn: socket.socket, fds: list[int], request: dict) -> None:
    """Become the job: its streams, directory, environment and fresh generators; run it; report; exit."""
    code = 1
    try:
        os.setpgid(0, 0)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = request["argv"]
        _forget_project_modules()
        _fresh_generators()
        _die_with_client(conn)
        code = _main(request["argv"][1:])
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        try:
            conn.sendall(code.to_bytes(4, "big", signed=True))
        finally:
            os._exit(code)


def _forget_project_modules() -> None:
    """The server ran as neurips26.common.warm_start: drop that package so the job imports the project from disk."""
    for name in [n for n in sys.modules if n == "neurips26" or n.startswith("neurips26.")]:
        del sys.modules[name]


def _fresh_generators() -> None:
    import random

    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()


def _die_with_client(conn: socket.socket) -> None:
    import signal
    import threading

    def watch() -> None:
        conn.recv(1)  # the client sends nothing more: this returns only when its end closes
        os.killpg(0, signal.SIGKILL)

    threading.Thread(target=watch, daemon=True).start()


def _main(argv: list[str]) -> int:
    import atexit
    import threading
    import traceback

    try:
        from neurips26.cli import main

        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    threading._shutdown()  # what a cold interpreter does at exit: wait for the job's own threads, then atexit
    atexit._run_exitfuncs()
    return int(code)


if __name__ == "__main__":
    serve(sys.argv[1])
