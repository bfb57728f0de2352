"""The game served to a real Chromium: time to the game drawn, key-to-redraw, memory per tab.

    uv run python benchmarks/bench_web.py              # 10 tabs, 6 matches of keys: ~2 minutes
    uv run python benchmarks/bench_web.py --tabs 4     # rougher

It runs `tictactoe.doors.web.server.GameServer` in a process of its own (any free port, `--no-save
--delay 0`), as `tictactoe serve` does, and drives the system's Chromium with Playwright. Every
time is taken inside the page, with `performance.now()`, so Playwright's own round trips are not
counted:

- drawn: from the start of the navigation to the moment xterm.js has parsed the write that puts
  the new-game screen ("Who is playing?") in its buffer, plus one animation frame (the paint).
  Measured with the server's spare game (the normal case: each tab after the first finds one
  started ahead) and without it (`spare=False`: the game process starts when the tab connects).
- key to redraw: from the key's `keydown` in the page to the first write from the server that
  xterm.js parses after it, plus one animation frame. Keys are a hot-seat series typed one at a
  time, 0.25 s apart: for each match the mark (`x`), five moves (7 4 8 5 9, a win on the top row)
  and `n` for the next match.
- memory: VmRSS and VmHWM of the server's game processes (each tab's, and the spare) after the
  keys, from /proc; and the server's own.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, async_playwright

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

PROBE = """
(() => {
  window.__bench = {
    drawn: null, keydown: null, redraws: [], load: null, open: null, firstByte: null,
  };
  addEventListener("load", () => { window.__bench.load = performance.now(); });
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("open", () => { window.__bench.open = performance.now(); });
      this.addEventListener("message", event => {
        if (typeof event.data !== "string" && window.__bench.firstByte === null) {
          window.__bench.firstByte = performance.now();
        }
      });
    }
  };
  const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "terminal", {
        value, writable: true, configurable: true, enumerable: true,
      });
      if (!(value && value.buffer && value.onData)) return;
      window.__terminal = value;
      value.onWriteParsed(async () => {
        const parsed = performance.now(), bench = window.__bench;
        if (bench.drawn === null && window.__screenText().includes("Who is playing?")) {
          await frame();
          bench.drawn = performance.now();
        }
        if (bench.keydown !== null) {
          const keydown = bench.keydown;
          bench.keydown = null;
          await frame();
          bench.redraws.push([parsed - keydown, performance.now() - keydown]);
        }
      });
    },
  });
  addEventListener("keydown", () => { window.__bench.keydown = performance.now(); }, true);
  window.__screenText = () => {
    const terminal = window.__terminal, buffer = terminal.buffer.active, lines = [];
    for (let row = 0; row < terminal.rows; row++) {
      const line = buffer.getLine(buffer.viewportY + row);
      lines.push(line ? line.translateToString(true) : "");
    }
    return lines.join("\\n");
  };
})();
"""

MATCH_KEYS = ("x", "7", "4", "8", "5", "9", "n")
"""One match: the chooser takes X, the first mover wins the top row, then the next match."""


SERVER = """
import asyncio, sys
from tictactoe.doors.web.server import GameServer
server = GameServer(["--no-save", "--delay", "0"], port=0, spare=sys.argv[1] == "spare")
asyncio.run(server.run(lambda address: print(address, flush=True)))
"""
"""`tictactoe serve --port 0 --no-save --delay 0`, with or without its spare game."""


@contextmanager
def serving(*, spare: bool) -> Iterator[tuple[str, int]]:
    """A server process: its address and its pid; stopped (SIGTERM) on the way out."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, "spare" if spare else "no-spare"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    address = server.stdout.readline().strip()
    assert re.fullmatch(r"http://\S+/", address), address
    try:
        yield address, server.pid
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)


def games(server: int) -> list[int]:
    """The server's game processes."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == server:
                found.append(int(entry.name))
    return found


def proc_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


PHASES = ("load", "open", "firstByte", "drawn")
"""Milestones of a tab's start, in milliseconds from the start of its navigation."""


async def open_tab(browser: Browser, url: str) -> tuple[Page, dict[str, float]]:
    context = await browser.new_context(viewport={"width": 1200, "height": 800})
    page = await context.new_page()
    await page.add_init_script(PROBE)
    await page.goto(url)
    await page.wait_for_function("window.__bench.drawn !== null", timeout=30_000, polling=10)
    phases: dict[str, float] = await page.evaluate(
        "names => Object.fromEntries(names.map(name => [name, window.__bench[name]]))",
        list(PHASES),
    )
    return page, phases


async def type_name(page: Page, name: str) -> None:
    await page.keyboard.type(name)
    await page.wait_for_function(
        "name => window.__screenText().includes('▊  ' + name + ' ')", arg=name, polling=20
    )


async def play(page: Page, matches: int) -> list[tuple[float, float]]:
    """A hot-seat series, one key at a time; (parsed, painted) milliseconds for each key."""
    await page.focus(".xterm-helper-textarea")
    await type_name(page, "Ada")
    await page.keyboard.press("Tab")
    await type_name(page, "Bob")
    await page.keyboard.press("Control+s")
    await page.wait_for_function("window.__screenText().includes('choose your mark')")
    await asyncio.sleep(0.5)
    await page.evaluate("window.__bench.redraws = []")
    for _ in range(matches):
        for key in MATCH_KEYS:
            await page.keyboard.press(key)
            await asyncio.sleep(0.25)
    redraws: list[tuple[float, float]] = await page.evaluate("window.__bench.redraws")
    return [(parsed, painted) for parsed, painted in redraws]


def spread(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return (
        f"median {statistics.median(ordered):7.1f}   p90 {p90:7.1f}   "
        f"min {ordered[0]:7.1f}   max {ordered[-1]:7.1f}   (n={len(ordered)})"
    )


async def measure_drawn(browser: Browser, *, spare: bool, tabs: int) -> list[dict[str, float]]:
    times = []
    with serving(spare=spare) as (address, _server):
        for _ in range(tabs):
            await asyncio.sleep(3)  # the spare (when kept) is started again and settled
            page, phases = await open_tab(browser, address)
            times.append(phases)
            await page.context.close()
    return times


async def measure_keys(browser: Browser, *, tabs: int, matches: int) -> dict[str, Any]:
    parsed: list[float] = []
    painted: list[float] = []
    rss: list[int] = []
    hwm: list[int] = []
    with serving(spare=True) as (address, server):
        for _ in range(tabs):
            await asyncio.sleep(3)
            page, _phases = await open_tab(browser, address)
            redraws = await play(page, matches)
            parsed += [p for p, _ in redraws]
            painted += [p for _, p in redraws]
            for pid in games(server):
                rss.append(proc_kib(pid, "VmRSS"))
                hwm.append(proc_kib(pid, "VmHWM"))
            await page.context.close()
        server_rss = proc_kib(server, "VmRSS")
    return {
        "parsed": parsed,
        "painted": painted,
        "rss": rss,
        "hwm": hwm,
        "keys_sent": tabs * matches * len(MATCH_KEYS),
        "server_rss": server_rss,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", type=int, default=10, help="tabs per measure (default: 10)")
    parser.add_argument("--matches", type=int, default=6, help="matches per tab (default: 6)")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("bench_web: needs Chromium (Debian: apt-get install chromium)")

    started = time.monotonic()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, args=FLAGS)
        print(
            f"Chromium {browser.version}, CPython {platform.python_version()},"
            f" {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start"
        )
        warm = await measure_drawn(browser, spare=True, tabs=args.tabs)
        cold = await measure_drawn(browser, spare=False, tabs=max(3, args.tabs // 2))
        keys = await measure_keys(browser, tabs=max(1, args.tabs // 5), matches=args.matches)
        await browser.close()

    print("\npage load to game drawn (ms), viewport 1200x800 (~133x38 cells)")
    for label, tabs in (("with the spare game    ", warm), ("without it (cold start)", cold)):
        print(f"  {label} {spread([tab['drawn'] for tab in tabs])}")
        medians = {name: statistics.median(tab[name] for tab in tabs) for name in PHASES}
        print(
            f"    medians: page loaded {medians['load']:.0f}, websocket open {medians['open']:.0f},"
            f" first screen bytes {medians['firstByte']:.0f}, drawn {medians['drawn']:.0f}"
        )
    print(f"\nkey to redraw (ms), {keys['keys_sent']} keys sent one at a time")
    print(f"  keydown to write parsed {spread(keys['parsed'])}")
    print(f"  ... and painted         {spread(keys['painted'])}")
    mib = [kib / 1024 for kib in keys["rss"]]
    peak = [kib / 1024 for kib in keys["hwm"]]
    print("\nmemory per game process (MiB): each tab's, and the spare")
    print(f"  VmRSS after its keys   median {statistics.median(mib):.1f}  max {max(mib):.1f}")
    print(f"  VmHWM (peak)           median {statistics.median(peak):.1f}  max {max(peak):.1f}")
    print(f"  the server itself, VmRSS {keys['server_rss'] / 1024:.1f}")
    print(
        "\ntargets: drawn <= 1500 ms:"
        f" {'met' if statistics.median(tab['drawn'] for tab in warm) <= 1500 else 'NOT met'}"
        f" (median with the spare); key median <= 50 ms:"
        f" {'met' if statistics.median(keys['painted']) <= 50 else 'NOT met'}"
    )
    print(f"load average {os.getloadavg()[0]:.2f} at the end; {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    asyncio.run(main())
