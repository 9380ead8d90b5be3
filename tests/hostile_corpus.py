"""Shared by the hostile tests: one small, valid invocation of every command that writes its
result to stdout (``kvcalc measure`` is left out: it runs real kernels for seconds)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
SPEC = """deployments:
  - name: d1
    model: llama3-8b
    hardware: h100
    workload: {ctx: 1024, batch: 1}
    requirements: {must_fit: true}
"""

# a real vllm bench serve result (200 requests at 1 request/s: tests/data/bench_results/README.md)
SCORED = "vllm-0.8.3_llama-3.3-70b_tp8_pp1_a100-40g_sharegpt_qps-01.json"
NAMES = ("memory", "models", "hardware", "capacity", "check", "cost", "sweep", "flops", "latency",
         "roofline", "import-hf", "speculate", "plot", "log", "train", "simulate", "plan", "score",
         "help", "version")  # fmt: skip


def every_command(tmp: Path) -> dict[str, tuple[str, ...]]:
    """Command name -> its arguments (files it needs written under ``tmp``)."""
    spec = tmp / "spec.yaml"
    spec.write_text(SPEC)
    log = DATA / "engine_logs" / "vllm-h100-llama31-8b-tp1.log"
    return {
        "memory": ("memory", "-m", "llama3-8b", "--ctx", "128"),
        "models": ("models",),
        "hardware": ("hardware",),
        "capacity": ("capacity", "-m", "llama3-8b", "-H", "h100", "--ctx", "128"),
        "check": ("check", str(spec)),
        "cost": ("cost", "-m", "llama3-8b", "-H", "h100", "--ctx", "128"),
        "sweep": ("sweep", "-m", "llama3-8b", "-H", "h100", "--ctx", "128..1024:x2", "-f", "csv"),
        "flops": ("flops", "-m", "llama3-8b", "--prompt", "64"),
        "latency": ("latency", "-m", "llama3-8b", "-H", "h100"),
        "roofline": ("roofline", "-m", "llama3-8b", "-H", "h100"),
        "import-hf": ("import-hf", str(DATA / "hf" / "mistral-7b-v0.1.json")),
        "speculate": ("speculate", "-m", "llama3-70b", "-H", "h100", "--draft", "llama3-8b",
                      "--gamma", "4", "--alpha", "0.7"),
        "plot": ("plot", "memory", "-m", "llama3-8b"),
        "log": ("log", str(log)),
        "train": ("train", "-m", "llama3-8b", "-H", "h100", "--ctx", "128"),
        "simulate": ("simulate", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "-n", "5"),
        "plan": ("plan", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "--prompt", "64",
                 "--gen", "4", "--ttft-p99", "1s", "--tpot-p99", "1s", "--method", "analytic"),
        "score": ("score", str(DATA / "bench_results" / SCORED), "-m", "llama3.3-70b", "-H",
                  "h100", "--tp", "8"),
        "help": ("--help",),
        "version": ("--version",),
    }  # fmt: skip
