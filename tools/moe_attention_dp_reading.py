"""The EP columns of TensorRT-LLM v1.0's throughput table under two readings of the page's MoE
``llm_options.yml`` (issue 20, nineteenth round; docs/step-time.md).

The page (NVIDIA/TensorRT-LLM@00f37686 docs/source/performance/perf-overview.md) prints, for
MoE models, ``enable_attention_dp: true`` indented under ``cuda_graph_config``. Two readings:

- **attention DP** (what kvcalc models, ``bench/validation_heldout.py``): the runs set it at the
  top level; kvcalc ``tp 1, ep N``: attention data parallel over the N GPUs, each rank its own
  batch, an all-gather / reduce-scatter around each MoE layer;
- **attention TP**: the key was lost (had TensorRT-LLM dropped an unknown key inside
  ``cuda_graph_config``); ``enable_attention_dp`` defaults to False, so attention is tensor
  parallel over the ``--tp N`` GPUs with the experts over ``--ep N``: kvcalc ``tp N, ep N``.

A cross-check from measurements: a later revision of the page
(NVIDIA/TensorRT-LLM@03e27c7d docs/source/developer-guide/perf-overview.md, a later release,
per-GPU output tokens/s) prints the option at the top level and labels its MoE layouts "DEP"
(attention DP with EP). Where both pages ran the same model, GPU count and format at 1000/1000,
``LATER_PAGE`` sets the later figure beside the 1.0 one: the release-to-release drift of the
one-GPU and dense columns against that of the EP columns, and kvcalc's own attention-DP /
attention-TP ratio on those EP rows (what the EP pairs would show had 1.0 run attention TP).

For each EP column it prints, per reading, the signed median and median |error| of the page's
rows (+ = kvcalc too fast), at TensorRT-LLM 1.0's defaults and at trtllm-bench's own settings
(``bench_settings``), as the held-out section does. Columns without EP (one GPU) are the same
under both readings and are left out. Nothing here is fitted; kvcalc's model is unchanged.

    .venv/bin/python tools/moe_attention_dp_reading.py
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


# The later page's figures [output tokens/s per GPU] × GPUs, beside the 1.0 page's row id at
# 1000/1000 (same model, GPU count, format): (1.0 row id, GPUs, later per-GPU figure)
LATER_PAGE = (
    ("qwen3-235b-a22b h100 TP1 EP8 fp8-tensor 1000/1000", 8, 1932),  # later: H100 DEP8 (FP8)
    ("llama4-maverick h200 TP1 EP8 fp8-tensor 1000/1000", 8, 4146),  # later: H200 DEP8 (FP8)
    ("qwen3-30b-a3b b200 TP1 nvfp4 1000/1000", 1, 26971),  # later: B200 TP1 (FP4)
    ("qwen3-30b-a3b gb200 TP1 nvfp4 1000/1000", 1, 22856),  # later: GB200 TP1 (FP4)
    ("llama3.3-70b b200 TP1 nvfp4 1000/1000", 1, 6920),  # later: B200 TP1 (FP4)
    ("llama3.3-70b gb200 TP1 nvfp4 1000/1000", 1, 7769),  # later: GB200 TP1 (FP4)
    ("llama3.3-70b h100 TP2 fp8-tensor 1000/1000", 2, 2209),  # later: H100 TP2 (FP8)
)


def ep_rows():
    """The held-out rows with experts over more than one GPU."""
    from validation_heldout import rows

    return [r for r in rows() if r.ep > 1]


def attention_tp(row):
    """The same row read as attention tensor parallel over its GPUs (``tp = ep``)."""
    return replace(row, tp=row.ep)


def summary(errors: list[float]) -> str:
    return f"{statistics.median(errors):+.1%} ({statistics.median(abs(e) for e in errors):.1%})"


def main() -> None:
    from validation_heldout import rows
    from validation_throughput import predict

    groups: dict[str, list[tuple[float, float, float, float]]] = {}
    for row in ep_rows():
        alt = attention_tp(row)
        errs = (
            predict(row).error,
            predict(alt).error,
            predict(row, bench=True).error,
            predict(alt, bench=True).error,
        )
        groups.setdefault(row.id.rsplit(" ", 1)[0], []).append(errs)
    print(
        "| EP column | rows | attention DP (tp 1, ep N) | attention TP (tp N, ep N) "
        "| trtllm-bench settings: attention DP | attention TP |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    every: list[tuple[float, float, float, float]] = []
    for name, errs in groups.items():
        every += errs
        cols = " | ".join(summary([e[i] for e in errs]) for i in range(4))
        print(f"| {name} | {len(errs)} | {cols} |")
    cols = " | ".join(summary([e[i] for e in every]) for i in range(4))
    print(f"| every EP row | {len(every)} | {cols} |")
    page = [(predict(r).error, predict(r, bench=True).error) for r in rows() if r.ep == 1]
    whole = [(e[0], e[1], e[2], e[3]) for e in every] + [(a, a, b, b) for a, b in page]
    cols = " | ".join(summary([e[i] for e in whole]) for i in range(4))
    print(f"| all held-out rows | {len(whole)} | {cols} |")


def later_page() -> None:
    from validation_heldout import rows
    from validation_throughput import predict

    by_id = {r.id: r for r in rows()}
    print()
    print(
        "| 1.0 row (1000/1000) | 1.0 page | later page (GPUs × per GPU) | later / 1.0 "
        "| kvcalc attention DP / attention TP |"
    )
    print("|---|---:|---:|---:|---:|")
    for rid, gpus, per_gpu in LATER_PAGE:
        row = by_id[rid]
        later = gpus * per_gpu
        ratio = (
            ""
            if row.ep == 1
            else (f"{predict(row).predicted / predict(attention_tp(row)).predicted:.2f}")
        )
        print(
            f"| {rid} | {row.published_output_tokens_per_s:,.0f} | {later:,} | "
            f"{later / row.published_output_tokens_per_s:.3f} | {ratio} |"
        )


if __name__ == "__main__":
    main()
    later_page()
