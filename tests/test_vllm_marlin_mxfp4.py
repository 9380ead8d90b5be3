"""vLLM's Marlin MXFP4 MoE for gpt-oss's experts on H100 and H200 (``VLLM_MXFP4_USE_MARLIN=1``,
``--moe-backend marlin`` from 0.19.0): its runner curve ``moe_runner.vllm.marlin.mxfp4``
(fitted to vLLM 0.24.0's compressed-tensors Marlin MXFP4 rows, the same ``MarlinExperts``), its
launch by release, and InferenceX's H100/H200 gpt-oss runs that set it
(tools/silicon_moe_backend_rows.py). Issue 20, marlinfp4 round."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest

from calc.deploy.rates import curve_of
from calc.reports.launch_flags import launch_commands
from tests.test_engine_commands import check
from tests.test_vllm_mxfp8_moe import _dep, _experts

ROOT = Path(__file__).resolve().parent.parent
ENV = ("VLLM_MXFP4_USE_MARLIN", "1")


@pytest.mark.parametrize("hw", ["h100", "h200"])
def test_marlin_on_hopper_takes_its_own_curve(hw):
    dep = _dep(hw=hw, backend="marlin")
    op, _, r = _experts(dep, batch=1, prompt=8192)
    assert curve_of(op, r)[0] == "moe@vllm.mxfp4.marlin"
    assert not dep.engine_model.moe_runner(dep).stand_in  # its own rows: no stand-in note
    op, _, r = _experts(_dep(hw=hw, backend=None), batch=1, prompt=8192)
    assert curve_of(op, r)[0] == "moe@vllm.mxfp4"  # unstated: the triton_kernels MoE's curve


def test_marlin_elsewhere_is_timed_by_the_formats_curve():
    # B200: Marlin runs MXFP4 there too (RUNS), but only H100/H200 have its curve: the format's
    # (trtllm-gen) curve stands in, and the rule says so
    dep = _dep(hw="b200", backend="marlin")
    assert dep.engine_model.moe_runner(dep).stand_in
    op, _, r = _experts(dep, batch=1, prompt=8192)
    assert curve_of(op, r)[0] == "moe@vllm.mxfp4"


def test_a_hopper_profile_without_the_curve_says_it_stands_in():
    # H100 PCIe is SM 9.0 too, but tools/fit_kernels.py's COPIES rule does not copy runner
    # blocks: its profile has no marlin curve, so the format's (Triton) curve times the stated
    # Marlin and the rule says so (read from the profile, not from a list of GPUs)
    dep = _dep(hw="h100-pcie", backend="marlin")
    runner = dep.engine_model.moe_runner(dep)
    assert runner.stand_in and "stands in" in runner.why
    op, _, r = _experts(dep, batch=1, prompt=8192)
    assert curve_of(op, r)[0] == "moe@vllm.mxfp4"


def test_an_8k_prompt_pass_is_the_compute_fractions_ratio_slower():
    # H100, one 8,192-token prompt: compute-bound, so the two curves' times go as their compute
    # fractions of the bf16 peak: Triton 0.5205 / Marlin 0.211 = 2.47 (the fixed and per-route
    # terms move it a little: kvcalc 293.4 / 121.9 ms = 2.41)
    _, marlin, _ = _experts(_dep(hw="h100", backend="marlin"), batch=1, prompt=8192)
    _, triton, _ = _experts(_dep(hw="h100", backend=None), batch=1, prompt=8192)
    assert 2.3 < marlin / triton < 2.6


@pytest.mark.parametrize(("release", "env", "flag"), [
    ("0.15.1", True, False),  # before the flag: the variable (quantization/mxfp4.py)
    ("0.18.0", True, False),  # 0.17-0.18's --moe-backend does not reach the MXFP4 method
    ("0.19.0", False, True),  # fused_moe/oracle/mxfp4.py map_mxfp4_backend: "marlin"
    ("0.33.0", False, True),  # envs.py has no VLLM_MXFP4_USE_MARLIN any more
])  # fmt: skip
def test_launch_by_release(release, env, flag):
    dep = _dep(hw="h100", backend="marlin", version=release)
    cmds = launch_commands(dep)
    check([replace(c, env=()) for c in cmds], dep, dep.sharding.gpus)
    assert (ENV in cmds[0].env) is env
    assert ("--moe-backend marlin" in cmds[0].text()) is flag


def test_inferencex_hopper_gptoss_rows_are_marlin_from_pr327():
    # InferenceX#327 (merged 2026-01-02) set the variable in the H100/H200 scripts: every
    # marlin row of the mapping is an H100 or H200 gpt-oss vLLM run measured on or after it
    with (ROOT / "docs" / "validation" / "aiconfigurator_silicon_moe_backend.csv").open() as f:
        rows = [r for r in csv.DictReader(f) if r["moe_backend"] == "marlin"]
    assert rows
    assert all(r["measured"] >= "2026-01-02" for r in rows)
    assert all("gpt_oss_120b" in r["id"] and ("_h100_sxm_" in r["id"] or "_h200_sxm_" in r["id"])
               for r in rows)  # fmt: skip
