"""The compute model on modern architectures: windowed attention, hybrid SSM layers, the
per-layer FFN pattern, TP sharding of Mamba mixers and quantised formats in latency."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from calc.data.dtypes import bytes_per_element
from calc.data.model_schema import ModelConfig
from calc.data.registry import all_models, load_hardware, load_model
from calc.deploy.checkpoint import (
    component_bytes_per_element,
    params_by_component,
)
from calc.deploy.ops import attended_token_layers
from calc.deploy.parallel import params_per_gpu, shard
from calc.deploy.rates import compute_dtype
from calc.deploy.steps import decode_step, prefill, tpot_s, ttft_s
from calc.errors import InvalidInputError
from calc.formulas import flops as F
from calc.formulas.attention_layout import attention_layout
from calc.formulas.params import model_params
from calc.formulas.ssm import layer_ssm_params, mixer_shape
from tests import reports as R

MODELS = [cfg.name for cfg in all_models()]


def _ops(step):
    return {o.name: o for o in step.raw}


# --- windowed attention pairs -----------------------------------------------------------


@given(s=st.integers(1, 3000), w=st.integers(1, 4000))
def test_sliding_pairs_closed_form_equals_brute_force(s, w):
    assert F.sliding_causal_pairs(s, w) == sum(min(i, w) for i in range(1, s + 1))
    # the prompt's pairs are the decode pairs of its positions 1..S
    assert F.sliding_causal_pairs(s, w) - F.sliding_causal_pairs(s - 1, w) == (
        F.sliding_decode_pairs(s, w)
    )


@given(s=st.integers(1, 3000), c=st.integers(1, 700))
def test_chunked_pairs_closed_form_equals_brute_force(s, c):
    assert F.chunked_causal_pairs(s, c) == sum((i - 1) % c + 1 for i in range(1, s + 1))
    assert F.chunked_causal_pairs(s, c) - F.chunked_causal_pairs(s - 1, c) == (
        F.chunked_decode_pairs(s, c)
    )


def test_windowed_pair_goldens():
    # 4096·4097/2 + (8000 − 4096)·4096 = 8,390,656 + 15,990,784 = 24,381,440
    assert F.sliding_causal_pairs(8000, 4096) == 24_381_440
    # below the window it is the full triangle: 1000·1001/2 = 500,500
    assert F.sliding_causal_pairs(1000, 4096) == F.causal_pairs(1000) == 500_500
    # 2 whole chunks of 8192·8193/2 = 33,558,528 each + 3,616·3,617/2 = 6,539,536
    assert F.chunked_causal_pairs(20_000, 8192) == 2 * 33_558_528 + 6_539_536 == 73_656_592
    # decode at ctx 20,000: the window holds 4,096 keys; the chunk (20,000 − 1) mod 8192 + 1
    assert F.sliding_decode_pairs(20_000, 4096) == 4096
    assert F.chunked_decode_pairs(20_000, 8192) == 3616
    assert F.chunked_decode_pairs(8192, 8192) == 8192 and F.chunked_decode_pairs(8193, 8192) == 1


def test_windowed_pairs_broadcast_over_arrays():
    s = np.array([1.0, 4096.0, 8000.0, 20_000.0])
    got = F.sliding_causal_pairs(s, 4096)
    assert list(got) == [F.sliding_causal_pairs(int(x), 4096) for x in s]
    got = F.chunked_causal_pairs(s, 8192)
    assert list(got) == [F.chunked_causal_pairs(int(x), 8192) for x in s]


def test_gemma2_9b_prefill_attention_uses_the_window():
    cfg = load_model("gemma-2-9b")  # 21 sliding (W 4096) + 21 full layers; 16 heads × 256
    ops = _ops(prefill(cfg, None, prompt=8000, batch=1))
    # pairs: 21 × 8000·8001/2 + 21 × 24,381,440 = 672,084,000 + 512,010,240 = 1,184,094,240
    assert attended_token_layers(cfg, 8000, decode=False) == 1_184_094_240
    # scores: 2 × 1,184,094,240 × 16 × 256 = 9,700,100,014,080 FLOP (values the same)
    assert ops["attn_scores"].flops == 9_700_100_014_080
    assert ops["attn_values"].flops == 9_700_100_014_080
    # the old count over the full context on all 42 layers: 42 × 32,004,000 pairs
    full = 2 * 42 * F.causal_pairs(8000) * 16 * 256
    assert ops["attn_scores"].flops < full


def test_gemma2_9b_decode_attention_and_kv_read_use_the_window():
    cfg = load_model("gemma-2-9b")
    ops = _ops(decode_step(cfg, None, batch=3, ctx=8192))
    # keys: 21 × 8192 (full) + 21 × min(8192, 4096) (sliding) = 258,048 per sequence
    assert attended_token_layers(cfg, 8192, decode=True) == 258_048
    # 2 × 3 × 258,048 × 16 × 256 = 6,341,787,648 FLOP
    assert ops["attn_scores"].flops == 6_341_787_648
    # KV read: 3 × 258,048 token-layers × (2 × 8 × 256 × 2 = 8,192 B) = 6,341,787,648 B
    # KV written: 3 tokens × 42 layers × 8,192 B = 1,032,192 B
    kv = ops["attn_scores"].kv_bytes + ops["attn_values"].kv_bytes
    assert kv == pytest.approx(6_341_787_648 + 1_032_192, rel=1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_decode_kv_read_is_the_layouts_cache(name):
    # one source of truth: the KV read at decode = the AttentionLayout's bytes per sequence
    cfg = load_model(name)
    kv_b = bytes_per_element(cfg.kv_dtype or cfg.dtype)
    layout = attention_layout(cfg)
    ops = _ops(decode_step(cfg, None, batch=2, ctx=5000))
    if cfg.n_attention_layers == 0:
        return
    read = ops["attn_scores"].kv_bytes + ops["attn_values"].kv_bytes
    write = 2 * layout.kv_bytes_per_token(kv_b)
    if layout.sparse:  # attention reads the top-k tokens' latents; the indexer every index key
        index = layout.index_bytes_per_token_per_layer
        latent = layout.kv_bytes_per_token_per_layer(kv_b) - index
        top = min(5000, layout.sparse_topk)
        assert read - write == pytest.approx(2 * layout.n_layers * top * latent, rel=1e-12)
        assert ops["indexer_scores"].kv_bytes == 2 * layout.n_layers * 5000 * index
        return
    assert read - write == pytest.approx(2 * layout.kv_bytes_per_sequence(5000, kv_b), rel=1e-12)


@pytest.mark.parametrize(("model", "tp"), [("gemma-2-9b", 2), ("jamba-v0.1", 4), ("mistral-7b", 8)])
def test_decode_kv_read_per_gpu_equals_kv_per_gpu(model, tp):
    cfg, hw = load_model(model), load_hardware("h100")
    step = decode_step(cfg, hw, batch=4, ctx=20_000, tp=tp)
    ops = _ops(step)
    s = shard(cfg, tp=tp)
    ledger = R.deployment(cfg, hw, tp=tp, kv_dtype="bf16").per_gpu
    per_token_layer = 2 * s.n_kv_heads * cfg.k_head_dim * 2
    write = 4 * cfg.n_attention_layers * per_token_layer
    read = ops["attn_scores"].kv_bytes + ops["attn_values"].kv_bytes - write
    assert read == pytest.approx(ledger.kv_cache_bytes(20_000, 4), rel=1e-12)


def _llama4_style():
    base = load_model("llama3-8b").to_dict()
    base.update(
        name="chunky",
        display_name="chunky",
        layer_pattern=["chunked", "chunked", "chunked", "full"],
        attention_chunk_size=8192,
    )
    return ModelConfig(**base)


def test_chunked_local_layers_attend_within_their_chunk():
    cfg = _llama4_style()  # 32 layers: 24 chunked (C 8192) + 8 full; 32 heads × 128
    ops = _ops(decode_step(cfg, None, batch=1, ctx=20_000))
    # keys: 8 × 20,000 + 24 × 3,616 = 160,000 + 86,784 = 246,784; × 2 × 32 × 128
    assert ops["attn_scores"].flops == 2 * 246_784 * 32 * 128 == 2_021_654_528
    pre = _ops(prefill(cfg, None, prompt=20_000, batch=1))
    # 8 × 20,000·20,001/2 + 24 × 73,656,592 = 1,600,080,000 + 1,767,758,208 = 3,367,838,208
    assert pre["attn_scores"].flops == 2 * 3_367_838_208 * 32 * 128


# --- per-layer pattern: attention, SSM, FFN only where the layer has it ------------------


@pytest.mark.parametrize("name", MODELS)
def test_weights_read_per_step_match_the_parameter_count(name):
    # every op's weights, summed, are the model's parameters (calc.formulas.params): attention on
    # attention layers, mixers on SSM layers, FFNs on FFN layers; at batch 1 an MoE layer
    # reads experts_per_token experts. The embedding op gathers one row; an untied table is
    # not read by lm_head.
    # Each component is read in its checkpoint format (calc.deploy.checkpoint: gpt-oss's experts in
    # mxfp4, DeepSeek-V3's linear layers in fp8-block128, the rest bf16).
    cfg = load_model(name)
    # each component's bytes per parameter as released, layers a checkpoint keeps in 16 bit
    # weighed in (Meta's 405B FP8: its first and last MLPs)
    bpe = component_bytes_per_element(cfg)
    step = decode_step(cfg, None, batch=1, ctx=64)
    read = sum(o.weight_bytes for o in step.raw if o.name != "embedding")
    p = model_params(cfg)
    parts = params_by_component(cfg)
    parts["routed_experts"] = p.moe_routed_active
    parts["vision"] = parts["audio"] = 0  # towers are not read per text token
    if not cfg.tie_embeddings:
        parts["embedding"] = 0
    assert read == pytest.approx(sum(n * bpe[c] for c, n in parts.items()), rel=1e-12)


def test_jamba_projections_only_on_its_four_attention_layers():
    cfg = load_model("jamba-v0.1")  # 4 attention + 28 Mamba layers; 16 MoE + 16 dense FFNs
    ops = _ops(decode_step(cfg, None, batch=1, ctx=100))
    # qkv: 4 layers × 2 × 4096 × (32·128 + 2·8·128 = 6,144) = 201,326,592
    assert ops["qkv_proj"].flops == 201_326_592
    # o: 4 × 2 × 4096 × 4096 = 134,217,728
    assert ops["o_proj"].flops == 134_217_728
    # attention: 4 layers × 100 keys × 2 × 32 × 128 = 3,276,800 (scores)
    assert ops["attn_scores"].flops == 3_276_800
    # dense FFN on 16 layers: 16 × 2 × 3 × 4096 × 14336 = 5,637,144,576
    assert ops["ffn"].flops == 5_637_144_576
    # 2 experts on 16 layers: 2 × 5,637,144,576 = 11,274,289,152
    assert ops["routed_experts"].flops == 11_274_289_152


def test_jamba_mamba_ops():
    # Mamba-1 [Gu & Dao 2023]: d 4096, E = 2 × 4096 = 8192, N 16, K 4, R 256; 28 layers
    cfg = load_model("jamba-v0.1")
    ops = _ops(decode_step(cfg, None, batch=1, ctx=100))
    assert ops["mamba_in_proj"].flops == 28 * 2 * 4096 * 16384 == 3_758_096_384
    assert ops["mamba_conv1d"].flops == 28 * 2 * 8192 * 4 == 1_835_008
    # x_proj 2·8192·(256 + 32) = 4,718,592 + dt_proj 2·256·8192 = 4,194,304 per layer
    assert ops["mamba_x_dt_proj"].flops == 28 * (4_718_592 + 4_194_304) == 249_561_088
    # selective scan: 9 × 8192 × 16 = 1,179,648 per layer
    assert ops["mamba_scan"].flops == 28 * 1_179_648 == 33_030_144
    assert ops["mamba_out_proj"].flops == 28 * 2 * 8192 * 4096 == 1_879_048_192
    # scan bytes per layer: weights A_log 8192·16 + D 8192 + norms (256 + 2·16) = 139,552
    # params × 2 B; SSM state 8192 × 16 × 2 B = 262,144 read + written; activations
    # x, Δ, z (3 × 8192) + B, C (2 × 16) in and y (8192) out = 32,800 × 2 B
    assert ops["mamba_scan"].bytes == 28 * (139_552 * 2 + 2 * 262_144 + 32_800 * 2)
    assert ops["mamba_scan"].bytes == 24_331_776
    # conv bytes: weights (8192·4 + 8192 bias) × 2 B = 81,920; state 3 × 8192 × 2 B = 49,152
    # read + written; 8192 channels in and out × 2 B = 32,768
    assert ops["mamba_conv1d"].bytes == 28 * (81_920 + 2 * 49_152 + 32_768) == 5_963_776


def test_ssm_state_traffic_does_not_grow_with_ctx_and_is_linear_in_batch():
    cfg = load_model("jamba-v0.1")
    short = _ops(decode_step(cfg, None, batch=1, ctx=100))
    long = _ops(decode_step(cfg, None, batch=1, ctx=200_000))
    for name in ("mamba_in_proj", "mamba_conv1d", "mamba_scan", "mamba_out_proj"):
        assert short[name].bytes == long[name].bytes
    two = _ops(decode_step(cfg, None, batch=2, ctx=100))
    # one more sequence: its state (2 × 262,144 B) and activations (32,800 × 2 B) per layer
    assert two["mamba_scan"].bytes - short["mamba_scan"].bytes == 28 * (524_288 + 65_600)


def test_nemotron_h_mamba2_ops():
    # Mamba-2 [Dao & Gu 2024]: d 8192, H 256 heads × P 64 = E 16,384, N 256, G 8, K 4;
    # 54 Mamba-2 + 10 attention + 54 MLP-only layers
    cfg = load_model("nemotron-h-56b")
    ops = _ops(decode_step(cfg, None, batch=1, ctx=4096))
    # in_proj width 2·16384 + 2·8·256 + 256 = 37,120: 2 × 8192 × 37,120 = 608,174,080
    assert ops["mamba2_in_proj"].flops == 54 * 608_174_080
    # conv over 16,384 + 4,096 = 20,480 channels: 2 × 20,480 × 4 = 163,840
    assert ops["mamba2_conv1d"].flops == 54 * 163_840
    # state update 5 × 16,384 × 256 = 20,971,520
    assert ops["mamba2_scan"].flops == 54 * 20_971_520
    assert ops["mamba2_out_proj"].flops == 54 * 2 * 16384 * 8192
    # attention projections on 10 layers only: 10 × 2 × 8192 × (64·128 + 2·8·128 = 10,240)
    assert ops["qkv_proj"].flops == 10 * 2 * 8192 * 10_240 == 1_677_721_600
    # MLP (relu², 2 matrices) on the 54 '-' layers: 54 × 2 × 2 × 8192 × 32768
    assert ops["ffn"].flops == 54 * 4 * 8192 * 32768
    # state per sequence and layer: conv 3 × 20,480 + SSM 256 × 64 × 256 = 4,255,744 el.
    scan_state = 54 * 2 * 256 * 64 * 256 * 2  # read + write, 2 B each
    assert ops["mamba2_scan"].bytes > scan_state


def test_ssd_prefill_flops():
    # S 1000 in chunks of 256: 3 whole + 232; Σq² = 3·65,536 + 53,824 = 250,432
    assert F.ssd_sum_sq_chunks(1000, 256) == 250_432
    # 2·250,432·(16,384 + 8·256) + 4·1000·16,384·256 + 2·4·16,384·256
    # = 9,231,925,248 + 16,777,216,000 + 33,554,432 = 26,042,695,680
    assert F.mamba2_prefill_scan_flops(1000, 16384, 256, 8) == 26_042_695_680


@given(s=st.integers(1, 5000), q=st.integers(1, 600))
def test_ssd_chunks_brute_force(s, q):
    sizes = [min(q, s - i) for i in range(0, s, q)]
    assert F.ssd_sum_sq_chunks(s, q) == sum(x * x for x in sizes)


def test_latency_cli_gives_ssm_ops(cli):
    for model, op in (("jamba-v0.1", "mamba_scan"), ("nemotron-h-56b", "mamba2_scan")):
        r = cli("latency", "--model", model, "--hardware", "h100", "-f", "json")
        assert r.code == 0, r.err
        d = r.json()
        names = [o["name"] for o in d["ops"]]
        assert op in names and op in [o["name"] for o in d["prefill_ops"]]
        row = d["ops"][names.index(op)]
        assert set(row) >= {"name", "flops", "bytes", "arithmetic_intensity", "bound", "time_s"}
        assert row["bound"] == "memory"  # one token's state update
        assert d["ssm_state_bytes_per_gpu"] > 0
    r = cli("latency", "--model", "jamba-v0.1", "--hardware", "h100", "--explain")
    assert r.code == 0 and "mamba_decode_flops_per_token_per_layer" in r.out


# --- tensor parallelism of hybrid models --------------------------------------------------


def test_mamba_mixers_split_over_tp():
    cfg = load_model("nemotron-h-56b")
    m = mixer_shape(cfg, "mamba2", tp=8)
    # 256 / 8 = 32 heads × 64 = 2,048 channels; 8 / 8 = 1 B/C group
    assert (m.n_heads, m.d_inner, m.n_groups, m.conv_dim) == (32, 2048, 1, 2048 + 512)
    # per GPU: in_proj 8192 × (2·2048 + 2·256 + 32 = 4,640) + conv (2,560 × 4 + 2,560)
    # + 3 × 32 + norm 2,048 + out_proj 2,048 × 8192
    assert layer_ssm_params(cfg, "mamba2", 8) == (8192 * 4640 + 2560 * 5 + 96 + 2048 + 2048 * 8192)
    # every GPU holds 1/8 of the whole mixer exactly here (groups split evenly)
    assert 8 * layer_ssm_params(cfg, "mamba2", 8) == layer_ssm_params(cfg, "mamba2")
    jamba = load_model("jamba-v0.1")
    assert mixer_shape(jamba, "mamba", tp=4).d_inner == 2048


def test_tp_state_and_params_per_gpu_for_hybrids(cli):
    r = cli("latency", "--model", "nemotron-h-56b", "--hardware", "h100", "--tp", "8",
            "--prompt", "1000", "--gen", "24", "--batch", "2", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    d = r.json()
    # state per GPU: 54 layers × (3 × 2,560 + 32 × 64 × 256 = 531,968 el.) × 2 B × 2 seqs
    assert d["ssm_state_bytes_per_gpu"] == 54 * 531_968 * 2 * 2 == 114_905_088
    cfg = load_model("nemotron-h-56b")
    one = params_per_gpu(cfg, shard(cfg))
    eight = params_per_gpu(cfg, shard(cfg, tp=8))
    assert one == model_params(cfg).total
    assert one / 8 < eight < one / 7  # a 1/8 share plus the replicated norms and q/k


@pytest.mark.parametrize(
    ("model", "tp", "count"), [("nemotron-h-56b", 8, 118), ("jamba-v0.1", 2, 64)]
)
def test_tp_allreduce_after_every_mixer_and_ffn(model, tp, count):
    # Nemotron-H: each of its 118 layers is one block (mixer or MLP): 118 all-reduces;
    # Jamba: 32 mixers + 32 FFNs = 64 (2 per layer, as a transformer)
    cfg, hw = load_model(model), load_hardware("h100")
    ar = _ops(decode_step(cfg, hw, batch=1, ctx=100, tp=tp))["tp_allreduce"]
    assert ar.count == count


def test_tp_must_split_mamba_groups(cli):
    r = cli("latency", "--model", "nemotron-h-56b", "--hardware", "h100", "--tp", "16")
    assert r.code == 2 and "8 Mamba-2 B/C groups" in r.err and "Traceback" not in r.err
    with pytest.raises(InvalidInputError, match="Mamba-2 B/C groups"):
        shard(load_model("nemotron-h-56b"), tp=16)


@pytest.mark.parametrize(
    ("model", "kw"),
    [("jamba-v0.1", {}), ("gemma-2-9b", {}), ("nemotron-h-56b", {"tp": 8}), ("chunky", {})],
)
def test_vectorised_paths_equal_scalar_for_hybrid_and_windowed(model, kw):
    cfg = _llama4_style() if model == "chunky" else load_model(model)
    hw = load_hardware("h100")
    batch = np.array([1, 7])
    ctx = np.array([[17], [5000], [20_000]])
    got = tpot_s(cfg, hw, batch=batch, ctx=ctx, **kw)
    prompts = np.array([[1], [300], [9000]])
    pre = ttft_s(cfg, hw, prompt=prompts, batch=batch, **kw)
    for j, b in enumerate(batch):
        for i, c in enumerate(ctx[:, 0]):
            want = decode_step(cfg, hw, batch=int(b), ctx=int(c), **kw).time_s
            assert got[i, j] == pytest.approx(want, rel=1e-12)
        for i, s in enumerate(prompts[:, 0]):
            want = prefill(cfg, hw, prompt=int(s), batch=int(b), **kw).time_s
            assert pre[i, j] == pytest.approx(want, rel=1e-12)


# --- quantised formats in latency, flops and speculate ------------------------------------


def test_compute_dtype_of_quantised_formats():
    h100 = load_hardware("h100").peak_flops_per_s
    b200 = load_hardware("b200").peak_flops_per_s
    a100 = load_hardware("a100-80g").peak_flops_per_s
    assert compute_dtype("mxfp4", b200) == compute_dtype("nvfp4", b200) == "fp4"
    assert compute_dtype("mxfp4", h100) == "bf16"  # weight-only on Hopper (no fp4)
    assert compute_dtype("fp8-block128", h100) == compute_dtype("fp8-tensor", h100) == "fp8"
    assert compute_dtype("fp8-block128", a100) == "bf16"
    for fmt in ("int4-g128", "int4-g128-sym", "fp4-g128", "int8-channel"):
        assert compute_dtype(fmt, b200) == "bf16"


def test_latency_mxfp4_on_h100_is_weight_only_with_exact_bytes(cli):
    r = cli("latency", "--model", "gpt-oss-120b", "--hardware", "h100",
            "--weight-dtype", "mxfp4", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    d = r.json()
    assert d["compute_dtype"] == "bf16" and "weight-only" in r.err
    # mxfp4 is gpt-oss's own format, so the checkpoint as released (calc.deploy.checkpoint): the
    # experts 114,701,598,720 × (0.5 + 1/32 = 0.53125 B: 4 bits + one E8M0 per 32)
    # = 60,935,224,320; in bf16 the embedding and lm_head 2 × 579,133,440, attention
    # 955,805,184, router 13,275,648, norms 210,240:
    # 2 × (1,158,266,880 + 955,805,184 + 13,275,648 + 210,240) = 4,255,115,904
    # total 60,935,224,320 + 4,255,115,904 = 65,190,340,224 (memory: the checkpoint); as vLLM
    # 0.33 loads it on a Hopper GPU (latency's ledger) the 39,813,120 expert biases turn fp32:
    # + 39,813,120 × (4 − 0.53125) B = 138,101,760 (tests/test_checkpoint.py)
    assert d["weights_bytes_per_gpu"] == 65_190_340_224 + 138_101_760
    m = cli("memory", "--model", "gpt-oss-120b", "--ctx", "1280", "--weight-dtype", "mxfp4",
            "-f", "json").json()  # fmt: skip
    assert m["weights_bytes"] == 65_190_340_224


def test_latency_nvfp4_on_b200_runs_at_the_fp4_peak(cli):
    r = cli("latency", "--model", "llama3-70b", "--hardware", "b200",
            "--weight-dtype", "nvfp4", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    d = r.json()
    hw = load_hardware("b200")
    assert d["compute_dtype"] == "fp4"
    assert d["ridge_point_flop_per_byte"] == pytest.approx(
        hw.peak_flops_per_s["fp4"] / hw.hbm_bandwidth_bytes_per_s
    )
    # --weight-dtype re-quantises the linear layers: attention 12,079,595,520 + FFN
    # 56,371,445,760 = 68,451,041,280 × (0.5 + 1/16 = 0.5625 B) = 38,503,710,720 B; the
    # embedding and lm_head 2 × 1,050,673,152 and norms 1,318,912 stay bf16:
    # 2 × 2,102,665,216 = 4,205,330,432; total 42,709,041,152 B
    assert d["weights_bytes_per_gpu"] == 42_709_041_152


def test_quantised_step_reads_the_scaled_bytes():
    cfg, hw = load_model("llama3-8b"), load_hardware("h100")
    bf16 = _ops(decode_step(cfg, hw, batch=1, ctx=64))
    nv = _ops(decode_step(cfg, hw, batch=1, ctx=64, weight_dtype="nvfp4"))
    # 0.5625 / 2 = 0.28125 of the bf16 weight bytes
    assert nv["qkv_proj"].weight_bytes / bf16["qkv_proj"].weight_bytes == pytest.approx(0.28125)
    kv8 = _ops(decode_step(cfg, hw, batch=1, ctx=1000, kv_dtype="fp8-token-head"))
    # 32 layers × 1000 keys × 2 × 8 × 128 el. × (1 + 4/128 = 1.03125 B) = 67,584,000 B
    # + the new token 32 × 2,048 × 1.03125 = 67,584 B
    kv = kv8["attn_scores"].kv_bytes + kv8["attn_values"].kv_bytes
    assert kv == pytest.approx(67_584_000 + 67_584, rel=1e-12)


def test_kv_format_through_the_latency_cli(cli):
    r = cli("latency", "--model", "llama3-8b", "--hardware", "h100",
            "--kv-dtype", "fp8-token-head", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    # 32 layers × 2 × 8 × 128 = 65,536 el./token × 1.03125 B × 1,280 tokens = 86,507,520
    assert r.json()["kv_cache_bytes_per_gpu"] == 86_507_520


@pytest.mark.parametrize(
    "args",
    [
        ("flops", "--model", "llama3-8b", "--weight-dtype", "int4-g128", "--hardware", "h100"),
        ("flops", "--model", "gpt-oss-120b", "--weight-dtype", "mxfp4"),
        "speculate -m llama3-70b --draft llama3-8b -H h100 --weight-dtype fp8-block128 "
        "--gamma 4 --alpha 0.7".split(),
        "latency -m deepseek-v3 -H h200 --tp 8 --kv-dtype fp8-token-head".split(),
    ],
)
def test_formats_accepted_by_flops_and_speculate(cli, args):
    r = cli(*args, "-f", "json")
    assert r.code == 0, r.err


def test_unknown_format_is_one_line(cli):
    r = cli("latency", "--model", "llama3-8b", "--hardware", "h100", "--weight-dtype", "mxfp5")
    assert r.code == 2 and "unknown weight dtype 'mxfp5'" in r.err and "'mxfp4'" in r.err
    assert r.err.count("\n") == 1
    r = cli("flops", "--model", "llama3-8b", "--kv-dtype", "fp8-token-heads")
    assert r.code == 2 and "'fp8-token-head'" in r.err


@given(batch=st.integers(1, 300), ctx=st.integers(1, 300_000))
def test_hybrid_decode_flops_linear_in_batch(batch, ctx):
    for name in ("jamba-v0.1", "nemotron-h-56b", "gemma-2-9b"):
        cfg = load_model(name)
        one = decode_step(cfg, None, batch=1, ctx=ctx).flops
        assert decode_step(cfg, None, batch=batch, ctx=ctx).flops == batch * one


def test_mtp_draft_kv_uses_the_mla_head_width(cli):
    # DeepSeek-V3 MTP: one full layer's latent cache, 512 + 64 = 576 el./token, with an fp32
    # scale per token-head in fp8-token-head: 576 + 4 = 580 B × 4096 tokens = 2,375,680 B
    args = "-m deepseek-v3 -H h200 --tp 8 --mtp 1 --gamma 1 --alpha 0.8 --kv-dtype fp8-token-head"
    r = cli("speculate", *args.split(), "-f", "json")
    assert r.code == 0, r.err
    assert r.json()["draft_kv_cache_bytes"] == 2_375_680
