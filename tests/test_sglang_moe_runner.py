"""SGLang's fused-MoE runner for block-fp8 experts (issue 20, sgrunner round): its
``--moe-runner-backend auto`` by release, GPU and architecture (calc/deploy/engines/sglang/
moe_runner.py, read from the wheels), a stated runner winning, and the SM 10.x GPUs' Triton
curves (``moe_runner.sglang.triton.fp8_block``: B200, then GB200, B300, GB300 in the sgtriton
round) timing the architectures SGLang runs on Triton."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.sglang.moe_runner import trtllm_gen_architectures
from calc.deploy.rates import curve_of
from calc.deploy.steps import step_of
from calc.errors import InvalidInputError
from calc.formulas import kernel_curves as K
from calc.reports.launch_flags import launch_commands
from tests.test_engine_commands import check


def _dep(model="minimax-m2.5", hw="b200", version=None, fmt="fp8-block128", backend=None,
         tp=4, ep=1, a2a=None):  # fmt: skip
    settings = EngineSettings(name="sglang", version=version, moe_backend=backend, moe_a2a=a2a)
    return Deployment.build(load_model(model), load_hardware(hw), tp=tp, ep=ep,
                            weight_dtype=fmt, engine=settings)  # fmt: skip


def _runner(dep):
    out = dep.engine_model.moe_runner(dep)
    return None if out is None else out.name


def _experts_curve(dep):
    step = step_of(dep, batch=16, ctx=2048)
    op = next(o for o in step.raw if o.name == "routed_experts")
    return curve_of(op, step.rates)[0]


@pytest.mark.parametrize(
    ("model", "before", "since"),
    [
        # DeepSeek-V3/R1 (DeepseekV3ForCausalLM): 0.5.4 only modelopt_fp4, 0.5.5 fp8 too
        ("deepseek-r1", "0.5.4", "0.5.5"),
        ("kimi-k2", "0.5.4", "0.5.5"),  # the DeepseekV3 architecture
        ("qwen3-235b-a22b", "0.5.5", "0.5.6"),  # Qwen3MoeForCausalLM: 0.5.6
        ("qwen3-next-80b-a3b", "0.5.5", "0.5.6"),
        ("qwen3.5-397b-a17b", "0.5.8", "0.5.9"),  # Qwen3_5MoeForConditionalGeneration: 0.5.9
        ("glm-5", "0.5.8", "0.5.9"),  # GlmMoeDsaForCausalLM joins the DeepSeek list at 0.5.9
        ("deepseek-v3.2", "0.5.11", "0.5.12"),  # DeepseekV32ForCausalLM: 0.5.12
    ],
)
def test_trtllm_gen_by_release_on_b200(model, before, since):
    assert _runner(_dep(model, version=before, tp=8)) == "triton"
    assert _runner(_dep(model, version=since, tp=8)) == "flashinfer_trtllm"
    assert _runner(_dep(model, version="0.5.23", tp=8)) == "flashinfer_trtllm"


@pytest.mark.parametrize("model", ["minimax-m2.5", "mixtral-8x22b", "glm-4.6", "deepseek-v2"])
def test_other_architectures_run_triton_on_b200(model):
    # no SM100 override for their block-fp8 experts in any release read (0.5.4-0.5.23)
    assert _runner(_dep(model, version="0.5.23", tp=8)) == "triton"


def test_hopper_runs_triton_and_deepep_deep_gemm():
    # no override off SM 10.x: fp8.py create_moe_runner's auto is Triton
    assert _runner(_dep("deepseek-r1", hw="h200", version="0.5.23", tp=8)) == "triton"
    # auto under --moe-a2a-backend deepep: DeepGEMM, on either GPU
    for hw in ("h200", "b200"):
        dep = _dep("deepseek-r1", hw=hw, version="0.5.23", tp=8, ep=8, a2a="deepep")
        assert _runner(dep) == "deep_gemm"


def test_only_block_fp8_experts_are_ruled_on():
    assert _runner(_dep("deepseek-r1", fmt="nvfp4", tp=8)) is None
    assert _runner(_dep("llama3.1-8b", tp=1)) is None  # no routed experts


def test_the_family_lists_grow_by_release():
    assert trtllm_gen_architectures("0.5.4") == ()
    assert trtllm_gen_architectures("0.5.5") == ("DeepseekV3ForCausalLM",)
    assert "Qwen3_5MoeForConditionalGeneration" not in trtllm_gen_architectures("0.5.8")
    assert "Qwen3_5MoeForConditionalGeneration" in trtllm_gen_architectures("0.5.9")
    assert "MiniMaxM2ForCausalLM" not in trtllm_gen_architectures("0.5.23")


def test_the_curve_follows_the_runner():
    # B200: the Triton curve for MiniMax-M2.5, the trtllm-gen one for Qwen3.5; before the
    # round both took moe@sglang.fp8_block (the trtllm-gen rows)
    assert _experts_curve(_dep("minimax-m2.5")) == "moe@sglang.fp8_block.triton"
    assert _experts_curve(_dep("qwen3.5-397b-a17b")) == "moe@sglang.fp8_block"
    # a stated runner wins over the rule, either way
    assert _experts_curve(_dep("qwen3.5-397b-a17b", backend="triton")) == (
        "moe@sglang.fp8_block.triton"
    )
    assert _experts_curve(_dep("minimax-m2.5", backend="flashinfer_trtllm")) == (
        "moe@sglang.fp8_block"
    )
    # H200 has no runner curve: its own SGLang curve as before
    assert _experts_curve(_dep("minimax-m2.5", hw="h200")) == "moe@sglang.fp8_block"


def test_stated_runner_is_checked_and_launched():
    assert EngineSettings(name="sglang", moe_backend="TRITON").moe_backend == "triton"
    with pytest.raises(InvalidInputError, match=r"SM 10\.x GPUs only"):
        _dep(hw="h200", backend="flashinfer_trtllm")
    with pytest.raises(InvalidInputError, match="has no --moe-runner-backend"):
        _dep(version="0.4.10", backend="triton")
    with pytest.raises(InvalidInputError, match="runs fp8-block128 experts"):
        _dep("deepseek-r1", fmt="nvfp4", tp=8, backend="deep_gemm")
    with pytest.raises(InvalidInputError, match="not one of SGLang's modelled MoE backends"):
        EngineSettings(name="sglang", moe_backend="marlin")
    dep = _dep(version="0.5.16", backend="triton")
    cmds = launch_commands(dep)
    check(cmds, dep, dep.sharding.gpus)  # parsed against SGLang 0.5.16's captured options
    (cmd,) = cmds
    i = cmd.argv.index("--moe-runner-backend")
    assert cmd.argv[i + 1] == "triton"
    assert "--moe-runner-backend" not in launch_commands(_dep(version="0.5.16"))[0].argv


# MiniMax-M2.5's experts (model_configs/minimax-m2.5.yaml): hidden 3,072, expert FFN 1,536, 256
# experts, top-8; at MoE TP 4 each GPU holds a 384-wide slice of every expert
HIDDEN, INTER, EXPERTS, TOPK, TP = 3072, 1536, 256, 8, 4
W_BYTES = 1 + 4 / 128**2  # fp8 and one fp32 scale per 128 × 128 block


def _layer_us(curve, hw, tokens):
    """The fitter's model of one balanced layer at MiniMax-M2.5's shape, MoE TP 4, no EP [µs]."""
    routes = tokens * TOPK
    touched = min(EXPERTS, routes)
    inter = INTER / TP
    flops = 2 * 3 * routes * HIDDEN * inter  # gate, up, down
    moved = touched * 3 * HIDDEN * inter * W_BYTES + routes * HIDDEN * 4
    return 1e6 * K.moe_time_s(
        flops, moved, routes / touched, routes * HIDDEN, touched,
        flops_per_s=hw.peak_flops_per_s["fp8"], bytes_per_s=hw.hbm_bandwidth_bytes_per_s,
        compute=curve.compute, memory=curve.memory, fixed_s=curve.fixed_s,
        per_route_element_s=curve.per_route_element_s, tile_m=curve.tile_m,
        sharpness=curve.sharpness, per_expert_s=curve.per_expert_s,
    )  # fmt: skip


def _triton_within_band(gpu, tokens, measured_us):
    """Checks that ``gpu``'s SGLang Triton block-fp8 curve times MiniMax-M2.5's layer within its
    band of the measured row; returns (that curve, the engine's ``moe_engine`` curve, the
    latter's time for the layer [µs])."""
    hw = load_hardware(gpu)
    triton = hw.kernels.moe_runner["sglang"]["triton"]["fp8_block"]
    low, high = triton.band
    t = _layer_us(triton, hw, tokens)
    assert measured_us * low <= t <= measured_us * high, t
    engine = hw.kernels.moe_engine["sglang"]["fp8_block"]
    return triton, engine, _layer_us(engine, hw, tokens)


@pytest.mark.parametrize(
    ("tokens", "measured_us"),
    [
        # aiconfigurator-core 0.12.0 b200_sxm/moe/sglang/0.5.14/moe_perf.parquet, balanced rows
        # at this shape, moe_tp 4, moe_ep 1, sglang_fused_moe_triton (the same table's
        # flashinfer_trtllm rows: 122.5 and 1,196.8 µs). The Triton curve: 270.3 µs (1.026 x)
        # and 2,145 µs (1.037 x); the trtllm-gen curve that timed them before the round: 176.4
        # µs (0.670 x) and 1,603 µs (0.775 x), below the band's lower end (0.898)
        (64, 263.5),
        (16384, 2068.0),
    ],
)
def test_b200_triton_curve_holds_the_minimax_layer(tokens, measured_us):
    triton, trtllm_gen, old = _triton_within_band("b200", tokens, measured_us)  # [0.930, 1.079]
    assert old < measured_us * trtllm_gen.band[0]  # the trtllm-gen curve: far too fast here
    assert "fused_moe_triton rows (4,509 rows)" in triton.source


def test_the_triton_curve_is_fitted_to_the_triton_rows():
    from tests.scripts import load_script

    fk = load_script("tools/fit_kernels.py")
    for gpu in ("b200_sxm", "gb200", "b300_sxm", "gb300"):  # every SM 10.x GPU (sgtriton round)
        assert fk.MOE_RUNNER_ROWS[(gpu, "sglang", "triton", "fp8_block")] == "fused_moe_triton"
    # the engine's own curve keeps the trtllm-gen rows (the sgb200moe round)
    assert fk.MOE_ENGINE_BACKEND[("b200_sxm", "sglang", "fp8_block")] == "flashinfer_trtllm"


@pytest.mark.parametrize(
    ("tokens", "measured_us"),
    [
        # aiconfigurator-core 0.12.0 gb200/moe/sglang/0.5.14/moe_perf.parquet, balanced
        # fused_moe_triton fp8_block rows at MiniMax-M2.5's shape, moe_tp 4, moe_ep 1 (the table
        # holds each twice: 248.27 / 248.38 and 1,947.6 / 1,936.5 µs). The GB200 Triton curve
        # (sgtriton round): 257.1 µs (257.1 / 248.27 = 1.036 x) and 1,980.9 µs (1,980.9 /
        # 1,947.6 = 1.017 x), inside its band [0.928, 1.073]; the pooled moe_engine curve that
        # timed them before: 190.3 µs (0.767 x, below its band's 0.829) and 2,529.7 µs (1.299 x,
        # above its 1.264). Since the sgtrtgen round the moe_engine curve is the trtllm-gen rows'
        # (the DeepSeek and Qwen3-MoE families' kernel): 180.1 µs (180.1 / 248.27 = 0.725 x) and
        # 1,521.6 µs (1,521.6 / 1,947.6 = 0.781 x), below its band's 0.882 at both
        (64, 248.27),
        (16384, 1947.6),
    ],
)
def test_gb200_triton_curve_holds_the_minimax_layer(tokens, measured_us):
    triton, pooled, old = _triton_within_band("gb200", tokens, measured_us)  # [0.928, 1.073]
    assert not measured_us * pooled.band[0] <= old <= measured_us * pooled.band[1], old
    assert "fused_moe_triton rows (6,777 rows)" in triton.source


@pytest.mark.parametrize("hw", ["gb200", "b300", "gb300"])
def test_the_other_sm100_gpus_take_their_triton_curve(hw):
    # MiniMax-M2.5 runs Triton on every SM 10.x GPU (no override for MiniMaxM2ForCausalLM);
    # before the sgtriton round these three had no runner curve and took the pooled one
    assert _experts_curve(_dep(hw=hw)) == "moe@sglang.fp8_block.triton"
    assert _experts_curve(_dep("qwen3.5-397b-a17b", hw=hw)) == "moe@sglang.fp8_block"
