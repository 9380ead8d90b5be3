"""The prompt's path of a DeepSeek-R1 prompt under SGLang as kvcalc times it (issue 20, dsr1ttft
round; docs/step-time.md): the explicit (MHA) MLA form SGLang's extend runs without a cached
prefix, one pass per prompt under the runs' chunk, and the eager pass's issue floor in place of
(not beside) the GPU's time."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.host_costs import EAGER_MLA_MOE_LAYER_SM90_S


def _ix870(version: str = "0.5.7", hardware: str = "h200") -> Deployment:
    # InferenceX issue #870's server (dsr1_fp8_h200.sh@ade7c0015): TP 8, --chunked-prefill-size
    # 32768, --max-running-requests 256, --mem-fraction-static 0.82, --disable-radix-cache
    engine = EngineSettings(name="sglang", version=version, mem_util=0.82, max_num_seqs=256,
                            max_batched_tokens=32768, prefix_cache=False)  # fmt: skip
    return Deployment.build(load_model("deepseek-r1"), load_hardware(hardware), tp=8,
                            engine=engine)  # fmt: skip


def _op(step, name: str):
    return next(op for op in step.raw if op.name == name)


def test_deepseek_prefill_attention_is_the_explicit_form():
    # SGLang 0.5.7's DeepSeek extend without a cached prefix runs MHA on up-projected K/V
    # (deepseek_v2.py _handle_attention_backend: flashinfer -> MHA_ONE_SHOT; aiter -> MHA).
    # 1,024 tokens, 128 heads / TP 8 = 16 heads a GPU, 61 layers, causal pairs 1,024 x 1,025 / 2
    # = 524,800:
    #   scores 61 x 2 x 524,800 x 16 x (128 + 64) = 196,686,643,200 FLOP
    #   values 61 x 2 x 524,800 x 16 x 128        = 131,124,428,800 FLOP
    #   kv_up  61 x 2 x 1,024 x 512 x 16 x (128 + 128) = 261,993,005,056 FLOP
    # (the absorbed decode form would score on 512 + 64 latent dims: 3 x the scores' FLOPs)
    from calc.deploy.steps import step_of

    step = step_of(_ix870(), "expected", batch=1, prompt=1024.0)
    assert float(_op(step, "attn_scores").flops) == 196_686_643_200
    assert float(_op(step, "attn_values").flops) == 131_124_428_800
    assert float(_op(step, "kv_up").flops) == 261_993_005_056
    assert not any(op.name == "q_absorb" for op in step.raw)


@pytest.fixture(scope="module")
def ix870_table():
    from calc.serve.steptime import step_table

    return step_table(_ix870(), max_tokens=8192, max_rows=8, max_ctx=9216)


def _gpu(t, p: int) -> float:
    # one prompt of p tokens alone: token ops + one logits row + the attention's fixed cost +
    # the prompt's attention [s]
    return float(t.tokens_s[p] + t.rows_s[1]) + t.attn_fixed_s + t.prefill_attn(p)


def test_a_1k_prompt_is_one_eager_pass_held_to_the_measured_floor(ix870_table):
    # --chunked-prefill-size 32768: a 921-token prompt (the mean of InferenceX's [819, 1,024])
    # is one pass; SGLang 0.5.7 captures decode graphs only, so the pass is eager and takes
    # max(GPU, the floor) + the step's host time (0.725 ms). On an H200 (sm90) the floor is
    # the Hopper layer (moefloor round): 61 x (179.7 - 55.6) / 61 ms = 124.1 ms
    t = ix870_table
    assert t.graph_decode_only and t.eager(921, True) and not t.eager(4, False)
    assert t.eager_prefill_s == pytest.approx(61 * EAGER_MLA_MOE_LAYER_SM90_S)  # 124.1 ms
    assert _gpu(t, 921) < t.eager_prefill_s  # the GPU's 64 ms: the floor binds
    host = t.host.per_step_s + t.host.per_sequence_s
    assert t.iteration_s(0, 0.0, [(0, 921)], 1) == pytest.approx(124.1e-3 + host, rel=1e-9)


def test_an_8k_prompt_keeps_its_gpu_time_the_floor_does_not_add(ix870_table):
    # 7,372 tokens (the mean of [6,553, 8,192]): the GPU's 330 ms (402 before the moefit
    # round's block-fp8 MoE refit) is above the 124.1 ms floor (2.6 x it), so the pass is the
    # GPU's time + the host's 0.725 ms; the issue time runs beside it
    t = ix870_table
    gpu = _gpu(t, 7372)
    assert gpu > 2.5 * t.eager_prefill_s
    host = t.host.per_step_s + t.host.per_sequence_s
    assert t.iteration_s(0, 0.0, [(0, 7372)], 1) == pytest.approx(gpu + host, rel=1e-9)
