"""SGLang's automatic mem_fraction_static reserves memory for the prefill CUDA graphs it
captures by default from 0.5.10 (torch.compile piecewise graphs, breakable ones from 0.5.15),
each release with its own layouts that turn them off (calc.deploy.engines.sglang.rules
``prefill_graph_off``): hand arithmetic from the wheels' server_args.py / memory_hook.py."""

from __future__ import annotations

import pytest

import calc.deploy.engines.sglang.memory as sm
from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import engine
from calc.deploy.engines.gpus import smi_total_mib
from calc.deploy.engines.sglang.pool import prefill_graphs_on

GIB = 2**30


def _dep(model, hw, version, *, tp=1, ep=1, **settings):
    return Deployment.build(
        load_model(model), load_hardware(hw), tp=tp, ep=ep,
        engine=EngineSettings(name="sglang", version=version, **settings),
    )  # fmt: skip


def test_prefill_graph_token_counts_up_to_the_b200_chunk():
    # capture sizes up to chunked_prefill_size 16,384: 4..32 step 4 (8), 48..256 step 16 (14),
    # 288..512 step 32 (8), 576..1,024 step 64 (8), 1,280..4,096 step 256 (12),
    # 4,608..16,384 step 512 (24): 8 + 14 + 8 + 8 + 12 + 24 = 74
    assert len(sm.prefill_graph_sizes(16384)) == 74


def test_b200_default_fraction_counts_the_piecewise_graphs_from_0_5_10():
    # B200 (nvidia-smi 183,359 MiB), TP 1: chunked_prefill_size 16,384, decode max_bs 512;
    # 0.5.9: 512 + 1.5 × 16,384 + 2 × 512 + 1,024 × 1 / 8 = 512 + 24,576 + 1,024 + 128
    # = 26,240 MiB; (183,359 − 26,240) / 183,359 = 0.85689 → 0.857
    assert sm.reserved_memory_mib(183_359, 16384, 512, 1, 1) == 26_240
    # 0.5.10: + 74 piecewise graphs × 8 MiB = 592: 26,832 MiB;
    # (183,359 − 26,832) / 183,359 = 0.85366 → 0.854
    assert sm.reserved_memory_mib(183_359, 16384, 512, 1, 1, prefill_graphs=74) == 26_832
    assert sm.fraction_from_reserve(183_359, 26_832) == 0.854
    p9 = _dep("qwen3-8b", "b200", "0.5.9").per_gpu.prediction
    p10 = _dep("qwen3-8b", "b200", "0.5.10").per_gpu.prediction
    assert (p9.memory_fraction, p10.memory_fraction) == (0.857, 0.854)


def test_b200_pool_with_measured_terms():
    # SGLang's Qwen3-8B B200 reference log's release: usable 178 GiB, 0.5 GiB in use before
    # the weights, 15 GiB of weights (round figures, passed as measured); one token is
    # 36 layers × 8 KV heads × (128 + 128) × 2 B = 147,456 B
    dep = _dep("qwen3-8b", "b200", "0.5.10")
    measured = {"usable_bytes": 178 * GIB, "weights_bytes": 15 * GIB,
                "non_torch_bytes": 0.5 * GIB}  # fmt: skip
    p = dep.engine_model.kv_pool(dep, **measured)
    assert p.kv_bytes_per_token == 147_456
    # (178 − 0.5) × 0.854 − 15 = 136.585 GiB = 146,657,... B; // 147,456 = 994,581 tokens
    assert p.kv_budget_bytes == pytest.approx(136.585 * GIB)
    assert p.tokens == 994_581
    # the same at 0.5.9's 0.857: (178 − 0.5) × 0.857 − 15 = 137.1175 GiB → 998,459 tokens,
    # 3,878 more (0.39%): the share the piecewise reserve takes back
    dep9 = _dep("qwen3-8b", "b200", "0.5.9")
    assert dep9.engine_model.kv_pool(dep9, **measured).tokens == 998_459


@pytest.mark.parametrize(
    ("release", "layout", "on"),
    [
        ("0.5.9", {}, False),  # enable_piecewise_cuda_graph False
        ("0.5.10", {}, True),  # disable_piecewise_cuda_graph False
        ("0.5.10", {"pp": 2}, False),  # _handle_piecewise_cuda_graph: PP
        ("0.5.10", {"dp": 8}, False),  # DP attention
        ("0.5.10", {"deepep": True}, False),  # an MoE A2A backend
        ("0.5.10", {"nsa": True, "mla": True}, False),  # DeepseekV32ForCausalLM
        ("0.5.10", {"mla": True}, True),  # MLA: piecewise kept (1.5 GiB reserve)
        ("0.5.15", {"pp": 2}, True),  # breakable: no PP rule yet
        ("0.5.15", {"mla": True}, False),  # breakable: 'MLA attention'
        ("0.5.16", {"dp": 8}, False),  # 'DP attention'
        ("0.5.17", {"mla": True}, False),  # 'MLA attention (non-DSA)'
        ("0.5.17", {"mla": True, "nsa": True}, True),
        ("0.5.17", {"dp": 8}, True),
        ("0.5.18", {"mla": True}, True),
        ("0.5.18", {"pp": 2}, True),
        ("0.5.19", {"pp": 2}, False),  # cuda_graph_hook.py: off by default under PP
        ("0.5.23", {"multimodal": True}, False),
        ("0.5.23", {"deepep": True, "dp": 8, "mla": True}, True),
        ("0.5.13", {"eager": True}, True),  # --disable-cuda-graph leaves piecewise graphs
        ("0.5.14", {"eager": True}, False),  # _parse_cuda_graph_config: prefill disabled too
        ("0.5.14", {"mla": True}, True),  # tc_piecewise still: MLA kept
        ("0.5.23", {"eager": True}, False),
    ],
)
def test_prefill_graphs_by_release_and_layout(release, layout, on):
    args = {"pp": 1, "mla": False, "multimodal": False, "dp": 1, "nsa": False, "deepep": False,
            "eager": False}  # fmt: skip
    args.update(layout)
    assert prefill_graphs_on(engine("sglang").rules(release), **args) is on


def test_mla_reserve_from_0_5_10_on_an_h200():
    # DeepSeek-V3 at TP 8 on an H200 (the < 160 GiB bucket: chunk 8,192, max_bs 512 from
    # TP 4): 512 + 1.5 × 8,192 + 2 × 512 + 1,024 × 8 / 8 = 512 + 12,288 + 1,024 + 1,024
    # = 14,848 MiB, + 1,536 for MLA's piecewise graphs = 16,384 MiB (both above the 10 GiB floor)
    gpu = smi_total_mib(load_hardware("h200"))
    assert sm.reserved_memory_mib(gpu, 8192, 512, 8, 1) == 14_848
    assert sm.reserved_memory_mib(gpu, 8192, 512, 8, 1, prefill_graphs=1, mla=True) == 16_384
    frac = {v: _dep("deepseek-v3", "h200", v, tp=8).per_gpu.prediction.memory_fraction
            for v in ("0.5.9", "0.5.10", "0.5.15")}  # fmt: skip
    assert frac["0.5.9"] == sm.fraction_from_reserve(gpu, 14_848)
    assert frac["0.5.10"] == sm.fraction_from_reserve(gpu, 16_384)
    # 0.5.15's breakable graphs are off with an MLA backend: 0.5.9's reserve again
    assert frac["0.5.15"] == frac["0.5.9"] > frac["0.5.10"]


def test_a_stated_fraction_is_untouched():
    # --mem-fraction-static wins: the reserve only chooses SGLang's own default
    p = _dep("qwen3-8b", "b200", "0.5.10", mem_util=0.857).per_gpu.prediction
    assert p.memory_fraction == 0.857


def test_eager_b200_keeps_the_piecewise_reserve_until_0_5_14():
    # --disable-cuda-graph (kvcalc cuda_graphs False): no decode graphs, so 0.5.13 reserves
    # 512 + 1.5 × 16,384 + 128 + 74 × 8 = 25,808 MiB, (183,359 − 25,808) / 183,359 = 0.85925
    # → 0.859; 0.5.14 disables the prefill phase too: 25,216 MiB, 0.86248 → 0.862
    assert sm.reserved_memory_mib(183_359, 16384, 0, 1, 1, prefill_graphs=74) == 25_808
    assert sm.reserved_memory_mib(183_359, 16384, 0, 1, 1) == 25_216
    fr = {v: _dep("qwen3-8b", "b200", v, cuda_graphs=False).per_gpu.prediction.memory_fraction
          for v in ("0.5.13", "0.5.14")}  # fmt: skip
    assert fr == {"0.5.13": 0.859, "0.5.14": 0.862}
