"""The A100 40GB profile that the vLLM 0.8.3 benchmark files are scored on
(hardware_profiles/a100-40g.yaml; a validation-only profile until the newgpus round) times its
kernels by the a100-80g's measured curves, copied by tools/fit_kernels.py's COPIES rule (the
same GA100 die and HGX board; COPIES_SAME_LINKS keeps the collectives): the host time
per step of vLLM before 0.10.0 (calc.deploy.host_costs) was fitted on that profile, so a copy
that drifted from its sibling would move the constant's meaning (issue 20, host round)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from calc.data.registry import load_hardware

ROOT = Path(__file__).resolve().parent.parent
A100_40G = ROOT / "hardware_profiles" / "a100-40g.yaml"
COPY_BAND = (0.8, 1.25)  # tools/fit_kernels.py COPY_BAND: lower end × 0.8, upper end × 1.25


def _as_copied(curves):
    """``curves`` (a KernelCurves' dict) as COPIES writes a copy: every curve's provenance
    "copied", its band widened (lower end min(lo, 1) × 0.8, upper max(hi, 1) × 1.25, to 3
    decimals)."""
    if isinstance(curves, dict):
        out = {k: _as_copied(v) for k, v in curves.items()}
        if "band" in out and isinstance(out["band"], list):
            lo, hi = curves["band"]
            out["band"] = [round(min(lo, 1.0) * COPY_BAND[0], 3),
                           round(max(hi, 1.0) * COPY_BAND[1], 3)]  # fmt: skip
        if out.get("provenance") == "fitted":
            out["provenance"] = "copied"
        return out
    return curves


def test_a100_40g_curves_are_the_80g_curves_copied():
    sibling = dataclasses.asdict(load_hardware("a100-80g").kernels)
    copy = dataclasses.asdict(load_hardware(str(A100_40G)).kernels)
    assert copy["copied_from"] == "a100-80g" and copy["provenance"] == "copied"
    # the same die: 108 SMs (A100 whitepaper), the GEMM wave the same
    assert copy["sms"] == sibling["sms"] == 108
    want = _as_copied(sibling)
    want["copied_from"] = "a100-80g"
    assert copy == want
    # e.g. the bf16 GEMM curve's band [0.891, 1.105] becomes [0.891 × 0.8, 1.105 × 1.25] =
    # [0.713, 1.381]; its memory fraction (0.701 of the profile's own bandwidth) unchanged
    assert copy["gemm"]["bf16"]["band"] == [0.713, 1.381]
    assert copy["gemm"]["bf16"]["memory"] == sibling["gemm"]["bf16"]["memory"] == 0.701
    # the all-reduce curves kept (the same NVLink 3 through NVSwitch): the custom all-reduce
    # at 8 GPUs, latency 5.791 µs
    assert copy["allreduce"]["custom"]["segments"][8][0][0] == 5.791e-06


def test_a_curve_times_memory_at_the_40g_bandwidth():
    # the same decode step on both parts: the curves' memory term is a fraction of each
    # profile's own HBM bandwidth, so the weight-streaming GEMMs take longer on the 40GB part
    # (1,555 GB/s against 2,039 GB/s; datasheets) but by less than the bandwidth ratio 1.31,
    # the kernels' fixed costs being the same
    from calc.data.registry import load_model
    from calc.deploy.deployment import Deployment
    from calc.deploy.steps import step_of

    model = load_model("llama3.3-70b")
    t = {}
    for name, hw in (("40g", str(A100_40G)), ("80g", "a100-80g")):
        dep = Deployment.build(model, load_hardware(hw), tp=8)
        step = step_of(dep, "expected", batch=5.0, ctx=400.0)
        t[name] = sum(float(timing.time_s) for timing, op in zip(step.ops, step.raw, strict=True)
                      if op.name == "ffn")  # fmt: skip
    assert 1.0 < t["40g"] / t["80g"] < 2_039 / 1_555


def test_the_copy_rule_keeps_collectives_only_on_the_same_links():
    # tools/fit_kernels.py copied(): a copy on its sibling's own board (COPIES_SAME_LINKS:
    # a100-40g) keeps the all-reduce and gather curves; one on other links (h100-pcie: PCIe,
    # not NVSwitch) drops them. Both widen a band [0.891, 1.105] to [0.713, 1.381]
    # (0.891 × 0.8 = 0.7128, 1.105 × 1.25 = 1.38125)
    import pytest

    pytest.importorskip("pandas")
    from tests.scripts import load_script

    fk = load_script("tools/fit_kernels.py")
    stats = {"gemm.bf16": {"band_low": 0.891, "band_high": 1.105},
             "allreduce.nccl": {"band_low": 1.0, "band_high": 1.0}}  # fmt: skip
    fit = {"profile": "a100-80g", "sms": 108, "stats": stats,
           "allreduce": {"nccl": {2: [1]}}, "gather": {"all_gather": {2: [1]}}}  # fmt: skip
    same = fk.copied(fit, "a100-40g")
    assert same["allreduce"] == {"nccl": {2: [1]}} and same["gather"] == {"all_gather": {2: [1]}}
    assert "allreduce.nccl" in same["stats"]
    assert (same["stats"]["gemm.bf16"]["band_low"], same["stats"]["gemm.bf16"]["band_high"]) == (
        0.713, 1.381)
    other = fk.copied({**fit, "profile": "h100"}, "h100-pcie")
    assert other["allreduce"] == {} and other["gather"] == {}
    assert "allreduce.nccl" not in other["stats"]
