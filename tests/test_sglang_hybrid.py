"""SGLang's recurrent-state pool on hybrid models (calc/deploy/engines/sglang/hybrid.py): one
request's state, the ratio split, the running-request cap by release, and what the ledger, the
simulation and the CLI make of them."""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.engines.sglang import hybrid as h
from calc.deploy.engines.sglang.rules import VERSIONS

GIB = 2**30


def _dep(model="qwen3.5-27b", version="0.5.16", **engine):
    settings = EngineSettings(name="sglang", version=version, **engine)
    return Deployment.build(load_model(model), load_hardware("h200"), engine=settings)


def test_qwen35_27b_state_per_request():
    # 48 gated DeltaNet layers; conv 3 × (2 × 16 × 128 + 48 × 128) = 30,720 elements × 2 B
    # = 61,440; recurrent 48 × 128 × 128 = 786,432 × 4 B (fp32) = 3,145,728; 3,207,168 a layer
    # × 48 = 153,944,064 B
    assert h.model_state_bytes(load_model("qwen3.5-27b"), 1, 1) == 153_944_064


def test_qwen35_397b_state_per_request_at_tp8():
    # 45 DeltaNet layers; conv 3 × (2 × 16 × 128 + 64 × 128) / 8 = 4,608 × 2 B = 9,216;
    # recurrent 64 / 8 × 128 × 128 = 131,072 × 4 B = 524,288; 533,504 × 45 = 24,007,680 B
    assert h.model_state_bytes(load_model("qwen3.5-397b-a17b"), 8, 1) == 24_007_680


def test_ratio_split_and_its_padding_slot():
    # share 19,000 × 0.9 / 1.9 = 9,000 B: 9,000 // 100 = 90 slots; with the padding slot
    # (9,000 − 100) // 100 = 89
    assert h.ratio_slots(19_000, 100) == 90
    assert h.ratio_slots(19_000, 100, padding=True) == 89
    assert h.ratio_slots(-5, 100) == 0


@pytest.mark.parametrize(("version", "slots", "paid", "cap"), [
    ("0.5.3", 512, 51_200, 512),  # radix cache off: 512 slots, capped at 512 // 1
    ("0.5.13", 90, 9_000, 30),  # split, no_buffer: 90 // 3
    ("0.5.16", 90, 9_000, 18),  # extra_buffer: 90 // (3 + 2)
    ("0.5.23", 89, 9_000, 17),  # (9,000 − 100) // 100 = 89, (89 + 1) × 100 paid, 89 // 5
])  # fmt: skip
def test_state_pool_by_release(version, slots, paid, cap):
    pool = h.state_pool(VERSIONS.rules(version), 19_000, 100, radix_cache=True, max_running=None)
    assert (pool.slots, pool.pool_bytes, pool.running_cap) == (slots, paid, cap)
    assert pool.kv_budget_bytes == 19_000 - paid


def test_radix_cache_off():
    # with --max-running-requests 128: 128 slots, each request one (0.5.16: 128 × 100 B)
    pool = h.state_pool(VERSIONS.rules("0.5.16"), 19_000, 100, radix_cache=False, max_running=128)
    assert (pool.slots, pool.pool_bytes, pool.running_cap) == (128, 12_800, 128)
    # without it: 512 slots up to 0.5.8, the split from 0.5.9 (90 slots, 90 // 1)
    old = h.state_pool(VERSIONS.rules("0.5.8"), 80_000, 100, radix_cache=False, max_running=None)
    assert (old.slots, old.running_cap) == (512, 512)
    new = h.state_pool(VERSIONS.rules("0.5.9"), 19_000, 100, radix_cache=False, max_running=None)
    assert (new.slots, new.running_cap) == (90, 90)


def test_mamba2_models_without_radix_cache_in_0_5_5():
    # 0.5.4 and 0.5.5 turn the radix cache off for Mamba-2 models: 512 slots, cap 512
    r = VERSIONS.rules("0.5.5")
    mamba2 = h.state_pool(r, 19_000, 100, radix_cache=True, max_running=None, mamba2=True)
    assert (mamba2.slots, mamba2.running_cap) == (512, 512)
    assert h.state_pool(r, 19_000, 100, radix_cache=True, max_running=None).slots == 90


def test_deployment_pool_is_the_kv_share():
    dep = _dep()
    p = dep.per_gpu.prediction
    per = 153_944_064
    rest = p.kv_budget_bytes + p.state_slots * per  # the budget before the state pool
    assert p.state_slots == int(rest * 0.9 / 1.9 // per)
    assert p.max_running_requests == p.state_slots // 5
    # the KV pool: the rest after the slots, 16 layers × 2 × 4 KV heads × 256 × 2 B = 65,536 B
    assert p.tokens == int(p.kv_budget_bytes // 65_536)
    # about 0.9 / 1.9 of the rest is state
    assert p.state_slots * per / rest == pytest.approx(0.9 / 1.9, abs=per / rest)


def test_ledger_counts_kv_and_slots_apart():
    g = _dep().per_gpu
    kv = 65_536 * 9_216  # one sequence of 9,216 tokens (page 1)
    assert g.max_sequences_per_gpu(9_216) == min(g.kv_budget_bytes // kv, g.state_slots)
    assert g.max_sequences_per_gpu(16) == g.state_slots  # short sequences: the slots bind
    assert g.fits(16, g.state_slots) and not g.fits(16, g.state_slots + 1)


def test_simulation_takes_the_kv_pool_and_the_cap():
    from calc.serve.simulate import deployment_limits

    dep = _dep()
    p = dep.per_gpu.prediction
    lim = deployment_limits(dep, 9_216)
    assert lim.pool_blocks == p.tokens  # page 1: a block a token
    assert lim.max_num_seqs == p.max_running_requests
    # the user's --max-running-requests above the cap is cut to it, as resolve_max_num_reqs
    assert deployment_limits(_dep(max_num_seqs=4096), 9_216).max_num_seqs <= p.max_running_requests


def test_models_without_state_layers_are_unchanged():
    p = _dep("qwen3-8b").per_gpu.prediction
    assert p.state_slots is None and p.max_running_requests is None and not p.warnings
    # vLLM keeps the state in its block pool
    vllm = Deployment.build(load_model("qwen3.5-27b"), load_hardware("h200"),
                            engine=EngineSettings(name="vllm"))  # fmt: skip
    assert vllm.per_gpu.prediction.state_slots is None


def test_capacity_and_simulate_print_the_slots_and_the_cap(cli):
    dep = _dep()
    p = dep.per_gpu.prediction
    args = ("--model", "qwen3.5-27b", "--hardware", "h200", "--engine", "sglang",
            "--engine-version", "0.5.16")  # fmt: skip
    r = cli("capacity", *args, "--ctx", "9216", "-f", "json")
    assert r.code == 0
    assert f"{p.state_slots:,} slots" in r.err and f"= {p.max_running_requests:,}" in r.err
    assert "not modelled" not in r.err
    r = cli("simulate", *args, "--rate", "2", "--prompt", "512", "--gen", "16", "-n", "20",
            "-f", "json")  # fmt: skip
    assert r.code == 0 and f"// 5 = {p.max_running_requests:,}" in r.err


@pytest.mark.parametrize(("printed_tokens", "kv_per_token", "per_slot", "slots", "padding"), [
    # search index file 65830671609, SGLang 0.5.18, Qwen3.8-27B-FP8 (Qwen3.5-27B's shapes) on
    # one H100: 330,323 tokens × 65,536 B of KV, 124 slots of 153,944,064 B
    (330_323, 65_536, 153_944_064, 124, True),
    # 70117488909, SGLang 0.5.21, Nemotron-3 Nano (Omni) at TP 4, fp8 KV: 19,644,177 tokens ×
    # 1,536 B (6 layers × 1 KV head × 128 × 2 × 1 B), 2,211 slots of 12,270,592 B
    (19_644_177, 1_536, 12_270_592, 2_211, True),
    # 53944457073, SGLang main of 2026-04-14 (0.5.10), Qwen3.5-9B at TP 2: 327,310 tokens ×
    # 16,384 B (8 layers × 2 KV heads × 256 × 2 × 2 B), 186 slots of 25,755,648 B (24 layers ×
    # (4,096 × 3 × 2 + 16 × 128 × 128 × 4))
    (327_310, 16_384, 25_755_648, 186, False),
])  # fmt: skip
def test_printed_pools_follow_the_split(printed_tokens, kv_per_token, per_slot, slots, padding):
    """The rest memory a log's two pools add up to, split again by the rule, gives its slots
    (to the token: the KV pool is the rest // its cell, so rest is known within one cell).
    0.5.18's log: rest = 330,323 × 65,536 + 125 × 153,944,064 = 40,891,056,128 B; × 0.9 / 1.9
    = 19,369,447,640; (− 153,944,064) // 153,944,064 = 124 (without the padding slot 0.5.16's
    rule would give 125, the printed 124 rules it out)."""
    paid = (slots + padding) * per_slot
    for rest in (printed_tokens * kv_per_token + paid,
                 (printed_tokens + 1) * kv_per_token + paid - 1):  # fmt: skip
        assert h.ratio_slots(rest, per_slot, padding=padding) == slots
    if padding:  # the rule without the padding slot does not reproduce the log
        rest = printed_tokens * kv_per_token + slots * per_slot
        assert h.ratio_slots(rest, per_slot) != slots
