"""The iteration-time table (calc/serve/steptime.py) against step_of: its decomposition into
token ops, lm_head rows, decode attention affine in b and C, and prefill attention per chunk."""

import numpy as np
import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment
from calc.deploy.host_costs import NONE, HostCosts
from calc.deploy.steps import step_of
from calc.serve.steptime import step_table

CASES = [
    ("llama3-70b", "h100", dict(tp=4)),
    ("llama3-8b", "a100-80g", {}),  # a profile with a fixed cost per kernel
    ("mixtral-8x7b", "h100", dict(tp=2)),
]


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def dep_table(request):
    model, hw, kw = request.param
    dep = Deployment.build(load_model(model), load_hardware(hw), **kw)
    return dep, step_table(dep, max_ctx=16384, host=NONE)  # the GPU's time alone


@pytest.mark.parametrize("b,ctx", [(1, 128), (8, 1000), (64, 4096), (256, 2048), (1024, 300)])
def test_decode_step_equals_step_of(dep_table, b, ctx):
    # decode attention is memory bound: a_b + γ_b b ctx is exact; 0.5% allows rounding.
    # Batches up to the engine's max_num_seqs (the table's reach; a100: 256)
    dep, tab = dep_table
    b = min(b, dep.engine_config.max_num_seqs)
    assert tab.iteration_s(b, b * ctx, [], b) == pytest.approx(
        step_of(dep, batch=b, ctx=ctx).time_s, rel=5e-3
    )


@pytest.mark.parametrize("prompt", [16, 100, 1000, 3000, 8192])
def test_one_prefill_equals_step_of(dep_table, prompt):
    # one prompt of p ≤ max batched tokens: L[p] + H[1] + α + Ap(p); Ap interpolated on a grid
    # of ratio 1.15 (quadratic: error ≤ 0.15² / 8 of the attention part): 0.5%
    dep, tab = dep_table
    prompt = min(prompt, dep.engine_config.max_batched_tokens)
    assert tab.iteration_s(0, 0, [(0, prompt)], 1) == pytest.approx(
        step_of(dep, batch=1, prompt=prompt).time_s, rel=5e-3
    )


def test_chunks_add_up_to_the_prompt(dep_table):
    # two chunks of one prompt of M tokens (max batched tokens) attend to the pairs of the
    # whole prompt: the attention parts sum to Ap(M); the token ops see each chunk's tokens
    # apart (2 × L[M / 2] vs L[M]: the weights read twice, the kernels paid twice: 5%)
    dep, tab = dep_table
    m = dep.engine_config.max_batched_tokens
    h = m // 2
    a = tab.prefill_attn(h) + (tab.prefill_attn(m) - tab.prefill_attn(h))
    assert a == pytest.approx(tab.prefill_attn(m))
    whole = step_of(dep, batch=1, prompt=m).time_s
    two = tab.iteration_s(0, 0, [(0, h)], 0) + tab.iteration_s(0, 0, [(h, m - h)], 1)
    assert two == pytest.approx(whole, rel=0.05)


def test_mixed_step_reads_weights_once():
    # a decode batch of 32 at ctx 2048 plus a 512-token chunk costs less than the two apart
    # (the weights are read once) and more than either
    dep = Deployment.build(load_model("llama3-70b"), load_hardware("h100"), tp=4)
    tab = step_table(dep, max_ctx=4096, host=NONE)
    mixed = tab.iteration_s(32, 32 * 2048, [(0, 512)], 33)
    dec = step_of(dep, batch=32, ctx=2048).time_s
    pre = step_of(dep, batch=1, prompt=512).time_s
    assert max(dec, pre) < mixed < dec + pre


def test_table_is_vectorised_and_exact_on_its_entries():
    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"))
    tab = step_table(dep, max_ctx=2048)
    ec = dep.engine_config
    assert len(tab.tokens_s) == ec.max_batched_tokens + 1
    assert len(tab.rows_s) == min(ec.max_num_seqs, ec.max_batched_tokens) + 1
    assert tab.tokens_s[0] == 0 and np.all(np.diff(tab.tokens_s) >= 0)


def test_host_time_adds_per_step_and_per_sequence():
    """The engine's host time (calc.deploy.host_costs) adds per_step + per_sequence × the
    sequences of the pass to the GPU's iteration, and its front-end time is per request."""
    dep = Deployment.build(load_model("llama3-8b"), load_hardware("h100"))
    host = HostCosts(1e-3, 2e-6, 5e-3, 1e-6, "test")
    gpu, both = step_table(dep, max_ctx=2048, host=NONE), step_table(dep, max_ctx=2048, host=host)
    # 16 decoders and one prefill chunk: 17 sequences → 1 ms + 17 × 2 us = 1.034 ms
    chunks = [(0, 256)]
    extra = both.iteration_s(16, 16 * 1024, chunks, 17) - gpu.iteration_s(16, 16 * 1024, chunks, 17)
    assert extra == pytest.approx(1e-3 + 17 * 2e-6, rel=1e-9)
    # decode-only: 8 sequences → 1 ms + 8 × 2 us
    assert both.decode_s(8) - gpu.decode_s(8) == pytest.approx(1.016e-3, rel=1e-9)
    # a 1,000-token prompt's front-end: 5 ms + 1,000 × 1 us = 6 ms
    assert both.request_s(1000) == pytest.approx(6e-3, rel=1e-12)
    assert gpu.request_s(1000) == 0
