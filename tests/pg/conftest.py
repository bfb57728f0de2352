"""A throwaway PostgreSQL for the club's tests: one cluster a test session (a worker), started on
a free loopback port in a temporary folder and removed after; a fresh database for each test.

Without PostgreSQL's programs the tests skip, except in CI (`CI` set), where they fail: CI
installs Debian's `postgresql`. As root, PostgreSQL's programs run as the `postgres` user.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

POSTGRES_USER = "postgres"


def _programs() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl), or None."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
        reverse=True,
    )
    if found:
        return found[0].parent
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        folder = Path(
            subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=False
            ).stdout.strip()
        )
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    initdb = shutil.which("initdb")
    return None if initdb is None else Path(initdb).parent


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """A PostgreSQL cluster of the tests' own, on 127.0.0.1:`port`, user `postgres`."""

    def __init__(self, programs: Path, folder: Path, port: int) -> None:
        self.programs = programs
        self.folder = folder
        self.data = folder / "data"
        self.port = port
        self._names = itertools.count(1)

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.programs / program), *args]
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            command = ["runuser", "-u", POSTGRES_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{program} {' '.join(args)} failed: {done.stdout}{done.stderr}")

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "--auth=trust", "-U", POSTGRES_USER, "-E", "UTF8")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
            " -c fsync=off -c full_page_writes=off -c max_connections=200"
        )
        log = str(self.folder / "log")
        self._run("pg_ctl", "-D", str(self.data), "-l", log, "-o", options, "-w", "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        log = str(self.folder / "log")  # else the server writes to (and holds) pg_ctl's output
        self._run("pg_ctl", "-D", str(self.data), "-l", log, "-m", "fast", "-w", "restart")

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://{POSTGRES_USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A fresh, empty database: its DSN."""
        name = f"club_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.dsn(name)

    def drop_database(self, dsn: str) -> None:
        name = dsn.rsplit("/", 1)[1]
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A running PostgreSQL cluster for this session (a worker), stopped and removed after."""
    programs = _programs()
    if programs is None or (os.geteuid() == 0 and shutil.which("runuser") is None):
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL's server programs (initdb, pg_ctl) are required in CI")
        pytest.skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
    folder = Path(tempfile.mkdtemp(prefix="tictactoe-pg-"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam(POSTGRES_USER)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    cluster = Cluster(programs, folder, _free_port())
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def database(postgres: Cluster) -> Iterator[str]:
    """The DSN of a fresh database of this test's own, dropped after."""
    dsn = postgres.create_database()
    yield dsn
    postgres.drop_database(dsn)
