"""The ROCm kernel library an engine's attention runs (``EngineSettings.rocm_kernels``,
``--rocm-kernels``; issue 20, rocmattn round): each engine's default from its own source, the
refusals, and the Triton decode kernel's serial walk (calc/deploy/engines/vllm/rocm_attention.py,
calc.deploy.steps.walk_bound) by hand."""

from __future__ import annotations

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.vllm.rocm_attention import (
    TRITON_DECODE_TILE_S,
    TRITON_KEYS_PER_TILE_STEP,
    TRITON_PREFILL_SCALE,
)
from calc.deploy.steps import op_setup, step_of
from calc.errors import InvalidInputError
from tests.scripts import load_script


def _dep(hw="mi355x", engine="vllm", kernels=None, version=None):
    return Deployment.build(load_model("llama3.3-70b"), load_hardware(hw), tp=8,
                            weight_dtype="fp8-tensor", kv_dtype="fp8",
                            engine=EngineSettings(name=engine, version=version,
                                                  rocm_kernels=kernels))  # fmt: skip


def _attention_s(step) -> float:
    """The step's decode attention kernels (scores and values) [s]."""
    return sum(float(t.time_s) for op, t in zip(step.raw, step.ops, strict=True)
               if op.name in ("attn_scores", "attn_values"))  # fmt: skip


def test_engine_defaults_follow_their_source():
    # vLLM below 0.19.0: VLLM_ROCM_USE_AITER defaults to False and rocm.py falls back to
    # TRITON_ATTN (0.15.1, 0.18.0); from 0.19.0 ROCM_ATTN heads its priority list, ROCm's own
    # paged-attention decode: the tuned class (0.19.0, 0.20.0, the newest modelled 0.33.0)
    for release in ("0.15.1", "0.18.0", "0.18.1"):
        assert _dep(version=release).engine_config.rocm_kernels == "triton", release
    for release in ("0.19.0", "0.20.0", None):
        assert _dep(version=release).engine_config.rocm_kernels == "aiter", release
    # SGLang 0.4.10 model_runner.py: an MHA model on HIP gets attention_backend "aiter"
    assert _dep(engine="sglang").engine_config.rocm_kernels == "aiter"
    # no AMD GPU, no ROCm kernels
    assert _dep(hw="h200").engine_config.rocm_kernels is None
    assert _dep(kernels="AITER").engine_config.rocm_kernels == "aiter"  # any case


@pytest.mark.parametrize(
    ("hw", "engine", "kernels", "says"),
    [
        ("h200", "vllm", "triton", "--rocm-kernels triton applies to AMD GPUs; h200 is NVIDIA's"),
        ("mi355x", "vllm", "cuda", "--rocm-kernels 'cuda' is not one of vLLM's modelled ROCm "
                                   "kernel libraries: aiter, triton"),
        ("mi355x", "sglang", "triton", "--rocm-kernels 'triton' is not one of SGLang's modelled"),
        ("mi355x", "trtllm", "aiter", "--rocm-kernels is not a setting kvcalc models for "
                                      "TensorRT-LLM"),
    ],
)  # fmt: skip
def test_refusals_say_why(hw, engine, kernels, says):
    with pytest.raises(InvalidInputError) as err:
        _dep(hw=hw, engine=engine, kernels=kernels)
    assert says in str(err.value)


def test_the_walk_by_hand():
    # Llama-3.3-70B: 80 attention layers; at batch 4 and 8,192 tokens of context each layer's
    # walk is 8,192 / (16 segments × 16 keys) = 32 tiles of 2.18 us: 80 × 32 × 2.18 us
    # = 5,580.8 us for the step, far above the pair's roofline (4 sequences of fp8 KV)
    assert TRITON_KEYS_PER_TILE_STEP == 256
    walk = 80 * (8192 / 256) * TRITON_DECODE_TILE_S
    assert walk == pytest.approx(5.5808e-3, rel=1e-12)
    tuned = step_of(_dep(kernels="aiter"), batch=4, ctx=8192)
    triton = step_of(_dep(kernels="triton"), batch=4, ctx=8192)
    attention = _attention_s(tuned)
    assert attention < walk
    # every other op as before; the attention pair takes the walk instead of its roofline
    assert float(triton.time_s) == pytest.approx(float(tuned.time_s) - attention + walk,
                                                 rel=1e-12)  # fmt: skip
    assert _attention_s(triton) == pytest.approx(walk, rel=1e-12)


def test_the_roofline_wins_where_it_is_longer():
    # 256 sequences at 1,024 tokens: the walk is 80 × 4 × 2.18 us = 0.6976 ms, the KV read of
    # 256 × 1,024 tokens × 80 layers × 256 B (fp8 K and V of one head of 128) = 5.4 GB at a
    # fraction of 8 TB/s is longer: the step is the tuned one
    tuned = step_of(_dep(kernels="aiter"), batch=256, ctx=1024)
    triton = step_of(_dep(kernels="triton"), batch=256, ctx=1024)
    assert _attention_s(tuned) > 80 * 4 * TRITON_DECODE_TILE_S
    assert float(triton.time_s) == float(tuned.time_s)


def test_high_and_peak_are_unchanged():
    for eff in ("high", "peak"):
        a = step_of(_dep(kernels="aiter"), eff, batch=4, ctx=8192)
        b = step_of(_dep(kernels="triton"), eff, batch=4, ctx=8192)
        assert float(a.time_s) == float(b.time_s)
        a = step_of(_dep(kernels="aiter"), eff, batch=4, prompt=8192)
        b = step_of(_dep(kernels="triton"), eff, batch=4, prompt=8192)
        assert float(a.time_s) == float(b.time_s)
    # at the low band the walk binds too (the band's roofline can only be slower)
    low = step_of(_dep(kernels="triton"), "low", batch=4, ctx=8192)
    assert _attention_s(low) >= 80 * 32 * TRITON_DECODE_TILE_S * (1 - 1e-12)


def test_the_triton_prefill_by_hand():
    # Llama-3.3-70B at TP 8, 4 prompts of 8,192 tokens: the prefill's attention pair (scores
    # and values, every layer) takes TRITON_PREFILL_SCALE = 2.96 × its roofline under Triton;
    # every other op (projections, FFN, all-reduce, norms) as under AMD's tuned kernels
    assert TRITON_PREFILL_SCALE == 2.96
    for eff in ("expected", "low"):
        tuned = step_of(_dep(kernels="aiter"), eff, batch=4, prompt=8192)
        triton = step_of(_dep(kernels="triton"), eff, batch=4, prompt=8192)
        attention = _attention_s(tuned)
        assert attention > 0
        assert _attention_s(triton) == pytest.approx(2.96 * attention, rel=1e-12)
        assert float(triton.time_s) == pytest.approx(float(tuned.time_s) + 1.96 * attention,
                                                     rel=1e-12)  # fmt: skip


def test_the_triton_prefill_leaves_decode_and_other_gpus_alone():
    # a decode step's attention is the walk's, not the prefill multiple's (256 sequences at
    # 1,024 tokens: the roofline wins the walk, so the step is the tuned one exactly)
    tuned = step_of(_dep(kernels="aiter"), batch=256, ctx=1024)
    triton = step_of(_dep(kernels="triton"), batch=256, ctx=1024)
    assert float(triton.time_s) == float(tuned.time_s)
    # MLA's prefill is not the unified kernel (vLLM's TRITON_MLA runs its own): DeepSeek-V3's
    # prefill of 8,192 tokens at TP 8 is the same under either library
    mla = [step_of(Deployment.build(load_model("deepseek-v3"), load_hardware("mi355x"), tp=8,
                                    engine=EngineSettings(name="vllm", rocm_kernels=k)),
                   batch=1, prompt=8192) for k in ("aiter", "triton")]  # fmt: skip
    assert float(mla[0].time_s) == float(mla[1].time_s)
    # no AMD GPU, no ROCm kernels: an H200 prefill has no multiple
    dep = _dep(hw="h200")
    assert dep.engine_config.rocm_kernels is None
    assert op_setup(dep).prefill_attention_scale is None


def test_both_constants_are_the_blogs_joint_fit():
    serving = load_script("bench/validation_amd_serving.py")
    tile, scale = serving.triton_joint_fit()
    # the least-squares multiple and the tile's bound, to the shipped rounding
    assert scale == pytest.approx(TRITON_PREFILL_SCALE, abs=0.005)
    assert tile == pytest.approx(TRITON_DECODE_TILE_S, abs=0.005e-6)
    assert TRITON_DECODE_TILE_S <= tile  # rounded down: the walk binds at no bar
    best = serving.blog_sum_squares()
    # a minimum: a longer tile, or a multiple 0.1 either side, fits the twelve bars worse
    assert serving.blog_sum_squares(tile_s=1.2 * tile) > best
    assert serving.blog_sum_squares(scale=scale - 0.1) > best
    assert serving.blog_sum_squares(scale=scale + 0.1) > best
    # below the bound the tile moves no bar (the sum is flat there: the blog sets no lower bound)
    assert serving.blog_sum_squares(tile_s=0.5 * tile) == pytest.approx(best, rel=1e-9)
    # the constants fitted one after the other (2.70 us, 2.54 ×) fit the bars worse, their
    # MI355X 64-request TPOT bar at +11.1% (the joint fit: +5.8%)
    tile0, scale0 = serving.SEQUENTIAL
    assert serving.blog_sum_squares(scale0, tile0) > best
    errors = {(e[0], e[1], e[2]): e[5] for e in serving.blog_errors()}
    assert errors["TPOT", "mi355x", 64] == pytest.approx(0.058, abs=0.01)
    # every TTFT bar within 6%, every TPOT bar within 13%
    assert all(abs(e) < 0.06 for k, e in errors.items() if k[0] == "TTFT")
    assert all(abs(e) < 0.13 for k, e in errors.items() if k[0] == "TPOT")


def test_the_prefill_multiple_moves_every_ttft_bar():
    serving = load_script("bench/validation_amd_serving.py")
    # without the multiple kvcalc's ratio is the decode walk's alone (1.00): 22-30% short of
    # every bar (1.28-1.42 × measured); with it within 6%
    for gpu, c, measured, walk_only, shipped in serving.blog_ttft_checks():
        assert shipped == pytest.approx(measured, rel=0.06), (gpu, c)
        assert walk_only < 0.8 * measured, (gpu, c)


def test_the_walk_is_vectorised():
    dep = _dep(kernels="triton")
    ctxs = np.array([512.0, 8192.0, 65536.0])
    arr = step_of(dep, batch=4, ctx=ctxs).time_s
    one = [float(step_of(dep, batch=4, ctx=c).time_s) for c in ctxs]
    np.testing.assert_allclose(arr, one, rtol=1e-12)


def test_the_tile_is_the_bound_the_blog_sets():
    serving = load_script("bench/validation_amd_serving.py")
    # at the shipped tile the walk adds nothing to the blog's MI355X step at 64 requests
    # (94 layers × 10,500 / 256 tiles × 2.18 us = 8.405 ms, against the pair's roofline: the
    # K and V of 64 × 10,500 tokens × 94 layers × 256 B each = 16.2 GB apiece, at 0.55 of
    # 8 TB/s plus the kernels' fixed costs, 8.41 ms); 5% longer it adds some
    assert serving.walk_extra_s("mi355x", 64, TRITON_DECODE_TILE_S) < 1e-5
    assert serving.walk_extra_s("mi355x", 64, 1.05 * TRITON_DECODE_TILE_S) > 1e-4


def test_the_walk_grows_with_context_uncapped():
    # the 3D kernel's segment count is fixed (16), so each workgroup's walk is 1/16 of the
    # keys at any context: 32,768 more tokens add 80 layers × 32,768 / 256 tiles × 2.18 us
    # = 22.3232 ms to the attention of 4 sequences (the walk binds at both contexts)
    dep = _dep(kernels="triton")
    short = step_of(dep, batch=4, ctx=32768)
    long = step_of(dep, batch=4, ctx=65536)
    assert _attention_s(long) - _attention_s(short) == pytest.approx(22.3232e-3, rel=1e-9)


def test_runs_state_their_kernels():
    serving = load_script("bench/validation_amd_serving.py")
    kernels = {r.id.split("-")[0]: r.kernels for r in serving.RUNS}
    # llm-d's plain vLLM 0.15.1 (no AITER variable): vLLM's default; pull 25135: AMD's build
    assert kernels == {"llmd": None, "pr25135": "aiter"}
    p = serving.predict(serving.RUNS[1])  # 4,096 / 4,096 at concurrency 4
    # −5.2% (+3.6% at the sequential 2.70 us tile; −33.3% with tuned kernels)
    assert p.tpot_error == pytest.approx(-0.052, abs=0.02)


def test_cli_refusal_is_one_line(cli):
    r = cli("latency", "-m", "llama3.3-70b", "--hardware", "h200", "--tp", "8", "--ctx", "1000",
            "--rocm-kernels", "triton")  # fmt: skip
    assert r.code == 2
    assert "Traceback" not in r.err
    assert r.err.strip().splitlines() == [
        "kvcalc: error: --rocm-kernels triton applies to AMD GPUs; h200 is NVIDIA's: drop it"
    ]


def test_cli_states_the_kernels(cli):
    args = ("latency", "-m", "llama3.3-70b", "--hardware", "mi355x", "--tp", "8",
            "--weight-dtype", "fp8-tensor", "--kv-dtype", "fp8", "--ctx", "8192", "--batch", "4",
            "--format", "json")  # fmt: skip
    tuned = cli(*args, "--rocm-kernels", "aiter").json()["tpot_s"]
    triton = cli(*args, "--rocm-kernels", "triton").json()["tpot_s"]
    default = cli(*args).json()["tpot_s"]
    assert default == tuned < triton  # the newest vLLM's default on ROCm: ROCM_ATTN
    old = cli(*args, "--engine-version", "0.18.0").json()["tpot_s"]
    assert old == cli(*args, "--engine-version", "0.18.0", "--rocm-kernels", "triton").json()[
        "tpot_s"]  # below 0.19.0 vLLM's default on ROCm is its Triton attention


def test_launch_states_aiter():
    from calc.deploy.engines.launch import LaunchPlan

    plan = LaunchPlan(max_model_len=8192)
    tuned = _dep(kernels="aiter", version="0.18.0")
    (cmd,) = tuned.engine_model.launch(tuned, plan)
    # below 0.19.0 AMD's tuned attention is vLLM's only with the variable set (envs.py
    # default False)
    assert cmd.env == (("VLLM_ROCM_USE_AITER", "1"),)
    assert cmd.text().startswith("VLLM_ROCM_USE_AITER=1 vllm serve ")
    plain = _dep(version="0.18.0")
    (cmd,) = plain.engine_model.launch(plain, plan)
    assert cmd.env == () and cmd.text().startswith("vllm serve ")
    assert "--attention-backend" not in cmd.argv
    # from 0.19.0 the tuned class is the default (ROCM_ATTN), AITER or not: no variable; the
    # Triton kernel needs the backend named
    for kernels in ("aiter", None):
        dep = _dep(kernels=kernels)
        (cmd,) = dep.engine_model.launch(dep, plan)
        assert cmd.env == () and "--attention-backend" not in cmd.argv
    dep = _dep(kernels="triton")
    (cmd,) = dep.engine_model.launch(dep, plan)
    assert cmd.env == ()
    i = cmd.argv.index("--attention-backend")
    assert cmd.argv[i + 1] == "TRITON_ATTN"


def test_the_triton_backend_flag_parses_where_printed():
    from calc.deploy.engines.launch import LaunchPlan
    from tests.test_engine_commands import parse, table_for

    # from 0.19.0 the Triton kernel is vLLM's only when named: the flag each release's own
    # captured parser takes (tests/data/engine_options)
    for release in ("0.19.0", "0.20.0", "0.33.0"):
        dep = _dep(kernels="triton", version=release)
        (cmd,) = dep.engine_model.launch(dep, LaunchPlan(max_model_len=8192))
        parsed = parse(list(cmd.argv), table_for("vllm", release))
        assert parsed["attention_backend"] == "TRITON_ATTN", release
