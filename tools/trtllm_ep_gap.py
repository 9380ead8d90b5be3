"""What the EP columns of TensorRT-LLM v1.0's throughput table leave kvcalc's prefill and decode
steps (issue 20, trtmoe round; docs/step-time.md): per EP column, the share of kvcalc's prefill
chunk and decode step [fraction of the step's time] that the expert-parallel gather/scatter and
the routed experts take, the factor on that one term alone that would close the column's
prefill and decode factors (``validation_heldout.gap_split``), and the column's signed median
with the gather/scatter 1.3x as long (the "30% context phase comm perf regression" NVIDIA
measured for the reduce + broadcast path on SM120, NVIDIA/TensorRT-LLM#7965).

Why the reduce + broadcast path: TensorRT-LLM's CUTLASS MoE under attention DP gathers and
scatters with each rank's own token count (``sizes``) unless ``use_dp_padding`` (set only on
SM120); with sizes, ``allgather`` is an NCCL group of one broadcast per rank and
``reducescatter`` one reduce per rank (``tensorrt_llm/_torch/distributed/ops.py``,
``cpp/tensorrt_llm/thop/reducescatterOp.cpp``; NVIDIA/TensorRT-LLM#3439), where kvcalc times
NCCL's all-gather and reduce-scatter (``gather.nccl``).

Nothing here is fitted and nothing in the model changes: a factor of 2-6 on the collectives, or
of 1.4-3 on the routed experts, is what each column would need, which no measurement supports.

    .venv/bin/python tools/trtllm_ep_gap.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

COMM = "ep_gather_scatter"
EXPERTS = "routed_experts"
SM120_COMM_REGRESSION = 1.3  # NVIDIA/TensorRT-LLM#7965: reduce + broadcast, context phase


def shares(step, name: str) -> float:
    """The part of ``step``'s time [fraction] its op ``name`` takes."""
    return sum(float(o.time_s) for o in step.ops if o.name == name) / float(step.time_s)


def ep_terms(row):
    """(result, prefill chunk, decode step) of an EP row as the held-out section times it: the
    chunk of k prompts on every rank, k from TensorRT-LLM's token budget beside the rank's
    decodes; the decode step at the whole concurrency and half the output's context."""
    from validation_throughput import deployment, predict

    from calc.deploy.steps import step_of
    from calc.reports.throughput import budget_prompts_per_chunk

    dep = deployment(row)
    res = predict(row)
    dp = dep.sharding.dp_attn
    k = int(budget_prompts_per_chunk(row.prompt, dep.engine_config.max_batched_tokens,
                                     res.concurrency // dp))  # fmt: skip
    chunk = step_of(dep, "expected", batch=k * dp, prompt=row.prompt)
    decode = step_of(dep, "expected", batch=res.concurrency, ctx=row.prompt + row.gen // 2)
    return res, chunk, decode


def scaled_error(res, pre_share: float, dec_share: float, factor: float) -> float:
    """``res``'s signed error with one term of its prefill and decode steps (their shares)
    ``factor`` times as long, the concurrency unchanged."""
    t = res.prefill_share * (1 + (factor - 1) * pre_share) + (1 - res.prefill_share) * (
        1 + (factor - 1) * dec_share)
    return res.predicted / t / res.row.published_output_tokens_per_s - 1


def columns() -> dict[str, dict]:
    from validation_heldout import gap_split, rows

    groups: dict[str, list] = {}
    for row in rows():
        if row.ep > 1:
            groups.setdefault(row.id.rsplit(" ", 1)[0], []).append(ep_terms(row))
    split = gap_split([res for terms in groups.values() for res, _, _ in terms])
    out = {}
    for name, terms in groups.items():
        _, _, _, p, d = split[name]
        c_p = statistics.median(shares(c, COMM) for _, c, _ in terms)
        c_d = statistics.median(shares(s, COMM) for _, _, s in terms)
        m_p = statistics.median(shares(c, EXPERTS) for _, c, _ in terms)
        m_d = statistics.median(shares(s, EXPERTS) for _, _, s in terms)
        out[name] = {
            "prefill": p, "decode": d, "comm_prefill": c_p, "comm_decode": c_d,
            "experts_prefill": m_p, "experts_decode": m_d,
            "comm_factor": (1 + (p - 1) / c_p, 1 + (d - 1) / c_d),
            "experts_factor": (1 + (p - 1) / m_p, 1 + (d - 1) / m_d),
            "median": statistics.median(r.error for r, _, _ in terms),
            "median_comm_1_3": statistics.median(
                scaled_error(r, shares(c, COMM), shares(s, COMM), SM120_COMM_REGRESSION)
                for r, c, s in terms),
        }  # fmt: skip
    return out


def main() -> None:
    print("| EP column | prefill x | decode x | gather/scatter share: prefill / decode "
          "| its factor to close: prefill / decode | routed experts share | its factor "
          "| signed median | gather/scatter 1.3x |")
    print("|---|---:|---:|---|---|---|---|---:|---:|")
    for name, c in columns().items():
        print(f"| {name} | {c['prefill']:.2f} | {c['decode']:.2f} | "
              f"{c['comm_prefill']:.2f} / {c['comm_decode']:.2f} | "
              f"{c['comm_factor'][0]:.1f} / {c['comm_factor'][1]:.1f} | "
              f"{c['experts_prefill']:.2f} / {c['experts_decode']:.2f} | "
              f"{c['experts_factor'][0]:.1f} / {c['experts_factor'][1]:.1f} | "
              f"{c['median']:+.1%} | {c['median_comm_1_3']:+.1%} |")


if __name__ == "__main__":
    main()
