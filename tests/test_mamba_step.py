"""The Mamba-2 and gated-DeltaNet ops of a step (calc/deploy/ops.py): the recurrent state's bytes in
its own dtype, the kernels of a Mamba-2 layer, and the serving step table timing the state work
per sequence and per prompt chunk, not per token of the pass (issue 20, mamba2 round)."""

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment
from calc.deploy.host_costs import NONE
from calc.deploy.steps import decode_step, prefill, step_of
from calc.serve.steptime import step_table


def _ops(step):
    return {op.name: op for op in step.raw}


def _nano(batch, **kw):
    # Nemotron 3 Nano 30B-A3B at TP 2: 23 Mamba-2 layers of 64 heads × 64 (32 heads, E = 2,048
    # channels a GPU), N 128, 8 B/C groups (4 a GPU), K 4; recurrent state fp32, conv state bf16
    cfg = load_model("nemotron-3-nano-30b-a3b")
    if "prompt" in kw:
        return _ops(prefill(cfg, None, batch=batch, tp=2, **kw))
    return _ops(decode_step(cfg, None, batch=batch, ctx=2560, tp=2))


def test_recurrent_state_moves_in_its_own_dtype():
    one, two = _nano(1), _nano(2)
    # one more sequence: its SSM state 2,048 × 128 × 4 B = 1,048,576 B read and written, and
    # its activations x, dt, B, C, z in (2,048 + 32 + 2·4·128 + 2,048 = 5,152) and y out (2,048)
    # = 7,200 × 2 B = 14,400 B, per layer: 23 × (2 × 1,048,576 + 14,400) = 48,565,696 B
    assert two["mamba2_scan"].bytes - one["mamba2_scan"].bytes == 48_565_696


def test_state_traffic_is_the_ledgers_state_read_and_written():
    # conv + scan state bytes of one more sequence, less its activations, = 2 × the ledger's
    # state per sequence (24,541,184 B: 23 × (3 × 3,072 × 2 B + 1,048,576 B))
    dep = Deployment.build(load_model("nemotron-3-nano-30b-a3b"), load_hardware("b200"), tp=2)
    assert dep.per_gpu.ssm_state_bytes_per_sequence == 24_541_184
    one, two = _nano(1), _nano(2)
    extra = sum(two[n].bytes - one[n].bytes for n in ("mamba2_conv1d", "mamba2_scan"))
    # activations: conv 2 × 3,072 channels × 2 B = 12,288, scan 14,400 (above), per layer
    assert extra - 23 * (12_288 + 14_400) == 2 * 24_541_184


def test_mamba2_kernels_per_layer():
    # decode: selective_state_update + the gated RMSNorm = 2 a layer: 23 × 2 = 46
    assert _nano(1)["mamba2_scan"].kernels == 46
    # prefill: the chunked scan's 5, the state scatter, the gated RMSNorm = 7: 23 × 7 = 161
    assert _nano(1, prompt=512)["mamba2_scan"].kernels == 161
    # conv1d and the projections: one kernel a layer in both phases
    for ops in (_nano(1), _nano(1, prompt=512)):
        for name in ("mamba2_in_proj", "mamba2_conv1d", "mamba2_out_proj"):
            assert ops[name].kernels == 23
    # Mamba-1 (Jamba, 28 layers): one selective scan a layer, its z gate fused in
    jamba = _ops(decode_step(load_model("jamba-v0.1"), None, batch=1, ctx=100))
    assert jamba["mamba_scan"].kernels == 28


def test_state_ops_are_per_sequence_work():
    # the conv and scan ops are kept with attention (per sequence) by the step table; the
    # projections are token ops
    for ops in (_nano(1), _nano(1, prompt=512)):
        assert ops["mamba2_conv1d"].attention and ops["mamba2_scan"].attention
        assert not ops["mamba2_in_proj"].attention and not ops["mamba2_out_proj"].attention
    gdn = _ops(decode_step(load_model("qwen3.5-27b"), None, batch=1, ctx=1000))
    assert gdn["gdn_conv1d"].attention and gdn["gdn_delta_rule"].attention


def test_a_calibration_leaves_the_state_work_unscaled():
    # step calibration classes: the SSM conv and scan are 'other' (never scaled), in both
    # phases; the attention layers' kernels stay 'attention'
    from calc.deploy.step_calibration import op_class

    for ops in (_nano(1), _nano(1, prompt=512)):
        assert op_class(ops["mamba2_conv1d"]) == op_class(ops["mamba2_scan"]) == "other"
        assert op_class(ops["attn_scores"]) == "attention"
    gdn = _ops(prefill(load_model("qwen3.5-27b"), None, batch=1, prompt=512))
    assert op_class(gdn["gdn_conv1d"]) == op_class(gdn["gdn_delta_rule"]) == "other"


HYBRIDS = [
    ("nemotron-3-nano-30b-a3b", "b200", dict(tp=2, weight_dtype="fp8-tensor")),
    ("qwen3.5-27b", "h200", {}),
]


@pytest.fixture(scope="module", params=HYBRIDS, ids=[c[0] for c in HYBRIDS])
def hybrid_table(request):
    model, hw, kw = request.param
    dep = Deployment.build(load_model(model), load_hardware(hw), **kw)
    return dep, step_table(dep, max_ctx=8192, host=NONE)  # the GPU's time alone


@pytest.mark.parametrize("prompt", [100, 1000, 8192])
def test_a_prompt_chunk_is_one_sequences_state_work(hybrid_table, prompt):
    # a pass of one prompt of p tokens is its prefill (L[p] + H[1] + α + Ap(p), 0.5% for Ap's
    # grid), not p sequences' decode state updates: for Nemotron 3 Nano at TP 2 those would add
    # p × 23 × (2 × 1,067,008 B) of state traffic, 49 MB a token (3.8 ms at 1,000 tokens with
    # the bf16 recurrent state kvcalc charged before this round). Passes within the largest
    # CUDA graph (an eager pass is the CPU's issue time, calc.serve.graphs)
    dep, tab = hybrid_table
    prompt = min(prompt, dep.engine_config.max_batched_tokens, tab.graph_tokens or prompt)
    assert tab.iteration_s(0, 0, [(0, prompt)], 1) == pytest.approx(
        step_of(dep, batch=1, prompt=prompt).time_s, rel=5e-3
    )


@pytest.mark.parametrize("b", [1, 64, 256])
def test_decode_step_of_a_hybrid_equals_step_of(hybrid_table, b):
    # the state work lands in a_b (it does not grow with the context): a decode step is exact
    dep, tab = hybrid_table
    assert tab.iteration_s(b, b * 3000, [], b) == pytest.approx(
        step_of(dep, batch=b, ctx=3000).time_s, rel=5e-3
    )
