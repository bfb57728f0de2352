"""The game served to a real Chromium: time to the game drawn, key-to-redraw, memory per tab.

    uv run python benchmarks/bench_web.py              # 10 tabs, 6 matches of keys: ~2 minutes
    uv run python benchmarks/bench_web.py --tabs 4     # rougher

It runs `tictactoe.web.GameServer` in this process (any free port, `--no-save --delay 0`) and
drives the system's Chromium with Playwright. Every time is taken inside the page, with
`performance.now()`, so Playwright's own round trips are not counted:

- drawn: from the start of the navigation to the moment xterm.js has parsed the write that puts
  the new-game screen ("Who is playing?") in its buffer, plus one animation frame (the paint).
  Measured with the server's spare game (the normal case: each tab after the first finds one
  started ahead) and without it (`spare=False`: the game process starts when the tab connects).
- key to redraw: from the key's `keydown` in the page to the first write from the server that
  xterm.js parses after it, plus one animation frame. Keys are a hot-seat series typed one at a
  time, 0.25 s apart: for each match the mark (`x`), five moves (7 4 8 5 9, a win on the top row)
  and `n` for the next match.
- memory: VmRSS and VmHWM of each tab's game process after its keys, from /proc.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, async_playwright

from tictactoe.web import GameServer

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
  window.__bench = { drawn: null, keydown: null, redraws: [] };
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


def proc_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


async def open_tab(browser: Browser, url: str) -> tuple[Page, float]:
    context = await browser.new_context(viewport={"width": 1200, "height": 800})
    page = await context.new_page()
    await page.add_init_script(PROBE)
    await page.goto(url)
    await page.wait_for_function("window.__bench.drawn !== null", timeout=30_000, polling=10)
    drawn: float = await page.evaluate("window.__bench.drawn")
    return page, drawn


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


async def measure_drawn(browser: Browser, *, spare: bool, tabs: int) -> list[float]:
    server = GameServer(["--no-save", "--delay", "0"], port=0, spare=spare)
    ready = asyncio.Event()
    serving = asyncio.create_task(server.run(lambda _address: ready.set()))
    await ready.wait()
    times = []
    try:
        for _ in range(tabs):
            await asyncio.sleep(3)  # the spare (when kept) is started again and settled
            page, drawn = await open_tab(browser, server.address)
            times.append(drawn)
            await page.context.close()
    finally:
        server.request_exit()
        await serving
    return times


async def measure_keys(browser: Browser, *, tabs: int, matches: int) -> dict[str, Any]:
    server = GameServer(["--no-save", "--delay", "0"], port=0)
    ready = asyncio.Event()
    serving = asyncio.create_task(server.run(lambda _address: ready.set()))
    await ready.wait()
    parsed: list[float] = []
    painted: list[float] = []
    rss: list[int] = []
    hwm: list[int] = []
    try:
        for _ in range(tabs):
            await asyncio.sleep(3)
            page, _drawn = await open_tab(browser, server.address)
            redraws = await play(page, matches)
            parsed += [p for p, _ in redraws]
            painted += [p for _, p in redraws]
            for session in server.sessions:
                if session.websocket is not None and session.pid is not None:
                    rss.append(proc_kib(session.pid, "VmRSS"))
                    hwm.append(proc_kib(session.pid, "VmHWM"))
            await page.context.close()
        server_rss = proc_kib(os.getpid(), "VmRSS")
    finally:
        server.request_exit()
        await serving
    return {
        "parsed": parsed,
        "painted": painted,
        "rss": rss,
        "hwm": hwm,
        "keys_sent": tabs * matches * len(MATCH_KEYS),
        "bench_rss": server_rss,
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
    print(f"  with the spare game     {spread(warm)}")
    print(f"  without it (cold start) {spread(cold)}")
    print(f"\nkey to redraw (ms), {keys['keys_sent']} keys sent one at a time")
    print(f"  keydown to write parsed {spread(keys['parsed'])}")
    print(f"  ... and painted         {spread(keys['painted'])}")
    mib = [kib / 1024 for kib in keys["rss"]]
    peak = [kib / 1024 for kib in keys["hwm"]]
    print("\nmemory per tab's game process (MiB)")
    print(f"  VmRSS after its keys   median {statistics.median(mib):.1f}  max {max(mib):.1f}")
    print(f"  VmHWM (peak)           median {statistics.median(peak):.1f}  max {max(peak):.1f}")
    print(
        f"  (the server itself, with this benchmark and Playwright: {keys['bench_rss'] / 1024:.1f})"
    )
    print(
        f"\ntargets: drawn <= 1500 ms: {'met' if statistics.median(warm) <= 1500 else 'NOT met'}"
        f" (median with the spare); key median <= 50 ms:"
        f" {'met' if statistics.median(keys['painted']) <= 50 else 'NOT met'}"
    )
    print(f"load average {os.getloadavg()[0]:.2f} at the end; {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    asyncio.run(main())
