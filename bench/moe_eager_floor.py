"""The eager MoE prompt pass's host time: the published figures and what they move.

    python bench/moe_eager_floor.py
        the figures of docs/validation/moe_eager_prefill.yaml with their per-layer bounds, the
        silicon sample's SGLang and TensorRT-LLM MoE groups by half, and the held-out
        InferenceX #870 DeepSeek-R1 H200 runs, as shipped
    python bench/moe_eager_floor.py --what-if
        the same with SGLang's eager DeepSeek layer on Hopper at the lower end of the 16 x H100
        bracket (shipped, ``calc.deploy.host_costs.EAGER_MLA_MOE_LAYER_SM90_S``), at its upper
        end, and at the layer shipped before (1.355 ms): reported, not shipped

Issue 20, moefloor round (docs/step-time.md). Nothing here is fitted: the bounds are the
same-host vLLM / SGLang pair's of tenstorrent/tt-inference-server issue #356 (the
``ttis356-report-16xh100`` record); the what-if changes nothing but that layer on H100 / H200.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "validation" / "moe_eager_prefill.yaml"
HOPPER = ("h100", "h200")


def records() -> dict[str, dict]:
    """The file's records by id."""
    return {r["id"]: r for r in yaml.safe_load(DATA.read_text())["records"]}


def pair_bounds_ms(rec: dict) -> tuple[float, float]:
    """A same-host eager / graphed pair's bounds on the eager layer's host time [ms a layer]:
    (eager − graphed TTFT) / layers (the graphed run still pays its own pass) and eager TTFT /
    layers (the whole TTFT charged to the pass)."""
    layers = float(rec["layers"])
    eager, graphed = float(rec["ttft_ms_eager"]), float(rec["ttft_ms_graphed"])
    return (eager - graphed) / layers, eager / layers


def floor_spread(rec: dict, longest: int = 4096) -> float:
    """max / min of a sweep's TTFTs at prompts up to ``longest`` tokens, its one outlier (the
    1,024-token row of four requests, 2.1 x its neighbours) left out: how flat the floor is."""
    vals = [float(v) for p, v in rec["ttft_ms_by_prompt"].items()
            if int(p) <= longest and int(p) != 1024]  # fmt: skip
    return max(vals) / min(vals)


def groups(res) -> dict[tuple, dict]:
    """MoE rows by (engine, dtype, regime, half): signed median TTFT and TPOT errors, rows."""
    out: dict[tuple, dict] = {}
    for r in res:
        row = r.row
        if not row.moe:
            continue
        key = (row.backend, row.dtype, row.regime, "train" if row.training else "held")
        out.setdefault(key, {"ttft": [], "tpot": []})
        out[key]["ttft"].append(r.ttft_error)
        out[key]["tpot"].append(r.tpot_error)
    return out


def _patched_layer(per_layer_s: float):
    """SGLang's eager DeepSeek layer with the Hopper figure ``per_layer_s`` on H100 / H200, the
    shipped one elsewhere."""
    from calc.deploy.engines.sglang import SGLang

    shipped = SGLang.eager_prefill_layer_s

    def layer(self, dep) -> float:
        base = shipped(self, dep)
        on_hopper = dep.hardware is not None and dep.hardware.name in HOPPER
        return per_layer_s if (base > 0 and on_hopper) else base

    return shipped, layer


def _with_layer(per_layer_s: float | None, compute):
    """``compute()`` as shipped, or with the Hopper layer ``per_layer_s`` (restored after)."""
    from calc.deploy.engines.sglang import SGLang

    if per_layer_s is None:
        return compute()
    shipped, layer = _patched_layer(per_layer_s)
    SGLang.eager_prefill_layer_s = layer
    try:
        return compute()
    finally:
        SGLang.eager_prefill_layer_s = shipped


def run_groups(per_layer_s: float | None = None) -> dict[tuple, dict]:
    """The silicon sample's MoE groups (``groups``) as shipped or with the Hopper layer."""
    sys.path.insert(0, str(ROOT / "bench"))
    import validation_serving as vs

    return _with_layer(per_layer_s, lambda: groups(vs.results()))


def run_newruns(per_layer_s: float | None = None) -> dict[str, tuple]:
    """The held-out published DeepSeek runs on NVIDIA GPUs (bench/validation_newruns.py): their
    TTFT, TPOT and output tokens/s errors, as shipped or with the Hopper layer."""
    sys.path.insert(0, str(ROOT / "bench"))
    import validation_newruns as vn

    def compute():
        vn.results.cache_clear()
        return {r.run.id: (r.error("ttft"), r.error("tpot"), r.error("tokens"))
                for r in vn.results() if r.run.id.startswith("ix870")}  # fmt: skip

    try:
        return _with_layer(per_layer_s, compute)
    finally:
        vn.results.cache_clear()


def _line(key, g) -> str:
    return (
        f"| {' '.join(key)} | {len(g['ttft'])} | {statistics.median(g['ttft']):+.1%} | "
        f"{statistics.median(g['tpot']):+.1%} |"
    )


def main(argv: list[str]) -> None:
    recs = records()
    print("## Published figures (docs/validation/moe_eager_prefill.yaml)\n")
    low, high = pair_bounds_ms(recs["ttis356-report-16xh100"])
    print(
        f"16 x H100 vLLM (graphed) / SGLang (eager) at 128 tokens: {low:.2f} - {high:.2f} ms "
        "a layer"
    )
    print(
        f"16 x H100 SGLang sweep, 128-4,096 tokens: max / min TTFT "
        f"{floor_spread(recs['ttis356-sglang-16xh100']):.3f}"
    )
    pr = recs["sglang-pr12160-dsv3-extend"]
    print(f"PR #12160 eager extend: {pr['eager_pass_ms'] / pr['layers']:.3f} ms a layer\n")
    before = pr["eager_pass_ms"] / pr["layers"]
    layers = (
        [(f"Hopper {v:.2f} ms", v * 1e-3) for v in (high, before)] if "--what-if" in argv else []
    )
    cases = [("shipped", run_groups())] + [(n, run_groups(v)) for n, v in layers]
    for name, g in cases:
        print(f"### {name}\n\n| group | rows | TTFT signed | TPOT signed |\n|---|---:|---:|---:|")
        for key in sorted(g):
            if key[0] in ("sglang", "trtllm"):
                print(_line(key, g[key]))
        print()
    runs = [("shipped", run_newruns())] + [(n, run_newruns(v)) for n, v in layers]
    print(
        "### InferenceX #870 (held out): TTFT / TPOT / tokens/s signed; "
        + ", ".join(n for n, _ in runs)
        + "\n"
    )
    for rid in runs[0][1]:
        cells = [" / ".join(f"{e:+.1%}" for e in r[rid]) for _, r in runs]
        print(f"| {rid} | " + " | ".join(cells) + " |")
    for name, r in runs:
        print(
            f"{name}: median TTFT {statistics.median(v[0] for v in r.values()):+.1%}, "
            f"TPOT {statistics.median(v[1] for v in r.values()):+.1%}"
        )


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(sys.argv[1:])
