"""Training estimates (calc/training): golden values with their hand arithmetic beside them.

Shapes are those of the upstream config.json files (model_configs/); the formulas and their
sources are in calc/training/*.py's docstrings.
"""

from __future__ import annotations

import pytest

from calc.data.registry import load_hardware, load_model
from calc.errors import InvalidInputError, UnknownNameError
from calc.training import cost as tc
from calc.training import flops as tf
from calc.training import memory as tm
from calc.training import time as tt
from calc.training.links import GroupLink
from calc.training.report import TrainSetup, train_report


def _report(model="llama3-8b", hw="h100", **kw):
    return train_report(load_model(model), load_hardware(hw), TrainSetup(**kw)).fields


# 6ND and the attention term ---------------------------------------------------------------


def test_six_nd():
    # Kaplan et al. 2020: C = 6·N·D; 8e9 params × 1e12 tokens × 6 = 4.8e22 FLOP
    assert tf.six_nd_flops(8 * 10**9, 10**12) == 48 * 10**21


def test_llama3_8b_model_flops_per_token_at_4096():
    f = _report(ctx=4096)
    # matmul params: per layer attention 4096·4096 (Q) + 2·4096·1024 (K, V) + 4096·4096 (O)
    # = 41,943,040, FFN 3·4096·14336 = 176,160,768 → 218,103,808 × 32 = 6,979,321,856,
    # + lm_head 128,256 × 4,096 = 525,336,576 → N = 7,504,658,432 (embedding and norms out)
    assert f["matmul_params"] == 7_504_658_432
    # attention forward per token: 32 layers × 2·32·(128 + 128) FLOP/pair × 4096·4097/2 pairs
    # / 4096 tokens = 32 × 16,384 × 2,048.5 = 1,074,003,968
    # 6N + 3 × that = 45,027,950,592 + 3,222,011,904 = 48,249,962,496
    assert f["model_flops_per_token"] == 48_249_962_496
    assert f["forward_flops_per_token"] == 48_249_962_496 / 3
    assert f["backward_flops_per_token"] == 2 * 48_249_962_496 / 3


def test_matmul_params_and_mfu():
    # untied: active − norms − the embedding lookup (the lm_head stays); tied: the table is
    # the lm_head's matmul, so only the norms go
    assert tf.matmul_params(1000, 100, 10, tie_embeddings=False) == 890
    assert tf.matmul_params(1000, 100, 10, tie_embeddings=True) == 990
    # 4e17 FLOP on 8 GPUs of 1e15 FLOP/s in 100 s: 4e17 / 8e17 = 50 %
    assert tt.mfu(4e17, 8, 1e15, 100) == 0.5


def test_recompute_overhead():
    # full recomputation reruns the forward: + 2N + attention forward; FlashAttention's
    # backward recomputes Q·Kᵀ: + 2·h·dk per pair
    assert tf.recompute_flops_per_token("full", 100, 10, 5, flash=False) == 110
    assert tf.recompute_flops_per_token("full", 100, 10, 5, flash=True) == 115
    assert tf.recompute_flops_per_token("selective", 100, 10, 5, flash=False) == 10
    assert tf.recompute_flops_per_token("selective", 100, 10, 5, flash=True) == 5
    assert tf.recompute_flops_per_token("none", 100, 10, 5, flash=False) == 0
    # 8N in all with full recomputation (Narayanan et al. 2021: 96 vs 72 B·s·l·h²)
    n = 1_000
    mm = tf.forward_matmul_flops_per_token(n)
    assert (
        tf.training_flops_per_token(mm) + tf.recompute_flops_per_token("full", mm, 0, 0, False)
        == 8 * n
    )


# Model states per recipe and ZeRO stage -----------------------------------------------------


@pytest.mark.parametrize(
    ("recipe", "zero", "dp", "expected"),
    [
        ("bf16", 0, 8, 16),  # ZeRO paper: 2 + 2 + 12
        ("bf16", 1, 8, 5.5),  # 2 + 2 + 12/8
        ("bf16", 2, 8, 3.75),  # 2 + (2 + 12)/8
        ("bf16", 3, 8, 2),  # 16/8
        ("bf16-fp32-grads", 0, 8, 18),  # Megatron: 18
        ("bf16-fp32-grads", 1, 8, 7.5),  # Megatron distributed optimizer: 6 + 12/8
        ("fp32", 0, 1, 16),  # 4 + 4 + 2·4 (no separate master)
        ("fp8", 0, 1, 17),  # 1 + 4 + 4 + 2·4
        ("fp8-bf16-moments", 0, 1, 13),  # 1 + 4 + 4 + 2·2
    ],
)
def test_model_state_bytes_per_param(recipe, zero, dp, expected):
    r = tm.recipe(recipe)
    got = tm.model_state_bytes_per_param(r.weight_bytes, r.grad_bytes, r.optimizer_bytes, dp, zero)
    assert got == expected


def test_unknown_recipe_lists_the_valid_ones():
    with pytest.raises(UnknownNameError, match="bf16-fp32-grads"):
        tm.recipe("bf17")


def test_llama3_8b_states_on_one_gpu_and_zero3():
    f = _report(ctx=4096)
    # 8,030,261,248 params × 2 B (bf16 weights) = 16,060,522,496; grads the same; fp32
    # master + 2 moments × 12 B = 96,363,134,976
    assert f["params_total"] == 8_030_261_248
    assert f["weights_bytes_per_gpu"] == 16_060_522_496
    assert f["grads_bytes_per_gpu"] == 16_060_522_496
    assert f["optimizer_bytes_per_gpu"] == 96_363_134_976
    assert not f["fits"]
    f3 = _report(ctx=4096, dp=8, zero=3)
    # ZeRO-3 over 8: each state / 8: 2,007,565,312 + 2,007,565,312 + 12,045,391,872
    assert f3["weights_bytes_per_gpu"] == 2_007_565_312
    assert f3["grads_bytes_per_gpu"] == 2_007_565_312
    assert f3["optimizer_bytes_per_gpu"] == 12_045_391_872
    # FSDP gathers one layer's full bf16 weights and prefetches the next: (8,030,261,248 −
    # 2 × 525,336,576 vocabulary tables) // 32 layers = 218,112,128 params × 2 layers × 2 B
    assert f3["gathered_weights_bytes_per_gpu"] == 872_448_512


# Activations per layer ----------------------------------------------------------------------

# GPT-3 175B's layer (Korthikanti et al. 2022, Table 3): h = 12288, a = 96 heads, s = 2048,
# b = 1, MHA, plain MLP of 4h, dropout, eager attention, 16-bit activations.
S, H, A = 2048, 12288, 96


def _gpt_layer(tp=1, sp=False, recompute="none"):
    kw = dict(dropout=True, tp=tp, sequence_parallel=sp)
    return tm.attention_activation_bytes(
        S, S, H, A, A, H // A, H // A, flash=False, recompute=recompute, **kw
    ) + tm.ffn_activation_bytes(S, H, 4 * H, gated=False, **kw)


def test_korthikanti_table2_no_parallelism():
    # sbh(34 + 5as/h) = 34 × 2048 × 12288 + 5 × 96 × 2048² = 855,638,016 + 2,013,265,920
    assert _gpt_layer() == 2_868_903_936


def test_korthikanti_table2_tensor_parallel():
    # sbh(10 + 24/t + 5as/(ht)), t = 8: 25,165,824 × 13 + 2,013,265,920 / 8
    # = 327,155,712 + 251,658,240
    assert _gpt_layer(tp=8) == 578_813_952
    # + sequence parallel: sbh(34/t + 5as/(ht)) = 106,954,752 + 251,658,240
    assert _gpt_layer(tp=8, sp=True) == 358_612_992
    # + selective recomputation: sbh · 34/t = 855,638,016 / 8
    assert _gpt_layer(tp=8, sp=True, recompute="selective") == 106_954_752


def test_full_recompute_keeps_the_layer_input():
    # Table 2, full recomputation: 2·s·b·h = 2 × 2048 × 12288
    assert tm.checkpoint_bytes(S, H) == 50_331_648
    assert tm.checkpoint_bytes(S, H, tp=8) == 50_331_648 / 8  # split under sequence parallel


def test_llama3_8b_layer_with_flash_attention():
    f = _report(ctx=4096)
    # t = 4096 tokens, GQA 32/8 heads of 128, SwiGLU 14336, bf16, FlashAttention, no dropout:
    # norm + matmul inputs 4096·4096·4·2 = 134,217,728;
    # Q + K + V + O-input + fc1 out (2·14336) + fc2 in (14336):
    # 4096·(4096 + 1024 + 1024 + 4096 + 3·14336)·2 = 4096·53,248·2 = 436,207,616;
    # log-sum-exp 4·4096·32 = 524,288 → 570,949,632
    assert f["activation_bytes_per_layer"] == 570_949_632
    # 32 layers + int64 token ids 8·4096 + final norm and lm_head inputs 2·4096·4096·2
    # + bf16 logits and their fp32 softmax (2 + 4)·4096·128,256:
    # 18,270,388,224 + 32,768 + 67,108,864 + 3,152,019,456
    assert f["activation_bytes_per_gpu"] == 21_489_549_312


def test_eager_attention_stores_the_score_matrix_and_selective_drops_it():
    # without FlashAttention and without dropout: + 2 B × 32 heads × 4096² per layer
    # − the 524,288 B of log-sum-exp
    eager = _report(ctx=4096, flash=False)["activation_bytes_per_layer"]
    assert eager == 570_949_632 - 524_288 + 2 * 32 * 4096 * 4096
    sel = _report(ctx=4096, flash=False, recompute="selective")["activation_bytes_per_layer"]
    assert sel == 570_949_632 - 524_288


def test_activation_figure_is_its_own_arithmetic():
    r = train_report(load_model("llama3-8b"), load_hardware("h100"), TrainSetup(ctx=4096, tp=2))
    fig = next(f for f in r.figures if f.key == "activation_bytes_per_layer")
    expr = fig.substituted.replace(",", "").replace("×", "*").replace("−", "-")
    assert eval(expr) == fig.value == r.fields["activation_bytes_per_layer"]


def test_in_flight_microbatches():
    # 1F1B: the first stage holds min(m, p); interleaved: p·(1 + (p − 1)/(p·v))
    assert tm.in_flight_microbatches(1, 64) == 1
    assert tm.in_flight_microbatches(8, 4) == 4
    assert tm.in_flight_microbatches(8, 64) == 8
    assert tm.in_flight_microbatches(8, 64, virtual_stages=2) == 8 * (1 + 7 / 16)  # 11.5
    # interleaved, p = 4, v = 8: 2·3 + 7·4 + 1 = 35 chunks = 35/8 stages, but m = 4 caps it
    assert tm.in_flight_microbatches(4, 4, virtual_stages=8) == 4
    # the last stage: 1F1B one; interleaved (v − 1)·p + 1 = 29 chunks = 29/8 stages
    assert tm.in_flight_microbatches_last_stage(8, 64) == 1
    assert tm.in_flight_microbatches_last_stage(4, 4, virtual_stages=8) == 29 / 8


# Pipeline bubble ---------------------------------------------------------------------------


def test_bubble_fraction_1f1b_and_interleaved():
    # (p − 1)/(m + p − 1): p = 8, m = 16 → 7/23; interleaved v = 2: 7/(2·16 + 7) = 7/39
    assert tt.bubble_fraction(8, 16) == 7 / 23
    assert tt.bubble_fraction(8, 16, 2) == 7 / 39
    assert tt.bubble_fraction(1, 16) == 0
    # step = (m + (p − 1)/v) × t: 16 + 7 = 23 micro-batch times; v = 2: 19.5
    assert tt.pipeline_step_s(1.0, 8, 16) == 23
    assert tt.pipeline_step_s(1.0, 8, 16, 2) == 19.5


def _ring(n, bandwidth=1e11):
    """A link with no measured curves and no latency: the bare ring at ``bandwidth``."""
    return GroupLink(n, 1, n, bandwidth, 0.0, bandwidth, 0.0)


def test_dp_and_tp_comm():
    # ring all-reduce of 1e9 B over 8 at 1e11 B/s, α = 0: 2·7/8 · 1e9/1e11 = 0.0175 s
    assert tt.dp_comm_per_step_s(1e9, 5e8, 0, _ring(8)) == pytest.approx(0.0175)
    # ZeRO-2: reduce-scatter, half of it
    assert tt.dp_comm_per_step_s(1e9, 5e8, 2, _ring(8)) == pytest.approx(0.00875)
    # ZeRO-3: + two all-gathers of the 5e8 B of weights, each 7/8 · 5e8/1e11 = 0.004375 s
    assert tt.dp_comm_per_step_s(1e9, 5e8, 3, _ring(8)) == pytest.approx(0.00875 + 0.00875)
    # TP: 4 all-reduces per layer of t·d·a = 1024·4096·2 B over 2 GPUs, 2 layers, α = 0:
    # 8 × 2·1/2 · 8,388,608 / 1e11 = 0.00067108864 s
    assert tt.tp_comm_per_microbatch_s(1024, 4096, 2, 2, _ring(2)) == pytest.approx(
        8 * 8_388_608 / 1e11
    )


# LoRA / QLoRA -------------------------------------------------------------------------------


def test_lora_adapter_params():
    # r·(d_in + d_out): a 4096 × 4096 W_Q at r = 8: 8 × 8192 = 65,536
    assert tm.lora_params(8, 4096, 4096) == 65_536
    # Llama 2 7B, r = 8 on W_Q and W_V: 32 layers × 2 × 65,536 = 4,194,304 (PEFT's
    # "trainable params: 4,194,304" for this model)
    f = _report("llama2-7b", ctx=4096, finetune="lora", lora_rank=8, lora_targets="qv")
    assert f["params_trainable"] == 4_194_304
    # Llama 3 8B, r = 16, every linear: per layer Q, O 16·8192 = 131,072 each, K, V
    # 16·(4096 + 1024) = 81,920 each, gate, up, down 16·(4096 + 14336) = 294,912 each:
    # 262,144 + 163,840 + 884,736 = 1,310,720 × 32 = 41,943,040
    f = _report(ctx=4096, finetune="lora", lora_rank=16)
    assert f["params_trainable"] == 41_943_040
    # frozen bf16 base: 8,030,261,248 × 2; adapters: fp32 grads 4 B, weights + Adam 12 B
    assert f["weights_bytes_per_gpu"] == 16_060_522_496
    assert f["grads_bytes_per_gpu"] == 41_943_040 * 4
    assert f["optimizer_bytes_per_gpu"] == 41_943_040 * 12
    # bf16 adapters (QLoRA's script): bf16 grads 2 B; bf16 weights + fp32 Adam moments 10 B
    f = _report(ctx=4096, finetune="lora", lora_rank=16, adapter_dtype="bf16")
    assert f["grads_bytes_per_gpu"] == 41_943_040 * 2
    assert f["optimizer_bytes_per_gpu"] == 41_943_040 * 10


def test_qlora_base_in_nf4():
    # NF4 + double quantisation: 4 + 8/64 + 32/(64·256) bits = 4.126953125 bits
    assert tm.NF4_BYTES_PER_ELEMENT == 4.126953125 / 8
    f = _report(ctx=4096, finetune="qlora")
    # the linear layers (8,030,261,248 − 2 × 525,336,576 embedding/lm_head − 266,240 norms
    # = 6,979,321,856) in NF4, the rest (1,050,939,392) in bf16:
    # 6,979,321,856 × 0.515869140625 + 1,050,939,392 × 2 = 3,600,416,768 + 2,101,878,784
    assert f["weights_bytes_per_gpu"] == 5_702_295_552
    assert f["fits"]


# Time and cost ------------------------------------------------------------------------------


def test_time_at_mfu_and_cost():
    # 3.8e25 FLOP on 16,384 GPUs at 989.4 TFLOP/s × 40 %: 3.8e25 / 6.4843e18 = 5.860e6 s
    s = tt.time_at_mfu_s(3.8e25, 16_384, 989.4e12, 0.4)
    assert s == pytest.approx(3.8e25 / (16_384 * 989.4e12 * 0.4))
    # GPU-hours = gpus × s / 3600; dollars = GPU-hours × price
    assert tc.gpu_hours(8, 3600) == 8
    assert tc.run_usd(1000, 2.5) == 2500
    # owned (the one TCO formula, calc.formulas.tco): 30,000 / (4 · 8,766 · 1)
    # + 1.0 kW · 1.3 · 0.10 = 0.85557 + 0.13
    from calc.formulas.tco import owned_usd_per_gpu_hour

    assert owned_usd_per_gpu_hour(30_000, 4, 1.0, 1.3, 0.10) == pytest.approx(
        30_000 / 35_064 + 0.13
    )
    assert tc.tokens_per_s_per_gpu(1_000_000, 10, 100) == 1000


def test_report_run_at_stated_mfu():
    f = _report(ctx=8192, tp=8, pp=16, dp=128, zero=1, tokens=1e12, mfu=0.4)
    assert f["run_model_flops"] == f["model_flops_per_token"] * 1e12
    gpus = 8 * 16 * 128
    assert f["run_s"] == pytest.approx(f["run_model_flops"] / (gpus * 989.4e12 * 0.4))
    assert f["gpu_hours"] == pytest.approx(gpus * f["run_s"] / 3600)
    # the h100's neocloud on-demand median, (3.90 + 3.99) / 2 = 3.945 (prices.yaml)
    assert f["run_usd"] == pytest.approx(f["gpu_hours"] * 3.945)


def test_compute_model_step_is_consistent():
    f = _report("llama3-70b", ctx=4096, tp=8, pp=4, dp=4, zero=1, recompute="selective")
    m = f["microbatches"]
    assert m == 16  # default: 4 × pp micro-batches when pipelined
    assert f["bubble_fraction"] == 3 / 19
    assert f["step_s"] == pytest.approx((m + 3) * f["microbatch_s"] + f["dp_comm_exposed_s"])
    assert 0 < f["mfu"] < 1
    assert f["tokens_per_s_per_gpu"] == pytest.approx(
        f["tokens_per_step"] / f["step_s"] / f["gpus"]
    )


def test_mixture_of_experts_and_mla_models_run():
    f = _report("mixtral-8x7b", ctx=4096, tp=2, ep=2, dp=4, zero=1)
    assert f["params_per_gpu"] < f["params_total"]
    f = _report("deepseek-v3", ctx=4096, tp=8, pp=16, ep=64, dp=8, zero=1, recompute="full")
    assert f["activation_bytes_per_gpu"] > 0


@pytest.mark.parametrize(
    ("kw", "msg"),
    [
        ({"zero": 4}, "--zero"),
        ({"recompute": "some"}, "--recompute"),
        ({"ctx": 0}, "--ctx"),
        ({"cp": 3}, "--cp 3 must divide"),
        ({"virtual_stages": 2}, "--virtual-stages needs --pp"),
        ({"global_batch": 3, "dp": 2}, "multiple of"),
        ({"mfu": 1.5}, "--mfu"),
        ({"finetune": "adapter"}, "--finetune"),
        ({"tokens": -1.0}, "--tokens"),
    ],
)
def test_bad_setups_raise_one_clear_error(kw, msg):
    with pytest.raises(InvalidInputError, match=msg):
        _report(**kw)


@pytest.mark.parametrize(
    "kw",
    [
        {"model": "llama3-8b", "ctx": 4096, "dp": 8, "zero": 3},
        {"model": "llama3-8b", "ctx": 4096, "finetune": "qlora", "zero": 2, "dp": 2},
        {"model": "mixtral-8x7b", "ctx": 4096, "tp": 2, "ep": 2, "dp": 4, "zero": 3},
        {"model": "llama3-70b", "ctx": 4096, "tp": 8, "pp": 4, "dp": 4, "recompute": "full"},
    ],
)
def test_state_and_total_figures_are_their_own_arithmetic(kw):
    model = kw.pop("model")
    r = train_report(load_model(model), load_hardware("h100"), TrainSetup(**kw))
    for f in r.figures:
        if f.key in (
            "weights_bytes_per_gpu",
            "grads_bytes_per_gpu",
            "optimizer_bytes_per_gpu",
            "total_bytes_per_gpu",
            "activation_bytes_per_gpu",
        ):
            expr = f.substituted.replace(",", "").replace("×", "*").replace("−", "-")
            # numbers print to 4 significant digits when not whole
            assert eval(expr) == pytest.approx(f.value, rel=1e-3), f.line()
            assert f.value == r.fields[f.key]


def test_ep_comm():
    # 4 all-to-alls per MoE layer of k·t·d·a = 2·1024·4096·2 = 16,777,216 B over 8 GPUs,
    # α = 0: 4 × 3 layers × 7/8 × 16,777,216 / 1e11 s
    assert tt.ep_comm_per_microbatch_s(1024, 4096, 2, 2, 3, _ring(8)) == pytest.approx(
        12 * 7 / 8 * 16_777_216 / 1e11
    )
