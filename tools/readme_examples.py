"""Writes the output of every example in README.md and docs/guide.md by running it, so the pages
show exactly what the commands print (a test re-runs this with --check).

An example is a block between ``<!-- example: NAME -->`` and ``<!-- /example -->``; ``EXAMPLES``
gives each NAME's shell commands. Each runs in bash in a scratch folder (``examples/`` and
``tests/data/`` of this checkout linked into it), with ``kvcalc`` this checkout's ``python -m
calc``, 120-column tables and unbuffered output (stderr where the terminal shows it); the block
is ``$ COMMAND`` then its output, for each command, with trailing spaces removed.

    python tools/readme_examples.py           # rewrite the blocks
    python tools/readme_examples.py --check   # exit 1 and show what is stale
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "docs/guide.md")
WIDTH = "120"

PLAN = ("kvcalc plan --model llama3-70b --rate 10 --prompt 2048 --gen 256 --ttft-p99 2s "
        "--tpot-p99 50ms -H h100,h200 --top 3")  # fmt: skip
SIM = ("kvcalc simulate -m llama3-70b -H h100 --tp 4 --prompt lognormal:2048:0.5 --gen 256 "
       "--ttft-slo 2s --tpot-slo 50ms")  # fmt: skip

# name -> the commands of one example, in order (a command may pipe into head, grep, ...)
EXAMPLES: dict[str, list[str]] = {
    "quick-start": [
        "kvcalc memory --model llama3-70b --ctx 8192 --hardware h100 --gpus 2 | tail -n 20"
    ],
    "memory": ["kvcalc memory --model llama3.1-70b --ctx 8192 --hardware h100 --gpus 2"],
    "latency": [
        "kvcalc latency --model llama3-70b --hardware h100 --tp 4 --prompt 1024 --gen 256 -f json"
        " | grep -E '\"(ttft_s|tpot_s|e2e_s|output_tokens_per_s|output_tokens_per_s_per_gpu)\"'"
    ],
    "cost": [
        "kvcalc cost --model llama3-70b --hardware h100 --tp 4 --ctx 4096 --prompt 1024 "
        "--batch 32 --max-tpot-ms 25 -f json | grep -E '\"(usd_per_gpu_hour|max_concurrency|"
        "usd_per_million_output_tokens|usd_per_million_output_tokens_max_batch|target_batch|"
        "usd_per_million_output_tokens_target|serving_concurrency|"
        "usd_per_million_output_tokens_serving)\"'"
    ],
    "check": ["kvcalc check examples/check-spec.yaml --junit kvcalc-junit.xml", "echo $?"],
    "plan": [PLAN],
    "plan-mlperf": [
        "kvcalc plan --model llama3-70b --rate 8 --prompt 1024 --gen 256 --ttft-p99 2s "
        "--tpot-p99 200ms --hardware h100 --top 1 -f jsonl"
    ],
    "plan-report": [f"{PLAN} --report plan.html -f csv | cut -d, -f1-8"],
    "simulate": [f"{SIM} --rate 5 | grep -E '(ttft|tpot)_p(50|99)_s|served_requests|saturated'"],
    "simulate-curve": [f"{SIM} --sweep-rate 2:10:2 | tail -n 8"],
    "sweep": [
        "kvcalc sweep -m llama3-8b,llama3-70b -H h100 --tp 1,4 --ctx 1024..8192:x2 "
        "--batch 1..256:x4 -f jsonl -o grid.jsonl",
        "head -n 1 grid.jsonl",
    ],
    "sweep-csv": [
        "kvcalc sweep -m llama3-8b,llama3-70b -H h100 --tp 1,4 --ctx 1024..131072:x2 "
        "--batch 1..256:x4 -f csv -o grid.csv",
        "head -2 grid.csv",
    ],
    "plot-capacity-csv": [
        "kvcalc plot capacity -m llama3-8b,llama3-70b -H h200 --tp 2 -f csv | head -3"
    ],
    "plot-frontier": ["kvcalc plot frontier -m llama3-70b -H h100 | tail -n 12"],
    "plot-memory": ["kvcalc plot memory --model llama3-70b --hardware h100 --gpus 4"],
    "models": ["kvcalc models -f csv | head -3"],
    "capacity": [
        "kvcalc capacity --model llama3-70b --hardware h100 --tp 4 --ctx 2000 --weight-dtype "
        "fp8 --kv-dtype fp8 | tail -n 14"
    ],
    "speculate": [
        "kvcalc speculate -m llama3-70b --draft llama3-8b -H h100 --tp 4 --gamma 4 --alpha 0.8"
        " | tail -n 8"
    ],
    "import-hf": [
        "kvcalc import-hf tests/data/hf/mistral-7b-v0.1.json -o mistral.yaml",
    ],
    "check-load-spec": ["sed -n '/^deployments:/,/max_tpot_p99_s/p' examples/check-load.yaml"],
    "check-load": [
        "kvcalc check examples/check-load.yaml | grep -E 'server|overloaded'",
    ],
    "log": [
        "kvcalc log tests/data/engine_logs/vllm-h100-mixtral-8x7b-tp2.log --hardware h100"
        " | tail -n 13"
    ],
    "train-explain": [
        "kvcalc train -m llama3-70b -H h100 --tp 8 --pp 4 --gpus 2048 --zero 1 --recompute "
        "selective --ctx 8192 --global-batch 2048 --tokens 15e12 --mfu 0.4 --explain | tail -n 9"
    ],
    "train": [
        "kvcalc train --model llama3-70b --hardware h100 --finetune qlora --ctx 4096 "
        "--recompute full | head -n 24"
    ],
}

_BLOCK = re.compile(r"(<!-- example: ([\w-]+) -->\n)(.*?)(<!-- /example -->)", re.S)


SEPARATOR = "@@kvcalc-example-output-ends@@"


def run(commands: list[str], scratch: Path) -> str:
    """The block: each command after ``$ `` and what it prints. The commands run in one bash
    (``echo $?`` sees the command before it), each one's output cut at a separator line."""
    env = {
        **os.environ,
        "COLUMNS": WIDTH,
        "PYTHONUNBUFFERED": "1",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": str(ROOT),  # this checkout's calc, whatever is installed
        "LC_ALL": "C.UTF-8",
    }
    script = [f'kvcalc() {{ {shlex.quote(sys.executable)} -m calc "$@"; }}']
    for cmd in commands:  # keep the command's exit status for the next one
        script.append(f"{{ {cmd}\n}} 2>&1; __rc=$?; printf '\\n{SEPARATOR}\\n'; (exit $__rc)")
    r = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    outputs = r.stdout.split(f"\n{SEPARATOR}\n")
    out = ["```console"]
    for cmd, text in zip(commands, outputs, strict=False):
        out.append(f"$ {cmd}")
        out += [line.rstrip() for line in text.rstrip("\n").splitlines()] if text.strip() else []
    out.append("```")
    return "\n".join(out) + "\n"


def scratch_folder() -> tempfile.TemporaryDirectory:
    tmp = tempfile.TemporaryDirectory(prefix="kvcalc-examples-")
    (Path(tmp.name) / "examples").symlink_to(ROOT / "examples")
    (Path(tmp.name) / "tests").mkdir()
    (Path(tmp.name) / "tests" / "data").symlink_to(ROOT / "tests" / "data")
    return tmp


def outputs(names, scratch: Path) -> dict[str, str]:
    """Every example's block, run a few at a time (each is its own processes)."""
    from concurrent.futures import ThreadPoolExecutor

    unknown = sorted(set(names) - set(EXAMPLES))
    if unknown:
        raise KeyError(f"examples not in EXAMPLES (tools/readme_examples.py): {unknown}")
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        blocks = pool.map(lambda n: run(EXAMPLES[n], scratch), names)
    return dict(zip(names, blocks, strict=True))


def render(page: str, blocks: dict[str, str]) -> str:
    """``page`` with every example block replaced by its commands' output."""
    return _BLOCK.sub(lambda m: m.group(1) + blocks[m.group(2)] + m.group(4), page)


def _names(texts) -> list[str]:
    return list(dict.fromkeys(m.group(2) for t in texts for m in _BLOCK.finditer(t)))


def pages() -> list[Path]:
    return [ROOT / p for p in PAGES if (ROOT / p).exists()]


def stale() -> list[str]:
    """The unified diff of every page whose examples are not what the commands print, and
    the examples defined but shown nowhere."""
    texts = {path: path.read_text() for path in pages()}
    names = _names(texts.values())
    with scratch_folder() as scratch:
        blocks = outputs(names, Path(scratch))
    diffs: list[str] = []
    for path, page in texts.items():
        new = render(page, blocks)
        if new != page:
            diffs += difflib.unified_diff(
                page.splitlines(), new.splitlines(), str(path), "what the commands print",
                lineterm="", n=1,
            )  # fmt: skip
    unused = sorted(set(EXAMPLES) - set(names))
    if unused:
        diffs.append(f"examples defined but shown nowhere: {', '.join(unused)}")
    return diffs


def main(argv: list[str]) -> int:
    if "--check" in argv:
        diffs = stale()
        if diffs:
            print("\n".join(diffs))
            print("stale: run python tools/readme_examples.py", file=sys.stderr)
            return 1
        return 0
    texts = {path: path.read_text() for path in pages()}
    with scratch_folder() as scratch:
        blocks = outputs(_names(texts.values()), Path(scratch))
    for path, page in texts.items():
        new = render(page, blocks)
        if new != page:
            path.write_text(new)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
