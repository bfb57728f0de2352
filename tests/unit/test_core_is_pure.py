"""The folders are the layers: the pure core stays pure, and imports run one way, down.

- `tictactoe.core` and `tictactoe.online` (the pure part of online play) import nothing that
  draws, talks to a network, a file or a process: proven by importing every module of both
  folders in a fresh interpreter (a check inside this process would prove nothing: pytest's
  plugins and other tests have imported half the world already);
- only `tictactoe.tui` and `tictactoe.adapters` import Textual, and the line view (`lines`) and
  the tables it plays at (`play`) load none, however far round: `tictactoe join --plain` runs
  without it;
- no module imports another that imports it back, however far round, and no folder imports
  one drawn above it in `LAYERS`: read from the source's own import statements.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tictactoe.host.hosting import JOIN_CODE

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "tictactoe"

PURE = ("core", "online")
"""The folders whose modules may import none of `FORBIDDEN`."""

FORBIDDEN = (
    "textual",
    "rich.console",
    "aiohttp",
    "asyncssh",
    "sqlite3",
    "psycopg",
    "socket",
    "subprocess",
    "platformdirs",
)

LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli",),
    ("options",),
    ("tui", "lines"),
    ("play",),
    ("config",),
    ("settings", "host", "serve", "club"),
    ("link",),
    ("doors",),
    ("adapters",),
    ("report", "record", "process", "online"),
    ("core", "served", "safe_files"),
)
"""The rooms of `tictactoe`, top floor first: each imports only from its own floor or lower."""

TEXTUAL_ALLOWED = ("tui", "adapters")


def modules(folder: Path = PACKAGE) -> Iterator[tuple[str, Path]]:
    """Every module under `folder`: its dotted name and its file."""
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def imports(path: Path, name: str) -> Iterator[str]:
    """The modules `path` (module `name`) imports, as written (relative ones made absolute)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def room(module: str) -> str:
    """The room of `LAYERS` a module of `tictactoe` stands in: its folder, or its file."""
    return module.split(".")[1] if module.count(".") else module


def floor(module: str) -> int:
    name = room(module)
    for number, rooms in enumerate(LAYERS):
        if name in rooms:
            return number
    raise AssertionError(f"{module} stands in no room of LAYERS: give it a floor")


def graph() -> dict[str, set[str]]:
    """Module -> the modules of `tictactoe` it imports."""
    known = dict(modules())
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        edges[name] = {target for target in imports(path, name) if target in known} - {name}
    return edges


PROBE = """
import importlib, sys
names = sys.argv[1:]
for name in names:
    importlib.import_module(name)
forbidden = {forbidden!r}
leaked = sorted(
    m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in forbidden)
)
print(",".join(leaked) or "clean")
"""


def probe(*names: str, first: str = "", forbidden: tuple[str, ...] = FORBIDDEN) -> str:
    result = subprocess.run(
        [sys.executable, "-c", first + PROBE.format(forbidden=forbidden), *names],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_core_and_pure_online_play_import_no_screen_network_file_or_process() -> None:
    names = [name for folder in PURE for name, _ in modules(PACKAGE / folder)]
    assert "tictactoe.core.series" in names and "tictactoe.online.authority" in names
    assert probe(*names) == "clean"


def test_the_probe_would_see_a_forbidden_module_if_it_were_imported() -> None:
    leaked = probe("tictactoe.core.engine", first="import textual.app, sqlite3\n").split(",")
    assert "textual.app" in leaked and "sqlite3" in leaked


def test_the_line_view_and_its_tables_load_no_textual() -> None:
    names = [name for folder in ("lines", "play") for name, _ in modules(PACKAGE / folder)]
    assert "tictactoe.lines.online" in names and "tictactoe.play.seat_table" in names
    assert probe(*names, forbidden=("textual",)) == "clean"


PLAIN_JOIN = """
import sys
from tictactoe.cli import main
status = main(["join", "--plain", "--link", "ws://127.0.0.1:1/"])
loaded = sorted(m for m in sys.modules if m.split(".")[0] == "textual")
print(status, f"{len(loaded)} of Textual's modules, from {loaded[:3]}" if loaded else "clean")
"""


def test_joining_line_by_line_loads_no_textual() -> None:
    """`tictactoe join --plain` as a door runs it, to a host that has gone: it asks the name,
    finds nobody, says so and ends, and Textual was never loaded."""
    result = subprocess.run(
        [sys.executable, "-c", PLAIN_JOIN],
        input="Bob\n",
        env={**os.environ, JOIN_CODE: "ABCD"},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    said = result.stdout + result.stderr
    assert result.returncode == 0, said
    assert "cannot be reached" in said, said
    assert said.rstrip().rsplit("\n", 1)[-1] == "0 clean", said


def test_only_the_tui_and_the_adapters_import_textual() -> None:
    for name, path in modules():
        if room(name) in TEXTUAL_ALLOWED:
            continue
        textual = [target for target in imports(path, name) if target.split(".")[0] == "textual"]
        assert not textual, f"{name} imports {textual[0]}"


def test_no_import_circle() -> None:
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert circles == []


def test_imports_run_down_the_layers() -> None:
    upward = [
        f"{name} -> {target}"
        for name, targets in graph().items()
        if name != "tictactoe"
        for target in targets
        if target != "tictactoe" and floor(target) < floor(name)
    ]
    assert upward == []


@pytest.mark.parametrize("top", sorted({room(name) for name, _ in modules()} - {"tictactoe"}))
def test_every_room_stands_on_a_floor(top: str) -> None:
    assert any(top in rooms for rooms in LAYERS), f"{top} is on no floor of LAYERS"


def test_the_top_of_the_package_holds_few_loose_modules() -> None:
    loose = [path.name for path in PACKAGE.glob("*.py") if path.name != "__init__.py"]
    assert len(loose) <= 12, loose
