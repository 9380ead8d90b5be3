"""SGLang's releases 0.4.0 to 0.5.23 and the start-up rules each one runs [MiB, tokens]: how
it chooses ``mem_fraction_static``, ``chunked_prefill_size`` and the decode CUDA-graph batch
by GPU memory, each rule at the first release whose wheel (PyPI ``sglang==X``) has it, with the
file it is read from (``python/sglang/srt/server_args.py``; from 0.5.19
``srt/arg_groups/memory_hook.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from calc.deploy.engines.versions import Change, VersionTable

GIB = 2**30

RELEASES = (
    "0.4.0", "0.4.1", "0.4.2", "0.4.3", "0.4.4", "0.4.5", "0.4.6", "0.4.7", "0.4.8", "0.4.9",
    "0.4.10", "0.5.3", "0.5.4", "0.5.5", "0.5.6", "0.5.7", "0.5.8", "0.5.9", "0.5.10",
    "0.5.11", "0.5.12", "0.5.13", "0.5.14", "0.5.15", "0.5.16", "0.5.17", "0.5.18", "0.5.19",
    "0.5.20", "0.5.21", "0.5.22", "0.5.23",
)  # fmt: skip  # 0.5.0-0.5.2 chose the fraction by fixed reserves: not modelled (run as 0.4.10)

# (GPU memory below [MiB] or None, chunked_prefill_size, decode max_bs below TP 4, from TP 4)
Buckets = tuple[tuple[int | None, int, int, int], ...]

BUCKETS_0_5_3: Buckets = (
    (20 * 1024, 2048, 8, 8),  # T4, 4080
    (35 * 1024, 2048, 16, 80),  # A10, 4090, 5090
    (60 * 1024, 4096, 32, 160),  # A100 40GB, L40
    (90 * 1024, 8192, 256, 512),  # H100, A100 80GB
    (160 * 1024, 8192, 256, 512),  # H20, H200
    (None, 16384, 512, 512),  # B200, MI300
)


def _with(buckets: Buckets, below: int, chunk: int, small: int, large: int) -> Buckets:
    return tuple((b, chunk, small, large) if b == below else (b, c, s, lg)
                 for b, c, s, lg in buckets)  # fmt: skip


@dataclass(frozen=True)
class SglangRules:
    """What one SGLang release does at start-up."""

    auto_fraction: str  # "by_tp" (0.4: a table by TP size) or "reserve" (0.5.3+)
    buckets: Buckets
    page_size: int
    swa_full_tokens_ratio: float  # --swa-full-tokens-ratio default
    # memory in use before the weights load (CUDA context, the TP group's NCCL communicator,
    # custom all-reduce IPC buffers) [bytes]: SGLang takes its baseline right after building its
    # parallel groups (0.5.23 distributed/bootstrap.py measure_pre_model_load_memory; printed as
    # 'Init torch distributed ends. mem usage' in earlier releases), as free memory, so the
    # CUDA context the process made before it is in use there (vLLM's non-torch figures are
    # increases over a snapshot taken after its context: not the same quantity). TP 1: the
    # training record sglang04-h100-llama31-8b-docs, whose 'Load weight begin. avail mem=78.81
    # GB' follows the baseline with nothing allocated between (0.4.1 model_runner.py: Sampler()
    # only): 79.19 − 78.81 = 0.38 GiB (from 0.5.3: 0.71, CHANGES). GPUs joined by
    # NVLink/NVSwitch at TP > 1: the training record sglang-4xh100-qwen3-235b-fp8-tp4,
    # (79.19 − x) × 0.93 − 55.43 = 16.47 GiB (weights, the allocator's segment tails
    # 0.29 GiB, sglang/load.py, and the RoPE table; 367,404 tokens × 48,128 B), x = 1.88 GiB
    # (2.20 before issue 21's sgweights round, when the 0.29 GiB of segments sat inside it).
    # PCIe-only cards at TP > 1 (no custom all-reduce above two GPUs, NCCL without NVLink):
    # the training record sglang0513-4x5090-qwen3-32b-tp4, 0.77 GiB
    non_torch_tp1_bytes: float
    non_torch_tp_bytes: float
    non_torch_pcie_tp_bytes: float
    # the scheduler's admission test adds one page per request (per_req_token_overhead)
    admission_page: bool = False
    # add_one_req_ignore_eos (ignore_eos requests, radix cache off): "0.4.0" (each request's
    # horizon the next-shorter one's tokens left, no reserve, no input gate) or "0.5.23" (its
    # own tokens left, 1 token kept per request, the prompt gated by the remaining total)
    ignore_eos_rule: str = "0.4.0"
    # retract_decode goes on until 20 free tokens a remaining request (0.4.0), else until the
    # step's new tokens fit (0.5.23 check_decode_mem)
    retract_headroom: bool = True
    # DeepSeek's sparse attention (NSA) served at this mem_fraction_static (None: the rule)
    nsa_fraction: float | None = None
    # the tensor-parallel all-reduce (calc.deploy.parallel engine_route): the custom all-reduce
    # (srt/distributed/device_communicators/custom_all_reduce.py, vLLM's kernels) at the world
    # sizes it supports, below (up to, where ``_inclusive``) its buffer [bytes], on CUDA and on
    # ROCm; NCCL beyond and at any other size
    allreduce_custom_world_sizes: tuple[int, ...] = (2, 4, 6, 8)
    allreduce_custom_bytes: int = 8 * 2**20
    allreduce_custom_rocm_bytes: int = 8 * 2**20
    allreduce_custom_inclusive: bool = False
    # prefill CUDA graphs on by default, as the automatic mem_fraction_static reserves for them
    # (8 MiB per captured token count, 1.5 GiB with an MLA backend; memory.reserved_memory_mib):
    # None where the release captures none by default, else the layouts that turn them off:
    # "pp" (pipeline parallel), "dp_attention", "multimodal", "deepep" (an MoE all-to-all
    # backend), "nsa" (DeepSeek's sparse attention), "mla" (any MLA backend), "mla_non_nsa"
    # (MLA other than the sparse attention's), "eager" (--disable-cuda-graph)
    prefill_graph_off: tuple[str, ...] | None = None
    # RoPE's cos/sin table (one per distinct RoPE, built with the model, so it is in the weight
    # load's memory and before the pool): bytes per element on CUDA GPUs and on ROCm. 0.4.0-0.4.2
    # build it with vLLM's get_rope, cast to the model dtype (2 B); from 0.4.3 SGLang's own
    # layers/rotary_embedding.py keeps it in FP32 on CUDA ('cache needs to be in FP32 for
    # numerical stability'), ROCm casting it until 0.5.23
    rope_bytes_cuda: int = 2
    rope_bytes_rocm: int = 2
    # tables of a model whose sliding layers have their own RoPE (``local_rope``: Gemma 3):
    # 0 (to 0.5.9 gemma3_causal.py rotates with HF-style inv_freq modules, cos and sin
    # computed each step) or 2 (from 0.5.10 each layer's get_rope, rope_scaling default for
    # both kinds: a global and a local table of max_position rows)
    local_rope_tables: int = 0
    # hybrid models' recurrent-state pool (sglang/hybrid.py): "fixed" (0.5.3: the radix cache
    # off, --max-running-requests or 512 slots) or "ratio" (from 0.5.4: with the radix cache on,
    # --mamba-full-memory-ratio's share of the budget); the slots without a radix cache and
    # without --max-running-requests (None: the ratio split); Mamba-2 models' radix cache off
    # (0.5.4, 0.5.5); a running request's tracking slots beyond RADIX_SLOTS_PER_REQUEST (the
    # extra_buffer strategy's ping-pong pair under the overlap scheduler); the padding slot
    # paid for in the split
    state_pool: str = "fixed"
    state_radix_off_slots: int | None = 512
    mamba2_radix_off: bool = False
    state_tracking_slots: int = 0
    state_padding_slot: bool = False
    # the recurrent state's dtype without --mamba-ssm-dtype: False (0.5.3-0.5.8: the option's
    # default float32, whatever the config says) or True (from 0.5.9: the config's
    # mamba_ssm_dtype, else float32); where a stated --max-mamba-cache-size sizes the pool:
    # "always" (0.5.3; from 0.5.7 checked before the split) or "radix_off" (0.5.4-0.5.6: only
    # without the radix cache, the split overwriting it)
    state_dtype_from_config: bool = False
    state_size_flag: str = "always"
    # the new prompt tokens of one prefill batch (--max-prefill-tokens, PrefillAdder
    # rem_input_tokens; calc.serve.policies.PrefillFirst): its default (16,384 in every
    # release 0.4.0-0.5.23), and the test a waiting request meets before it is added, the
    # batch not empty: "gt" (0.4.0-0.4.7: refused when its prompt tokens left exceed the
    # budget left), "ge" (0.4.8-0.5.12: reach it, tokens counted in whole pages) or
    # "unchunked" (0.5.13+: "ge" only without chunked prefill; with it the budget is only
    # checked after each request, so the last one may overrun it)
    max_prefill_tokens: int = 16384
    prefill_input_check: str = "gt"


BASE = SglangRules(
    auto_fraction="by_tp",
    buckets=BUCKETS_0_5_3,
    page_size=1,
    swa_full_tokens_ratio=0.8,
    non_torch_tp1_bytes=round(0.38 * GIB),
    non_torch_tp_bytes=round(1.88 * GIB),
    non_torch_pcie_tp_bytes=round(0.77 * GIB),
)

CHANGES = (
    Change(
        "0.4.0",
        {},
        "server_args.py __post_init__ (mem_fraction_static 0.88 at TP 1, 0.87 TP 2, 0.85 TP 4, "
        "0.81 TP 8, 0.79 TP 16; page_size 1; chunked_prefill_size 8192)",
    ),
    Change(
        "0.4.3",
        {"rope_bytes_cuda": 4},
        "srt/layers/rotary_embedding.py RotaryEmbedding.__init__: the cos/sin cache stays FP32 "
        "on CUDA ('if not _is_cuda_available: cache = cache.to(dtype)'); 0.4.0-0.4.2's models "
        "take vLLM's get_rope, which casts it (read in the 0.4.1, 0.4.2, 0.4.3, 0.4.4, 0.4.5, "
        "0.4.7, 0.4.10 wheels; 0.5.4, 0.5.10, 0.5.13.post1, 0.5.19 layers/rotary_embedding/"
        "base.py the same)",
    ),
    Change(
        "0.4.4",
        {"allreduce_custom_rocm_bytes": 16 * 2**20},
        "srt/distributed/device_communicators/custom_all_reduce.py CustomAllreduce."
        "_MAX_CAR_SIZE 2 × 8192 × 1024 under HIP ('crossover is at 16MB buffer size for "
        "ROCm'; 0.4.3: max_size 8192 × 1024 everywhere); _SUPPORTED_WORLD_SIZES [2, 4, 6, 8] "
        "in every wheel read (0.4.0-0.5.23); read in the 0.4.0, 0.4.3, 0.4.4, 0.4.5, 0.4.7, "
        "0.4.10 wheels (issue 20/21, comm2)",
    ),
    Change(
        "0.5.3",
        {"auto_fraction": "reserve", "nsa_fraction": 0.8},
        "server_args.py _handle_gpu_memory_settings (PR #10975): chunked_prefill_size and "
        "cuda_graph_max_bs by GPU memory bucket (nvidia-smi memory.total), mem_fraction_static "
        "= round((gpu_mem − reserved) / gpu_mem, 3), reserved = 512 + 1.5 × max(chunk, 2048) "
        "+ 2 × max_bs + 1024 × tp × pp / 8 MiB (+ 3 × max_bs × dp with DP attention, 4.5 × "
        "above max_bs 300), at least 10,240 MiB above 60 GiB; DeepSeek NSA: DP attention over "
        "the TP group, page 64, mem_fraction_static 0.8",
    ),
    Change(
        "0.5.3",
        {"non_torch_tp1_bytes": round(0.71 * GIB)},
        "memory in use when the weights begin to load at TP 1 (model_runner.py / distributed/"
        "bootstrap.py init_torch_distributed: the baseline pre_model_load_memory after the "
        "world-size-1 process groups, printed as 'Init torch distributed ends. mem usage=0.09 "
        "GB' from 0.5.x; then the model runner's set-up before 'Load weight begin'): 0.71 GiB "
        "read from the training record sglang-h100-qwen3-30b-a3b-fp8-tsk043 (main of "
        "2026-08-27, H100: 79.19 − 78.48 free at 'Load weight begin'), in place of 0.4.1's 0.38. "
        "The wheels pin a newer torch and CUDA (0.4.10 torch 2.7.1; 0.5.3 and 0.5.4 2.8.0; 0.5.10 "
        "2.9.1; 0.5.13.post1 and 0.5.14 2.11.0 with cuda-python 13; 0.5.19 2.13.0; 0.5.23 "
        "2.14.1; 0.4.1 none, torch 2.5.1 through vLLM 0.6.x): the CUDA context and torch's and "
        "NCCL's state at the baseline grew with them. Held from 0.5.3, the first release that "
        "pins torch 2.8 (no TP 1 log of 0.4.2-0.5.7 was found to place it more exactly)",
        "the record's pool puts SGLang's own baseline at (49.33 − 35.97) / 0.17 = 78.57 GiB "
        "free, 0.62 ± 0.03 GiB in use, and 0.09 ± 0.03 GiB more taken before the load; kvcalc "
        "scales the whole 0.71 by mem_fraction_static (SGLang scales the baseline only): 0.17 × "
        "0.09 = 0.015 GiB, 0.04% of that pool. Other TP 1 logs at the weight load: SGLang's docs "
        "CI on H100, 0.38 GiB on 2025-01-15/23 (0.4.1) and 0.76 on 2026-02-04/09; SGLang's B200 "
        "reference log of 2026-04-27 0.79; the GKE 0.5.19 H100 log 0.72 (issue 21, sgbase)",
    ),
    Change(
        "0.5.4",
        {"nsa_fraction": None},
        "server_args.py (DeepSeek NSA: the fraction from the reserve rule like any model)",
    ),
    Change(
        "0.5.5",
        {"buckets": _with(BUCKETS_0_5_3, 35 * 1024, 2048, 24, 80)},
        "server_args.py _handle_gpu_memory_settings (A10/4090/5090 bucket: max_bs 24 below TP 4)",
    ),
    Change(
        "0.5.9",
        {"allreduce_custom_inclusive": True},
        "srt/distributed/device_communicators/custom_all_reduce.py should_custom_ar: "
        "inp_size <= self.max_size (0.4.0-0.5.8: <), read in the 0.5.3, 0.5.6-0.5.10, 0.5.16, "
        "0.5.20 and 0.5.23 wheels (issue 20/21, comm2)",
    ),
    Change(
        "0.5.10",
        {"prefill_graph_off": ("deepep", "dp_attention", "multimodal", "nsa", "pp")},
        "server_args.py: disable_piecewise_cuda_graph False (0.5.3-0.5.9: "
        "enable_piecewise_cuda_graph False), so torch.compile piecewise prefill graphs are on by "
        "default and _handle_gpu_memory_settings reserves len(piecewise_cuda_graph_tokens) × 8 "
        "MiB for them (1.5 GiB with an MLA backend) before the 10 GiB floor; "
        "_handle_piecewise_cuda_graph turns them off under DP attention, PP, an MoE A2A "
        "backend, multimodal models and DeepSeek-V3.2's NSA arch, but not under "
        "--disable-cuda-graph (read in the 0.5.10-0.5.13 wheels)",
    ),
    Change(
        "0.5.10",
        {"local_rope_tables": 2},
        "models/gemma3_causal.py Gemma3Attention.__init__: each layer builds get_rope, the "
        "sliding ones with the local base, the global ones with rope_scaling {'rope_type': "
        "'default'} (the config's linear factor not applied to the table): two FP32 tables of "
        "max_position_embeddings rows; 0.4.5, 0.5.4, 0.5.6, 0.5.8, 0.5.9 build none (cos and "
        "sin from Gemma3RotaryEmbedding's inv_freq each step); read in the 0.5.10 and 0.5.16 "
        "wheels (issue 21, rope round)",
    ),
    Change(
        "0.5.11",
        {"admission_page": True},
        "srt/managers/schedule_policy.py PrefillAdder.add_one_req (total_tokens = extend + "
        "clipped max_new + page_size; the budget already reserved the page from 0.5.10)",
    ),
    Change(
        "0.5.14",
        {"prefill_graph_off": ("deepep", "dp_attention", "eager", "multimodal", "nsa", "pp")},
        "model_executor/cuda_graph_config.py: tc_piecewise the prefill phase's default; "
        "server_args.py _parse_cuda_graph_config: --disable-cuda-graph disables the prefill "
        "phase too (0.5.15-0.5.23 the same)",
    ),
    Change(
        "0.5.15",
        {"prefill_graph_off": ("deepep", "dp_attention", "eager", "mla", "multimodal")},
        "model_executor/cuda_graph_config.py default_prefill_backend: breakable prefill graphs "
        "on CUDA; server_args.py _disable_breakable_cudagraph_if_incompatible turns them off "
        "with an MLA backend, DP attention, an MoE A2A backend and multimodal models, not "
        "under PP (the same in 0.5.16, whose reserve_for_graph_mb sums the same reserve)",
    ),
    Change(
        "0.5.17",
        {"prefill_graph_off": ("eager", "mla_non_nsa", "multimodal")},
        "server_args.py _disable_breakable_cudagraph_if_incompatible: off with MLA other than "
        "DeepSeek's DSA and for multimodal models; DP attention and DeepEP kept",
    ),
    Change(
        "0.5.18",
        {"prefill_graph_off": ("eager", "multimodal")},
        "server_args.py _disable_breakable_cudagraph_if_incompatible: MLA kept too",
    ),
    Change(
        "0.5.19",
        {"prefill_graph_off": ("eager", "multimodal", "pp")},
        "arg_groups/cuda_graph_hook.py apply_cuda_graph_compatibility: breakable prefill graphs "
        "off by default under PP (read in the 0.5.19-0.5.23 wheels)",
    ),
    Change(
        "0.5.20",
        {"buckets": _with(BUCKETS_0_5_3, 35 * 1024, 4096, 48, 160)},
        "srt/arg_groups/memory_hook.py handle_gpu_memory_settings (A10/4090/5090 bucket: "
        "chunked_prefill_size 4096, max_bs 48 below TP 4, 160 from TP 4)",
    ),
    Change(
        "0.5.23",
        {"ignore_eos_rule": "0.5.23", "retract_headroom": False, "rope_bytes_rocm": 4},
        "srt/managers/schedule_policy.py PrefillAdder.add_one_req_ignore_eos (tokens_left × bs "
        "of each request itself, IGNORE_EOS_RESERVE_TOKENS 1 per request, "
        "memory_budget.can_allocate_prefill first); schedule_batch.py retract_decode (until "
        "check_decode_mem: the step's new tokens fit); read in 0.4.0's and 0.5.23's wheels "
        "only: the releases between keep 0.4.0's rules here; layers/rotary_embedding/base.py: "
        "the RoPE cache kept FP32 on HIP too ('Keep fp32 on HIP, matching CUDA behavior'; "
        "0.5.19 casts it there)",
    ),
    Change(
        "0.5.4",
        {"state_pool": "ratio", "mamba2_radix_off": True},
        "model_executor/model_runner.py handle_max_mamba_cache (hybrid models' state pool): with "
        "the radix cache on, max_mamba_cache_size = int(rest × r / (1 + r) × 2^30 // "
        "mamba_cache_per_req), r = --mamba-full-memory-ratio 0.9, the KV pool the rest; "
        "max_running_requests capped at max_mamba_cache_size // 3 "
        "(MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO), // 1 without the radix cache; Mamba-2 "
        "models (Nemotron-H, Falcon-H1) run without it ('model detected, disable radix cache'); "
        "0.5.3: Qwen3-Next and Falcon-H1 without the radix cache, --max-running-requests or 512 "
        "slots (read in the 0.5.3, 0.5.4, 0.5.5 wheels; issue 21/20, sghybrid)",
    ),
    Change(
        "0.5.8",
        {"mamba2_radix_off": False},
        "server_args.py: Nemotron-H keeps its radix cache (turned off only under speculative "
        "decoding); read in the 0.5.5 and 0.5.8 wheels, 0.5.6 and 0.5.7 not read",
    ),
    Change(
        "0.5.9",
        {"state_radix_off_slots": None},
        "model_runner_kv_cache_mixin.py _handle_max_mamba_cache: without the radix cache the "
        "slots are --max-running-requests only when it is set, else the ratio split (sgl-project/"
        "sglang PR #18786, 'Adjust mamba cache allocation'; 0.5.8: 512); read in the 0.5.8, "
        "0.5.9, 0.5.10 wheels",
    ),
    Change(
        "0.5.14",
        {"state_tracking_slots": 2},
        "server_args.py _handle_mamba_radix_cache: --mamba-radix-cache-strategy auto resolves to "
        "extra_buffer under the overlap scheduler (linear-attention backend triton, the default) "
        "for Qwen3-Next, Qwen3.5, Nemotron-H, Falcon-H1, Granite hybrid ...; "
        "_calculate_mamba_ratio 3 + MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP 2 (0.5.13: auto → "
        "no_buffer, 3); read in the 0.5.13, 0.5.14, 0.5.15, 0.5.16, 0.5.19, 0.5.21, 0.5.23 wheels",
    ),
    Change(
        "0.5.17",
        {"state_padding_slot": True},
        "mem_cache/kv_cache_configurator.py _handle_max_mamba_cache: the split solves for the "
        "pool's padding slot, int((share − per_req) // per_req), and takes (slots + 1) × "
        "per_req from the budget (0.5.16: share // per_req, slots × per_req); read in the "
        "0.5.16, 0.5.17, 0.5.18, 0.5.19, 0.5.21, 0.5.23 wheels",
    ),
)

CHANGES += (
    Change(
        "0.5.4",
        {"state_size_flag": "radix_off"},
        "model_executor/model_runner.py handle_max_mamba_cache: a stated --max-mamba-cache-size "
        "is kept only on the branch without the radix cache; with it the split assigns "
        "server_args.max_mamba_cache_size anew (0.5.3: the flag in place of --max-running-"
        "requests / 512, the radix cache always off); read in the 0.5.3, 0.5.4, 0.5.5, 0.5.6 "
        "wheels (issue 21/20, mambadtype)",
    ),
    Change(
        "0.5.7",
        {"state_size_flag": "always"},
        "model_executor/model_runner_kv_cache_mixin.py handle_max_mamba_cache: 'if "
        "disable_radix_cache or max_mamba_cache_size is not None' (0.5.9-0.5.23: the stated "
        "size first, // attn_dp_size); read in the 0.5.7, 0.5.8, 0.5.9, 0.5.16, 0.5.17, 0.5.23 "
        "wheels",
    ),
    Change(
        "0.5.9",
        {"state_dtype_from_config": True},
        "server_args.py: mamba_ssm_dtype defaults to None (0.5.3-0.5.8: 'float32', exported as "
        "SGLANG_MAMBA_SSM_DTYPE, which configs/mamba_utils.py mamba2_state_dtype and 0.5.3's "
        "qwen3_next.py read as the recurrent dtype); configs/mamba_utils.py mamba2_state_dtype "
        "(0.5.9-0.5.23): float32, then the config's mamba_ssm_dtype (text_config's first), "
        "then the env var set from --mamba-ssm-dtype",
    ),
)

CHANGES += (
    Change(
        "0.4.8",
        {"prefill_input_check": "ge"},
        "srt/managers/schedule_policy.py PrefillAdder.add_one_req: 'real_input_tokens >= "
        "self.rem_input_tokens and len(self.can_run_list) != 0' on the prompt tokens left in "
        "whole pages (ceil_paged_tokens; _update_prefill_budget takes them off in pages), "
        "0.4.0-0.4.7 'input_tokens > self.rem_input_tokens' unpaged; read in the 0.4.0, "
        "0.4.5, 0.4.6, 0.4.7, 0.4.8, 0.4.9, 0.4.10 wheels (issue 20/21, sgprefill)",
    ),
    Change(
        "0.5.13",
        {"prefill_input_check": "unchunked"},
        "srt/managers/schedule_policy.py PrefillAdder.add_one_req: the rem_input_tokens test "
        "before a request only where 'self.rem_chunk_tokens is None' (chunked prefill off); "
        "with chunked prefill budget_state's 'rem_input_tokens <= 0' after each request ends "
        "the batch; read in the 0.5.2, 0.5.10, 0.5.11, 0.5.12, 0.5.13, 0.5.14, 0.5.15, 0.5.16, "
        "0.5.23 wheels; --max-prefill-tokens 16384 by default in every wheel read "
        "(server_args.py; 0.5.23 arg_groups/fields/schedule.py), not divided among the "
        "attention-DP ranks",
    ),
)

VERSIONS: VersionTable[SglangRules] = VersionTable("sglang", RELEASES, BASE, CHANGES)


# from 0.4.2 max_running_requests is the server's total, split among the attention-DP workers
# (SGLang.rank_running_requests; the launch commands multiply kvcalc's per-rank limit back)
RUNNING_SPLIT_SINCE = (0, 4, 2)
