"""Time and peak memory of reading start-up logs with the engine wing's readers
(``calc.deploy.engines.fromlog.read_log``, what ``kvcalc log`` runs), on the inputs issue 26
found quadratic: an 80 KB log of one long config line, a 512 KB line, and a 48 MB log of short
lines, each with a real start-up log's lines at the end; plus 1x/2x/4x sizes of each to show
the growth is linear.

Run: python bench/log_bench.py        (each case in a fresh interpreter: its wall time and its
peak RSS, VmHWM of /proc/self/status, which includes the interpreter's and kvcalc's own
~40-60 MiB; Linux)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAIL = (ROOT / "tests" / "data" / "engine_logs" / "vllm-h100-llama31-8b-tp1.log").read_bytes()

CHILD = r"""
import json, sys, time
from calc.deploy.engines.fromlog import read_log
t = time.perf_counter()
with open(sys.argv[1], "rb") as fh:
    facts = read_log(fh)
wall = time.perf_counter() - t
hwm = [x for x in open("/proc/self/status") if x.startswith("VmHWM:")][0].split()[1]
print(json.dumps({"s": wall, "rss_mib": int(hwm) / 1024, "tokens": facts.printed.get("tokens")}))
"""


def cases(scale: int) -> dict[str, bytes]:
    config = b"INFO with config: " + b"model='x', " * (8_000 * scale) + b"\n"  # ~80 KB x scale
    long_line = b"non-default args: {'" + b"a" * (512 * 1024 * scale) + b"\n"
    short = b"(EngineCore pid=1) INFO 09-20 10:00:00 [core.py:1] step 1,234 done, 58.11 GiB\n"
    many = short * ((48 * 2**20 * scale) // len(short))
    return {"80 KB config line": config, "512 KB line": long_line, "48 MB of short lines": many}


def run(raw: bytes) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".log") as f:
        f.write(raw + TAIL)
        f.flush()
        out = subprocess.run([sys.executable, "-c", CHILD, f.name], capture_output=True,
                             text=True, check=True, cwd=ROOT)  # fmt: skip
    return json.loads(out.stdout)


def main() -> int:
    print("| Input | Size | Read (s) | Peak RSS (MiB) | Pool read |")
    print("|---|---|---|---|---|")
    for scale in (1, 2, 4):
        for name, raw in cases(scale).items():
            r = run(raw)
            print(f"| {name} × {scale} | {len(raw) / 2**20:,.1f} MiB | {r['s']:.2f} | "
                  f"{r['rss_mib']:.0f} | {r['tokens']:,} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
