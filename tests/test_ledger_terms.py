"""The per-GPU ledger's terms sum to its KV budget to the byte (calc.deploy.ledger
``PerGpu.budget_terms``): usable memory less the memory fraction's reserve, the weights, the
RoPE table, the activation peak, non-torch memory, the CUDA graph estimate and a state pool is
``kv_budget_bytes``, for every engine and modelled release; and ``kvcalc log`` compares the
CUDA graph estimate the release prints with the one it computes."""

from __future__ import annotations

import json

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines import all_engines
from calc.errors import InvalidInputError

TERMS = (
    "memory_fraction_reserve_bytes", "weights_bytes_per_gpu", "rope_table_bytes",
    "activation_peak_bytes", "overhead_bytes", "cuda_graph_bytes", "state_pool_bytes",
)  # fmt: skip
# (model, GPU, tp): dense GQA, MLA + MoE, a gated-DeltaNet hybrid (SGLang's state pool),
# sliding windows with a local RoPE, a Mamba hybrid
CASES = [("llama3-70b", "h100", 2), ("deepseek-v3", "b200", 8),
         ("qwen3-next-80b-a3b", "h200", 2), ("gemma-3-27b", "h100", 1),
         ("nemotron-h-56b", "h200", 2)]  # fmt: skip


def _ledger(model: str, gpu: str, tp: int, engine: str, version: str | None = None, **kw):
    dep = Deployment.build(load_model(model), load_hardware(gpu), tp=tp,
                           engine=EngineSettings(name=engine, version=version, **kw))  # fmt: skip
    return dep.per_gpu


@pytest.mark.parametrize("eng", [e.name for e in all_engines()])
def test_terms_sum_to_the_budget_for_every_release(eng):
    engine = next(e for e in all_engines() if e.name == eng)
    checked = 0
    for release in engine.versions.releases:
        for model, gpu, tp in CASES:
            try:
                g = _ledger(model, gpu, tp, eng, release)
            except InvalidInputError:  # a model this release does not serve
                continue
            f = g.at(4096, 1).fields()
            assert all(isinstance(f[k], int) for k in ("usable_memory_bytes", *TERMS))
            # integer arithmetic: usable − every term = the budget, exactly
            left = f["usable_memory_bytes"] - sum(f[k] for k in TERMS)
            assert left == f["kv_budget_bytes"], (release, model)
            # and the reserve is the engine's own fraction share: only the budget's floor and
            # the rounding of 7 terms to whole bytes between them (a term the engine takes
            # from the budget without a row of its own would land here)
            share = g.prediction.fraction_reserve_bytes
            assert abs(f["memory_fraction_reserve_bytes"] - share) <= 5, (release, model)
            checked += 1
    assert checked >= len(engine.versions.releases)  # at least one model per release


def test_readme_ledger_by_hand():
    # llama3-70b, 2 × H100, vLLM 0.33.0 (gpu_memory_utilization 0.92)
    f = _ledger("llama3-70b", "h100", 2, "vllm", "0.33.0").at(8192, 1).fields()
    assert f["usable_memory_bytes"] == 85_029_027_840  # torch's total of an H100 80GB
    # 85,029,027,840 × (1 − 0.92) = 6,802,322,227.2; the budget's floor takes the 0.8 B
    assert f["memory_fraction_reserve_bytes"] == 6_802_322_228
    assert f["weights_bytes_per_gpu"] == 70_555_025_408  # 35,277,512,704 params × 2 B
    assert f["rope_table_bytes"] == 2_097_152  # 8,192 positions × 128 × 2 B
    assert f["cuda_graph_bytes"] == 1_291_397_248  # the 0.20+ estimate (kv_budget's figure)
    assert f["state_pool_bytes"] == 0
    # 85,029,027,840 − 6,802,322,228 − 70,555,025,408 − 2,097,152 − 2,172,780,544
    #   − 2,764,398,919 − 1,291,397,248 = 1,441,006,341
    assert f["activation_peak_bytes"] == 2_172_780_544
    assert f["overhead_bytes"] == 2_764_398_919
    assert f["kv_budget_bytes"] == 1_441_006_341


def test_graphs_printed_but_not_taken_have_no_budget_row():
    # vLLM 0.19.1 computes and prints the estimate but leaves it in the slack
    # (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 0): 0 in the ledger, the estimate
    # kept for the log; 0.20.0 takes the same estimate from the budget
    old = _ledger("qwen3-8b", "h100", 1, "vllm", "0.19.1")
    new = _ledger("qwen3-8b", "h100", 1, "vllm", "0.20.0")
    assert old.at(4096, 1).cuda_graph_bytes == 0
    assert old.prediction.cuda_graph_estimate_bytes > 0
    assert new.at(4096, 1).cuda_graph_bytes == round(new.prediction.cuda_graph_estimate_bytes)
    # eager: no estimate computed at all
    eager = _ledger("qwen3-8b", "h100", 1, "vllm", "0.19.1", cuda_graphs=False)
    assert eager.prediction.cuda_graph_estimate_bytes is None


def test_sglang_state_pool_is_a_term():
    # qwen3-next (gated DeltaNet): SGLang sets the state pool apart before the KV budget
    g = _ledger("qwen3-next-80b-a3b", "h200", 2, "sglang")
    f = g.at(4096, 1).fields()
    assert f["state_pool_bytes"] == round(g.prediction.state_pool_bytes) > 0
    # SGLang's fraction applies to usable − non-torch: (usable − non_torch) × (1 − f)
    p = g.prediction
    share = (p.usable_memory_bytes - p.non_torch_bytes) * (1 - p.memory_fraction)
    assert abs(f["memory_fraction_reserve_bytes"] - share) <= 5


def test_trtllm_reserve_is_a_share_of_the_free_memory():
    g = _ledger("llama3-70b", "h100", 2, "trtllm")
    p, f = g.prediction, g.at(4096, 1).fields()
    # free = usable − weights − activation − non-torch; budget = free × f, reserve = free × (1 − f)
    free = p.usable_memory_bytes - p.weights_bytes - p.activation_bytes - p.non_torch_bytes
    assert abs(f["memory_fraction_reserve_bytes"] - free * (1 - p.memory_fraction)) <= 5
    assert f["cuda_graph_bytes"] == 0  # captured after the pool


LOG_019 = (
    "INFO 06-25 17:21:29 [utils.py:299]  version 0.19.1\n"
    "INFO 06-25 17:21:52 [gpu_model_runner.py:4820] Model loading took 15.27 GiB memory and "
    "4.5 seconds\n"
    "INFO 06-25 17:21:58 [gpu_model_runner.py:5955] Estimated CUDA graph memory: 2.35 GiB total\n"
    "INFO 06-25 17:21:58 [gpu_worker.py:436] Available KV cache memory: 19.36 GiB\n"
)


def test_log_compares_the_printed_graph_estimate(cli, tmp_path):
    log = tmp_path / "v019.log"
    log.write_text(LOG_019)
    out = cli("log", str(log), "--engine", "vllm", "--engine-version", "0.19.1", "-m", "qwen3-8b",
              "-H", "h100", "-f", "json")  # fmt: skip
    assert out.code == 0, out.err
    rows = {r["term"]: r for r in json.loads(out.out)["terms"]}
    g = _ledger("qwen3-8b", "h100", 1, "vllm", "0.19.1")
    # the estimate 0.19.1 computes, not the 0 it takes from the budget
    assert rows["cuda_graphs"]["predicted"] == g.prediction.cuda_graph_estimate_bytes > 0
    assert rows["cuda_graphs"]["printed"] == 2.35 * 2**30
    # the printed load holds the RoPE table: weights + rope
    p = g.prediction
    assert rows["weights"]["predicted"] == p.weights_bytes + p.rope_table_bytes
