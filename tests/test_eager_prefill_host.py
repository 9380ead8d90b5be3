"""The host time of an eager prefill pass of a DeepSeek-shaped layer (calc/deploy/host_costs.py
``eager_prefill_layer_s`` / ``eager_prefill_host_s``, the SGLang wing's ``eager_prefill_layer_s``)
and where bench/validation_serving.py charges it (SGLang runs whose stated release issues its
prompt passes eagerly)."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.host_costs import (
    EAGER_MLA_MOE_LAYER_S,
    EAGER_MLA_MOE_LAYER_SM90_S,
    eager_prefill_host_s,
    eager_prefill_layer_s,
)
from tests.scripts import load_script


def _dep(model, engine, fmt, tp=8, version=None, gpu="b200"):
    return Deployment.build(load_model(model), load_hardware(gpu), tp=tp, weight_dtype=fmt,
                            engine=EngineSettings(name=engine, version=version))  # fmt: skip


def test_the_measured_layer():
    # sgl-project/sglang PR #12160: DeepSeek-V3's eager extend pass of one new token 82.64 ms
    # over its 61 layers = 1.3548 ms a layer
    assert EAGER_MLA_MOE_LAYER_S == pytest.approx(1.3548e-3, rel=1e-4)
    assert 61 * EAGER_MLA_MOE_LAYER_S == pytest.approx(82.64e-3)


def test_the_hopper_layer_is_the_same_host_pairs_lower_bound():
    # tenstorrent/tt-inference-server issue #356 (16 H100, DeepSeek-R1-0528, 128-token prompts,
    # concurrency 1): SGLang's eager pass 179.7 ms, vLLM's graphed 55.6 ms;
    # (179.7 - 55.6) / 61 = 124.1 / 61 = 2.0344 ms a layer, above PR #12160's 1.3548 ms
    assert EAGER_MLA_MOE_LAYER_SM90_S == pytest.approx(2.0344e-3, rel=1e-4)
    assert 61 * EAGER_MLA_MOE_LAYER_SM90_S == pytest.approx(124.1e-3)
    assert EAGER_MLA_MOE_LAYER_S < EAGER_MLA_MOE_LAYER_SM90_S < 179.7e-3 / 61  # 2.946 ms


def test_only_a_deepseek_shaped_layer_has_it():
    assert eager_prefill_layer_s(1.3e-3, mla=True, moe=True) == 1.3e-3
    assert eager_prefill_layer_s(1.3e-3, mla=False, moe=True) == 0.0  # Qwen3-MoE: not measured
    assert eager_prefill_layer_s(1.3e-3, mla=True, moe=False) == 0.0
    assert eager_prefill_layer_s(1.3e-3, mla=False, moe=False) == 0.0


def test_a_pass_takes_the_larger_of_the_layers_and_the_counted_kernels():
    # 61 layers x 1.3548 ms = 82.64 ms against 1,250 kernels x 28.8 us = 36.0 ms
    assert eager_prefill_host_s(61, EAGER_MLA_MOE_LAYER_S, 36.0e-3) == pytest.approx(82.64e-3)
    # no measured layer (0): the counted kernels stand
    assert eager_prefill_host_s(94, 0.0, 40.7e-3) == pytest.approx(40.7e-3)
    # half the layers on a pipeline stage: 30.5 x 1.3548 ms = 41.32 ms
    assert eager_prefill_host_s(30.5, EAGER_MLA_MOE_LAYER_S, 0.0) == pytest.approx(41.32e-3)


def test_the_sglang_wing_declares_it_for_deepseek_only():
    ds = _dep("deepseek-r1", "sglang", "nvfp4")
    assert ds.engine_model.eager_prefill_layer_s(ds) == EAGER_MLA_MOE_LAYER_S
    qwen = _dep("qwen3-235b-a22b", "sglang", "fp8-block128", tp=4)
    assert qwen.engine_model.eager_prefill_layer_s(qwen) == 0.0
    # on a Hopper GPU (compute capability 9.x: H100, H200) the measured fresh-prompt layer,
    # 2.0344 ms; a B200 (10.0) keeps PR #12160's 1.3548 ms; Qwen3-MoE on H200 still none
    for gpu in ("h100", "h200"):
        hop = _dep("deepseek-r1", "sglang", "fp8-block128", gpu=gpu)
        assert hop.engine_model.eager_prefill_layer_s(hop) == EAGER_MLA_MOE_LAYER_SM90_S
    qwen_h200 = _dep("qwen3-235b-a22b", "sglang", "fp8-block128", tp=4, gpu="h200")
    assert qwen_h200.engine_model.eager_prefill_layer_s(qwen_h200) == 0.0
    # TensorRT-LLM and vLLM measure none (the base class's 0)
    for engine in ("trtllm", "vllm"):
        dep = _dep("deepseek-r1", engine, "nvfp4")
        assert dep.engine_model.eager_prefill_layer_s(dep) == 0.0


@pytest.fixture(scope="module")
def vs():
    return load_script("bench/validation_serving.py")


def _row(vs, **kw):
    base = dict(id="t", backend="sglang", model="deepseek-r1", hardware="b200", fmt="nvfp4",
                kv=None, isl=1024, osl=1024, concurrency=4, tp=8, ep=8, ttft_s=0.19,
                tpot_s=0.008)  # fmt: skip
    base.update(kw)
    return vs.Row(**base)


def test_sglang_before_0_5_10_issues_its_prompt_passes_eagerly(vs):
    # prefill graphs by default from 0.5.10 (the wing's rules); a record with no release: unknown
    assert vs.prefill_eager(_row(vs, stated="0.5.9"))
    assert not vs.prefill_eager(_row(vs, stated="0.5.10.post1"))
    assert not vs.prefill_eager(_row(vs, stated=""))
    # TensorRT-LLM rows carry their release and keep their own eager rule (predict)
    assert not vs.prefill_eager(_row(vs, backend="trtllm", stated="1.1.0", release="1.1.0"))
    assert not vs.prefill_eager(_row(vs, backend="trtllm", stated="gpt-oss-dev"))


def test_an_eager_deepseek_pass_is_held_to_the_measured_floor(vs):
    eager, graphs = _row(vs, stated="0.5.9"), _row(vs, stated="0.5.10")
    from calc.deploy.steps import step_of

    dep = vs._deployment(eager)
    step = step_of(dep, "expected", batch=1, prompt=1024)  # its kernels: about 36 ms to issue
    # a 27.5 ms GPU pass (1,024 tokens, TP 8 / EP 8 on B200) becomes the host's 82.64 ms
    assert vs.eager_prefill_s(eager, dep, 27.5e-3, step) == pytest.approx(82.64e-3)
    # a GPU pass longer than the floor (8,192 tokens: 109.5 ms) stays the GPU's
    assert vs.eager_prefill_s(eager, dep, 109.5e-3, step) == pytest.approx(109.5e-3)
    # where the release replays prefill graphs, the GPU time alone
    assert vs.eager_prefill_s(graphs, dep, 27.5e-3, step) == 27.5e-3
    # and the row's TTFT rises by at least the difference (82.64 - 27.5 = 55 ms, less the GPU
    # pass the model gives this row)
    assert vs.predict(eager).ttft_s > vs.predict(graphs).ttft_s + 0.04


def test_the_simulation_charges_it_to_a_pass_with_a_prompt():
    # the serving simulation's step table (calc.serve.steptime): SGLang 0.5.9 runs a pass with
    # a prompt eagerly (prefill graphs by default from 0.5.10), so a step holding a chunk takes
    # at least 61 layers x 1.3548 ms = 82.64 ms of host issue time; a decode-only step replays
    # its graph and keeps its GPU time (a few ms)
    from calc.serve.steptime import step_table

    t = step_table(_dep("deepseek-r1", "sglang", "nvfp4", version="0.5.9"), max_tokens=64,
                   max_rows=8, max_ctx=2048)  # fmt: skip
    assert t.graph_decode_only
    assert t.eager_prefill_s == pytest.approx(61 * EAGER_MLA_MOE_LAYER_S)
    assert t.eager_prefill_s > t.eager_s  # the counted kernels' issue time is the smaller
    assert t.iteration_s(0, 0.0, [(0, 16)], 1) >= 82.64e-3
    assert t.iteration_s(4, 4 * 1024.0, [], 4) < 20e-3
    # a dense model has no measured layer: its chunk pass keeps the counted kernels alone
    dense = step_table(_dep("llama3-70b", "sglang", "fp8", version="0.5.9"), max_tokens=64,
                       max_rows=8, max_ctx=2048)  # fmt: skip
    assert dense.eager_prefill_s == pytest.approx(dense.eager_s)
    # from 0.5.10 the chunk pass replays a prefill graph: no eager issue time
    new = step_table(_dep("deepseek-r1", "sglang", "nvfp4", version="0.5.23"), max_tokens=64,
                     max_rows=8, max_ctx=2048)  # fmt: skip
    assert not new.graph_decode_only and new.iteration_s(0, 0.0, [(0, 16)], 1) < 40e-3
