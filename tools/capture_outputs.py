"""Capture what kvcalc prints for a broad set of invocations, to show a refactor changes no output.

Usage (a dev tool, not part of the suite; runs ``python -m calc`` once per invocation):

    python tools/capture_outputs.py capture DIR      # write DIR/NNN.{cmd,out,err,rc}
    python tools/capture_outputs.py diff BASE NEW    # list the invocations whose output differs

Each invocation runs from the repository root with ``COLUMNS=120`` (rich's table width) so two
captures of the same code are byte-identical; ``TESTDATA`` in an invocation stands for
``tests/data`` (relative, so captures of two checkouts compare). The list covers every command in table, JSON, CSV and JSON-lines output, their
``--explain`` text, the errors of bad input, and every command's ``--help`` (its options,
defaults and help text). Two workers by default (``--jobs N``).
"""

# ruff: noqa: E501  (an invocation stays on one line, as a user types it)
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LOGS = "TESTDATA/engine_logs/"

_COMMANDS = (
    "memory models hardware capacity check cost sweep flops latency roofline import-hf speculate"
    " measure plot log train simulate plan score"
).split()

INVOCATIONS: tuple[str, ...] = (
    # memory
    "memory --model llama3-70b --ctx 8192 --batch 4 --hardware h100 --gpus 4 -f json",
    "memory --model llama3-70b --ctx 8192 --batch 4 --hardware h100 --gpus 4 --explain",
    "memory --model llama3-70b --ctx 8192 --batch 4 --hardware h100 --gpus 4",
    "memory --model llama3-8b --ctx 4096 --attention mla --kv-lora-rank 512 --qk-rope-head-dim 64 -f json",
    "memory --model llama3-8b --ctx 4096 --hardware h100 --engine sglang --mem-util 0.8 -f csv",
    "memory --model llama3.1-70b --ctx 8192 --hardware h100 --gpus 2",
    "memory --model deepseek-v3 --ctx 8192 --hardware h200 --gpus 8 --ep 8 -f json",
    "memory --model deepseek-v3 --ctx 8192 --hardware h200 --gpus 8 --ep 8 --explain",
    "memory --model qwen3-8b --ctx 4096 --hardware h100 --engine vllm --explain",
    "memory --model llama3-8b --ctx 0",
    # state-space and linear-attention hybrids (the mixer shapes), MLA what-ifs
    "memory --model jamba-v0.1 --ctx 8192 --hardware h100 --gpus 2 --explain",
    "memory --model nemotron-h-56b --ctx 8192 --hardware h100 --gpus 4 --explain",
    "capacity --model qwen3-next-80b-a3b --hardware h200 --tp 2 --ctx 8192 --explain",
    "latency --model qwen3.5-27b --hardware h100 --tp 2 --prompt 2048 --gen 128 --explain",
    "flops --model nemotron-3-nano-30b-a3b --prompt 1024 --hardware h100 --explain",
    "memory --model gemma-2-9b --ctx 8192 --attention gqa --kv-heads 2 -f json",
    "plot memory --model deepseek-v3 --hardware h200 --gpus 8 -f csv",
    "plot capacity -m qwen3-8b -H h100 --kv-heads 2 -f csv",
    "train -m nemotron-h-56b -H h100 --tp 4 --gpus 32 --ctx 4096 --explain",
    # capacity
    "capacity --model llama3-70b --hardware h100 --tp 4 --ctx 8192 --engine vllm -f json",
    "capacity --model llama3-70b --hardware h100 --tp 4 --ctx 8192 --shared-prefix 1000 --users 8 --explain",
    "capacity --model llama3-8b --hardware h100 --ctx 8192 --engine trtllm --max-model-len 8192 -f json",
    "capacity --model mixtral-8x7b --hardware h100 --tp 2 --ctx 4096 --engine trtllm --explain",
    "capacity --model qwen3-8b --hardware h100 --ctx 4096 --engine sglang -f json --explain",
    "capacity --model llama3-70b --hardware h100 --tp 4 --ctx 2000 --weight-dtype fp8 --kv-dtype fp8",
    "capacity --model deepseek-v3 --hardware h200 --tp 8 --ep 8 --ctx 8192 -f json",
    "capacity --model deepseek-v3 --hardware h200 --tp 8 --ep 8 --ctx 8192 --engine sglang --explain",
    "capacity --model nope --hardware h100 --ctx 10",
    # latency
    "latency --model llama3-70b --hardware h100 --tp 4 --prompt 1024 --gen 256 -f json",
    "latency --model llama3-70b --hardware h100 --tp 4 --prompt 1024 --gen 256",
    "latency --model llama3-70b --hardware h100 --tp 4 --prompt 1024 --gen 256 --explain",
    "latency --model llama3-8b --hardware h100 --allreduce nccl --moe-imbalance 1.0 --batch 8 -f json",
    "latency --model mixtral-8x7b --hardware h100 --tp 2 --ep 2 --batch 16 --explain",
    "latency --model llama3-8b --hardware h100 --tp 0",
    "latency --model llama3-8b --hardware h100 --calibration /nonexistent.yaml",
    # cost
    "cost --model llama3-70b --hardware h100 --tp 4 --ctx 4096 --max-tpot-ms 50 -f json",
    "cost --model llama3-70b --hardware h100 --tp 4 --ctx 4096 --capex-usd-per-gpu 30000 --years 5 -f json",
    "cost --model llama3-70b --hardware h100 --tp 4 --ctx 4096 --capex-usd-per-gpu 30000 --years 5 --explain",
    "cost --model llama3-8b --hardware h100 --ctx 4096 --usd-per-hour 2.5 --explain",
    "cost --model mixtral-8x7b --hardware h100 --tp 2 --ep 2 --ctx 4096 -f json",
    "cost --model llama3-8b --hardware h100 --ctx 1024 --price-basis bogus",
    # flops, roofline, speculate
    "flops --model llama3-70b --prompt 2048 --hardware h100 -f json",
    "flops --model llama3-8b --prompt 512 --tp 2",
    "flops --model llama3-8b --prompt 512 --hardware h100 --explain",
    "flops --model llama3-8b --prompt 512 -f jsonl",
    "roofline --model llama3-8b --hardware h100",
    "roofline --model llama3-8b --hardware h100 -f json",
    "speculate -m llama3-70b --draft llama3-8b -H h100 --gamma 4 --alpha 0.8 --tp 4 -f json",
    "speculate -m llama3-70b --draft llama3-8b -H h100 --tp 4 --gamma 4 --alpha 0.8",
    "speculate -m llama3-8b -H h100 --gamma 3 --alpha 0.7 --kv-dtype fp8",
    # simulate
    "simulate --model llama3-8b --hardware h100 --rate 5 --requests 100 --prompt 512 --gen 64 -f json",
    "simulate --model qwen3-8b --hardware h200 --engine vllm --rate 8 --requests 60 --prompt 1024 --gen 128",
    "simulate --model llama3-8b --hardware h100 --rate 5 --requests 50 --sweep-rate 1,5 --prompt 512 --gen 64",
    "simulate --model llama3-8b --hardware h100 --engine trtllm --rate 1 --requests 20 --prompt 9000 --gen 10",
    "simulate --model llama3-8b --hardware h100 --engine trtllm --rate 1 --requests 20 --prompt 512 --gen 10 --max-batched-tokens 8192 -f json",
    "simulate --model llama3-8b --hardware h100 --engine sglang --rate 4 --requests 40 --prompt 512 --gen 64 -f csv",
    # sweep
    "sweep -m llama3-8b -H h100,h200 --tp 1,2 --ctx 1024..8192:x2 -f csv",
    "sweep -m llama3-8b -H h100 --ctx 1024 --engine sglang --mem-util 0.8",
    "sweep -m llama3-8b,llama3-70b -H h100 --tp 1,4 --ctx 1024..8192:x2 --batch 1..256:x4 -f jsonl",
    "sweep -m llama3-8b -H h100 --tp 1 --ctx 1024 -f json",
    # plan
    "plan --model llama3-8b --prompt 1024 --gen 128 --rate 2 --ttft-p99 2s --tpot-p99 50ms -f json",
    "plan --model llama3-8b --prompt 1024 --gen 128 --rate 2 --ttft-p99 2s --tpot-p99 50ms --price-basis spot --hardware h100,a100-80g",
    "plan --model llama3-8b --prompt 1024 --gen 128 --rate 2 --ttft-p99 2s --tpot-p99 50ms --engine vllm,sglang,trtllm --hardware h100 --explain",
    "plan --model llama3-70b --rate 8 --prompt 1024 --gen 256 --ttft-p99 2s --tpot-p99 200ms --hardware h100 --top 1 -f jsonl",
    "plan --model llama3-70b --rate 8 --prompt 1024 --gen 256 --ttft-p99 2s --tpot-p99 200ms --hardware h100 --top 2 --explain",
    # train
    "train --model llama3-8b --hardware h100 --gpus 8 --ctx 4096 --global-batch 64 -f json",
    "train --model llama3-8b --hardware h100 --gpus 8 --ctx 4096 --global-batch 64 --capex-usd-per-gpu 30000",
    "train -m llama3-70b -H h100 --tp 8 --pp 4 --gpus 2048 --zero 1 --recompute selective --ctx 8192 --global-batch 2048 --tokens 15e12 --mfu 0.4 --explain",
    "train --model llama3-70b --hardware h100 --finetune qlora --ctx 4096 --recompute full",
    "train --model llama3-70b --hardware h100 --finetune lora --ctx 4096 --explain -f json",
    "train -m llama3-70b -H h100 --tp 8 --pp 4 --gpus 2048 -f json",
    "train -m mixtral-8x7b -H h100 --tp 2 --ep 4 --gpus 64 --ctx 4096 --global-batch 256 --explain",
    "train -m llama3-8b -H h100 --tp 2000000 --gpus 8",
    "train -m llama3-8b -H h100 --tp 8 --gpus 12",
    # log
    "log " + LOGS + "sglang-4xh100-qwen3-235b-fp8-tp4.log -f json",
    "log " + LOGS + "sglang-4xh100-qwen3-235b-fp8-tp4.log --explain",
    "log " + LOGS + "trtllm-h100-llama31-8b-fp8.log --model llama3.1-8b -f json",
    "log " + LOGS + "trtllm-h100-llama31-8b-fp8.log --model llama3.1-8b --explain",
    "log " + LOGS + "vllm-h100-mixtral-8x7b-tp2.log --explain",
    "log " + LOGS + "vllm-h100-mixtral-8x7b-tp2.log --hardware h100",
    "log " + LOGS + "vllm-80gb-llama3-8b-pr10511.log --model llama3-8b -f json",
    "log " + LOGS + "vllm-h100-deepseek-v2-lite.log -f json",
    "log " + LOGS + "vllm-h100-deepseek-v2-lite.log --model deepseek-v2 --explain",
    "log " + LOGS + "vllm-h100-gemma2-9b.log -f json",
    "log " + LOGS + "vllm-h100-llama31-8b-tp1-kvfp8.log -f json",
    "log " + LOGS + "vllm-h100-llama31-8b-tp2.log --explain",
    "log " + LOGS + "vllm-h100-llama31-8b-tp4.log -f json",
    "log " + LOGS + "vllm-h100-phi-4.log -f json",
    "log " + LOGS + "vllm-h100-qwen25-7b-tp1.log -f json",
    "log " + LOGS + "vllm-h100-qwen3-8b-tp1.log -f json",
    # score, check, plot, catalogues, import
    "score TESTDATA/bench_results/vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json --hardware a100-40g -f json",
    "score TESTDATA/bench_results/vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json --hardware a100-80g --tp 8 -f json",
    "score TESTDATA/bench_results/vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-04.json --hardware a100-80g --tp 8",
    "score TESTDATA/bench_results/sglang-2024-12_llama-3.3-70b_tp4_h200_online.jsonl --model llama3.3-70b --hardware h200 --tp 4 -f csv",
    "check examples/check-spec.yaml",
    "check examples/check-train.yaml -f json",
    "check examples/check-load.yaml",
    "plot capacity -m llama3-8b,llama3-70b -H h200 --tp 2 -f csv",
    "plot frontier -m llama3-70b -H h100",
    "plot memory --model llama3-70b --hardware h100 --gpus 4",
    "plot roofline --model llama3-8b --hardware h100 -f csv",
    "models -f csv",
    "models",
    "hardware -f json",
    "hardware",
    "import-hf TESTDATA/hf/mistral-7b-v0.1.json",
    *(name + " --help" for name in _COMMANDS),
    "--help",
)


def _run(index: int, line: str, out_dir: Path) -> None:
    """Run one invocation and write its command line, stdout, stderr and exit status."""
    # relative to the repository root (the working directory): two checkouts print the same
    args = line.replace("TESTDATA/", "tests/data/").split()
    env = dict(os.environ, COLUMNS="120", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "calc", *args], cwd=ROOT, env=env, capture_output=True, check=False
    )
    stem = out_dir / f"{index:03d}"
    stem.with_suffix(".cmd").write_text(line + "\n")
    stem.with_suffix(".out").write_bytes(done.stdout)
    stem.with_suffix(".err").write_bytes(done.stderr)
    stem.with_suffix(".rc").write_text(f"{done.returncode}\n")


def capture(out_dir: Path, jobs: int) -> None:
    """Write every invocation's output under out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(lambda item: _run(item[0], item[1], out_dir), enumerate(INVOCATIONS)))
    print(f"{len(INVOCATIONS)} invocations captured in {out_dir}")


def diff(base: Path, new: Path) -> int:
    """Print the invocations whose files differ between two captures; return how many."""
    names = sorted({p.name for p in base.iterdir()} | {p.name for p in new.iterdir()})
    differing = sorted(
        {
            name.split(".")[0]
            for name in names
            if not (base / name).exists()
            or not (new / name).exists()
            or (base / name).read_bytes() != (new / name).read_bytes()
        }
    )
    for stem in differing:
        cmd = base / f"{stem}.cmd"
        print(stem, cmd.read_text().strip() if cmd.exists() else "(missing)")
    print(f"{len(differing)} of {len(names) // 4} invocations differ")
    return len(differing)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    cap = sub.add_parser("capture")
    cap.add_argument("out_dir", type=Path)
    cap.add_argument("--jobs", type=int, default=2)
    dif = sub.add_parser("diff")
    dif.add_argument("base", type=Path)
    dif.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.action == "capture":
        capture(args.out_dir, args.jobs)
    else:
        sys.exit(1 if diff(args.base, args.new) else 0)


if __name__ == "__main__":
    main()
