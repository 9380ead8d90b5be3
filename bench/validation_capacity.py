"""The engine-memory section of docs/validation.md (written by bench/validation_doc.py):
kvcalc's KV pool prediction beside every real engine start-up record of
docs/validation/engine_logs_train.yaml and docs/validation/engine_logs_versions.yaml, term by
term, summarised per engine release.

Run: python bench/validation_capacity.py        (prints the section)

Each record's log lines are read by the engine wing's own log readers (the path `kvcalc log`
takes) and its Deployment is built through the wing (``deployment_from_log``), with the
settings the record states that its lines do not print; the log's printed GiB enter only the
"printed" columns and the diagnostic column that swaps in the printed weights.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = (
    ROOT / "docs" / "validation" / "engine_logs_train.yaml",
    ROOT / "docs" / "validation" / "engine_logs_versions.yaml",
)
GIB = 2**30

# model id in the log -> kvcalc model where it is not a shipped model (a config under
# docs/validation/, each with its source)
MODELS = {
    "Qwen/Qwen3-8B": "docs/validation/qwen3-8b.yaml",
    "microsoft/phi-4": "docs/validation/phi-4.yaml",
    "deepseek-ai/DeepSeek-V2-Lite-Chat": "docs/validation/deepseek-v2-lite.yaml",
    "Qwen/Qwen3-235B-A22B-FP8": "docs/validation/qwen3-235b-a22b.yaml",
    "Qwen/Qwen3-30B-A3B-FP8": "model_configs/qwen3-30b-a3b.yaml",
    "mistralai/Mistral-7B-Instruct-v0.3": "docs/validation/mistral-7b-v0.3.yaml",
    # not shipped: Qwen3.5-27B's layer shapes (the record's source_context)
    "Qwen/Qwen3.8-27B-FP8": "model_configs/qwen3.5-27b.yaml",
}

# What a record leaves unsaid but its user knew, stated once per record (never a fitted value).
STATED = {
    "sglang0518-h100-qwen38-27b-fp8-hybrid": {
        "weight_dtype": "fp8-block128",
        "note": "held out (issue 21/20, sghybrid round): SGLang's hybrid state pool, "
        "sglang/hybrid.py; Qwen3.8-27B-FP8 predicted as qwen3.5-27b in fp8-block128. "
        "Issue 21's rope round (2026-12-03): −0.25% -> +0.68%: SGLang builds Qwen3.5's "
        "table 64 wide (head_dim 256 × partial_rotary_factor 0.25, models/qwen3_5.py "
        "get_rope), 262,144 × 64 × 4 B = 64 MiB in place of 256, so kvcalc's weights and "
        "table are 28.34 GiB against the 28.47 printed (28.53 before, over the printed "
        "line); the 0.13 GiB left is what the load takes beyond the weights and table, "
        "the allocator's segment tails, not laid out for linear-attention models "
        "(sglang/load.py); with the printed load the pool is +0.06% as before. "
        "Issue 21's gdnseg round (2026-12-03): +0.68% -> +0.18%: the DeltaNet layers and the "
        "vision tower laid out tensor by tensor (sglang/load.py, SGLang 0.5.18 qwen3_5.py and "
        "qwen3_vl.py), 0.102 GiB of tails (64 MiB of them the fp8 down_proj's 85 MiB in 86 MiB "
        "blocks), kvcalc's load 28.45 GiB against the 28.47 printed",
    },
    "sglang-h100-qwen3-30b-a3b-fp8-tsk043": {
        "weight_dtype": "fp8-block128",
        "version": "0.5.18",
        "note": "training (issue 21's sgbase round, 2026-12-03): SGLang's main branch of "
        "2026-08-27 (0.5.18 the release before it), predicted at 0.5.18; the FP8 release "
        "(projections fp8 with 128×128 block scales, embeddings, router and lm_head bf16). "
        "Issue 21's sgweights round (2026-12-03): "
        "+0.31% -> +0.02%: the load's 0.10 GiB beyond kvcalc's weights is the "
        "CUDA caching allocator's segment tails (sglang/load.py): each layer's fp8 o_proj "
        "(8 MiB) opens a 20 MiB segment (requests of 1-10 MiB), whose tail the next layer's "
        "10 MiB QKV takes, 2 MiB left × 48 layers, with the embedding's and lm_head's 0.5 "
        "MiB tails and the small pool: 0.105 GiB, kvcalc's load 29.16 GiB against the 29.15 "
        "printed",
    },
    "vllm011-h100-gpt-oss-120b": {
        "note": "the source's table gives gpu_memory_utilization 0.9, but its own figures add "
        "up only at 0.95 (79.18 × 0.95 − 64.38 − 7.38 − 0.13 = 3.33 GiB, the KV it prints; at "
        "0.9 the KV would be −0.62 GiB): predicted at 0.95",
    },
    "vllm-80gb-llama3-8b-pr10511": {
        "model": "meta-llama/Meta-Llama-3-8B",
        "note": "vLLM V0 on an 80 GB GPU, not predicted since issue 21's vout round (2026-12-03): "
        "the comment's lines are printed by worker.py:243, V0's vllm/worker/worker.py "
        "determine_num_available_blocks ('Memory profiling results'; V1 reports from "
        "v1/worker/gpu_worker.py), run on PR 10511's branch on 2024-12-13, after the "
        "v0.6.4.post1 tag: a release before 0.7, when V1 was opt-in (VLLM_USE_V1=1; V0 the "
        "default until 0.8.0). kvcalc models vLLM 0.10.0-0.33.0, V1 only. Until this round it "
        "was predicted with 0.10.0's rules, KV 51.41 against 53.29 GiB printed (-3.53%): "
        "every term but the weights V1's, not this build's (activation 4.77 GiB, V1 0.10's "
        "sampler pass over 1,024 rows at 38 B per logit, against 1.26 printed; non-torch 0.13 "
        "against 1.79, 3.58 at TP 2 in the same comment)",
    },
    "sglang-4xh100-qwen3-235b-fp8-tp4": {
        "weight_dtype": "fp8-block128",
        "note": "the FP8 release: projections fp8 with 128×128 block scales "
        "(quantization_config weight_block_size), embeddings and lm_head bf16. Issue 21's "
        "sgmem round (2026-12-02) sets SGLang's pre-load memory on NVLinked GPUs at TP > 1 "
        "from this training record, in place of vLLM's non-torch figure (an increase over a "
        "snapshot taken after vLLM's CUDA context, holding its FlashInfer fusion workspace: "
        "not the quantity SGLang's free-memory baseline measures): (79.19 − x) × 0.93 − "
        "55.12 − 0.02 (the FP32 RoPE table, 40,960 × 128 × 4 B) = 16.46 GiB, x = 2.20 GiB "
        "(`non_torch_tp_bytes`); +0.80% -> −0.06%. The record prints no weight line, so any "
        "memory the load takes beyond the weights (0.18-0.22 GiB on the two PCIe TP 4 "
        "records) is inside the 2.20. "
        "Issue 21's sgweights round (2026-12-03): "
        "that memory is the CUDA caching "
        "allocator's segment tails (sglang/segments.py, load.py): here each layer's fp8 QKV "
        "(9 MiB) and o_proj (8 MiB) share a 20 MiB segment (requests of 1-10 MiB), 3 MiB × 94 "
        "layers, 0.29 GiB in all; charged, the same record gives (79.19 − x) × 0.93 − 55.41 − "
        "0.02 = 16.47 GiB (367,404 × 48,128 B), x = 1.88 GiB in place of 2.20; −0.06% -> "
        "+0.00%",
    },
    "vllm019-a100-gpt-oss-20b-myoceane": {
        "hardware": "a100-80g",
        "note": "the page names an A100 only: its 13.72 GiB of weights and 36.56 GiB of KV at "
        "gpu_memory_utilization 0.65 fit only the 80 GB model (0.65 × 39.5 GiB = 25.7 GiB on "
        "the 40 GB one); the log prints no token count, so it is compared in GiB. The page "
        "does not say whether torch.compile ran cold: the default (cold) counts the copy "
        "(201,088 + 2 × 2,048) × 2,880 × 2 B = 1.10 GiB over the sampler's 0.72 GiB (+0.64% "
        "-> -0.41%)",
    },
    "vllm021-24gb-qwen3-8b-lmcache3430": {
        "hardware": "rtx-4090",
        "version": "0.21.0",
        "note": "the log prints neither the GPU nor the release: a 24 GB GPU (the issue's "
        "title) whose total, from the log's own figures, is 0.52 / (0.9764 − 0.9543) = 23.5 "
        "GiB: predicted on the RTX 4090 profile (23.64 GiB); release 0.21 or later (its line "
        "says CUDA graph profiling is 'default since v0.21.0'; dated 2026-05-28): predicted "
        "with 0.21.0, whose memory rules hold from 0.20.0 to 0.25.1. The batch limits are "
        "0.21.0's defaults for a GPU under 70 GiB (2,048 tokens, 256 sequences). The issue's "
        "text names an RTX A5000 (24 GB, 24,564 MiB like the 4090). Issue 21's compile round: "
        "-0.97% before (scored before it), -10.90% after: the excerpt kept does not say "
        "whether torch.compile ran cold, so kvcalc's default counts the cold compile's copy, "
        "(151,936 + 2 × 2,048) × 4,096 × 2 B = 1.19 GiB over the sampler's 0.56; warm "
        "(--compile-cache warm) it stays -0.97%. The LLM() example ran in a reused "
        "environment, where a warm cache is likely; the page was not re-read for the compile "
        "lines, so the default stands. Issue 21's vout round (2026-12-03): -10.90% -> -0.97%; "
        "the record states compile_cache warm, established from the log's own figures, not "
        "from kvcalc's error: its graph line bounds torch's total at 0.515-0.525 GiB over a "
        "0.0220-0.0222 utilisation step, 23.20-23.86 GiB, so the torch peak and the non-torch "
        "memory together are at most 0.9764 × 23.86 − 6.365 (KV) − 0.515 (graphs) − 15.27 "
        "(Qwen3-8B's weights as the 0.19.0 and 0.19.1 logs print them) = 1.15 GiB, less than "
        "the cold compile's copy alone (1.19): no copy was in the peak. The LMCache "
        "connector's GPU buffer (LMCache 0.4.7 VLLMPagedMemGPUConnectorV2: 2 × 36 layers × "
        "256 tokens × 1,024 × 2 B = 36 MiB) is allocated by ensure_kv_transfer_initialized in "
        "initialize_from_config, after determine_available_memory (vLLM 0.21.0 "
        "gpu_worker.py): it cannot touch the printed budget. 0.21.0 runs Qwen3 on the V1 model "
        "runner (VLLM_USE_V2_MODEL_RUNNER defaults to 0 until 0.22.0). Left: kvcalc's graph "
        "estimate 0.70 GiB (per-graph constants from H100 logs) against the printed 0.52, and "
        "the RTX A5000's own total (the issue's text; predicted on the RTX 4090 profile, "
        "23.64 GiB, inside the bound). No longer a blind check of the activation term: its "
        "compile state is read from the record's printed GiB",
    },
    "sglang04-h100-llama31-8b-docs": {
        "version": "0.4.1",
        "note": "the page prints no release: captured on 2025-01-23 from SGLang's documentation "
        "(0.4.1.post7 the release of the day); kvcalc's 0.4.0-0.4.9 run the same rules, so it "
        "is predicted at 0.4.1. The GPU is not printed either: 78.81 GiB free before the "
        "weights load fits only an 80 GB H100 (79.19 GiB). Issue 21's sgmem round sets "
        "SGLang's TP 1 pre-load memory from this training record: 0.4.1 model_runner.py "
        "takes its baseline (init_torch_distributed's get_available_gpu_memory) and then "
        "prints 'Load weight begin. avail mem=78.81 GB' with nothing on the GPU between (the "
        "Sampler() only), so 79.19 − 78.81 = 0.38 GiB is in use at the baseline "
        "(`non_torch_tp1_bytes`; 0.25, vLLM's non-torch increase, before), and its RoPE table "
        "is charged: 131,072 × 128 × 2 B = 0.03 GiB (0.4.1 builds it with vLLM's get_rope, "
        "cast to bf16); +0.46% -> +0.19%. Left: the weight load takes 78.81 − 63.72 = 15.09 "
        "GiB, 0.10 GiB more than kvcalc's 14.96 + 0.03. "
        "Issue 21's sgweights round (2026-12-03): "
        "every Llama 3.1 8B "
        "tensor is a whole number of 2 MiB at TP 1, so the allocator's segment tails are only "
        "the RoPE table's: its fp32 concatenation (131,072 × 128 × 4 B = 64 MiB) is freed "
        "after the bf16 cast and layer 1's 48 MiB QKV takes that segment, 16 MiB left (0.017 "
        "GiB with the small pool): +0.19% -> +0.16%; 0.08 GiB of the load still not found "
        "(0.4.1 builds the model through vLLM 0.6's layers, not read here). "
        "Issue 21's sgbase round keeps the 0.38 GiB for 0.4.0-0.4.10 only: SGLang's own docs CI "
        "on H100 reads 78.81 GiB free at 'Load weight begin' on 2025-01-15 too (search index "
        "file 71258027165) and 78.43 on 2026-02-04 and 02-09 (files 53259568910, 14968382678: "
        "0.76 in use, 'Init torch distributed ends. mem usage=0.09 GB'), after the wheels "
        "moved from torch 2.5.1 to 2.8-2.14",
    },
    "sglang05-4x4090-qwen3-14b-tp4": {
        "version": "0.5.4",
        "note": "held-out (round 5): a source checkout of 2026-06-14, release not printed "
        "(kvcalc's 0.5.3-0.5.23 give the same pool here; predicted at 0.5.4). Its weight line "
        "gives the free memory before the weights load as 16.00 + 7.08 = 23.08 GiB (0.56 GiB "
        "in use), and 23.08 × 0.80 − 7.08 = 11.38 GiB is the K + V printed. Four PCIe-only "
        "consumer GPUs at TP 4, where SGLang runs without custom all-reduce "
        "(custom_all_reduce_utils.py: not on more than two PCIe-only GPUs): −8.84% when "
        "kvcalc charged 2.07 GiB; issue 21's sixth round charges PCIe-only cards at TP > 1 "
        "0.77 GiB, set from the training record sglang0513-4x5090-qwen3-32b-tp4, never from "
        "this one: 23.64 − 0.77 = 22.87 GiB. Issue 21's sgmem round charges the FP32 RoPE "
        "table (40,960 × 128 × 4 B = 0.02 GiB): +0.29% -> +0.12%; what the two errors "
        "cancel is visible in the printed-weights column: its baseline is 0.54 GiB (not 0.77) "
        "and its load takes 7.08 GiB, 0.18 more than kvcalc's 6.88 + 0.02. "
        "Issue 21's sgweights round (2026-12-03): "
        "the "
        "0.18 GiB is the CUDA caching allocator's segment tails (sglang/load.py; QKV 17.5 MiB "
        "in an 18 MiB segment, o_proj 12.5 in 14, gate/up 85 in 86, down 42.5 in 44: 4.5 MiB "
        "× 40 layers, with the embedding's, lm_head's and the small pool's 0.179 GiB): kvcalc's "
        "load 7.08 GiB as printed, and the baseline no longer cancels it: +0.12% -> −1.45% "
        "(−1.49% with the printed weights: 0.54 GiB in use at its baseline against the 0.77 "
        "set from the 5090 record, held out, so not moved). Issue 21's memlogs round: the "
        "whole error is that baseline (23.64 − 0.77 = 22.87 GiB against the 23.08 free the "
        "weight line implies; 0.8 × 23.08 − 7.08 = 11.38 GiB, the K + V printed). Both cards "
        "are PCIe-only at TP 4 with no custom all-reduce, so the NCCL communicator and the "
        "CUDA context are all it holds; the context's local-memory reservation scales with "
        "the SMs (128 on the 4090, 170 on the 5090: 1,536 threads × 1 KiB of stack each, 0.06 "
        "GiB apart) but explains a quarter of the 0.21 GiB at most, and no source gives the "
        "rest (NCCL's channels and buffers by card, the driver): no rule changed",
    },
    "sglang0513-4x5090-qwen3-32b-tp4": {
        "note": "training (round 5): the report prints no log line, only its table's 187,069 "
        "tokens and 15.50 GB of weights per GPU, so it is predicted from the launch command. "
        "Its own figures give the memory in use before the weights load: (31.36 − x) × 0.88 "
        "− 15.50 = 187,069 × 65,536 B = 11.42 GiB, x = 0.77 GiB, the constant "
        "`non_torch_pcie_tp_bytes` (issue 21's sixth round: SGLang's baseline is taken right "
        "after its parallel groups are built, 0.5.13.post1 model_runner.py "
        "init_torch_distributed, 0.5.23 distributed/bootstrap.py "
        "measure_pre_model_load_memory; on PCIe-only GPUs above two no custom all-reduce "
        "buffers exist, and this run disables it anyway). Was −7.88% with 2.07 GiB; the "
        "+2.14% left is kvcalc's weights, 15.26 GiB against the 15.50 printed. Issue 21's "
        "sgmem round charges the FP32 RoPE table (0.02 GiB): +1.97%, the 0.22 GiB the load "
        "takes beyond the weights and the table at TP 4 (not found in the 0.5.4 and "
        "0.5.13.post1 loaders: left). "
        "Issue 21's sgweights round (2026-12-03): "
        "the 0.22 GiB is PyTorch's CUDA caching "
        "allocator: SGLang builds each parameter on the GPU (model_loader/loader.py, under "
        "'with target_device') and its 'mem usage' is the fall in free memory after "
        "empty_cache, so each segment's unused tail counts. Per rank at TP 4: QKV (16 + 2 × 2 "
        "heads) × 128 × 5,120 × 2 B = 25 MiB in a 26 MiB segment (requests from 10 MiB round "
        "up to 2 MiB), o_proj 20 MiB exact, gate/up 125 in 126, down 62.5 in 64: 3.5 MiB × 64 "
        "layers, with the embedding's and lm_head's 1.06 MiB tails and the small pool's 0.7 "
        "MiB, 237,852,672 B = 0.222 GiB (sglang/segments.py, load.py; no constant): kvcalc's "
        "load 15.50 GiB, +1.97% -> +0.03%",
    },
    "sglang0519-h100-qwen3-32b-gke": {
        "note": "held-out (round 5), +5.04%: its weight line gives the free memory before "
        "the weights load as 17.40 + 61.07 = 78.47 GiB; kvcalc takes 79.19 − 0.25 = 78.94 "
        "GiB (the H100's usable memory less SGLang's `non_torch_tp1_bytes`), and "
        "78.47 × 0.90 − 61.07 = 9.55 GiB is the 9.54 GiB printed. The extra 0.47 GiB in use "
        "before loading is not in SGLang's source (the run adds gVisor and "
        "--enable-memory-saver); held out, so no rule or constant changed. Issue 21's tenth "
        "round read the 0.5.19 wheel: the pool is the free memory after the weights less "
        "pre_model_load_memory × (1 − mem_fraction_static) (mem_cache/kv_cache_configurator.py "
        "_profile_available_bytes), so 17.40 − 0.10 × B = 9.54 puts the baseline B at 78.6 ± "
        "0.1 GiB: 0.6 GiB in use at the baseline (0.25 modelled), and 0.13 GiB more taken "
        "between the baseline and the weights (78.47 GiB free then). The baseline is taken in "
        "distributed/bootstrap.py init_torch_distributed, before ModelRunner.initialize creates "
        "the memory-saver adapter; the adapter only wraps the weights, KV cache and CUDA "
        "graphs in torch_memory_saver regions (model_runner_components/load_model_utils.py "
        "load_model_with_memory_saver), and at TP 1 no NCCL warm-up runs (_prewarm_nccl: TP, "
        "PP or EP > 1). So the source holds nothing of the memory saver's before the baseline: "
        "the extra 0.35 GiB at the baseline is the environment's (gVisor's GPU proxy or the "
        "image's CUDA "
        "context), which the source cannot size; nothing changed. Issue 21's sgmem round "
        "(training records only): TP 1 pre-load memory 0.38 GiB and the FP32 RoPE table "
        "(40,960 × 128 × 4 B = 0.02 GiB): (79.19 − 0.38) × 0.90 − 61.02 − 0.02 = 9.89 GiB, "
        "+5.04% -> +3.61%. Left: 0.2 GiB more in use at the baseline than 0.38 (0.49-0.69 "
        "GiB from its lines), 0.13 GiB taken between the baseline and the weight load, and a "
        "load 0.03 GiB above the weights and table; the B200 0.5.10 log (no gVisor, no memory "
        "saver) shows the same pattern (0.61-0.74 GiB at its baseline), so it may be 0.5.x's "
        "(a newer CUDA and torch) rather than the environment's: two held-out logs, so no "
        "constant moved for it. "
        "Issue 21's sgbase round (2026-12-03; constants from training records only): the "
        "2026-08-27 H100 training log (sglang-h100-qwen3-30b-a3b-fp8-tsk043: no gVisor, no "
        "memory saver) has the same pattern, 79.19 − 78.48 = 0.71 GiB in use when the "
        "weights begin to load (its pool: 0.62 at SGLang's baseline, 0.09 after), so from "
        "0.5.3 kvcalc charges 0.71 at TP 1: (79.19 − 0.71) × 0.90 − 61.02 − 0.02 = 9.59 GiB, "
        "+3.61% -> +0.49%; this log's 0.72 at the load is 0.5.x's, not gVisor's. "
        "Issue 21's sgweights round (2026-12-03): "
        "at "
        "TP 1 every Qwen3-32B projection is a whole number of 2 MiB (QKV 100 MiB, o 80, gate/up "
        "500, down 250), so the allocator's segment tails are 0.001 GiB: +0.49% -> +0.48%; the "
        "0.03 GiB of the load beyond the weights and table is left (--enable-memory-saver "
        "puts the weights in torch_memory_saver's pool, not read here)",
    },
    "sglang-h200-deepseek-r1-tp8-aisimulate263": {
        "version": "0.5.14",
        "note": "held-out (round 10): an observed pool quoted in a pull request, '~509k' tokens "
        "(recorded as 509,000; the pull request's own '2.22% below' of 497,973 gives 509,279, "
        "+0.95% then); no log line, so predicted from the settings it states. Release not "
        "stated (2026-09-18; the same project's SGLang DeepSeek-V3 cases run 0.5.14): every "
        "modelled 0.5.x release from 0.5.3 gives the same pool at a stated mem_fraction_static "
        "(0.5.7, 0.5.14 and 0.5.23 all 514,109 tokens): (139.80 − 2.07) × 0.82 − 79.29 = 33.65 "
        "GiB (the H200's usable memory less SGLang's TP > 1 pre-load figure, times the "
        "fraction, less DeepSeek-R1's fp8-block128 weights per GPU at TP 8) over 70,272 B a "
        "token (61 layers × 576 × 2 B). Issue 21's sgmem round (constants from training "
        "records only): (139.80 − 2.20) × 0.82 − 79.29 − 0.04 (the FP32 YaRN RoPE table, "
        "163,840 × 64 × 4 B) = 33.50 GiB, +1.00% -> +0.57%; sgl-project/sglang pull 11716's "
        "log (8 × H200, TP 8, October 2025) shows 2.51 GiB in use at its weight load "
        "('Init torch distributed ends. mem usage=2.01 GB', 137.29 GiB free of 139.80), "
        "looked at, not fitted. "
        "Issue 21's sgweights round (2026-12-03): "
        "+0.57% -> +1.35%: the NVLink pre-load figure "
        "fell from 2.20 to 1.88 GiB when the 235B training record's allocator segment tails "
        "(0.29 GiB) were taken out of it, and kvcalc does not lay out MLA tensor by tensor "
        "(sglang/load.py), so this record gets no segment term of its own; held out, nothing "
        "fitted to it. Issue 21's memlogs round: ~509k tokens is 509,000 × 70,272 B = 33.31 "
        "GiB of KV a GPU against kvcalc's 33.76 (0.45 GiB); the pull request quotes the pool "
        "alone, so the split between the weights as loaded (MLA and 256 fused experts' "
        "segment tails, not laid out), the NVLink baseline (1.88, from a 235B log) and the "
        "FP32 YaRN table cannot be read from it; no rule changed",
    },
    "vllm-h100-gemma3-12b": {
        "note": "training. Issue 21's rope round (2026-12-03): +0.66% -> +0.53%: vLLM builds a "
        "second RoPE table for Gemma 3's sliding layers (gemma3.py: rope_type default with "
        "rope_local_base_freq beside the global layers' linear × 8), 131,072 × 256 × 2 B = "
        "64 MiB beside the 512 MiB global one; kvcalc's weights and tables 23.26 GiB against "
        "the 23.31 printed (23.20 before); the rest is the vision pass's torch peak",
    },
    "vllm-h100-gemma3-27b": {
        "note": "training. Issue 21's rope round (2026-12-03): +1.62% -> +1.44%: Gemma 3's "
        "local RoPE table, 131,072 × 128 × 2 B = 32 MiB beside the 256 MiB global one; "
        "kvcalc's weights and tables 51.38 GiB against the 51.45 printed (51.35 before)",
    },
    "vllm0102-2xh200-qwen3-next-80b-tp2": {
        "note": "training (round 11), +0.89%, under 1%: nothing changed. Its start-up report "
        "prints every term: kvcalc's weights 74.37 GiB (74.25 + the RoPE table) against 74.28, "
        "activation 5.92 against 5.58, non-torch 0.55 against 1.38 (kvcalc's 0.10-0.19 "
        "figure at TP 2, measured on 0.11.0's H100 logs, llm-d-planner; this H200 run of a "
        "hybrid GDN model holds 0.83 GiB more), so the KV budget 44.98 against 44.59 GiB; "
        "the 2.37 GiB of CUDA graphs are captured after the pool in 0.10.2 and not "
        "subtracted. Issue 21's rope round (2026-12-03): +0.89% -> +1.06%: vLLM's get_rope "
        "builds the table partial_rotary_factor × head_dim = 0.25 × 256 = 64 wide (0.10.2 "
        "qwen3_next.py, rotary_embedding/__init__.py), 262,144 × 64 × 2 B = 32 MiB in place "
        "of 128: kvcalc's weights and table 74.281 GiB against the 74.2812 printed (74.375 "
        "before), so the load line is met and the +1.06% left is the activation (+0.34 GiB) "
        "against the non-torch memory (−0.83 GiB)",
    },
    "sglang-b200-qwen3-8b-skill-log": {
        "version": "0.5.10",
        "note": "held-out (round 11), +0.76%: SGLang's main branch of 2026-04-27 (the wheels' "
        "file dates put 0.5.10 on 2026-04-05 and 0.5.11 on 2026-05-07), predicted at 0.5.10 "
        "with the fraction SGLang picks for a B200 by default; its lines give the memory in "
        "use before the weights load as 0.09 GiB (kvcalc: 0.25) and the weights as 15.28 "
        "GiB (kvcalc: 15.26). Held out: nothing changed because of it. Issue 21's sign round "
        "(2026-12-02, every SGLang record positive) read the 0.5.3-0.5.23 wheels: from 0.5.10 "
        "SGLang captures prefill CUDA graphs by default (torch.compile piecewise, breakable "
        "from 0.5.15) and its automatic fraction reserves 8 MiB per captured size, 74 up to "
        "this GPU's 16,384-token chunk: 592 MiB, 0.854 in place of 0.857 (rules "
        "prefill_graph_off), +0.76% -> +0.36%. What is left, 0.50 GiB: with 0.854 the log's "
        "own lines (162.30 GiB free after the weights; 992,896 × 147,456 B = 136.354 GiB of "
        "KV) put SGLang's baseline at (162.30 − 136.354) / 0.146 = 177.71 GiB, so 0.65 GiB "
        "in use there (kvcalc 0.25: 0.854 × 0.40 = 0.34 GiB), 0.14 GiB taken between the "
        "baseline and the weight load "
        "(177.57 free then) and 0.02 GiB more weights. Issue 21's sgmem round (constants "
        "from training records only): the 0.02 GiB is the FP32 RoPE table (40,960 × 128 × "
        "4 B = 20 MiB, SGLang's rotary_embedding keeps it FP32 on CUDA from 0.4.3), now "
        "charged, and TP 1's pre-load memory is 0.38 GiB: +0.36% -> +0.27%; the page-size "
        "rounding (64 tokens) allows a baseline of 177.62-177.75 GiB, 0.05-0.18 GiB above the "
        "177.57 free at the weight load, with nothing found on the GPU between in 0.5.10's "
        "model_runner.py (a CUDA stream, the sampler object): left. "
        "Issue 21's sgbase round (2026-12-03): 0.5.3+ charge 0.71 GiB at TP 1 (the 0.5.x H100 "
        "training log's 79.19 − 78.48 at 'Load weight begin'); this log's own 178.36 − 177.57 "
        "= 0.79: +0.27% -> +0.06%. "
        "Issue 21's sgweights round (2026-12-03): "
        "the allocator's segment tails are "
        "0.003 GiB here (embedding and lm_head, 1,187 MiB each, in 1,188 MiB segments; the "
        "small pool): kvcalc's load 15.28 GiB as printed, +0.06% unchanged",
    },
    "vllm0191-a100-40g-qwen3-8b": {
        "hardware": "a100-40g",
        "note": "training (round 11), +2.94%: predicted on the validation profile "
        "a100-40g.yaml, whose pool budget is the label's 40 GiB (it has no measured figure); "
        "torch reports an A100-SXM4-40GB as 40,536 MiB = 39.59 GiB "
        "(get_device_properties, total_memory=40536MB, in PaddlePaddle's "
        "paddle.device.cuda documentation), and the log's own figures agree: its 0.19 "
        "notice raises 0.9000 to 0.9596 for its 2.35 GiB graph estimate, vLLM's "
        "estimate / total_memory (gpu_worker.py), so total = 2.35 / 0.0596 = 39.4 GiB. The "
        "cause is the profile's memory, not an engine rule: no rule changed; with 39.59 GiB "
        "the record is +1.01%. The log's 2.35 GiB estimate (FlashAttention 2 on Ampere) is "
        "kvcalc's 0.70 GiB at the 0.20 rules: the per-graph constants come from H100 logs. "
        "Read in the 0.19.1 wheel: FlashAttention 2 declares UNIFORM_BATCH (v1/attention/"
        "backends/flash_attn.py: ALWAYS only for FA3), so sm80 runs FULL_AND_PIECEWISE like "
        "Hopper (the log: PIECEWISE=51, FULL=35 decode graphs to 256) and FA2 gets no "
        "split-accumulator bound for graphs (only FA3's AOT schedule does); the first FULL "
        "capture runs decode rows of min(max_model_len, 2,048 // 256) = 8 tokens, too short "
        "for FA2 to split. The capture that followed took 2.44 GiB (so the estimate is not a "
        "sampling artefact): about 28 MiB per graph over 86 graphs, against 6-8 MiB per "
        "graph in the H100 logs and 3.2 MiB in the 0.29.0 L40S logs (0.27 GiB over 86). The "
        "host runs driver 535 (CUDA 12.2); nothing in vLLM's source sizes a graph by the "
        "GPU's architecture, so no rule changed. The log loads its compiled graphs from the "
        "cache ('Directly load the compiled graph(s) for compile range (1, 2048) from the "
        "cache'): a warm start, no benchmark copy (cold it would be -2.26%). "
        "Issue 21's memlogs round (2026-12-03), read in the 0.17.0, 0.18.0 and 0.19.1 wheels: "
        "from 0.18.0 the graph estimate's dummy capture runs inside memory_profiling "
        "(gpu_worker.py determine_available_memory; profile_cudagraph_memory with a temporary "
        "graph pool, cleared before the window closes), so what it leaves outside torch is in "
        "the non-torch increase: the 0.12 GiB step at 0.18.0 (rules.py "
        "graph_capture_residue_bytes). The log's own figures leave 0.9 × 39.59 − 15.27 − "
        "19.36 = 1.00 GiB for activation and non-torch, against kvcalc's 0.56 + 0.25 = 0.81. "
        "The residue does not scale with the graphs: the 0.19.0 H100 logs print non-torch "
        "0.24-0.26 GiB at TP 1 for graph estimates of 0.61-1.39 GiB, so the A100's larger "
        "graphs (2.35 GiB) give no rule; the sampler's top-k/top-p path does not depend on the "
        "GPU (v1/sample/ops/topk_topp_sampler.py: FlashInfer only with "
        "VLLM_USE_FLASHINFER_SAMPLER). The 0.19 GiB left (an older driver's module and "
        "context memory, or FlashAttention 2's capture on sm80) is not split by anything the "
        "log prints: no rule changed, +1.01% stands. The newgpus round (2026-12-04) ships "
        "that profile as hardware_profiles/a100-40g.yaml with the same figures: +1.01% "
        "unchanged",
    },
    "vllm0151-a100-40g-llama31-8b-eager": {
        "hardware": "a100-40g",
        "note": "training (round 11, second batch), +1.63%: vLLM's offline LLM class with "
        "enforce_eager (no CUDA graphs) on the A100 40GB of an a2-highgpu-1g; the same cause as "
        "vllm0191-a100-40g-qwen3-8b: the validation profile budgets the label's 40 GiB, torch "
        "reports 39.59 GiB, 0.9 × 0.41 = 0.37 GiB less KV, which would put the record at "
        "-0.3%. No engine rule changed. The newgpus round (2026-12-04) ships the profile "
        "(hardware_profiles/a100-40g.yaml, the same figures): -0.30% unchanged",
    },
    "vllm0240-4090-qwen25-7b": {
        "note": (
        "held-out (round 11, second batch), +0.63% before and after issue 21's compile round: "
        "a study log quoting its start-up figures (not the lines); the study's table says the "
        "7B start hit the compile cache (torch.compile 3.07 s), so the record states "
        "compile_cache warm and no benchmark copy is counted (cold it would be -10.4%). "
        "kvcalc's weights 14.22 GiB (14.19 + the RoPE table) against the printed 14.29 (-1.02% "
        "with the printed weights), CUDA graphs 0.59 against the printed estimate 0.53 GiB"
    ),
    },
    "vllm0290-l40s-qwen3-14b-base": {
        "note": (
        "training (round 11, second batch), +7.08% before issue 21's compile round, -2.36% "
        "after: vLLM 0.29.0 with its defaults on an L40S (2,048 batched tokens, 256 sequences; "
        "'Using V2 Model Runner'). The source log's own report after capture ('Free memory on "
        "device (43.97/44.39 GiB) ... Actual usage is 27.79 GiB for consumed memory (weights + "
        "non-torch), 1.99 GiB for peak activation, and 0.27 GiB for CUDAGraph memory') splits "
        "the non-KV memory: torch's total 44.39 GiB, requested 0.92 × 44.39 = 40.84; consumed "
        "27.79 − weights 27.52 = 0.27 (kvcalc's non-torch 0.25); peak activation 1.99 = the "
        "transient peak + the 0.51 graph estimate, so a 1.48 GiB peak; 40.84 − 27.79 − 1.99 = "
        "11.06, the printed budget. The peak is the cold torch.compile's ('Compiling a graph "
        "for compile range (1, 2048) takes 27.01 s'): vLLM 0.11.1+ turns on Inductor's "
        "benchmark_combo_kernel and Inductor benchmarks the embedding kernel on random copies "
        "of its arguments (rules.py, 0.11.1 change): (151,936 + 2 × 2,048) × 5,120 × 2 B = "
        "1.488 GiB against 1.48, above the sampler's 0.56 (kvcalc now takes the larger; "
        "+7.08% -> -1.26%). The L40S profile's total, 44.52 GiB (a 2024 get_device_properties "
        "figure), is now the 44.39 the 0.29 logs print (-1.26% -> -2.36%). What is left is "
        "the graph estimate, kvcalc 0.78 against the log's (0.9200 − 0.9086) × 44.39 = 0.51 "
        "GiB: the V2 runner's profile_cudagraph_memory (v1/worker/gpu/cudagraph_utils.py) "
        "captures every PIECEWISE graph and extrapolates only FULL from two samples, where "
        "kvcalc's 0.20 rule (V1's) extrapolates both from H100 per-graph medians; not "
        "modelled (the PIECEWISE graphs' true cost on Ada is not in the source). The V2 "
        "sampler pass (bf16 logits only) is hidden under the copy at these settings. "
        "Issue 21's vnew round (2026-12-03) models both V2 terms this record prints, and "
        "measures them on it: each further PIECEWISE graph 73,393 B per layer (rules.py "
        "V2_PIECEWISE_PER_GRAPH_LAYER_BYTES: (0.0114 × 44.39 GiB − the first capture 154.1 MB "
        "− 34 FULL graphs 242.4 MB) / (50 graphs × 40 layers)), and the consumed 0.27 GiB "
        "beside the weights split into the sampler's penalty state, 256 × (151,936 + 4,748) × "
        "4 B = 0.15 GiB (penalties.py), and a V2 non-torch of 0.12 GiB; -2.36% -> -0.07%"
    ),
    },
    "vllm0290-l40s-qwen3-14b-awq": {
        "note": (
        "held-out (round 11, second batch), +3.33% before issue 21's compile round (scored "
        "before it), -0.26% after: the AWQ run of the same lab; kvcalc's int4 weights 9.30 "
        "GiB against 9.44 printed. The log compiles cold ('Compiling a graph for compile range "
        "(1, 2048) takes 27.59 s'); its report: 9.73 GiB consumed, 2.02 GiB peak activation "
        "with the 0.54 graph estimate, so a 1.48 GiB transient peak, the base run's: AWQ keeps "
        "the embedding table in 16 bits, and the cold compile's copy (151,936 + 2 × 2,048) × "
        "5,120 × 2 B = 1.488 GiB is the same. With the copy +0.15%, with the L40S total 44.39 "
        "GiB -0.26%; graphs 0.78 against (0.9200 − 0.9079) × 44.39 = 0.54 GiB (see the base "
        "run). Issue 21's vnew round (the base run's V2 graph and penalty-state terms): "
        "graphs 0.51 against the 0.54 printed, consumed 9.30 + 0.27 = 9.57 against 9.73 (the "
        "int4 weights' 0.14 GiB): -0.26% -> +0.61% (+0.13% with the printed weights). "
        "Issue 21's awqw round: on an L40S (Ada) vLLM 0.29.0 runs AWQ through MarlinLinearKernel, "
        "whose repacked qweight [in/16, out × 2], permuted scales and packed zero points keep "
        "the checkpoint's bytes (0.5 + 2.5/128 B an element, kvcalc's count; the workspace is "
        "SMs × 4 B a layer), so the 0.14 GiB (3.6 MiB a layer over 40; the base run's load "
        "matches to 0.01) is not in the tensors' sizes: left, unmodelled (suspect: the caching "
        "allocator's unsplit block tails, which max_memory_allocated counts, after the AWQ "
        "conversion's 8× temporaries; replayed through the allocator model of "
        "calc/deploy/engines/sglang/segments.py, construction then the conversion's "
        "temporaries as read from auto_awq.py and marlin.py, they come to 67 MiB, half the gap: "
        "no rule)"
    ),
    },
    "vllm0290-l40s-qwen3-14b-awq-tuned": {
        "note": (
        "training (round 11, second batch), +2.07% before issue 21's compile round, +0.33% "
        "after: the AWQ run at 0.95, 8,192 batched tokens and 512 sequences, compiled cold "
        "('Compiling a graph for compile range (1, 8192) takes 27.08 s'). Its report: "
        "requested 0.95 × 44.39 = 42.17 GiB, 9.95 consumed (0.51 beside the weights: the V2 "
        "penalties' buffers for 512 rows, 512 × 151,936 × 4 B + 512 × 4,748 × 4 B = 0.30 GiB, "
        "and non-torch; kvcalc counts 0.25), 2.20 peak activation with the 0.60 graph "
        "estimate: a 1.60 GiB transient peak against the cold compile's (151,936 + 2 × 8,192) "
        "× 5,120 × 2 B = 1.605 GiB: the table, not the 4× tokens or 2× rows, sets it. With the "
        "copy +0.75%, with the L40S total 44.39 GiB +0.33%; graphs 0.89 against 0.60 GiB and "
        "the kept penalty buffers (0.26 GiB more than kvcalc's non-torch) roughly cancel. "
        "Issue 21's vnew round models both: graphs 0.61 against the 0.60 printed, and the "
        "penalty state 512 × (151,936 + 4,748) × 4 B = 0.30 GiB beside the V2 non-torch 0.12: "
        "consumed 9.30 + 0.42 = 9.72 against 9.95 (the int4 weights' 0.14 and 0.09 GiB not "
        "found, perhaps buffers sized by the 8,192 batched tokens): +0.33% -> +0.68%. Issue "
        "21's awqw round: the 0.14 GiB left as for the held-out run (its note)"
    ),
    },
    "vllm0260-a40-llama31-8b-fixture": {
        "hardware": "l40s",
        "note": (
        "held-out (round 11), -0.78% before issue 21's compile round (scored before it), "
        "-3.51% after: an A40, which kvcalc does not ship; predicted on the L40S profile for "
        "its memory (both 48 GB GDDR6 with ECC, 46,068 MiB in nvidia-smi; both run "
        "FlashAttention 2, no FA3 split buffer). The fixture prints the KV budget (23.90 GiB; "
        "kvcalc 23.71 before, 23.06 after) and the pool, not the terms. Its lines do not say "
        "whether the compile was cold; 'init engine ... took 54.24 s (compilation: 29.60 s)' "
        "in a container whose vLLM cache is not mounted reads as cold, so the default holds: "
        "the copy (128,256 + 2 × 2,048) × 4,096 × 2 B = 1.01 GiB over the sampler's 0.47 "
        "(-0.54 GiB, -2.3%) and the L40S total 44.39 GiB (-0.12 GiB). With the terms unprinted "
        "the -3.5% cannot be split: the A40's own torch total and its graph estimate "
        "(FlashAttention 2 on Ampere: 2.35 GiB printed on the A100 against kvcalc's 0.70) are "
        "not known. Issue 21's vout round (2026-12-03): -3.51% -> -0.82%. vLLM 0.26.0 runs "
        "Llama (from 0.25.0 every dense model) on the V2 model runner by default "
        "(config/vllm.py _is_default_v2_model_runner_model), and the V2 runner's "
        "profile_cudagraph_memory returns 0 until 0.28.0: no graph estimate is taken from the "
        "budget, where kvcalc took V1's 0.64 GiB. A rule read from the 0.21.0-0.29.0 wheels "
        "for every release and model (rules.py v2_runner), no constant; no other record "
        "moves (the 0.24.0 Qwen2.5 log runs V1 and prints its estimate, the 0.29.0 logs run "
        "V2, which estimates from 0.29.0). The fixture's budget, 23.897 GiB from its 12,235 "
        "blocks of 2 MiB, then needs 0.9 × total = 23.897 + 14.99 + 1.01 (the cold copy) + "
        "0.25 = 40.15 GiB: a torch total of 44.61 GiB, below the A40's 46,068 MiB (44.99 GiB) "
        "in nvidia-smi, where the L40S profile's 44.39 leaves the -0.82%. Left: the A40's own "
        "total and the V2 sampler pass (not modelled; under the cold copy here). Found while "
        "decomposing this held-out record, so it no longer checks that term blind. "
        "Issue 21's memlogs round (2026-12-03): -0.82% -> -0.32%, non-torch 0.25 -> 0.13 GiB. "
        "V1's 0.12 GiB step at 0.18.0 is what the graph estimate's capture leaves outside "
        "torch inside the profiling window (gpu_worker.py determine_available_memory runs "
        "profile_cudagraph_memory within memory_profiling from 0.18.0 to 0.26.x; 0.17.0 has "
        "no such capture; 0.27.0 runs it after the window); the V2 runner's estimate returns "
        "0 and captures nothing, so this run has no residue (rules.py "
        "graph_capture_residue_bytes). A rule read in the 0.17.0-0.29.0 wheels; its error was "
        "known before (this record's -0.82%), and nothing was fitted to it"
    ),
    },
    "vllm0310-a100-80g-llama31-8b": {
        "note": (
        "held-out (issue 21's vnew round, 2026-12-03): vLLM 0.31.0's defaults on an A100 80GB "
        "(0.92, 2,048 batched tokens, 256 sequences, max_model_len 131,072), cold compile. Its "
        "report: total 79.25 GiB (the a100-80g profile 79.15), consumed 15.26 (weights 15.0 + "
        "0.26), peak activation 1.44 = the cold compile's copy (128,256 + 2 × 2,048) × 4,096 × "
        "2 B = 1.01 GiB + the graph estimate 0.43. Scored before the round's changes: -0.51% "
        "(graphs 0.64, V1's per-graph medians); the V2 runner's PIECEWISE graphs and penalty "
        "state (rules.py 0.29.0, measured on the training record vllm0290-l40s-qwen3-14b-base): "
        "graphs 0.42, consumed 14.99 + 0.12 + 256 × (128,256 + 4,008) × 4 B = 0.13: -0.12%; "
        "with the printed total 79.25 it would be +0.04%. `kvcalc log` at 0.31 and 0.33 and "
        "`kvcalc capacity --engine-version 0.33` agree (459,952 tokens; "
        "tests/test_engine_log.py)"
    ),
    },
    "vllm0300-a10g-qwen25-7b-awq-tensward": {
        "note": (
        "held-out (issue 21's vnew round): a Tensward release-validation report, not a log: the "
        "pool the engine's metrics give (num_gpu_blocks × 16). vLLM 0.30.0's defaults on an "
        "A10G (0.92, 2,048 batched tokens, 256 sequences), max_model_len 8,192; the compile "
        "state is not said (cold taken: Tensward starts a fresh container). -0.43% before the "
        "round, +0.86% after (graphs 0.59 -> 0.40 GiB). Left: kvcalc's AWQ weights, 5.19 GiB "
        "+ the 0.03 RoPE table, against the 5.38 GiB vLLM 0.31.0 prints for this checkpoint "
        "(search index file 70347757402, an H200 with Machete kernels, so not this run's "
        "Marlin): with them -0.5%. Issue 21's awqw round: from 0.19 vLLM takes Machete for AWQ "
        "on compute capability 9.0, which stores the zero points as 16-bit -scale × zero "
        "(machete.py transform_w_zp): kvcalc now adds that on Hopper, 6,525,417,472 / 128 × "
        "1.5 B = 0.07 GiB for this model, 5.26 + 0.03 = 5.29 GiB against the 5.38 printed on "
        "the H200 (0.09 left, 3.3 MiB a layer, as the L40S AWQ runs' 3.6); on this A10G "
        "(Marlin) nothing changes: +0.86%"
    ),
    },
    "vllm0300-a10g-qwen25-7b-awq-fp8kv-tensward": {
        "note": (
        "held-out (issue 21's vnew round): the baseline's run with --kv-cache-dtype fp8. Its "
        "pool holds 0.331 GiB less than the baseline's (483,632 × 28,672 B against 248,000 × "
        "57,344 B): on compute capability 8.6 FlashAttention 2 takes no fp8 cache, so vLLM "
        "falls to FlashInfer (fa_utils.py flash_attn_supports_kv_cache_dtype, cuda.py "
        "_get_backend_priorities), whose builder allocates its 394 MiB float workspace during "
        "the profiling capture that measures the graphs (flashinfer.py _get_workspace_buffer, "
        "envs.py VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE): +2.12% before the round, +3.60% with "
        "the V2 graph terms, +0.47% with the workspace (pool.flashinfer_workspace_bytes). The "
        "wrappers' 8 MiB index buffers (one per FULL graph's decode wrapper, flashinfer "
        "decode.py) are not charged: the pair's difference leaves no room for them"
    ),
    },
    "vllm0300-l4-qwen25-7b-awq-seqs32-tensward": {
        "note": (
        "held-out (issue 21's vnew round): Tensward's declared setup on an L4 (0.85, 2,048 "
        "batched tokens, 32 sequences, max_model_len 8,192), compile state not said (cold "
        "taken). -1.32% before the round, -0.10% after: at 32 requests the V2 penalty state "
        "is 20 MB, so the V2 non-torch (0.12 GiB) is nearly all of the consumed memory "
        "kvcalc charged 0.25 for. Left: the AWQ weights (see the A10G record) and the L4's "
        "total: the l4 profile's 21.96 GiB (PyTorch OOM text, Cloud Run) against the 22.03 "
        "two 2026 vLLM logs print for an L4 (search index files 69494016274, 69659197413). "
        "Issue 21's awqw round: the l4 profile now holds cudaMemGetInfo's 23,659,151,360 B "
        "(22.03 GiB; search index file 59085287510, 2026 drivers as Tensward's 595.91): "
        "-0.10% -> +0.42%"
    ),
    },
    "vllm0300-l4-qwen25-7b-awq-seqs8-tensward": {
        "note": (
        "held-out (issue 21's vnew round): the seqs32 record's setup at 8 sequences: 1,328 "
        "tokens more pool for fewer graphs and penalty rows. -1.46% before the round, -0.32% "
        "after; left as for the seqs32 record. Issue 21's awqw round (the L4's 22.03 GiB): "
        "-0.32% -> +0.20%"
    ),
    },
    "vllm0300-l4-mistral7b-v03-tensward": {
        "note": (
        "held-out (issue 21's vnew round): Mistral-7B-Instruct-v0.3 (docs/validation/"
        "mistral-7b-v0.3.yaml: 32,768-token vocabulary, no sliding window) at Tensward's L4 "
        "setup (0.85, 2,048 batched tokens, 8 sequences, max_model_len 8,192). A small pool "
        "(4.8 GiB), so 0.1 GiB is 2%: -6.62% before the round, -3.58% after (the V2 non-torch "
        "and penalty state, 0.13 GiB less consumed). Left: 0.17 GiB of budget not found; the "
        "L4 total at 22.03 GiB would give 0.06 of it; the compile state is not said (warm "
        "would give 0.09 more); the weights (13.50 GiB) are not printed. Issue 21's awqw "
        "round: with the L4's total at cudaMemGetInfo's 22.03 GiB, -3.58% -> -2.28% (0.11 "
        "GiB of pool short; a warm compile would give 0.09 of it, but the record does not "
        "say: left cold)"
    ),
    },
    "vllm0171-2xmi300x-minimax-m25-tp2": {
        "note": "held out (issue 21, rocmpool round): the first vLLM pool on an AMD GPU here, "
        "predicted with the rules of 0.17.x, which profile no CUDA graphs on any GPU, so the "
        "round's ROCm rule (0.18.0-0.25.x skip the graph profile there) leaves it as it was. "
        "+4.89%: 1,522 blocks, 2.88 GiB of budget vLLM charges beyond kvcalc's terms. Diagnosed "
        "from the source, not modelled: to 0.20.x ROCm's get_current_memory_usage is the "
        "device's mem_get_info difference (CUDA: torch's allocated peak; 0.21.0 moved ROCm to "
        "it), so 'Model loading took', the weights term of the budget, also holds the caching "
        "allocator's freed blocks of the load: the fp8 experts' e4m3fn -> e4m3fnuz conversion "
        "masks and AITER's shuffled copies leave from one layer's w13 and w2, 256 × 1,536 × "
        "3,072 + 256 × 3,072 × 768 B = 1.69 GiB, to a w13 and two w2, 2.25 GiB (the pull's "
        "'109 GB' beside kvcalc's "
        "107.18 GiB of weights and table fits the lower end); with it the error would be +2.0% "
        "to +1.1%. The rest (RCCL, AITER's JIT modules, its MoE workspace) is not split by "
        "anything the pull prints",
    },
    "trtllm-h100-llama31-8b-fp8": {
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "weight_dtype": "fp8-tensor",
        "kv_dtype": "fp8",
        "note": "Llama 3.1 8B FP8 (ModelOpt FP8: per-tensor fp8 weights and an fp8 KV cache); "
        "max_tokens 860,308 caps the pool below the 0.8 fraction",
    },
}

# record field -> kvcalc setting the log's lines may not print
_FIELDS = {
    "tensor_parallel_size": "tp",
    "pipeline_parallel_size": "pp",
    "gpu_memory_utilization": "memory_fraction",
    "mem_fraction_static": "memory_fraction",
    "max_model_len": "max_model_len",
    "max_num_batched_tokens": "max_batched_tokens",
    "max_num_seqs": "max_num_seqs",
    "block_size": "block_size",
    "kv_cache_dtype": "kv_cache_dtype",
    "compile_cache": "compile_cache",
}
_ENGINES = {"vLLM": "vllm", "SGLang": "sglang", "TensorRT-LLM": "trtllm"}


def records() -> list[dict]:
    out = []
    for path in DATA:
        if path.exists():
            out += yaml.safe_load(path.read_text())["records"]
    return out


def build(record: dict):
    """The record's LogDeployment (the wing's reading of its lines plus what it states)."""
    from calc.deploy.engines.base import LogFacts
    from calc.deploy.engines.fromlog import deployment_from_log, read_log
    from calc.deploy.engines.logscan import put_setting

    stated = STATED.get(record["id"], {})
    engine = _ENGINES[record["engine"]]
    if record.get("log_lines"):
        facts = read_log(list(record["log_lines"]), engine)
    else:  # a summary of the log's figures: the settings are the record's
        facts = LogFacts(engine=engine, version=record.get("engine_version"))
    for key, name in _FIELDS.items():
        value = record.get(key)
        if key == "gpu_memory_utilization" and engine == "trtllm":
            value = (record.get("reported") or {}).get("free_gpu_memory_fraction")
        put_setting(facts.settings, name, value, override=False)
    rep = record.get("reported") or {}
    put_setting(facts.settings, "max_tokens", rep.get("max_tokens_requested"), override=False)
    model_id = record.get("model") or stated.get("model")
    put_setting(facts.settings, "model", model_id, override=False)
    model = MODELS.get(model_id or "")
    version = record.get("engine_version") or stated.get("version")
    if version is None and engine == "vllm":
        version = "0.10.0"  # the oldest modelled release
    hardware = record.get("hardware") or stated.get("hardware") or "h100"
    if hardware.endswith(".yaml"):  # a profile file, relative to the repository
        hardware = str(ROOT / hardware)
    return deployment_from_log(
        facts,
        model=str(ROOT / model) if model else None,
        hardware=hardware,
        version=version,
        weight_dtype=stated.get("weight_dtype"),
        kv_dtype=stated.get("kv_dtype"),
    )


def modelled(record: dict) -> bool:
    """Whether the record's engine release is one kvcalc models (not older than the engine's
    oldest modelled release): a record outside the range is listed, not predicted."""
    from calc.deploy.engines import engine as engine_of
    from calc.deploy.engines.versions import parse_version

    version = record.get("engine_version") or STATED.get(record["id"], {}).get("version")
    v = parse_version(str(version)) if version is not None else None
    oldest = engine_of(_ENGINES[record["engine"]]).versions.releases[0]
    return v is None or v >= parse_version(oldest)


def rows() -> list[dict]:
    out = []
    for r in records():
        if not modelled(r):
            continue
        built = build(r)
        dep = built.deployment
        p = dep.per_gpu.prediction
        rep = r["reported"]
        printed = rep.get("kv_cache_tokens")
        q = None
        if rep.get("model_weights_gib"):  # the diagnostic: the log's own weights
            q = dep.engine_model.kv_pool(
                dep,
                weights_bytes=rep["model_weights_gib"] * GIB,
                activation_bytes=dep.engine.activation_bytes,
                non_torch_bytes=dep.engine.overhead_bytes,
            )
        kv_printed = rep.get("kv_cache_gib")
        if kv_printed is None and rep.get("k_size_gb") is not None:
            kv_printed = rep["k_size_gb"] + rep["v_size_gb"]
        kv = p.kv_budget_bytes if dep.engine_model.kv_term() == "kv_budget_bytes" else \
            p.kv_pool_bytes  # fmt: skip
        out.append({
            "id": r["id"],
            "engine": dep.engine.name,
            "release": p.version,
            "printed_version": r.get("engine_version"),
            "model": r.get("model") or STATED.get(r["id"], {}).get("model"),
            "hardware": dep.hardware.name,
            "tp": dep.tp,
            "p": p,
            "rep": rep,
            "printed_tokens": printed,
            "kv": kv,
            "kv_printed": kv_printed,
            "error": None if not printed else (p.printed_tokens - printed) / printed,
            "error_pw": None if not (printed and q) else (q.printed_tokens - printed) / printed,
            "error_kv": None if not kv_printed else (kv / GIB - kv_printed) / kv_printed,
            "note": STATED.get(r["id"], {}).get("note"),
            "split": r.get("split", "training"),
            "source": r.get("source_url"),
        })  # fmt: skip
    return out


def summary(rs: list[dict], key: str = "error") -> dict:
    errs = [r[key] for r in rs if r[key] is not None]
    if not errs:
        return {"n": 0, "median_abs": None, "max_abs": None, "median_signed": None}
    return {
        "n": len(errs),
        "median_abs": statistics.median(abs(e) for e in errs),
        "max_abs": max(abs(e) for e in errs),
        "median_signed": statistics.median(errs),
    }


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:+.2%}"


def _gib(x) -> str:
    return "—" if x is None else f"{x / GIB:.2f}"


def _pair(pred, printed_gib) -> str:
    return f"{_gib(pred)} / {'—' if printed_gib is None else f'{printed_gib:.2f}'}"


def _release_family(r: dict) -> tuple[str, str]:
    return r["engine"], r["release"]


def render() -> str:
    from calc.deploy.engines import engine as engine_of

    rs = rows()
    s = summary(rs)
    lines = [
        "# Validation of the engine memory model: KV pool at start-up",
        "",
        "<!-- generated by bench/validation_capacity.py (via bench/validation_doc.py) -->",
        "",
        "Each row is a real engine start-up log (`docs/validation/engine_logs_train.yaml` and "
        "`engine_logs_versions.yaml`, with each log's source). Its lines are read by the engine "
        "wing's log readers and its Deployment built through the wing (`calc.deploy.engines`), "
        "the path `kvcalc log FILE` takes, from the settings a user knows before starting the "
        "engine, never from the log's printed GiB. Error = (predicted − printed) / printed. "
        "The rules of each engine release, with their sources, are in docs/engines.md.",
        "",
        f"**KV pool tokens, {s['n']} logs: median |error| {s['median_abs']:.2%}, "
        f"max |error| {s['max_abs']:.2%}, signed median {s['median_signed']:+.2%}.**",
        "",
        "## Per engine release",
        "",
        "Every modelled release a record ran on, with the records whose pool (tokens, else "
        "KV GiB) it prints, training and held-out records apart (the split rule is in "
        "docs/validation/engine_logs_versions.yaml, `round4_split_rule`, `round5_split_rule`, "
        "`round7_split_rule`, `round10_split_rule`, `round11_split_rule` and "
        "`rocmpool_split_rule`). "
        "Releases with no "
        "public log here are listed below; their rules come from the source alone.",
    ]
    fams: dict[tuple[str, str], list[dict]] = {}
    for r in rs:
        r["best"] = r["error"] if r["error"] is not None else r["error_kv"]
        fams.setdefault(_release_family(r), []).append(r)
    for split in ("training", "held-out"):
        lines += ["", f"### {split.capitalize()} records", ""]
        groups = {k: [r for r in g if r["split"] == split] for k, g in sorted(fams.items())}
        groups = {k: g for k, g in groups.items() if g}
        if not groups:
            lines.append("None yet: no source found so far was both complete enough to predict "
                         "and set aside by the split rule.")  # fmt: skip
            continue
        lines += [
            "| Engine | Release modelled | Records | Median \\|error\\| | Max \\|error\\| "
            "| Signed median | Signed errors |",
            "|---|---|---|---|---|---|---|",
        ]
        for (eng, rel), group in groups.items():
            g = summary(group, "best")
            med = "—" if g["median_abs"] is None else f"{g['median_abs']:.2%}"
            top = "—" if g["max_abs"] is None else f"{g['max_abs']:.2%}"
            signed = ", ".join(_pct(r["best"]) for r in group)
            lines.append(f"| {engine_of(eng).title} | {rel} | {g['n']} | {med} | {top} | "
                         f"{_pct(g['median_signed'])} | {signed} |")  # fmt: skip
    outside = [r for r in records() if not modelled(r)]
    if outside:
        lines += ["", "Records of releases kvcalc does not model (listed, not predicted):", ""]
        lines += [
            f"- {r['id']} ({r['engine']} {r['engine_version']}, {r.get('split', 'training')}): "
            f"{STATED.get(r['id'], {}).get('note', '')}."
            for r in outside
        ]
    lines += [
        "",
        "Modelled releases with no record here (each runs the rules of the latest release at "
        "or before it that changed one, docs/engines.md; those rules come from the source and "
        "from the records of other releases):",
        "",
    ]
    for name in ("vllm", "sglang", "trtllm"):
        e = engine_of(name)
        seen = {rel for (eng, rel) in fams if eng == name}
        missing = [v for v in e.versions.releases if v not in seen]
        lines.append(f"- {e.title}: {', '.join(missing) if missing else 'none'}.")
    w = summary(rs, "error_pw")
    lines += [
        "",
        f"Diagnostic, with each log's printed weights in place of kvcalc's ({w['n']} logs that "
        f"print them): median |error| {w['median_abs']:.2%}, max |error| {w['max_abs']:.2%}, "
        f"signed median {w['median_signed']:+.2%}.",
        "",
        "## Pool tokens, every record",
        "",
        "Split: `training` where the record's source is one the constants were measured on or "
        "checked against, `held-out` where the split rule set it aside before its error was "
        "seen (issue 21's fourth round found two new sources complete enough to predict: by "
        "date, the myoceane.fr page is training and LMCache issue 3430 held out; its fifth round "
        "found two SGLang 0.5.x records: by release, the 0.5.13.post1 report is training and "
        "the 0.5.19 GKE guide held out; its eleventh round found four, by date the vLLM 0.10.2 "
        "and 0.19.1 logs training and the SGLang B200 and vLLM 0.26.0 A40 logs held out, then "
        "five more in a second batch (0.15.1 and two 0.29.0 runs training, 0.24.0 and the "
        "0.29.0 AWQ run held out); the check on sources not listed below remains the wider "
        "held-out test).",
        "",
        "| Record | Split | Engine | Release | Model | GPU | TP | Printed tokens | "
        "Predicted tokens | Error | Error with printed weights |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rs:
        printed = "—" if r["printed_tokens"] is None else f"{r['printed_tokens']:,}"
        lines.append(
            f"| {r['id']} | {r['split']} | {r['engine']} | {r['release']} | {r['model']} | "
            f"{r['hardware']} | "
            f"{r['tp']} | {printed} | {r['p'].printed_tokens:,} | {_pct(r['error'])} | "
            f"{_pct(r['error_pw'])} |"
        )
    lines += [
        "",
        "## Decomposition by term (GiB per GPU, predicted / printed)",
        "",
        "vLLM's KV budget is `usable × gpu_memory_utilization − weights − activation − "
        "non-torch − CUDA graphs` (the graph estimate from 0.20; its weights, as 'Model loading "
        "took' counts them, include the RoPE cos/sin table built with the model); SGLang's "
        "`(usable − non-torch) × mem_fraction_static − weights` (the free memory before the "
        "weights load, scaled; activations live in the remaining share); "
        "TensorRT-LLM's `free_gpu_memory_fraction × (usable − weights − activation − "
        "non-torch)`, capped by `max_tokens`. KV is the budget for vLLM (its 'Available KV "
        "cache memory') and the allocated pool for SGLang (K + V size) and TensorRT-LLM.",
        "",
        "| Record | Usable | Weights | Activation | Non-torch | CUDA graphs | KV | Error of KV |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rs:
        p, rep = r["p"], r["rep"]
        lines.append(
            f"| {r['id']} | {_gib(p.usable_memory_bytes)} | "
            f"{_pair(p.weights_bytes + p.rope_table_bytes, rep.get('model_weights_gib'))} | "
            f"{_pair(p.activation_bytes, rep.get('activation_peak_gib'))} | "
            f"{_pair(p.non_torch_bytes, rep.get('non_torch_gib'))} | "
            f"{_pair(p.cuda_graph_bytes, rep.get('cuda_graph_gib'))} | "
            f"{_pair(r['kv'], r['kv_printed'])} | {_pct(r['error_kv'])} |"
        )
    lines += _graph_estimates()
    lines += ["", "Notes on records whose settings are not all in the log:", ""]
    lines += [f"- {r['id']}: {r['note']}." for r in rs if r["note"]]
    lines += [
        "",
        "## Constants measured from logs",
        "",
        "Every other number is read from the engine's source (calc/deploy/engines/, each rule "
        "with the file and release it is read from; docs/engines.md lists them) or from the "
        "model's config. None is fitted per record; each is one figure of an engine release's "
        "own accounting, measured where the source cannot give it.",
        "",
    ]
    lines += _constants()
    lines += ["", "## Sources", "", "Every log and page the constants were measured on or the "
              "model was checked against:", ""]  # fmt: skip
    seen = []
    for r in records():
        for key in ("source_url", "source_context"):
            url = r.get(key)
            if url and url not in seen:
                seen.append(url)
    seen += [u for u in EXTRA_SOURCES if u not in seen]
    lines += [f"- <{u}>" if u.startswith("http") else f"- {u}" for u in seen]
    lines.append("")
    return "\n".join(lines)


# sources looked at for the rules and constants that are not a record's own source
EXTRA_SOURCES = (
    "https://github.com/llm-d-incubation/llm-d-planner/blob/"
    "fbd68515a903397a1b785a2189dc7512b0d55680/accuracy/results/v0.19.0/accuracy_report.md",
    "https://github.com/vllm-project/vllm/issues/21348",
    "https://github.com/llm-d-incubation/llm-d-planner/blob/d3121e059da88662db39a926a3ead964be9"
    "7359b/accuracy/results/v0.19.0/logs/meta-llama-llama-3--h100-80gb--tp1pp1dp1--8192-dtf32.log"
    " (its first 16,000 characters: --dtype float32 upcasts the whole model, 'Upcasting "
    "torch.bfloat16 to torch.float32'; the version banner and the memory snapshot lines)",
    "https://github.com/vllm-project/vllm/pull/30515",
    "https://github.com/gpustack/runner/pull/251 (vLLM 0.27 CUDA graph estimate lines)",
    "https://github.com/noonghunna/club-3090/issues/127 (vLLM CUDA graph estimate lines)",
    "public repository log of Qwen/Qwen3.5-9B on an L40S under vLLM 0.19.0 (search index file "
    "51781852921): 'Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35', "
    "'Estimated CUDA graph memory: 0.78 GiB total' (fitted until issue 21's sixth round; "
    "looked at since the seventh, whose per-mode accounting replaced that constant)",
    "public repository log under vLLM 0.2x (search index file 52377383460): 'PIECEWISE=1 "
    "(largest=1), FULL=1', 'Estimated CUDA graph memory: 0.36 GiB total' (fitted until issue "
    "21's sixth round; looked at since the seventh)",
    "vllm 0.20.0 wheel (PyPI, read in issue 21's seventh round): envs.py "
    "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS default '1'), v1/worker/gpu_model_runner.py "
    "profile_cudagraph_memory (descs[:2] per mode, per_graph = max(second capture, 1 MiB), "
    "max of the first captures + the per-graph sums), config/attention.py "
    "(flash_attn_max_num_splits_for_cuda_graph 32), v1/attention/backends/flash_attn.py "
    "(FA3's AOT scheduler and split bound under full graphs), model_executor/models/config.py "
    "(GptOssForCausalLMConfig: capture ceiling 1,024); the vllm 0.33.0 wheel's same files "
    "and v1/attention/backends/fa_utils.py get_flash_attn_version (FA3 on Hopper, FA4 on "
    "SM100, else FA2), mla/flashattn_mla.py, transformers_utils/model_arch_config_convertor.py "
    "(is_mm_prefix_lm: Gemma 3's backend)",
    "public repository logs under vLLM 0.2x (search index files 67144197265, 55770092662, "
    "61544841280, 52221836498, 60171799662): CUDA graph estimates 0.37-1.97 GiB, looked at",
    # issue 21, second round: looked at (none is a record; none fitted)
    "https://github.com/llm-d-incubation/llm-d-planner/blob/e50305a/docs/"
    "empirical-vllm-memory-results.md (the 0.11.0 table: gpt-oss-120b's figures add up only "
    "at gpu_memory_utilization 0.95)",
    "https://github.com/llm-d-incubation/llm-d-planner/blob/d3121e059da88662db39a926a3ead964be9"
    "7359b/accuracy/results/v0.19.0/logs/meta-llama-llama-4-scout--h100-80gb--tp4pp1dp1--8192"
    ".log (its first 16,000 characters: the settings; the memory lines not read)",
    "https://github.com/vllm-project/vllm/issues/50780 (CUDA graph profiler on hybrid GDN "
    "models, title and first lines)",
    "https://github.com/vllm-project/vllm/pull/51590, https://github.com/vllm-project/vllm/"
    "issues/53013, https://github.com/local-inference-lab/vllm/pull/511, "
    "https://github.com/vllm-project/vllm/pull/21489, https://github.com/vllm-project/vllm/"
    "issues/57936, https://github.com/vllm-project/vllm-omni/pull/7632, "
    "https://github.com/MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks/pull/25 (CUDA graph "
    "estimate discussions, excerpts)",
    "https://github.com/vllm-project/vllm/issues/10517, https://github.com/vllm-project/vllm/"
    "issues/25350, https://github.com/vllm-project/vllm/issues/28228, "
    "https://github.com/vllm-project/vllm/issues/38820, https://github.com/vllm-project/vllm/"
    "pull/39559, https://github.com/vllm-project/vllm/pull/46389, "
    "https://github.com/noonghunna/club-3090/pull/594, https://github.com/NVIDIA/TensorRT-LLM/"
    "pull/3362 (start-up log excerpts, too partial to predict: looked at)",
    "public repository logs (search index files 56878676544: vLLM 0.22.0, Qwen3.6-35B-A3B "
    "PrismaQuant with DFlash on Blackwell, its first 16,000 characters; 61511710941, "
    "56725819772, 61222544093, 55685126685, 60449471537, 63707531255, 51912001300: vLLM 0.2x "
    "'Available KV cache memory' excerpts; SGLang 47376055009, 33639436415, 69574224886; "
    "TensorRT-LLM 2263047771, 26725295630, 6161481015, 7011808521: pool lines), looked at",
    # issue 21, third round: records (llm-d-planner, above) and sources looked at, none fitted
    "https://github.com/llm-d-incubation/llm-d-planner/blob/3c876c8/accuracy/results/"
    "version-sweep/run_matrix.md (Qwen3-14B under vLLM 0.15.0-0.18.0: the 38 B sampler through "
    "0.16, the 0.25 GiB non-torch from 0.18)",
    "https://github.com/llm-d-incubation/llm-d-planner/tree/d3121e059da88662db39a926a3ead964be9"
    "7359b/accuracy/results/v0.19.0/logs (all 74 logs looked at; their 'Estimated "
    "PIECEWISE|FULL CUDA graph memory: F MiB first-capture + (n-1) × G MiB per-graph' DEBUG "
    "lines: those of the 20 training records fitted in issue 21's seventh round, "
    "engine_logs_train.yaml cuda_graph_*_mib, graph_fit: the first PIECEWISE capture's fixed "
    "part and the per-graph memory per layer of each mode)",
    "https://github.com/mlcommons/inference_results_v5.1/blob/965182b/closed/CoreWeave/"
    "log_70B_serve.txt (TensorRT-LLM 1.0.0rc1, TensorRT engine on a B200: 'available: 136.23 "
    "GiB' × 0.9 = the 122.61 GiB pool it prints; the rule's form, not a record)",
    "https://github.com/vllm-project/vllm/issues/27508, https://github.com/vllm-project/vllm/"
    "issues/23278, https://github.com/vllm-project/vllm/issues/13061, https://github.com/"
    "vllm-project/vllm/issues/34076, https://github.com/vllm-project/vllm/issues/51041, "
    "https://github.com/vllm-project/vllm/issues/12529, https://github.com/vllm-project/vllm/"
    "issues/6746, https://github.com/vllm-project/vllm/pull/47374, https://github.com/"
    "sgl-project/sglang/pull/36583, https://github.com/sgl-project/sglang/pull/18039, "
    "https://github.com/sgl-project/sglang/pull/11716, https://github.com/NVIDIA/TensorRT-LLM/"
    "issues/224, https://github.com/triton-inference-server/tutorials/pull/150, "
    "https://github.com/guqiong96/Lvllm/issues/35, https://github.com/ovg-project/kvcached/"
    "issues/101 (search excerpts: partial or failed start-ups, looked at)",
    "https://blog.huikang.dev/2025/12/28/vllm-logs.html (gpt-oss-120b, vLLM 0.11.2, its "
    "settings lines), https://myoceane.fr/index.php/ai-vllm-a100-gemma-4/ (gpt-oss-20b on an "
    "A100, vLLM 0.19.0: weights 13.72 GiB, KV 36.56 GiB at 0.65), https://robotmunki.com/blog/"
    "vllm-startup-log, https://devforth.io/insights/gpt-oss-20b-benchmark-comparing-response-"
    "time-tokenssecond-and-cost-efficiency-on-l4-l40s-and-h100 (excerpts, looked at)",
    "public repository files (search index ids) looked at in the third round, none a record: "
    "vLLM 62752965317 (0.24.0 and 0.19.1 serve-log fixtures, model unnamed), 22371651172 "
    "(granite-4.0-micro on an L40S, 0.11.0), 9009555428 (Mistral-7B GPTQ on a DGX Spark, "
    "0.11.0 NVIDIA build), 60491628666 (Gemma 4 on an L40S, 0.25.1), 38962983769, 57428438798, "
    "54526754647, 61370435018, 67157634589, 59712908481, 69187304195, 71183954918, "
    "69057007511, 54924313720, 66441966339, 56690702323, 62070000610, 56932817574, "
    "60547887172, 71623055017, 69471326873, 55896084001, 57609708121, 53530895476, "
    "71319828061, 48147029866, 69760187371, 70193890856, 50197873162, 57175798596, "
    "56969188144, 57083207763, 56715708830, 56868895083, 56724834502, 69498276477, "
    "54777787382, 56816929356, 51900802258 (Qwen3.6-35B-A3B NVFP4, 0.20.0), 56036894944 "
    "(Qwen3.5-4B, 0.22.0), 52309308425, 65774939675, 57839785827, 68283111965, 57477222335, "
    "69066195500, 69008178667, 51953585467 (gpt-oss on MI210, 0.17.0, settings only); SGLang "
    "12253994837, 66428217379, 66853793177, 63528958233, 57391803199, 60655581063, "
    "67226330581, 29162147130, 70885695249, 71562823791, 609128784, 56671995699, 14968382678, "
    "65732309288 (Qwen3-0.6B on an H100 at mem_fraction_static 0.3), 69699290227, "
    "60730671376, 69459278002",
    # issue 21, fourth round (search of GitHub issue and pull-request threads): looked at,
    # none a record (the one record of the round, LMCache issue 3430, is listed above)
    "https://github.com/gpustack/runner/pull/251 (vLLM 0.27.1, TP 2, utilisation 0.82: "
    "Qwen3.6-27B AWQ with an MTP drafter, 262,144-token context; model and GPU not shipped)",
    "https://github.com/noonghunna/club-3090/issues/434, /issues/127, /issues/46, /issues/602, "
    "/issues/584, /issues/294, /issues/295, /issues/1047, /issues/1084, /issues/1086, "
    "/pull/96, /pull/323, /pull/421, /pull/1139 (vLLM 0.20-0.29 on RTX 3090/4090/5090 and "
    "A6000: Qwen3.6/3.8-27B quantised (AutoRound int4, FP8, NVFP4) with MTP or DFlash "
    "drafters and int8/fp8 KV; no shipped model, GPU or drafter accounting)",
    "https://github.com/vllm-project/vllm/issues/45178 (MiniMax M2.5 NVFP4, B200 DEP2: "
    "245,840 tokens with the CUDA-graph estimate, 769,888 without; utilisation and context "
    "not stated), https://github.com/vllm-project/vllm/issues/50722 (Qwen3.5-35B-A3B, TP 4, "
    "2.22 GiB graph estimate), https://github.com/vllm-project/vllm/issues/43308 and "
    "/issues/49878 (Gemma 4: not shipped), https://github.com/vllm-project/vllm/pull/57983, "
    "/pull/37426, /issues/49224, /pull/37296, /issues/33155, /issues/17549, /issues/7553, "
    "/issues/18582, /issues/27017, /issues/33263, /issues/43400, /issues/26612, "
    "/issues/17469, /issues/17822, https://github.com/eugr/spark-vllm-docker/issues/396 "
    "(MiniMax M2.7 AWQ on two DGX Spark, vLLM 0.29.1rc1: 22.5 GiB at 0.80, 28.74 GiB at "
    "0.85; no GB10 profile), https://github.com/wtdcode/vllm-backport/issues/15, "
    "https://github.com/Sandermage/genesis-vllm-patches/issues/24, "
    "https://github.com/aivrar/vllm-windows-build/issues/4, /issues/17 (Windows builds, model "
    "not named), https://github.com/Tanguille/cluster/pull/4670, "
    "https://github.com/vllm-project/vllm-gguf-plugin/issues/101, "
    "https://github.com/LMCache/LMCache/issues/2306, /issues/2927, /issues/1435, /pull/1740, "
    "https://github.com/sgl-project/sglang/pull/18263 (Qwen3-30B-A3B on an AMD GPU with a "
    "patched KV budget), https://github.com/SemiAnalysisAI/InferenceX/issues/2128, "
    "https://github.com/NVIDIA/TensorRT-LLM/pull/3467, /issues/2773, /issues/1188, /issues/486, "
    "/pull/5933, /pull/11907, https://github.com/vllm-project/vllm-ascend/pull/8289 "
    "(excerpts: partial, failed or unshipped start-ups)",
    "https://ai-navigate-news.com/ja/articles/3ec30937-24f8-4cc5-9e8c-e90eb48d807b (gpt-oss-20b "
    "at 128k on an L4: no memory lines in the excerpt), https://docs.gpustack.ai/2.0/"
    "performance-lab/gpt-oss-20b/a100 and /gpt-oss-120b/a100 (throughput only), "
    "https://github.com/vllm-project/vllm/issues/15815, /issues/14011, /issues/7028 (V0 "
    "releases before 0.10, not modelled): looked at in the fourth round",
    # issue 21, fifth round: looked at, none a record (its three records are listed above)
    "https://github.com/sgl-project/sglang/pull/13023 (a development build, Llama 8B on an "
    "L40S: 183,133 tokens; mem_fraction_static and page size not stated), /pull/4826 (Gemma 3, "
    "0.4.x), /pull/15909 (Qwen-Omni, not shipped), /pull/9083, /pull/2742, /issues/1828, "
    "/issues/5192, https://github.com/kvcache-ai/ktransformers/issues/1870 (Qwen3.5 MoE through "
    "ktransformers), https://github.com/zhaochenyang20/Awesome-ML-SYS-Tutorial/pull/259, "
    "https://github.com/sgl-project/sglang-omni/pull/292, https://github.com/xorbitsai/"
    "inference/issues/3272, https://github.com/baidu/vLLM-Kunlun/pull/330 (Kunlun XPU), "
    "https://github.com/vllm-project/vllm-omni/pull/1160, https://github.com/LMCache/LMCache/"
    "pull/2522 (Llama 3.2 1B), /pull/869, https://github.com/noonghunna/club-3090/issues/612, "
    "/issues/652, /issues/1087, https://github.com/syv-ai/qwen38-27b-rtx3090/issues/39, "
    "https://github.com/MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks/pull/25, https://github.com/"
    "vllm-project/vllm/issues/57936, /issues/21172, /issues/17327, /pull/21489, /pull/14447, "
    "/issues/17891, /issues/15617, https://github.com/gpustack/gpustack/issues/1800, "
    "https://github.com/runpod-workers/worker-vllm/issues/276, https://github.com/intel/"
    "llm-scaler/issues/432, https://github.com/ai-dynamo/aiconfigurator/pull/652, "
    "https://github.com/NVIDIA/TensorRT-LLM/issues/6410, /issues/1400, /issues/732, "
    "/issues/1506, https://github.com/triton-inference-server/tensorrtllm_backend/issues/59, "
    "/issues/183, /issues/396, /issues/577 (TensorRT-LLM 0.x engines) (excerpts: partial, "
    "unshipped or non-NVIDIA start-ups): looked at in the fifth round",
    "public repository files (search index ids) looked at in the fifth round, none a record: "
    "SGLang 54584074113, 54543575970, 58666471202, 71161192831, 59474334549, 57615238133 "
    "(Ascend), 56671970114, 55143167568, 53259568910, 55068335887 (Qwen2.5 0.5B), "
    "49250582834, 49361099215 (Llama 8B on a 24 GB GPU, July 2025: GPU and fraction not "
    "stated), 55671064969 (TinyLlama on a Jetson), 43425326930, 14972383044, 66584923754, "
    "70879465447, 60489935999, 66462810794, 57493477613, 70279629887 (parsers, tests, "
    "unshipped models); vLLM 56970046574, 56753445407, 55021192520, 56819795714 "
    "(DeepSeek-V4-Flash on two RTX PRO 6000, 0.25.0), 69493974758, 56681168668 (Qwen3.6 "
    "PrismaQuant, 0.22.0), 33178493884 (Llama 3.1 8B on a Jetson Thor, 0.10.2), 55874084899 "
    "(Qwen3-8B on an Ascend NPU, 0.11.0), 57141844097, 49009726947, 29487628864, 56677101140, "
    "70525888662, 58028398527, 70933724306, 57978845466, 56872980909, 56950484488, "
    "56852135571 (Llama 3.1 8B, Qwen3-8B and gpt-oss-20b engine-config lines, memory lines "
    "not read); TensorRT-LLM 39201568439 (AutoDeploy), 18200949182, 59474166547, "
    "61586403107, 61634826145 (SmolLM2-135M), 33242217768, 52112962006, 70221477077 "
    "(parsers), 126178160, 9841842691, 90899134, 9136361103, 54555926407, 843526953, "
    "2869238873 (TensorRT-LLM's own source); later in the round: SGLang 47444754202, "
    "9542409931, 63578453503 (Qwen3-0.6B), 65802798149 (Qwen3-30B-A3B with CPU experts "
    "through ktransformers), 68381251850, 46415979912 (LFM2), 20266639230, 69604970295, "
    "562710086, 57978200756, 36950655442, 71202074512, 30411028351 (source, forks, commit "
    "digests); vLLM 55139082033, 55144767765 (Qwen3-30B-A3B-FP8, NVIDIA 0.13.0 build), "
    "55908403829 (Ascend, failed), 31259794699 (Qwen3-30B-A3B-Instruct-2507, a 0.10.1 "
    "development build)",
    "https://www.robotmunki.com/pages/vllm-startup-log-annotated.html (Gemma 4 NVFP4), "
    "https://myoceane.fr/index.php/wp-json/wp/v2/posts/10289 (the record's page, its Gemma 4 "
    "runs), https://github.com/vllm-project/vllm/pull/37429, https://github.com/"
    "triton-inference-server/tensorrtllm_backend/issues/67, /issues/168, /pull/604, "
    "https://github.com/deepjavalibrary/djl-serving/pull/1990, https://github.com/"
    "ray-project/ray-llm/pull/111, https://github.com/NVIDIA/TensorRT-LLM/issues/67 "
    "(TensorRT-LLM 0.x engines and serving wrappers): looked at in the fifth round",
    "fifth round, last searches: search index files 53118622816, 56672355346, 56673501152 "
    "(SGLang, Llama 3.1 8B with LoRA adapters), 54807160509 (MiniCPM5-1B), 65738777320 "
    "(Qwen3-30B-A3B under SGLang 0.5.13 with max_total_tokens 4096); "
    "https://github.com/NVIDIA/TensorRT-LLM/issues/5872 (Qwen3-235B FP8 at TP 8 on H200, "
    "1.0.0rc: failed start-up), /pull/6487, /issues/2034, https://github.com/NVIDIA-NeMo/"
    "Skills/pull/263, https://github.com/NVIDIA/Model-Optimizer/pull/2300, https://github.com/"
    "mlc-ai/mlc-llm/issues/2026; pages: github.hhaann.eu.org (a mirror of sglang pull 13023), "
    "brick-house.org (llama.cpp logs), devfloor9.github.io, hk.19971202.xyz (no engine "
    "memory lines): looked at",
    # issue 21, sixth round: sources read for SGLang's pre-load memory, none a record
    "SGLang's released wheels (PyPI sglang==0.5.13.post1 and 0.5.23): model_runner.py "
    "init_torch_distributed, distributed/bootstrap.py, distributed/parallel_state.py "
    "(GroupCoordinator: the TP group's PyNccl communicator and custom all-reduce), "
    "device_communicators/pynccl.py (warm-up all-reduce), custom_all_reduce_utils.py (off on "
    "more than two PCIe-only GPUs), entrypoints/engine.py (NCCL_NVLS_ENABLE=0 unless "
    "--enable-nccl-nvls): read for the sixth round's rule",
    "https://github.com/NVIDIA/nccl/issues/964 (one NCCL communicator over 4 NVLinked A100s: "
    "544 MB for a 2-GPU group, 688 MB above 2), /issues/864, /issues/34, /issues/1197, "
    "/issues/1234, https://github.com/vllm-project/vllm/issues/9699 (NVLS on 8 × H200: "
    "'nvlsPerRankSize 301989888'), https://github.com/sgl-project/sglang/pull/631 and /pull/3502 "
    "(NVLS off by default, --enable-nccl-nvls), https://github.com/NVIDIA/NeMo-Framework-"
    "Launcher/pull/127, https://github.com/NVIDIA/JAX-Toolbox/pull/383, https://github.com/"
    "deepseek-ai/DeepEP/pull/190, https://github.com/lightseekorg/tokenspeed/pull/1127 "
    "(search excerpts on NCCL's memory: looked at in the sixth round, not fitted)",
    # issue 21, seventh round: looked at, none a record
    "https://github.com/QwenLM/Qwen3-VL/issues/55, https://github.com/mitchross/talos-argocd-"
    "proxmox/pull/1995, https://github.com/wtdcode/vllm-backport/issues/34, "
    "https://github.com/noonghunna/club-3090/pull/92, https://github.com/vllm-project/vllm/"
    "issues/49011, /pull/2031, /pull/15671, /pull/9352, https://github.com/llm-d-incubation/"
    "llm-d-planner/issues/194, https://github.com/NVIDIA/TensorRT-LLM/issues/6294, /issues/1397, "
    "/issues/211, https://github.com/vllm-project/vllm-ascend/issues/8260, "
    "https://github.com/LMCache/LMCache/pull/1769, https://github.com/mlc-ai/web-llm/issues/426, "
    "https://github.com/aweussom/NoLlama/issues/21, https://github.com/datawhalechina/"
    "llm-algo-leetcode/issues/133, https://github.com/openai/gpt-oss/pull/158, "
    "https://github.com/ggml-org/llama.cpp/pull/13194 (search excerpts: unshipped models "
    "(Qwen3.5-3.8, Kimi Linear, DeepSeek V4), drafters, failed or partial start-ups, V0 "
    "releases): looked at in the seventh round",
    "public repository files (search index ids) looked at in the seventh round, none a record: "
    "1445879254 (GLM-5-FP8 on 8 × MI355X, a ROCm SGLang 0.5.8.post1 development image: AMD, "
    "DSA sparse attention, release not modelled), 58666471202, 69457471967, 65827198486, "
    "63094602509, 66975556316, 57380340915, 57616064554, 70494913886 (SGLang: unshipped models, "
    "ROCm, a test fixture, and a copy of the 0.5.19 GKE timing guide already a record), "
    "56681168668 (vLLM 0.2x, a hybrid model with padding layers)",
    "NVIDIA/TensorRT-LLM tensorrt_llm/plugin/plugin.py (commit 035b99e0: CustomAllReduceHelper "
    "max_workspace_size_auto 16 MB at TP <= 2, 8 MB above; ping/pong IPC buffers of size × "
    "world_size), tensorrt_llm/_torch/distributed/ops.py get_allreduce_workspace (search "
    "excerpt), search index files 56991117771 (a 2026 PyTorch-backend allreduce helper: fusion "
    "workspace 64 MiB by default, IPC size × tp + lamport 3 × size × tp: 0.5 GiB at TP 2, 2 GiB "
    "at TP 8), 15166236712, 196834873, 4216063708, 2747049588, 595001015, 40646681227, "
    "4882224494, 15318347693 (other versions of max_workspace_size_auto): read for TensorRT-LLM's "
    "pre-load memory at TP > 1; no release mapping and no TP > 1 TensorRT-LLM log, so the "
    "2.07 GiB stands (looked at)",
    # issue 21, tenth round (engineer logs10): TensorRT-LLM's TP > 1 term from its source
    "NVIDIA/TensorRT-LLM tensorrt_llm/_torch/distributed/ops.py (commit 0071496d: "
    "get_allreduce_workspace calls CustomAllReduceHelper.allocate_allreduce_fusion_workspace "
    "with max_workspace_size_auto(tp_size, support_deterministic=False)); "
    "tensorrt_llm/plugin/plugin.py in the stored versions of search index files 196834873 and "
    "15166236712 (allocate_allreduce_fusion_workspace: IPC buffers of size × tp_size, "
    "barriers of 256 × tp_size, Lamport buffers of 3 × size × tp_size; "
    "max_workspace_size_auto 16,000,000 B at TP <= 2, 8,000,000 B above), 15318347693, "
    "4216063708, 595001015, 4882224494, 2747049588, 40646681227 (older helpers, the same "
    "16/8 MB sizes), 56991117771 (the 2026 PyTorch-backend helper, read whole: 'Default: "
    "64 MiB', 67,108,864 B at every TP): read for issue 21's tenth round, which added "
    "TensorRT-LLM's own workspace, 4 × size × TP, to the 2.07 GiB of context and NCCL "
    "communicator (1.0.0-1.1.0: 2.19 GiB at TP 2 and 4, 2.31 at TP 8; from 1.2.0: 2.57, "
    "3.07, 4.07 GiB); vllm 0.33.0 wheel v1/worker/gpu_worker.py ('take memory snapshot "
    "after NCCL is initialized': vLLM's non-torch figures exclude the communicator, so they "
    "cannot size it) and compilation/passes/fusion/allreduce_rms_fusion.py "
    "(FI_ALLREDUCE_FUSION_MAX_SIZE_MB on Hopper: 64 MB at TP 2, 2 MB at TP 4)",
    "sglang 0.5.19 wheel (PyPI, issue 21's tenth round): distributed/bootstrap.py "
    "(pre_model_load_memory after the parallel groups; _prewarm_nccl only at TP, PP or EP > 1), "
    "mem_cache/kv_cache_configurator.py _profile_available_bytes (free memory after the "
    "weights less pre_model_load_memory × (1 − mem_fraction_static)), model_runner.py "
    "initialize, model_runner_components/load_model_utils.py load_model_with_memory_saver, "
    "utils/torch_memory_saver_adapter.py: read for the held-out GKE record's 0.47 GiB "
    "(nothing of the memory saver's before the baseline; no change)",
    "issue 21, tenth round, start-up logs searched for and not usable (none a record): "
    "https://github.com/EuroEval/EuroEval/issues/1120 (vLLM 0.10.1.1, gpt-oss-120b at TP 2 "
    "and 0.9: the GPU and the KV lines not in the excerpts; MXFP4 through Marlin), "
    "https://github.com/gpustack/gpustack/issues/4660 (a block-FP8 model on a GeForce GPU, "
    "Feb 2026: KV lines not in the excerpt), /issues/3377, /issues/3103, /issues/1126, "
    "https://github.com/sgl-project/sglang/issues/10053 (decode lines only), /pull/7864, "
    "https://github.com/ovg-project/kvcached/issues/210, /issues/191, "
    "https://github.com/NVIDIA/TensorRT-LLM/issues/8961 (pipeline parallel across nodes on a "
    "5.9 GiB GPU, pool capped by max_tokens), /issues/2398, /issues/260, /issues/247, "
    "/issues/2305, /issues/542, /issues/204, /issues/15296, /pull/9729, /pull/4009, "
    "/pull/3497, https://forums.developer.nvidia.com/t/tensorrt-llm-pytorch-memory-fraction-"
    "automatically-limited-to-0-14-despite-kv-cache-configuration/354807 (1.1.0rc3 on a DGX "
    "Spark, pool capped by max_tokens), https://github.com/triton-inference-server/"
    "tensorrtllm_backend/issues/108, /issues/294, https://github.com/triton-inference-server/"
    "server/issues/7748, /issues/7210, /issues/5749, /pull/6771, https://github.com/"
    "vllm-project/vllm/issues/26646 (Qwen3-Next, partial), /issues/44376 (0.22, DeepSeek "
    "V4), /issues/23087, /issues/8031, /issues/6689, /issues/7154, /issues/6206, /issues/5626, "
    "/issues/5248, /pull/12569, /pull/9438, /pull/5515, /pull/53852, "
    "https://github.com/LMCache/LMCache/pull/3171 (DeepSeek V4 on H20, 0.20.1), "
    "https://github.com/MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks/issues/204 (GB10), "
    "https://github.com/redhat-performance/configiq/issues/112 (Gemma 4 on an H200 under a "
    "downstream vLLM 0.24.0 build: model not shipped), https://github.com/ai-dynamo/"
    "aiconfigurator/issues/1159, https://github.com/ai-dynamo/aisimulate/pull/269, "
    "https://github.com/ai-dynamo/dynamo/pull/15169 and https://github.com/SemiAnalysisAI/"
    "InferenceX/issues/2128 (DeepSeek V4), /issues/870 (no pool figure), https://github.com/"
    "sgl-project/sglang/pull/28620, /pull/23933, /issues/3196, https://github.com/"
    "pegainfer-project/pegainfer/issues/422, https://github.com/alvarobartt/hf-mem/pull/67, "
    "https://github.com/vllm-project/vllm/issues/8185, https://github.com/microsoft/"
    "sarathi-serve/issues/29, https://github.com/ovg-project/kvcached/issues/101, "
    "https://github.com/guoqingbao/xinfer/issues/195, https://github.com/lightseekorg/"
    "tokenspeed/pull/1266, https://github.com/flashinfer-ai/flashinfer/issues/1223, "
    "/pull/1229; the LMCache documentation FAQ's KV table (Qwen3-32B 275,760 tokens; GPU, "
    "release and settings not in the excerpt); search index files 70687021461 (another copy "
    "of the GKE timing guide), 2869238873, 9136361103, 9841842691, 843526953, 54555926407, "
    "90899134 (TensorRT-LLM _util.py revisions: the profiling pass's non-torch memory is "
    "everything the device holds outside torch); llm-d-incubation/llm-d-planner history to "
    "2026-05-01 (no vLLM run after v0.19.0); pages claudskills.com, tools.yiteai.com, "
    "moltq.chat, depthwise.app, progscrape.com (no engine memory lines)",
    "issue 21, eleventh round (logs): the readers' new lines from vllm 0.33.0's wheel "
    "(gpu_worker.py's 'Free memory on device' report, utils.py's refusal, kv_cache_utils.py's "
    "one-line pool) and TensorRT-LLM's resource_manager.py and _util.py (search index files "
    "56304441455, 843526953: after the estimation pass the engine's own max_tokens); the "
    "A100-SXM4-40GB's torch total, 40,536 MiB (PaddlePaddle documentation, search index file "
    "15187234989); sglang 0.5.10-0.5.16 wheels' file dates (the B200 record's release); every "
    "other source of the round is in bench/validation_sources.py",
    "https://github.com/NVIDIA/TensorRT-LLM/pull/9145 and its .patch ('Enlarged the AllReduce "
    "workspace size to 64MB', tensorrt_llm/plugin/plugin.py, first commit 2025-11-10, "
    "reviewed 2025-11-13: when the 64 MiB default arrived, mapped to 1.2.0), "
    "https://github.com/vllm-project/vllm/pull/21742 (vLLM's FlashInfer fusion sizes follow "
    "TensorRT-LLM's customAllReduceUtils.h), https://github.com/flashinfer-ai/flashinfer/"
    "pull/2118 (search excerpts, looked at in the tenth round)",
    # issue 21, sgmem round (2026-12-02): SGLang's pre-load memory and RoPE table
    "sglang 0.4.1, 0.4.2, 0.4.3, 0.4.4, 0.4.5, 0.4.7, 0.4.10, 0.5.4, 0.5.10, 0.5.13.post1, "
    "0.5.19 and 0.5.23 wheels (PyPI): layers/rotary_embedding.py and rotary_embedding/base.py, "
    "factory.py, rope_variant.py (the cos/sin cache FP32 on CUDA from 0.4.3, one per distinct "
    "RoPE; 0.4.1's models take vLLM's get_rope), model_runner.py (init_torch_distributed, "
    "initialize, load_model), distributed/parallel_state.py (GroupCoordinator: nothing "
    "allocated at world size 1), model_loader/loader.py, mem_cache/kv_cache_configurator.py "
    "_profile_available_bytes and arg_groups/overrides.py post_capture_kv_sizing_planned with "
    "environ.py (SGLANG_ENABLE_POST_CAPTURE_KV_SIZING off by default): read for the sgmem "
    "round's two constants (from the training records sglang04-h100-llama31-8b-docs and "
    "sglang-4xh100-qwen3-235b-fp8-tp4) and the RoPE table",
    "https://github.com/sgl-project/sglang/pull/11716 (8 × H200 TP 8, October 2025: 'Init "
    "torch distributed ends. mem usage=2.01 GB', 'Load weight begin. avail mem=137.29 GB'; no "
    "pool line in the excerpt), /pull/36583, /pull/15909 (Qwen-Omni, not shipped), /pull/9842, "
    "/pull/27537 (Moore Threads MUSA), https://github.com/noonghunna/club-3090/issues/1261 "
    "(2 × RTX 5090, a hybrid GDN model in NVFP4), https://github.com/kvcache-ai/ktransformers/"
    "issues/1971 (CPU experts), https://github.com/ROCm/ATOM/issues/1959, "
    "https://github.com/datawhalechina/llm-algo-leetcode/issues/133, "
    "https://github.com/generative-computing/granite-switch/issues/128 (vLLM); pages "
    "sgl-project-sglang-93.mintlify.app and www.mintlify.com memory-management (no log): "
    "searched for SGLang start-up logs in the sgmem round, none a record",
    # issue 21, sgbase round (2026-12-03): SGLang's memory in use at TP 1 before the weights
    "sglang 0.4.1, 0.4.1.post7, 0.4.3, 0.4.10, 0.5.3, 0.5.4, 0.5.10, 0.5.13.post1, 0.5.14, "
    "0.5.19 and 0.5.23 wheels (PyPI) METADATA: the torch each pins (none in 0.4.1-0.4.3; "
    "0.4.10 2.7.1; 0.5.3 and 0.5.4 2.8.0; 0.5.10 2.9.1; 0.5.13.post1 and 0.5.14 2.11.0 with "
    "cuda-python 13; 0.5.19 2.13.0; 0.5.23 2.14.1); 0.5.10's and 0.5.19's model_runner.py "
    "(__init__ to load_model), distributed/bootstrap.py, distributed/parallel_state.py, "
    "layers/deep_gemm_wrapper; PyPI's sglang release dates (pypi.org/pypi/sglang/json): read "
    "for the sgbase round's 0.71 GiB (from the training record "
    "sglang-h100-qwen3-30b-a3b-fp8-tsk043) and the record's release",
    "search index files 71258027165 (SGLang's docs CI, H100, 2025-01-15: 78.81 GiB free at "
    "'Load weight begin'), 53259568910 and 14968382678 (the same CI on 2026-02-04 and 02-09: "
    "78.43 GiB, 'Init torch distributed ends. mem usage=0.09 GB'; pools set by "
    "--max-total-tokens or a 0.5B model not shipped), 52132052242 (a copy of SGLang's B200 "
    "reference log, already a record), 54546795741 (H200 TP 16, failed load), 56842772620 "
    "(H100 TP 2, failed load), 66584923754 (a tutorial quoting 78.32 GiB, release and TP not "
    "stated); https://github.com/sgl-project/sglang/issues/40558 (4 × sm_120 TP 4, 'mem "
    "usage=0.39 GB', failed), /pull/12978, /issues/7478, /issues/10216, /issues/485, "
    "https://github.com/LMCache/LMCache/issues/2400: SGLang start-up logs looked at in the "
    "sgbase round, none a record but the training log",
    "https://github.com/pytorch/pytorch/issues/107667 and /issues/109888 (the CUDA context "
    "about 300-400 MB with lazy module loading, CUDA 11.7 on; over 1,000 MB before), "
    "/issues/20532, /issues/28113, /issues/12873, /issues/55277 (the context differs by GPU: "
    "721 MB on a GTX 1080 with cu101, 1,687 MB on an RTX 3090 with cu111), "
    "https://github.com/hidet-org/hidet/pull/169, https://github.com/verl-project/verl/issues/"
    "5979 (search excerpts: CUDA context sizes, none per CUDA 12.x/13 release on an H100; "
    "looked at in the sgbase round, not fitted)",
    # issue 21, sgweights round (2026-12-03): the weight load beyond the weights
    "sglang 0.5.4, 0.5.10, 0.5.13.post1 and 0.5.19 wheels (PyPI): model_runner.py load_model "
    "('mem usage' = free memory before − after, get_available_gpu_memory emptying the cache "
    "first), model_loader/loader.py DefaultModelLoader.load_model (the model built under "
    "'with target_device', weights copied in from host memory), layers/"
    "vocab_parallel_embedding.py (padding to 64, × TP when it does not divide), layers/"
    "rotary_embedding/base.py _compute_cos_sin_cache, models/qwen3.py (construction order); "
    "torch 2.13.0 wheel c10/core/AllocatorConfig.h (kSmallBuffer, kMinBlockSize, "
    "kSmallSize, kMinLargeAlloc, kRoundLarge) and copies of c10/cuda/CUDACachingAllocator.cpp "
    "in the search index (kLargeBuffer, get_allocation_size, should_split; search index "
    "files 3487414531, 15531494522, 33396305876): read for the sgweights round's allocator "
    "term (no constant fitted; the 1.88 GiB NVLink pre-load figure re-derived from the "
    "training record sglang-4xh100-qwen3-235b-fp8-tp4 as before)",
    "TensorRT-LLM's outside-torch memory at TP > 1 (rules non_torch_tp_bytes, 2.07 GiB): "
    "search index files 50081879050, 5673598501, 90899134, 2869238873, 9136361103, "
    "54555926407, 460750736 (_util.py revisions and a reader: everything the device holds "
    "outside torch in the profiling pass, NCCL and CUDA graphs included), 2263047771 (a "
    "2025-12-20 log: 49.28 GiB outside torch with 49.78 GiB of weights outside torch, TP not "
    "stated), 70207691910 and 70331968702 (1.14-1.62 and 2.12 GiB on an 8 GB RTX 4070 Laptop "
    "at TP 1, Windows); https://github.com/NVIDIA/TensorRT-LLM/issues/6294, /issues/8961, "
    "/pull/3467, https://github.com/vllm-project/vllm/pull/10511, /pull/2031, "
    "https://github.com/tonyd2wild/DeepSeek-V4.1-Flash-vLLM-DGX-Spark/issues/8, "
    "https://github.com/NVIDIA/Megatron-LM/pull/6479: no TensorRT-LLM TP > 1 log printing it "
    "found, so the 2.07 GiB stays (sgbase round)",
    "pages https://github.hhaann.eu.org/sgl-project/sglang/pull/13023, "
    "https://www.mintlify.com/sgl-project/sglang/developer/memory-management, "
    "https://sgl-project-sglang-93.mintlify.app/developer/memory-management, "
    "https://deepwiki.com/sgl-project/sglang/2.3-memory-management-and-kv-cache (no "
    "start-up log with a pool of stated settings): looked at in the sgbase round",
    # issue 21, vout round (2026-12-03): the three vLLM records beyond 3%
    "vllm 0.21.0, 0.22.0, 0.22.1, 0.23.0, 0.24.0, 0.25.0, 0.26.0, 0.27.0, 0.28.0 and 0.29.0 "
    "wheels "
    "(PyPI): config/vllm.py use_v2_model_runner, _is_default_v2_model_runner_model, "
    "DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES, envs.py VLLM_USE_V2_MODEL_RUNNER, "
    "v1/worker/gpu/model_runner.py profile_run, _dummy_sampler_run, profile_cudagraph_memory "
    "(returns 0 to 0.28.0), v1/worker/gpu_worker.py init_device, determine_available_memory, "
    "initialize_from_config (ensure_kv_transfer_initialized after the profile), "
    "utils/mem_utils.py memory_profiling, compilation/piecewise_backend.py "
    "compile_all_ranges, compilation/caching.py, config/compilation.py (combo kernels), "
    "METADATA (torch 2.11.0 in 0.21.0 and 0.26.0): read for the vout round's V2 runner rule "
    "(no constant fitted)",
    "lmcache 0.4.7 wheel (PyPI, 2026-06-13, the release after the issue's nightly; 0.5.0, "
    "0.5.3, 0.5.6 listed): integration/vllm/vllm_v1_adapter.py, vllm_service_factory.py, "
    "v1/gpu_connector/__init__.py CreateGPUConnector, utils.py need_gpu_interm_buffer, "
    "gpu_connectors.py VLLMPagedMemGPUConnectorV2 (the chunk's GPU buffer, 2 × layers × "
    "chunk_size × kv heads × head_dim): read for LMCache issue 3430's record, nothing fitted",
    "https://github.com/LMCache/LMCache/pull/3433 (the fix of issue 3430, run on an L4), "
    "/pull/1740, /issues/1241, /issues/2639, /issues/2535, /issues/1088 (LMCache start-up "
    "excerpts: compilation config dumps with combo_kernels and benchmark_combo_kernel on); "
    "https://github.com/vllm-project/vllm/pull/12126, /pull/9352, /pull/35472 ('Stop lazily "
    "compiling'), /pull/30515, /issues/14011, /issues/20305; https://github.com/noonghunna/"
    "club-3090/issues/1011, /issues/1087, /issues/347, /pull/92 (vLLM 0.2x start-ups, cold "
    "and warm compiles): looked at in the vout round, none a record",
    "https://github.com/LMCache/LMCache/pull/3502 (2026-06-03: vllm-project/vllm#43458 turned "
    "the V2 model runner on by default for Llama and Mistral dense models between nightlies "
    "0.22.1rc1.dev91 and .dev95, so from release 0.23.0, as the wheels show), "
    "https://github.com/vllm-project/vllm/pull/47374, /pull/45947, /issues/51041, "
    "/issues/49011, /issues/12529, /issues/6746, /issues/2136, "
    "https://github.com/ovg-project/kvcached/issues/358, https://github.com/LMCache/LMCache/"
    "pull/3171, https://github.com/gpustack/gpustack/issues/1800, https://github.com/"
    "xorbitsai/inference/issues/4926, https://github.com/aivrar/vllm-windows-build/issues/4: "
    "looked at in the vout round for a 0.22-0.28 start-up on the V2 runner, none a record",
    "public repository files (search index ids) looked at in the vout round, none a record: "
    "59040654377, 68290428776, 68431492834, 68360647719, 69380466423, 53672400032, "
    "69695536489, 56334803887, 60577942307, 67343171212 (A40s with 46,068 MiB in "
    "nvidia-smi), 63244055482, 59120125296, 56140370961, 71082333276, 54096264140, "
    "55047790402, 34272811762, 51878769396, 57749563807, 53779572905 (48 GB cards' tables), "
    "and a search for '0.9764' whose hits were unrelated (59382488, 71593701338, "
    "49075592393, 15111744518, 32363134373, 38897101658, 60179370698, 7873854743, "
    "42812020433, 23712257198)",
    # issue 21, vnew round (2026-12-03): current releases, held out
    "vllm 0.29.0, 0.30.0, 0.31.0, 0.32.0 and 0.33.0 wheels (PyPI): v1/worker/gpu/"
    "cudagraph_utils.py profile_cudagraph_memory (PIECEWISE graphs measured in full, FULL "
    "extrapolated; the profiling KV cache and attention backends built first), "
    "v1/worker/gpu/model_runner.py load_model (the Sampler after the weights), "
    "v1/worker/gpu/sample/penalties.py PenaltiesState, v1/worker/gpu_worker.py "
    "determine_available_memory (peak activation = transient peak + graph estimate), "
    "v1/attention/backends/flashinfer.py _get_workspace_buffer and fa_utils.py "
    "flash_attn_supports_kv_cache_dtype, platforms/cuda.py _get_backend_priorities, envs.py "
    "VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE, config/vllm.py use_v2_model_runner, and the log "
    "lines' source positions per release (Available KV cache memory at gpu_worker.py 640, 692, "
    "759, 772; GPU KV cache size at kv_cache_utils.py 2395, 2464, 2327, 1147 for 0.30-0.33); "
    "flashinfer-python 0.6.18.post1 (vLLM 0.30.0's pin) decode.py "
    "BatchDecodeWithPagedKVCacheWrapper (an 8 MiB device index buffer each)",
    "search index files 70347757402 (vLLM 0.31.0 Qwen2.5-7B-Instruct-AWQ on an H200, 'Model "
    "loading took 5.38 GiB', utilisation not stated), 69494016274 (vLLM 0.29.0 Qwen3.5-4B on "
    "an L4: 'Free memory on device (21.84/22.03 GiB)'), 69659197413, 70223885516, 69519424968 "
    "(an L4's 22.03 GiB in vLLM 0.29 refusals), 71526726204 (Tensward case 5, "
    "VLLM_BATCH_INVARIANT=1: FlashInfer's 2 GiB batch-invariant workspace, not a record), "
    "71364641222 (Tensward case 4: the baseline's pool with prefix caching stated), "
    "71486455639 (Tensward's L4 concurrency baseline: case 10's setup and pool), 71015931400, "
    "71093639330, 71160992911 (Tensward runs of models kvcalc does not ship or with speculation), "
    "70267910602 (vLLM 0.30 on a GB10), 63441798540 (a patched 0.26.1 GLM-5.3 build), "
    "66144493359 (DeepSeek-V4 on an A100 40GB, a fork), 70285941683 (an NVFP4 4B model on an "
    "RTX 3080 Ti Laptop), 70960347865 (vLLM-MUSA), 59966627992 (Ministral 3 14B on an H200, "
    "0.27.1), 70918765680 (Layby: KV capped by --kv-cache-memory), 71134181024, 70900556009, "
    "69543938894, 71148385854, 70115627348 (0.30/0.31 setups without a pool or with unshipped "
    "models), 70450749682, 69523800128, 71592198174, 68969270797, 69739461368, 69080973712, "
    "57543046074, 63390294774, 54702752420 (search excerpts only: pools printed without "
    "their settings, or of unshipped, hybrid or CPU setups); SGLang 0.5.20-0.5.22: "
    "68469175471 (a vr200 node), 70238893755 (Qwen3.5-4B), "
    "71426701514 (MiMo-V2.6 on an A100), 68916375706 (a B300 plugin benchmark), 59270619045 "
    "(0.5.2 on an RTX 3090); TensorRT-LLM 1.x: 14031891033 and 14703390752 (a parser's "
    "fixture, 524,288 tokens), 26725295630, 6161481015, 54591450631 (engine builds, 0.x): "
    "looked at in the vnew round, none a record",
    "issue 21/20, sghybrid round (SGLang's hybrid state pool): the SGLang wheels 0.5.3, 0.5.4, "
    "0.5.5, 0.5.8, 0.5.9, 0.5.10, 0.5.13-0.5.19, 0.5.21, 0.5.22, 0.5.23 (PyPI sglang, "
    "model_runner.py / kv_cache_configurator.py _handle_max_mamba_cache, resolve_max_num_reqs, "
    "configs/mamba_utils.py, server_args.py); start-up logs: search index files 65830671609 "
    "(Qwen3.8-27B-FP8, H100, 0.5.18: the held-out record), 53944457073 (Qwen3.5-9B, TP 2, "
    "2026-04-14, 24 GB GPUs: not shipped, its split checked in tests/test_sglang_hybrid.py), "
    "70117488909 (Nemotron-3 Nano Omni NVFP4, 4 x GB10, 0.5.21: no GB10 profile, its split "
    "checked there), 69213517065 (Qwen3.8-27B NVFP4, GB10, --max-mamba-cache-size set), "
    "56880170874 (Nemotron-H on XPU), 70920711276 and 69439504994 (test fixtures), "
    "69865425230 (--disable-radix-cache, model not named), 70223678508 (club-3090 notes), "
    "56671970114, 68576807532, 62375882188, 54618842866 (no Mamba line or not shipped models); "
    "https://github.com/sgl-project/sglang/pull/15337, /pull/18786, /pull/10233, /pull/11214, "
    "/pull/31230, /issues/37066, https://github.com/jpezzulli/sglang-rtxpro6000/issues/5, "
    "https://github.com/noonghunna/club-3090/pull/1292, "
    "https://gogongxt.com/posts/09ff9652.html",
    # issue 21, awqw round (2026-12-03): AWQ weights as vLLM loads them, the L4's total
    "vllm 0.17.0, 0.18.0, 0.19.0, 0.20.0, 0.21.0, 0.26.0, 0.29.0 and 0.30.0 wheels (PyPI): "
    "model_executor/layers/quantization/awq_marlin.py (0.17-0.21) and auto_awq.py (0.26-0.30: "
    "AutoAWQConfig.get_quant_method, AutoAWQMarlinLinearMethod.create_weights, "
    "_convert_awq_to_standard_format), kernels/linear/__init__.py _POSSIBLE_KERNELS and "
    "choose_mp_linear_kernel, mixed_precision/marlin.py and machete.py "
    "process_weights_after_loading, quantization/utils/marlin_utils.py "
    "(marlin_make_workspace_new, marlin_padded_nk, marlin_zero_points, marlin_permute_scales), "
    "machete_utils.py, utils/mem_utils.py DeviceMemoryProfiler and platforms/cuda.py "
    "get_current_memory_usage (max_memory_allocated after reset_peak_memory_stats), "
    "v1/worker/gpu/model_runner.py load_model",
    "search index files 59085287510 ('The L4 card reports 22.03 GiB usable (23,659,151,360 "
    "bytes)', 2026-08: the l4 profile's total), 56027838200 (cudaMemGetInfo '21.84 GiB free / "
    "22.03 GiB total' on an L4), 63428589274 (an L4 under torch 2.13.0+cu130: 'Total VRAM: "
    "22.03 GiB'), 55643414494, 60853966833, 70157866460, 69048253219 (L4 out-of-memory texts of "
    "2026 with a 22.03 GiB total), 69494016274 (its nvidia-smi 23,034 MiB): looked at in the "
    "awqw round, none a record",
    "vllm 0.17.0, 0.18.0, 0.19.1, 0.20.0, 0.24.0, 0.25.0, 0.26.0, 0.27.0, 0.29.0, 0.31.0, "
    "0.32.0 and 0.33.0 wheels (PyPI): v1/worker/gpu_worker.py determine_available_memory (where "
    "profile_cudagraph_memory runs against the memory_profiling window), "
    "v1/worker/gpu_model_runner.py profile_cudagraph_memory, v1/worker/gpu/model_runner.py "
    "(0.26.0: the V2 estimate returns 0), utils/mem_utils.py memory_profiling and "
    "MemorySnapshot.measure, v1/sample/ops/topk_topp_sampler.py (0.19.1), the line positions "
    "of 'Available KV cache memory' (gpu_worker.py:759 in 0.32.0, :772 in 0.33.0) and 'GPU KV "
    "cache size' (kv_cache_utils.py:2327, :1147) for the search: issue 21, memlogs round "
    "(graph_capture_residue_bytes)",
    "search index files 71481045429 (Hugging Face Jobs guide: SGLang 0.5.21 serving "
    "Qwen2.5-0.5B-Instruct on an A10G at --mem-fraction-static 0.8, 'room for a 1.4M-token "
    "cache': a rounded figure of an unshipped model), 71018446146, 70110784722, 71148531117, "
    "70419136101, 71233602935, 70247836221, 71557052543, 70917352619, 70068912389 (SGLang "
    "0.5.21 images, settings without a printed pool), 70786878314 (a vLLM 0.32.0 image in a "
    "build script); TensorRT-LLM 1.x: 54033444708 (1.1.0rc2.post2, gpt-oss-120b under Dynamo: "
    "'Setting PyTorch memory fraction' lines, no pool), 34167518853, 53259956211, "
    "19052879588, 44583649157, 38844254012 (1.1.0rc3-1.2.0rc6 set-up pages and sessions, no "
    "pool line), 55213663507 (1.1.0 smoke test, TinyLlama, no pool), 60555711464 (1.1.0rc5 "
    "set-up); find_string on vLLM 0.32.0/0.33.0's line positions and banners, on "
    "'sglang:v0.5.22' and on 'TensorRT-LLM version: 1.0.0' found no start-up log of those "
    "releases; looked at in the memlogs round, none a record",
)


def _graph_terms(record: dict) -> dict:
    """kvcalc's CUDA-graph terms for ``record`` at the 0.20.0 rules (the figure's numbers) and
    the layers one GPU's graphs span."""
    from calc.formulas.elementwise import cdiv

    dep = build({**record, "engine_version": "0.20.0"}).deployment
    fig = next(f for f in dep.per_gpu.prediction.figures if f.key == "cuda_graph_bytes")
    return {**fig.numbers, "layers": cdiv(dep.model.n_layers, dep.pp), "value": fig.value}


def graph_fit() -> dict[str, float]:
    """vLLM's CUDA-graph constants [MiB], measured on the training logs' DEBUG lines
    ('Estimated PIECEWISE|FULL CUDA graph memory: F MiB first-capture + (n-1) × G MiB
    per-graph', engine_logs_train.yaml cuda_graph_*_mib), one median each over the records:
    the first PIECEWISE capture less the widest layer's temporaries kvcalc counts (largest ×
    width × 2 B), and each mode's per-graph memory over the layers the graphs span."""
    base, pw, full = [], [], []
    for r in yaml.safe_load(DATA[0].read_text())["records"]:
        rep = r.get("reported") or {}
        piecewise, full_mode = rep.get("cuda_graph_piecewise_mib"), rep.get("cuda_graph_full_mib")
        if piecewise is None:
            continue
        t = _graph_terms(r)
        base.append(piecewise["first_capture"] - t["largest"] * t["width"] * 2 / 2**20)
        pw.append(piecewise["per_graph"] / t["layers"])
        if full_mode is not None:
            full.append(full_mode["per_graph"] / t["layers"])
    return {
        "piecewise_base": round(statistics.median(base)),
        "piecewise_per_graph_layer": round(statistics.median(pw), 2),
        "full_per_graph_layer": round(statistics.median(full), 2),
    }


def _graph_estimates() -> list[str]:
    """vLLM's CUDA-graph estimate as kvcalc models it from 0.20 (where it is taken from the KV
    budget) beside the estimate 0.19.0 already prints without subtracting it."""
    rows = []
    for r in records():
        printed = (r.get("reported") or {}).get("cuda_graph_estimate_gib")
        if printed is None:
            continue
        at = build({**r, "engine_version": "0.20.0"}).deployment.per_gpu.prediction
        rows.append((r["id"], printed, at.cuda_graph_bytes / GIB))
    if not rows:
        return []
    diffs = [pred - printed for _, printed, pred in rows]
    out = [
        "",
        "## CUDA graph estimate (vLLM 0.20+) beside what 0.19.0 prints",
        "",
        "vLLM 0.19.0 already runs `profile_cudagraph_memory` and prints 'Estimated CUDA graph "
        "memory: X GiB total' without taking it from the budget; from 0.20 the estimate is "
        "subtracted (docs/engines.md). kvcalc's estimate at the 0.20.0 rules, same settings, "
        f"beside each printed one ({len(rows)} logs): median |difference| "
        f"{statistics.median(abs(d) for d in diffs):.2f} GiB, max {max(abs(d) for d in diffs):.2f}"
        f" GiB, signed median {statistics.median(diffs):+.2f} GiB. The estimate is "
        "profile_cudagraph_memory's (vllm 0.19.0-0.33.0 gpu_model_runner.py): per mode the "
        "first two captures, max(first PIECEWISE, first FULL) + (n − 1) × the second capture "
        "per mode. On Hopper the first FULL capture is FlashAttention 3's split accumulators, "
        "32 splits × heads × tokens × (v_head_dim + 1) × 4 B (from the source, not fitted); the "
        "first PIECEWISE capture's fixed part and the per-graph memory per layer of each mode "
        "are medians over these logs' DEBUG lines (graph_fit: "
        + ", ".join(f"{k} {v}" for k, v in graph_fit().items())
        + " MiB). What is left is the 2 MiB granularity of the per-graph samples (4, 6 or 8 "
        "MiB for the same 32-40 layers; one 20 MiB allocator segment in a second capture adds "
        "50 × 20 MiB: Llama 3.1 8B prints 1.69 GiB at TP 2 and 0.57 GiB at TP 4) and Triton "
        "attention's smaller per-graph memory (Gemma 3), not modelled. Modelled per model "
        "from the source: gpt-oss's 83 graphs to 1,024 (GptOssForCausalLMConfig raises the "
        "capture ceiling, keyed on config.json's architecture) and Gemma 3's TRITON_ATTN "
        "backend (multimodal prefix attention, keyed on its model_type: no split buffer); "
        "gpt-oss's missing split buffer (FA3 with sinks) is from the logs.",
        "",
        "| Record | Printed (0.19.0) GiB | kvcalc at 0.20.0 GiB | Difference GiB |",
        "|---|---|---|---|",
    ]
    out += [f"| {i} | {a:.2f} | {b:.2f} | {b - a:+.2f} |" for i, a, b in rows]
    return out


def _constants() -> list[str]:
    from calc.deploy.engines import engine

    out = ["| Engine | From release | Rule | Value | Source |", "|---|---|---|---|---|"]
    for name in ("vllm", "sglang", "trtllm"):
        e = engine(name)
        for c in e.versions.changes:
            if not c.note:
                continue
            vals = ", ".join(f"{k} = {_show(v)}" for k, v in c.values.items()) or "(base rules)"
            out.append(f"| {e.title} | {c.since} | {vals} | see source | {c.note} |")
    return out


def _show(v) -> str:
    if isinstance(v, float) and v > 1e6:
        return f"{v / GIB:.2f} GiB" if v > GIB / 10 else f"{v / 2**20:.2f} MiB"
    if isinstance(v, int) and v > 1e6:
        return f"{v / GIB:.2f} GiB" if v > GIB / 10 else f"{v / 2**20:.2f} MiB"
    return str(v)


def main(argv: list[str]) -> int:
    print(render(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
