"""The sources section of docs/validation.md (written by bench/validation_doc.py): every source
the step-time model (issue 20) was fitted to or that was looked at while building it, fitted or
not. kvcalc is later checked on published runs from sources NOT on this list, so it is complete.

Run: python bench/validation_sources.py   (prints the section)
"""

from __future__ import annotations

import sys

# (source, what it holds, how it was used)
FITTED = (
    ("aiconfigurator-core 0.12.0 wheel on PyPI (ai-dynamo/aiconfigurator, Apache-2.0): "
     "aiconfigurator_core/systems/data/{a100_sxm,h100_sxm,h200_sxm,b200_sxm,b300_sxm,gb200,gb300,"
     "l40s,rtx_pro_6000_server}/ gemm, attention, mla (generation_mla_perf, context_mla_perf), "
     "moe, comm, quantize parquet tables",
     "measured kernel times (vLLM, SGLang, TensorRT-LLM collectors)",
     "the kernel curves of every NVIDIA profile, MLA attention and each engine's own fused-MoE "
     "curves included (tools/fit_kernels.py)"),
    ("the same wheel's expert-parallel communication tables (issue 20, third round): "
     "comm/trtllm/1.3.0rc11/moe_a2a_perf.parquet and comm/vllm/0.24.0/moe_a2a_perf.parquet "
     "(DeepEP normal and low-latency dispatch and combine, EP8 on HGX, EP4 on a GB200/GB300 "
     "tray), comm/sglang/0.5.12/wideep_deepep_{normal,ll}_perf.parquet (SGLang's DeepEP "
     "benchmark), gb200/comm/trtllm/1.3.0rc10/trtllm_alltoall_perf.parquet (TensorRT-LLM "
     "1.2.0rc6 NVLink two-sided all-to-all on GB200 NVL72, EP 2-64; the one-sided rows looked "
     "at, not fitted), comm/nccl/<newest>/nccl_perf.parquet all_gather and reduce_scatter rows",
     "measured all-to-all and NCCL collective times on H100, H200, B200, B300, GB200, GB300",
     "each engine's DeepEP dispatch and combine curves and NCCL's all-gather and reduce-scatter "
     "segments (tools/fit_kernels.py; each engine's curve also reported on the other engines' "
     "rows, docs/kernel-fits.md)"),
    ("ai-dynamo/aiconfigurator@095f58a51 aic-core/src/aiconfigurator_core/systems/"
     "silicon_sample.csv",
     "measured serving runs (TTFT, TPOT at fixed concurrency), NVIDIA, three engines",
     "training half: the serving fixed-cost share and each engine's host time per step (one "
     "joint fit), the benchmark's wave share (bench/validation_serving.py); the other half held "
     "out"),
    ("AMD ROCm performance results page (amd.com/.../rocm-hub/dev-ai/performance-results.html, "
     "rocm/vllm 0.10.2, 2025-10-06)",
     "vLLM throughput, MI300X TP8, Llama 3.1 70B / 405B FP8",
     "the CDNA3 matmul fraction (bench/validation_amd.py)"),
    ("Oracle Cloud blog: Serving Llama 3.1 405B with AMD MI300X GPUs "
     "(blogs.oracle.com/cloud-infrastructure/serving-llama-31-405b-model-with-amd-mi300x-gpus)",
     "vLLM benchmark_latency at batch 1-256, MI300X TP8",
     "the CDNA3 memory fraction (batch <= 4 rows) (bench/validation_amd.py)"),
    ("andyluo7/cpu-gpu-codesign-agentic-inference RESULTS_SUMMARY.md (vLLM 0.19.0, MI300X)",
     "HTTP/tokenisation/scheduling time of single requests at 1K-100K tokens",
     "the front-end time per request (calc/deploy/host_costs.py)"),
    ("lm-sys/lm-sys.github.io blog/2025-05-05-large-scale-ep.md (LMSYS, SGLang large-scale EP)",
     "EP32 prefill throughput, default expert distribution vs simulated perfect EPLB",
     "the default MoE imbalance under EP, 1.18 (calc/deploy/moe_pipeline.py)"),
    ("NVIDIA/TensorRT-LLM@00f37686 docs/source/performance/perf-overview.md (v1.0)",
     "trtllm-bench throughput tables",
     "the fp8 band rule of profiles without curves (4 rows, band model); the rest held out"),
    ("llm-d-incubation/llm-d-planner@d3121e0 accuracy/results/v0.19.0/logs (the 20 training "
     "records of docs/validation/engine_logs_train.yaml that print them)",
     "vLLM 0.19.0's DEBUG lines 'Estimated PIECEWISE|FULL CUDA graph memory: F MiB "
     "first-capture + (n-1) × G MiB per-graph' on H100s",
     "issue 21, seventh round: vLLM's CUDA-graph estimate (0.20+): the first PIECEWISE "
     "capture's fixed part (96 MiB) and the per-graph memory per layer (PIECEWISE 0.21, FULL "
     "0.17 MiB), medians (bench/validation_capacity.py graph_fit); the first FULL capture from "
     "the source (FlashAttention 3's split accumulators)"),
    ("aiconfigurator 0.7.0 wheel on PyPI (ai-dynamo/aiconfigurator, Apache-2.0): "
     "aiconfigurator/systems/data/{h100_sxm,h200_sxm}/trtllm/1.0.0rc3/moe_perf.txt, "
     "{b200_sxm,gb200_sxm}/trtllm/1.0.0rc6/moe_perf.txt and {h100_sxm,h200_sxm,b200_sxm,"
     "gb200_sxm}/trtllm/1.2.0rc5/moe_perf.txt (gb200 also 1.2.0rc6)",
     "measured fused-MoE times of TensorRT-LLM 1.0 and 1.2 by the same collector as the 1.3.0rc20 "
     "tables, same shapes",
     "issue 20, twelfth round: TensorRT-LLM 1.0's fused MoE over 1.3.0rc20's, 1.19 (median of 12 "
     "GPU-format medians, tools/moe_release_ratio.py; TRTLLM_MOE_RELEASE_SCALE); 1.2's, 1.12, "
     "reported and not applied"),
    ("the same wheel's moe/trtllm/<newest>/moe_perf.parquet, balanced rows of TensorRT-LLM's "
     "default (CUTLASS) MoE path, every profile with them (issue 20, thirteenth round)",
     "measured fused-MoE layer times by shape, tokens, TP and EP",
     "one constant per TensorRT-LLM fused-MoE curve, per_expert_s, fitted alone on the shipped "
     "curve and kept where it lowers the median |error| in every token range "
     "(tools/moe_per_expert_hold.py: B200 NVFP4 0.35 us, GB200 0.275 us per active expert)"),
    ("surajssd/llm-k8s@58b61c5 results_serving_meta-llama-Llama-3.3-70B-Instruct/01_tp8_pp1, "
     "03_tp4_pp2_IB and 02_tp4_pp2_no_IB (qps 01, 04, 16: the steady runs), replayed on "
     "a100-40g (a validation profile until the newgpus round, now hardware_profiles/) with the "
     "a100-80g's measured kernel curves "
     "(aiconfigurator a100_sxm tables, copied)",
     "measured TTFT median, TPOT mean and output throughput of vLLM 0.8.3 Llama-3.3-70B on "
     "8 × A100 40GB (TP 8; TP 4 × PP 2 over InfiniBand and Ethernet)",
     "issue 20, host round: vLLM's host time per step before 0.10.0, 2.6 ms (the TP 8 runs, "
     "the per-step time alone free: 2.57 ms; calc/deploy/host_costs.py), replacing the engine "
     "core's 0.10 ms a sequence (0 on the curves); the V0 pipeline's cost per sequence per "
     "stage 0.325 → 0.38 ms (715 and 803 µs a sequence at PP 2 beside it)"),
    ("DeepSeek-V3 Technical Report (arXiv:2412.19437), its evaluation of MTP for speculative "
     "decoding (quoted in a r/LocalLLaMA comment found by search)",
     "the measured acceptance of the MTP module's second-token prediction, 85-90% across "
     "generation topics (1.8x tokens per second)",
     "issue 20, MTP round: α = 0.85, the low end, the MTP draft acceptance of "
     "calc/reports/mtp_decode.py (not fitted)"),
    ("SemiAnalysisAI/InferenceX@843c6254f history: .github/configs/nvidia-master.yaml at "
     "12ba0ae07 and its changes by pull requests #392 (bf3456727), #594 (ec7bafaae), #620 "
     "(6eecc0e66), #632 (5d517074c), #642 (0aae52d4c), #1488/#1489; benchmarks/"
     "dsr1_fp4_b200_trt(_slurm).sh, dsr1_fp8_b200_trt(_slurm).sh, dsr1_fp8_h200_trt(_slurm).sh "
     "and their _mtp variants at ad4f6a4a1, 029199755, 622f4dd06, bf3456727, 5d517074c, "
     "0aae52d4c, 12ba0ae07; benchmarks/gptoss_fp4_b200_trt.sh at d7dbd045b",
     "which DeepSeek-R1 TensorRT-LLM sweeps ran MTP (num_nextn_predict_layers 3, 1 with "
     "attention DP), their images and dates, and the MoE backend each script sets",
     "issue 20, MTP round: the row mapping of the silicon sample's 161 MTP runs "
     "(tools/silicon_mtp_rows.py, docs/validation/aiconfigurator_silicon_mtp.csv); the MoE "
     "backends written up, not modelled"),
    ("ai-dynamo/aiconfigurator-core 0.12.0 wheel (PyPI): systems/data/b200_sxm/moe/trtllm/"
     "1.3.0rc20 moe_perf.parquet, balanced NVFP4 rows, kernel_source moe_torch_flow_min_latency "
     "(moe_backend TRTLLM, TRTLLMGenFusedMoE) against moe_torch_flow_cutlass at the same shape "
     "and tokens (12,015 pairs, 15 shapes); gb200's pairs reported beside the fit, not fitted",
     "measured trtllm-gen and CUTLASS NVFP4 fused-MoE layer times on B200 and GB200",
     "issue 20, MoE-backend round: CUTLASS / trtllm-gen = 1.885 × m^-0.0966 (m rows per active "
     "expert; tools/fit_kernels.py --trtllm-gen-fit), the TRTLLM backend's NVFP4 MoE time "
     "(calc/deploy/moe_pipeline.py TRTLLM_GEN_FP4_SPEEDUP, TRTLLM_GEN_FP4_DECAY)"),
    ("aiconfigurator's silicon_sample.csv silicon_data_source (ai-dynamo/aiconfigurator@095f58a51) "
     "with the InferenceX scripts' moe_config.backend rule (the InferenceX@843c6254f entry above)",
     "which export, image and measured date each TensorRT-LLM DeepSeek-R1 run has",
     "issue 20, MoE-backend round: the row mapping of the MoE backend of 254 InferenceX runs "
     "(tools/silicon_moe_backend_rows.py, docs/validation/aiconfigurator_silicon_moe_backend.csv; "
     "TRTLLM 145, CUTLASS 86, DEEPGEMM 23)"),
    ("llm-d/llm-d@a974157bb1230897f6e9e629b4419cb71f952b2c docs/accelerators/"
     "amd-mi355x-perf.md (the same table in llm-d/llm-d pull 1233)",
     "vllm bench serve runs of amd/Llama-3.3-70B-Instruct-FP8-KV on 8 x MI355X, TP 8, vLLM "
     "0.15.1 (llm-d-rocm v0.6.0): output and total tokens/s, mean TTFT, median TPOT/ITL at "
     "concurrency 2-256 and 1K-64K prompts",
     "issue 20, round 20: the low edges of mi355x's unmeasured bf16/fp8 and memory bands "
     "(0.04 and 0.15, to hold its nine rows, held out at expected: output tokens/s +25% to "
     "+113%); the per-kernel cost its 4,096 / 4,096 rows alone imply (10.6 us) reported, not "
     "shipped (plain vLLM without AITER; InferenceX's tuned MI355X runs rule it out); three rows "
     "left out (total / output tokens/s contradicts their lengths)"),
    ("vllm-project/vllm pull 25135 (2025-09-18, 'Llamas 3.1 405B fp4 changes upstreaming from "
     "355_wip'; issue-tracker search excerpt of its description)",
     "benchmark_serving of Llama-3.1-405B MXFP4 on one MI355X (TP 1), concurrency 64, 320 "
     "prompts, 326,905 tokens in, 327,680 out: 793.27 output tokens/s, mean TPOT 75.58 ms, "
     "mean TTFT 5,240 ms",
     "issue 20, round 20: the mi355x MXFP4 GEMM rate, expected 0.32 of the fp4 peak (output "
     "tokens/s error zero; bench/validation_amd_serving.py --fit), checked against the MLPerf "
     "v5.1 floor 0.159"),
    ("ai-dynamo/aiconfigurator@095f58a51 src/aiconfigurator/generator/config/backend_templates/"
     "benchmark/bench_run.sh.j2 (AIPerf --warmup-request-count c × 2, --num-requests c × 20, "
     "BENCH_MULTI_ROUND 20), docs/universe/index.html (Auto Gap Analysis: AIPerf against AIC), "
     "the generator's vLLM, SGLang and TensorRT-LLM rules and templates (rule_plugin/*.rule, "
     "backend_config_mapping.yaml, extra_engine_args enable_block_reuse default false, at "
     "095f58a51 and 07a377923); ai-dynamo/aiperf@db4f6397 config_defaults.py "
     "(ConversationDefaults.NUM = 100, WARMUP_REQUEST_COUNT 0), conversation_config.py, "
     "dataset/dataset_manager.py (random.choice per request), dataset/generator/prompt.py "
     "(random slices of a Shakespeare corpus); vllm 0.12.0 wheel (PyPI): config/cache.py "
     "(enable_prefix_caching True), engine/arg_utils.py, v1/core/kv_cache_manager.py "
     "(max_cache_hit_length = num_tokens − 1)",
     "how the silicon sample's gap-analysis campaign (ids with _epnone_) measured: 100 "
     "synthetic prompts drawn at random, warm-up and timed counts per concurrency, vLLM's prefix "
     "cache on by default",
     "issue 20, vLLM silicon round: the repeated prompts' hit share (calc/serve/prompt_reuse.py, "
     "bench/validation_serving.py hit_share: no constant fitted, every figure from these "
     "sources); the chunked wave share refitted without the rows that repeat (0.099 -> 0.103)"),
    ("docs/validation/engine_logs_versions.yaml sglang04-h100-llama31-8b-docs (SGLang's "
     "documentation page 'Quick Start: Sending Requests', captured 2025-01-23) and "
     "engine_logs_train.yaml sglang-4xh100-qwen3-235b-fp8-tp4 (vllm-project/vllm issue 21348)",
     "SGLang start-up log lines: 'Load weight begin. avail mem=78.81 GB' at TP 1 on an H100; "
     "'KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB' at TP 4 on "
     "H100s, mem_fraction_static 0.93",
     "issue 21, sgmem round: SGLang's memory in use at its pre-load baseline, 0.38 GiB at TP 1 "
     "(79.19 − 78.81) and 2.20 GiB on NVLinked GPUs at TP > 1 ((79.19 − x) × 0.93 − 55.14 = "
     "16.46), calc/deploy/engines/sglang/rules.py non_torch_tp1_bytes, non_torch_tp_bytes"),
    ("aiconfigurator-core 0.12.0 wheel (PyPI): {b200_sxm,b300_sxm,gb200,gb300,h100_sxm,h200_sxm}/"
     "moe/vllm/0.24.0/moe_perf.parquet, the w4a16_mxfp4 rows by kernel_source (648 "
     "vllm_gptossmxfp4moe_* rows kept; 324 vllm_compressedtensorsw4a4mxfp4moe_marlin_* rows "
     "left out, tools/fit_kernels.py MXFP4_OFF_PATH)",
     "measured fused-MoE layer times of vLLM's gpt-oss MXFP4 kernels (FlashInfer trtllm-gen on "
     "Blackwell, OpenAI's Triton kernel on Hopper) and of its compressed-tensors W4A4 MXFP4 "
     "Marlin kernel",
     "issue 20, mxfp4 round: vLLM's and the pooled MXFP4 MoE curves of B200, B300, GB200, GB300, "
     "H100, H200 (and copies) refitted to gpt-oss's kernel path (B200 vLLM compute 0.1375 -> "
     "0.2201); WAVE_SHARE chunked refitted 0.103 -> 0.116 on it, mi355x matmul_fp4 expected "
     "0.32 -> 0.33"),
    ("vllm-project/vllm-project.github.io@034b535 _posts/2026-02-20-rocm-attention-backend.md "
     "(vLLM's ROCm attention blog, AMD and Embedded LLM: vLLM 0.14.0rc2, rocm/vllm-dev:"
     "nightly_main_20260115, VLLM_ROCM_USE_AITER=1, --attention-backend switched) and its figure "
     "assets/figures/2026-02-27-rocm-attention-backend/mha_tpot_comparison.png (bar lengths "
     "read at 2.43 px/ms on the 0-260 ms axis)",
     "Qwen3-235B-A22B-FP8 TP 8 + EP 8, 10K / 1K, on MI300X, MI325X and MI355X at concurrency 64 "
     "and 128: ROCM_AITER_FA's TPOT and TRITON_ATTN's as a multiple of it (1.05 on MI355X at 64); "
     "its TTFT figure (TRITON_ATTN 1.28-1.42 x) looked at, not used",
     "issue 20, rocmattn round: the Triton unified-attention decode kernel's time per 16-key "
     "tile, 2.70 us (calc/deploy/engines/vllm/rocm_attention.py TRITON_DECODE_TILE_S), fitted "
     "to the MI355X concurrency-64 row alone; the other five rows reported as checks"),
    ("vllm-project/vllm-project.github.io (mirror at c3a01c4) assets/figures/"
     "2026-02-27-rocm-attention-backend/mha_ttft_comparison.png, the TTFT figure of the same "
     "blog post and runs (ratios printed beside the bars)",
     "Qwen3-235B-A22B-FP8 TP 8 + EP 8, 10K / 1K, --max-num-batched-tokens 16384, MI300X / "
     "MI325X / MI355X at concurrency 64 and 128: TRITON_ATTN's TTFT 1.41 / 1.37 / 1.33 x "
     "ROCM_AITER_FA's at 64, 1.42 / 1.35 / 1.28 x at 128 (ROCM_AITER_UNIFIED_ATTN 0.97-1.06 x)",
     "issue 20, amdttft round: the Triton unified kernel's prefill attention at 2.54 x kvcalc's "
     "attention roofline (calc/deploy/engines/vllm/rocm_attention.py TRITON_PREFILL_SCALE), "
     "fitted to the MI355X concurrency-64 bar alone (kvcalc's closed-loop TTFT ratio 1.33); the "
     "other five bars reported as checks (-0.8% to +4.5%)"),
    ("vllm-project/vllm-project.github.io@034b535 _posts/2026-02-20-rocm-attention-backend.md "
     "and both its figures (mha_ttft_comparison.png, mha_tpot_comparison.png; the two entries "
     "above), the twelve bars together",
     "Qwen3-235B-A22B-FP8 TP 8 + EP 8, 10K / 1K, MI300X / MI325X / MI355X at concurrency 64 and "
     "128: TRITON_ATTN's TTFT and TPOT as multiples of ROCM_AITER_FA's",
     "issue 20, amdwalk round: the Triton decode tile and prefill multiple refitted together, "
     "least squares over the twelve bars in kvcalc's closed loop (bench/validation_amd_serving.py "
     "--fit-triton): the multiple 2.54 -> 2.57 x, the tile 2.70 -> 2.18 us, the upper bound the "
     "bars set (flat below it; calc/deploy/engines/vllm/rocm_attention.py)"),
    ("sgl-project/sglang PR #12160 (Bruce-x-1997, 2025-10-26, closed): the scheduler's log of "
     "a DeepSeek-V3 extend pass of 1 new token and 1 cached, eager 'forward cost' 82.64 ms "
     "(2025-10-14) against 23.10 ms replayed as a prefill CUDA graph (2025-10-16); GPU and CPU "
     "unstated",
     "the host time of an eager prefill pass of DeepSeek-V3's 61 layers",
     "issue 20, moehost round: calc.deploy.host_costs.EAGER_MLA_MOE_LAYER_S = 82.64 ms / 61 = "
     "1.355 ms a DeepSeek-shaped layer (MLA + routed MoE), the SGLang wing's eager prefill "
     "layer, charged by bench/validation_serving.py to SGLang runs whose stated release (before "
     "0.5.10) issues its prompt passes eagerly; no constant fitted"),
    ("NVIDIA/TensorRT-LLM PR #10273 (lancelly, 2025-12-24, merged 2026-01-20): GB200, attention "
     "DP 2, max_batch_size 1,536, 3,072 concurrent 1k/1k requests, the PyExecutor's 'average per "
     "iteration host_step_time' 44.53 ms (Llama-3.2-1B) and 45.11 ms (GPT-OSS-120B) with the C++ "
     "scheduler (its schedule 4.4-4.45% of it); with NVIDIA/TransformerEngine#2053's CPU time of a "
     "PyTorch Linear forward, 37.08 us on GB200 against 13.48 us on an H100 DGX's Xeon 8480C",
     "TensorRT-LLM's engine loop per running sequence, overlapped with the GPU's step: 44.53 ms "
     "/ 1,536 = 29.0 us on Grace (two models 120x apart at one loop time: the host's), / 2.75 = "
     "10.5 us on x86",
     "issue 20, trthost round: calc.deploy.host_costs.LOOP_SEQUENCE_X86_S and CPU_FACTOR (the "
     "profiles' host_cpu: gb200, gb300 grace), a step max(GPU, loop) + the serial host time in "
     "the steady state, the simulation and bench/validation_serving.py; nothing fitted (two "
     "quotients of the measurements)"),
    ("samilazrak/vllm-optimization-lab @ a7b193a3 results/raw/base.startup.log (vLLM 0.29.0, "
     "Qwen3-14B on an L40S, the training record vllm0290-l40s-qwen3-14b-base): its lines "
     "'--gpu-memory-utilization=0.9200 is equivalent to --gpu-memory-utilization=0.9086' and "
     "'Actual usage is 27.79 GiB for consumed memory (weights + non-torch)' beside 'Model "
     "loading took 27.52 GiB'",
     "the V2 model runner's CUDA graph estimate (0.0114 x 44.39 GiB) and the memory it "
     "consumes beyond the weights (0.27 GiB)",
     "issue 21, vnew round (engine memory, not step time): vLLM 0.29.0+ "
     "V2_PIECEWISE_PER_GRAPH_LAYER_BYTES = 73,393 B and V2_NON_TORCH_TP1_BYTES = 129,465,876 B "
     "(calc/deploy/engines/vllm/rules.py), one constant each, the mechanisms from the 0.29.0-"
     "0.33.0 wheels (v1/worker/gpu/cudagraph_utils.py, sample/penalties.py)"),
    ("ROCm/triton issue #970 (afriedri, 2026-09-08), 'mxfp4 MoE decode GEMM: two regressions "
     "on gfx942': the measured time of triton_kernels matmul_ogs (mxfp4 weights, e8m0 scales, "
     "bf16 activations) at gpt-oss's w13 shape E 32, K 3,072, N 6,144, top-4, M = 1 on MI300X: "
     "82.28 us (triton 3.6.0), 80.40 us (3.7.1, trackers off), 121.23 us (3.7.1 on), 134.55 us "
     "(3.8.0); the 32x256x128 tile config",
     "40,108,032 B in 82.28 us on 96 workgroups = 5.08 GB/s a workgroup; one a CU on all 304 "
     "CUs 1.544 TB/s = 0.59 of MI300X's memory band (0.52 of MI325X's), two a CU (64 KB of LDS "
     "over 25,600 B) above the band",
     "issue 20, mi300fp4 round: efficiency.weight_only_fp4 on mi300x and mi325x, low 0.59 / "
     "0.52, high 1, expected the middle 0.795 / 0.76 (not fitted: the measured kernel's rate a "
     "workgroup spread over the CUs; the held-out gpt-oss MI300X rows played no part)"),
    ("aiconfigurator-core 0.12.0 wheel tables {h100_sxm,h200_sxm,b200_sxm}/moe/"
     "{sglang/0.5.14,trtllm/1.3.0rc20,vllm/0.24.0}/moe_perf.parquet (ai-dynamo/aiconfigurator, "
     "Apache-2.0): the fp8_block rows, balanced routing, default paths (vLLM on H100 / H200: the "
     "vllm_fp8moe_flashinfer_cutlass rows only)",
     "each engine's fused block-fp8 MoE layer by tokens, hidden, expert width, experts, top-k, "
     "MoE TP and EP",
     "issue 20, moefit round: moe_engine.{sglang,trtllm,vllm}.fp8_block of h100, h200, b200 "
     "(copied to h100-pcie, h20) refitted with the per-route term over every route the GPU "
     "holds (MoeCurve.routes: batch), by tools/fit_kernels.py --refit-engine-moe fp8_block"),
    ("aiconfigurator-core 0.12.0 wheel tables {h100_sxm,h200_sxm,b200_sxm,b300_sxm,gb200,gb300}/"
     "linear_attention/sglang/0.5.14/gdn_perf.parquet (ai-dynamo/aiconfigurator, Apache-2.0): "
     "the context rows of chunk_gated_delta_rule, 512-16,384 tokens a call (9,324 rows)",
     "SGLang 0.5.14's chunked gated delta rule (FLA's Triton pipeline) by batch, prompt length "
     "and the Qwen3.5 family's per-GPU key and value heads",
     "issue 20, gdnstep round: the chunked delta rule's measured prefill time, FIXED_S, CHUNK_S "
     "and TOKEN_HEAD_S of calc/formulas/delta_rule_time.py (bench/gdn_prefill_fit.py, pooled "
     "over the six GPUs; median |error| 10.9%)"),
    ("https://github.com/vllm-project/vllm/pull/27299 (closed; cyang49's comment of 2025-10-25, "
     "the 'default' table's Original column: RishiAstra's microbenchmark of the unfused SSD "
     "chain, tokens/s at 1,024-262,144 tokens, one H100)",
     "the reference Mamba-2 SSD prefill (_chunk_cumsum_fwd, _bmm_chunk_fwd, _chunk_state_fwd, "
     "_state_passing_fwd, _chunk_scan_fwd: vLLM's kernels of October 2025, as vLLM 0.16.0 runs "
     "them) at granite-4.0-h-small's shape (128 heads of 64, d_state 128, one group), one "
     "sequence",
     "issue 20, ssd round: TOKEN_HEAD_S of calc/formulas/ssd_time.py (bench/ssd_prefill_fit.py, "
     "the six rows of 8,192 tokens and more: within -9 ... +10%), the Mamba-2 prefill scan op's "
     "floor_s"),
    ("aiconfigurator 0.7.0 wheel on PyPI (ai-dynamo/aiconfigurator, Apache-2.0): "
     "aiconfigurator/systems/data/h200_sxm/vllm/0.12.0/gemm_perf.txt and "
     "h100_sxm/vllm/{0.12.0,0.14.0}/gemm_perf.txt, the fp8_block rows (7,560 a table)",
     "vLLM's block-fp8 RowParallelLinear (W8A8BlockFp8LinearOp: group quantisation, DeepGEMM "
     "fp8_gemm_nt) timed in CUDA graphs, six layers of distinct weights replayed, bf16 "
     "activations, VLLM_USE_DEEP_GEMM=1 (the collector at bec0beb8b / 5ef50c9b9)",
     "issue 20, vfp8 round: vLLM's own block-fp8 GEMM curve on H100 and H200 "
     "(kernels.gemm_engine.vllm.fp8_block, tools/fit_engine_gemm.py; H100 PCIe and H20 copy "
     "H100's)"),
    ("aiconfigurator-core 0.12.0 wheel table b200_sxm/moe/sglang/0.5.14/moe_perf.parquet "
     "(ai-dynamo/aiconfigurator, Apache-2.0): the balanced fp8_block rows of "
     "sglang_flashinfer_trtllm_moe (11,043; the 4,509 sglang_fused_moe_triton rows left out) and "
     "the balanced nvfp4 rows (11,502, all sglang_flashinfer_trtllm_moe), among them the "
     "Qwen3.5-397B shape the collectors appended on 2026-08-16 (4,096 / 1,024, 512 experts, "
     "top-10, TP 1-32 x EP 1-256)",
     "SGLang 0.5.14's FlashInfer trtllm-gen fused MoE layer by tokens, hidden, expert width, "
     "experts, top-k, MoE TP and EP",
     "issue 20, sgb200moe round: moe_engine.sglang.fp8_block of b200 refitted to the trtllm-gen "
     "rows alone and moe_engine.sglang.fp4 of b200 refitted with the per-route term over every "
     "route the GPU holds (tools/fit_kernels.py --refit-engine-moe fp8_block / fp4 --gpu "
     "b200_sxm --engine sglang)"),
    ("aiconfigurator-core 0.12.0 wheel table b200_sxm/moe/sglang/0.5.14/moe_perf.parquet "
     "(ai-dynamo/aiconfigurator, Apache-2.0): the 4,509 balanced fp8_block rows of "
     "sglang_fused_moe_triton (shapes 3,072 / 1,536 x 256 top-8, 4,096 / 2,048 x 256 top-6 and "
     "top-8, 4,096 / 14,336 x 8 top-2, 6,144 / 16,384 x 8 top-2, 7,168 / 3,072 x 384 top-6)",
     "SGLang 0.5.14's Triton fused MoE layer (fused_moe_triton) by tokens, hidden, expert width, "
     "experts, top-k, MoE TP and EP",
     "issue 20, sgrunner round: moe_runner.sglang.triton.fp8_block of b200, the curve of SGLang's "
     "Triton runner beside the trtllm-gen one (tools/fit_kernels.py --refit-engine-moe fp8_block "
     "--gpu b200_sxm --engine sglang --runner triton)"),
    ("aiconfigurator-core 0.12.0 wheel tables {gb200,b300_sxm,gb300}/moe/sglang/0.5.14/"
     "moe_perf.parquet (ai-dynamo/aiconfigurator, Apache-2.0): the balanced fp8_block rows of "
     "sglang_fused_moe_triton (GB200 6,777, B300 8,505, GB300 6,777; B200's six shapes)",
     "SGLang 0.5.14's Triton fused MoE layer (fused_moe_triton) by tokens, hidden, expert width, "
     "experts, top-k, MoE TP and EP on GB200, B300 and GB300",
     "issue 20, sgtriton round: moe_runner.sglang.triton.fp8_block of gb200, b300, gb300 "
     "(tools/fit_kernels.py --refit-engine-moe fp8_block --gpu gb200 --gpu b300_sxm --gpu gb300 "
     "--engine sglang --runner triton: median |error| 7.3 / 7.1 / 7.1%)"),
    ("aiconfigurator-core 0.12.0 wheel tables {gb200,b300_sxm,gb300}/moe/sglang/0.5.14/"
     "moe_perf.parquet (ai-dynamo/aiconfigurator, Apache-2.0): the balanced fp8_block rows of "
     "sglang_flashinfer_trtllm_moe (GB200 14,682, B300 19,676, GB300 14,767; the Triton rows "
     "left out) and the balanced nvfp4 rows (GB200 14,472, B300 18,711, GB300 15,012, all "
     "sglang_flashinfer_trtllm_moe)",
     "SGLang 0.5.14's FlashInfer trtllm-gen fused MoE layer by tokens, hidden, expert width, "
     "experts, top-k, MoE TP and EP on GB200, B300 and GB300",
     "issue 20, sgtrtgen round: moe_engine.sglang.fp8_block of gb200, b300, gb300 refitted to the "
     "trtllm-gen rows alone and moe_engine.sglang.fp4 of the same with the per-route term over "
     "every route the GPU holds (tools/fit_kernels.py --refit-engine-moe fp8_block / fp4 --gpu "
     "gb200 --gpu b300_sxm --gpu gb300 --engine sglang: median |error| 18.8 / 18.5 / 17.7% -> "
     "13.4 / 13.5 / 12.8% and 21.4 / 20.4 / 20.3% -> 15.3 / 14.7 / 15.0%)"),
    ("aiconfigurator-core 0.12.0 wheel tables {b200_sxm,b300_sxm,gb200,gb300}/moe/vllm/0.24.0/"
     "moe_perf.parquet (ai-dynamo/aiconfigurator, Apache-2.0): each GPU's 324 balanced "
     "vllm_modeloptfp8moe_flashinfer_cutlass_flashinferexperts rows (hidden 2,816, width 704, "
     "128 experts, top-8; MoE TP 1-32, EP 1-64; 1-16,384 tokens)",
     "vLLM's FlashInfer CUTLASS fused MoE with ModelOpt per-tensor fp8 weights on Blackwell",
     "issue 20, nemoload round: moe_engine.vllm.fp8_cutlass of b200, b300, gb200, gb300 "
     "(tools/fit_kernels.py --refit-engine-moe fp8_cutlass: median |error| 5.8-6.9%), the "
     "curve of vLLM 0.16.0's "
     "non-gated per-tensor fp8 experts (calc/deploy/engines/vllm/moe_backend.py BACKEND_CURVE; "
     "VLLM_NONGATED_CURVES in calc/deploy/moe_pipeline.py before the vllmmoerule round)"),
    ("ROCm/aiter aiter/configs/bf16_tuned_batched_gemm.csv and a8w8_tuned_batched_gemm.csv "
     "(mirror at e4048607a5, 2026-08-22; both last changed in ROCm/aiter #2645, 727253aef3): "
     "the gfx942 rows with 304 CUs (MI300X / MI325X) of AITER's CK batched GEMM tuner, the same "
     "(B 16, M, N 1,280 / 8,192, K 8,192 / 1,024) in bf16 and in a8w8 (int8, rowwise scales; "
     "csrc/ck_batched_gemm_a8w8/batched_gemm_a8w8_tune.py read for the input dtype)",
     "measured kernel times (us; the tuner's tflops column checked against 2 B M N K / t)",
     "issue 20, amdband round: r = bf16 time / 8-bit time at M >= 1,024 (1.340-1.975, median "
     "1.527) in bench/amd_bf16_gemm.py's rule bf16 = fp8 x 2 / r, which sets mi300x's bf16 "
     "matmul band from its fitted fp8 one (0.15 / 0.24 / 0.36) and mi325x's / mi355x's from "
     "theirs (no figure fitted to a serving row)"),
    ("aiconfigurator-core 0.12.0 wheel on PyPI (ai-dynamo/aiconfigurator, Apache-2.0): "
     "aiconfigurator_core/systems/data/<gpu>/gemm/sglang/<newest>/gemm_perf.parquet of a100_sxm "
     "(0.5.10, bfloat16), h100_sxm, h200_sxm, b200_sxm, b300_sxm, gb200, gb300, l40s and "
     "rtx_pro_6000_server (0.5.14): bfloat16 (sglang_torch_linear), fp8 "
     "(sglang_sgl_kernel_fp8_scaled_mm; not on sm100), fp8_block "
     "(sglang_deepgemm_gemm_nt_f8f8bf16, its group quantisation inside the timed op) and nvfp4 "
     "(sglang_flashinfer_cutedsl_nvfp4 on sm100, _cutlass_ on sm120), rows m <= 16,384",
     "SGLang's dense linears as it runs them, timed in CUDA graphs (the collector "
     "collector/sglang/collect_gemm.py at e23be5a79: up to six GEMMs of distinct weights "
     "replayed, latency / their count)",
     "issue 20, sggemm round: SGLang's own GEMM curves by dtype on every GPU with SGLang GEMM "
     "tables (kernels.gemm_engine.sglang, tools/fit_engine_gemm.py --wheel; the copying "
     "profiles copy them), fit_kernels.fit_gemm's form and rules (the pooled bf16 curve's "
     "stream fraction, each row range weighed alike); shipped only where it fits SGLang's rows "
     "better than the pooled curve (not B200 / GB200 bf16, B300 / GB300 fp8_block)"),
    ("aiconfigurator-core 0.12.0 wheel (PyPI): {b200_sxm,b300_sxm,gb200,gb300}/moe/sglang/"
     "0.5.14/moe_perf.parquet, the w4a8_mxfp4_mxfp8 sglang_flashinfer_trtllm_moe rows (B200 "
     "4,671, B300 7,884, GB200 and GB300 6,264); b200_sxm moe/vllm/0.24.0 and moe/trtllm/"
     "1.3.0rc20 gpt-oss rows (2880 x 2880, 128 experts, top 4) compared beside them",
     "FlashInfer's trtllm-gen MXFP4 MoE with MXFP8 activations (trtllm_fp4_block_scale_moe after "
     "mxfp8_quantize) as SGLang's collector times it; vLLM's table has no rows of it (its "
     "bf16-activation rows agree with SGLang's at gpt-oss-120b's layer: 3.242 against 3.240 ms "
     "at 8,192 tokens)",
     "issue 20, mxfp4big round: moe_runner.vllm.flashinfer_trtllm_mxfp4_mxfp8.mxfp4 of B200, "
     "B300, GB200, GB300 (tools/fit_kernels.py --refit-engine-moe mxfp4 --engine vllm --runner "
     "flashinfer_trtllm_mxfp4_mxfp8: MOE_RUNNER_ROWS taking SGLang's rows; each GPU's line the "
     "same as its SGLang engine curve); WAVE_SHARE chunked refitted 0.110 -> 0.122 on it"),
    ("SemiAnalysisAI/InferenceX (snapshot 843c6254f, 2026-08-21): benchmarks/"
     "gptoss_fp4_b200_docker.sh and _slurm.sh at every revision from 27f29acbe (2025-09-21) to "
     "b0c4ed21b (2026-01-22), benchmarks/single_node/gptoss_fp4_b200.sh at d2c2acb19 "
     "(InferenceX#789, 2026-02-25, image v0.13.0 -> v0.15.1) and 12ba0ae07 (2026-03-26), "
     ".github/configs/nvidia-master.yaml gptoss-fp4-b200-vllm (vllm/vllm-openai:v0.15.1; TP 1-8, "
     "c 4-128, 1k/1k, 1k/8k, 8k/1k); ai-dynamo/aiconfigurator@095f58a51 silicon_sample.csv "
     "silicon_data_source of the 84 gpt-oss B200 vLLM runs (74 measured 2026-02-25 on "
     "v0.15.1, 10 on 2025-11-02 with no image)",
     "the settings InferenceX's gpt-oss B200 vLLM scripts set: VLLM_USE_FLASHINFER_MOE_MXFP4_"
     "MXFP8=1 from InferenceX#48 (5e92867f4, 2025-09-24) on; kv-cache-dtype fp8 from "
     "25506e87c (2025-12-05); max-num-batched-tokens 8192, max-num-seqs 512, no prefix caching, "
     "max-cudagraph-capture-size 2048 throughout",
     "issue 20, mxfp4big round: the MoE backend of those runs (tools/silicon_moe_backend_rows.py "
     "gptoss_vllm_rows -> docs/validation/aiconfigurator_silicon_moe_backend.csv, 84 rows); "
     "their fp8 KV cache and 8,192-token budget not stated on the rows (what-if only)"),
    ("aiconfigurator-core 0.12.0 wheel (PyPI): {h100_sxm,h200_sxm}/moe/vllm/0.24.0/"
     "moe_perf.parquet, the w4a16_mxfp4 vllm_compressedtensorsw4a4mxfp4moe_marlin_marlinexperts "
     "rows (972 each, 324 balanced fitted; one shape: 3584 x 3072, 896 experts, top 16, MoE TP "
     "1-128 / EP 2-16), beside the same tables' gpt-oss Triton rows (2880 x 2880, 32 and 128 "
     "experts, top 4)",
     "vLLM's Marlin MXFP4 MoE (MarlinExperts, moe_wna16_marlin_gemm on fp4 e2m1 weights with "
     "e8m0 group-32 scales, bf16 activations), the kernel gpt-oss's method runs with "
     "VLLM_MXFP4_USE_MARLIN=1",
     "issue 20, marlinfp4 round: moe_runner.vllm.marlin.mxfp4 of H100 (compute 0.211 of the "
     "bf16 peak, median |error| 17.3%) and H200 (0.2004, 15.1%) by tools/fit_kernels.py "
     "--refit-engine-moe mxfp4 --engine vllm --runner marlin (MOE_RUNNER_ROWS, runner_frame "
     "keeping the MXFP4_OFF_PATH rows for this runner alone); WAVE_SHARE chunked refitted "
     "0.122 -> 0.089 on it"),
    ("SemiAnalysisAI/InferenceX (snapshot 843c6254f): 4e52ed4c6 (InferenceX#327, merged "
     "2026-01-02: 'Add VLLM_MXFP4_USE_MARLIN=1 to H100 and H200 benchmark scripts', "
     "benchmarks/gptoss_fp4_h100_docker.sh, _h100_slurm.sh, _h200_slurm.sh), git log -S of the "
     "variable over benchmarks/ (no removal before 2026-05-01), 626932a11 "
     "single_node/gptoss_fp4_h100.sh l. 35 and _h200.sh l. 52 (2026-03-27), f267602ff "
     "single_node/gptoss_fp4_h100.sh l. 28 (2026-03-01, InferenceX#828's server); "
     "ai-dynamo/aiconfigurator@095f58a51 silicon_sample.csv silicon_data_source of the gpt-oss "
     "H100/H200 vLLM runs (2025-11-02 to 2025-12-08: no image or v0.11.2; 2026-03-27: v0.18.0)",
     "which InferenceX gpt-oss Hopper runs set Marlin: those measured from #327 on (H100 58, "
     "H200 66 of kvcalc's rows); InferenceX#828's H100 rows' server sets it too",
     "issue 20, marlinfp4 round: tools/silicon_moe_backend_rows.py GPTOSS_BACKENDS -> "
     "docs/validation/aiconfigurator_silicon_moe_backend.csv (124 marlin rows); "
     "docs/validation/published_runs_2026.yaml ix828 rows moe_backend: marlin (a setting read "
     "from the server script, not fitted)"),
    ("ai-dynamo/aiconfigurator@095f58a51 aic-core/src/aiconfigurator_core/systems/"
     "silicon_sample.csv (agg; docs/validation/aiconfigurator_silicon_agg.csv), the SGLang rows "
     "of its training half; sglang 0.5.16 wheel srt/managers/scheduler.py (event_loop_overlap: "
     "run_batch, then process_batch_result of the batch before, while the GPU computes)",
     "SGLang's scheduler loop per running sequence on an x86 host, overlapped with the GPU's "
     "step: 40 us (bench/validation_serving.py --fit: fit_loop, a grid of 1 us, every other "
     "constant as shipped; the same fit gives vLLM 0)",
     "issue 20, bigbatch round: calc.deploy.host_costs.SGLANG_LOOP_SEQUENCE_S (the SGLang wing's "
     "host_loop_sequence from 0.4.1), a step max(GPU, loop x sequences x the host CPU's factor) + "
     "the serial host time; one constant"),
    ("aiconfigurator-core 0.12.0 wheel tables {b200_sxm,gb200,b300_sxm,gb300}/moe/trtllm/"
     "1.3.0rc20/ and 1.3.0rc23/moe_perf.parquet (ai-dynamo/aiconfigurator, Apache-2.0): the "
     "balanced w4a8_mxfp4_mxfp8 rows of each layer shape from the newest table that measured "
     "it: gpt-oss-120b's (hidden 2,880, width 2,880, 128 experts, top-4) and gpt-oss-20b's (32 "
     "experts) from 1.3.0rc20, the two 256- and 384-expert top-6 shapes from 1.3.0rc23 (B200 "
     "1,782 rows, GB200 2,025, B300 / GB300 2,079)",
     "TensorRT-LLM's W4A8 MXFP4 fused MoE layer (moe_torch_flow) by tokens, shape, MoE TP and EP",
     "issue 20, trtbigmoe round: moe_engine.trtllm.mxfp4 of b200, gb200, b300, gb300 refitted on "
     "the newest table of each format and layer shape (tools/fit_kernels.py --refit-engine-moe "
     "mxfp4 --engine trtllm --per-shape; the shipped lines were fitted to 1.3.0rc23 alone, which "
     "measured neither gpt-oss shape: median |error| on the same rows 26.9 / 22.4 / 24.0 / 22.3% "
     "-> 26.1 / 21.6 / 23.9 / 21.2%)"),
    ("SemiAnalysisAI/InferenceX benchmarks/dsr1_fp4_b200_trt_slurm.sh at ec90f3fe7 (2025-09-18), "
     "35bc387ff, 683aba7ea, 488315000, 1ada0dcbc, 8f665ddad, 69844b2ea (2025-10-29) and "
     "17d5e204f (2025-11-03), .github/configs/nvidia-master.yaml dsr1-fp4-b200-trt at 69844b2ea; "
     "benchmarks/dsr1_fp4_b200_trt.sh at 6eecc0e66 (#620, 2026-02-03); aiconfigurator's "
     "silicon_sample.csv (095f58a51) silicon_data_source and layout columns of the B200 NVFP4 "
     "DeepSeek runs measured 2025-11-02 (the 2026-04-06 export and their db-dump/2026-04-27 "
     "twins, same TPOT)",
     "the expert parallelism, attention DP and moe_config.backend the script ran by TP, lengths "
     "and concurrency (EP = TP above 8-32 requests; attention DP and CUTLASS at 256, or above 32 "
     "at 8k/1k; TRTLLM otherwise), the same at every revision from 2025-09-18 to 2025-11-03, "
     "where the records state MoE EP 1 and no attention DP",
     "issue 20, trtbigmoe round: tools/silicon_layout_rows.py -> docs/validation/"
     "aiconfigurator_silicon_layout.csv (39 runs; bench/validation_serving.py LAYOUT_ROWS; a "
     "layout read from the script, not fitted)"),
    ("aiconfigurator-core 0.12.0 wheel: systems/data/{h100_sxm,h200_sxm,b200_sxm,b300_sxm,gb200,"
     "gb300}/comm/trtllm/1.3.0rc20/custom_allreduce_perf.parquet, kernel_source TRTLLM rows (2, 4, "
     "8 GPUs; GB200 / GB300 2 and 4), the messages TensorRT-LLM's AUTO gives its own kernels "
     "(up to 16,000,000 B at 2 GPUs, 8,000,000 B at 4 and 8)",
     "TensorRT-LLM's AllReduce at AllReduceStrategy.AUTO, fusion NONE, bf16 [tokens, 4096], "
     "replayed in one CUDA graph between dummy GEMMs (the compute-only graph subtracted)",
     "issue 20, trtallreduce round: allreduce_engine.trtllm of h100, h200, b200, b300, gb200, "
     "gb300 (tools/fit_kernels.py --refit-allreduce-engine: two segments split at 1 MiB, the "
     "larger's latency no lower than the smaller's; median |error| 1.3-5.4% by GPU count); "
     "times TensorRT-LLM's AUTO one-shot/two-shot stage (rules.allreduce_curve)"),
    ("SemiAnalysisAI/InferenceX benchmarks/dsr1_fp8_b200_trt_slurm.sh, dsr1_fp8_h200_trt_slurm.sh, "
     "gptoss_fp4_h200_trt_slurm.sh and dsr1_fp4_b200_docker.sh at e06929c70 (main, 2025-11-01, "
     "the revision by the runs' date; their layout lines unchanged since ec90f3fe7 / 11c2dbe12 / "
     "ffe0b55a7, 9596d23d7 of 2025-10-29 touched only the error scan), .github/workflows/"
     "dsr1-tmpl.yml there (lmsysorg/sglang:v0.5.3rc1-cu129-b200); the sglang 0.5.3rc0 wheel's "
     "srt/server_args.py (ServerArgs.__post_init__: enable_ep_moe sets ep_size = tp_size); "
     "aiconfigurator's silicon_sample.csv (095f58a51) rows of those runs measured 2025-11-02 "
     "(the 2026-04-06 export and the db-dump/2026-04-27 twins)",
     "the expert parallelism, attention DP and moe_config.backend each script ran: TensorRT-LLM "
     "fp8 DeepSeek-R1 EP = TP always (B200 DEEPGEMM, attention DP above 32 requests at 1k/1k, "
     "64 otherwise; H200 CUTLASS, attention DP above 64, 32 at 8k/1k), gpt-oss on H200 "
     "--ep_size=$TP with the TRITON MoE and no attention DP, SGLang B200 NVFP4 DeepSeek-R1 "
     "--enable-ep-moe (EP = TP 8), where the records state MoE EP 1 and no attention DP",
     "issue 20, layoutrows round: tools/silicon_layout_rows.py -> docs/validation/"
     "aiconfigurator_silicon_layout.csv (39 -> 124 runs: + B200 fp8 DeepSeek 4, H200 fp8 30, "
     "H200 gpt-oss 45, SGLang 6; a layout read from the scripts, not fitted; the prefill-first "
     "wave share refits 0.271 -> 0.272)"),
    ("aiconfigurator-core 0.12.0 wheel tables {h100_sxm,h200_sxm}/moe/sglang/0.5.10/ and "
     "0.5.14/moe_perf.parquet (ai-dynamo/aiconfigurator, Apache-2.0): the balanced bfloat16 "
     "(sglang_fused_moe_triton) and int4_wo (sglang_marlin_moe) rows of each layer shape from "
     "the newest table that measured it (0.5.14's shapes, and 0.5.10's five bf16 and nine int4 "
     "shapes 0.5.14 did not measure: 20,304 bf16 and 5,805 int4 rows on each GPU)",
     "SGLang's bf16 Triton fused MoE and its int4 weight-only Marlin MoE layer by tokens, shape, "
     "MoE TP and EP",
     "issue 20, pershape round: moe_engine.sglang.bf16 and .int4 of h100 and h200 (and the h100 "
     "copies h100-pcie, h20) refitted with tools/fit_kernels.py --refit-engine-moe KEY --engine "
     "sglang --per-shape --write (shipped where the refit's median |error| on those rows is "
     "below the shipped line's by more than 0.001: bf16 24.4 / 27.0% -> 23.9 / 26.4%, int4 "
     "39.9 / 41.9% -> 32.3 / 35.9%); the older table at the shapes both measured: median "
     "0.5.10 / 0.5.14 time 1.01 / 1.02 (bf16), 1.10 / 1.21 (int4), tools/moe_table_shapes.py"),
    ("SemiAnalysisAI/InferenceX (snapshot 843c6254f) benchmarks/dsr1_fp4_b200_trt_slurm.sh, "
     "dsr1_fp8_b200_trt_slurm.sh, dsr1_fp8_h200_trt_slurm.sh at ec90f3fe7 (2025-09-18), "
     "e06929c70 and 156fef3fc, their _mtp_slurm.sh twins at bf3456727 (2026-01-15), "
     "dsr1_*_trt.sh / _trt_mtp.sh at b0c4ed21b (2026-01-22), ec7bafaae (#594) and 6eecc0e66 "
     "(#620, 2026-02-03); gptoss_fp4_b200_trt_slurm.sh at 28e5a01ea (2025-09-19) and "
     "e06929c70, gptoss_fp4_b200_trt_docker.sh at 156fef3fc, gptoss_fp4_b200_trt.sh at "
     "b0c4ed21b (git log -S enable_balance / -G timeout_iters over benchmarks/); "
     ".github/workflows/full-sweep-tmpl.yml and benchmark-tmpl.yml (random-range-ratio 0.8)",
     "the attention_dp_config each script appends when DP_ATTENTION is true (DeepSeek-R1: "
     "batching_wait_iters 0, enable_balance true, timeout_iters 60, unchanged at every revision; "
     "gpt-oss B200: enable_balance true alone), the client (--num-prompts 10 x CONC, "
     "--max-concurrency CONC, random-range-ratio 0.8)",
     "issue 20, adpbalance round: tools/silicon_adp_rows.py -> docs/validation/"
     "aiconfigurator_silicon_adp.csv (92 runs: DeepSeek-R1 B200 65, H200 15, gpt-oss B200 12), "
     "charged by calc.serve.admission.adp_balance_rounds_wait_s in bench/validation_serving.py "
     "(BENCH_ROUNDS, BENCH_RANGE_RATIO); the whole-request wave share refits 0.142 -> 0.132; "
     "nothing fitted to the rows"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/py_executor.py (a stored revision with "
     "_waiting_requests beside it: _balance_adp_requests, _schedule, "
     "_pad_attention_dp_dummy_request), pyexecutor/scheduler (newest stored revision: "
     "balance_adp_requests moved there, 'logic unchanged'), executor_request_queue.py "
     "_balance_requests_across_ranks and its caller (expected_num_active_requests), "
     "llmapi/llm_args.py AttentionDpConfig (enable_balance False, timeout_iters 50, "
     "batching_wait_iters 10; the >= 0 validator), pull 6061 (commit 3ff4f503ad, 2025-08-06; "
     "'Add ADP schedule balance optimization' in docs/source/release-notes.md under release "
     "1.0); vLLM-style benchmark_serving sample_random_requests (output lengths uniform over "
     "[range_ratio x output_len, output_len])",
     "when a context request is held (some rank has no context request or no free slot: every "
     "rank holds, a shared counter +1 an iteration, also with no context anywhere), when it goes "
     "(the counter reaching timeout_iters, some rank without a generation request, or every "
     "rank with a context and then batching_wait_iters more), where new requests land (the "
     "ranks below the even share of active requests, fewest active tokens first)",
     "issue 20, adpbalance round: calc.serve.admission adp_balance_wait_s and "
     "adp_balance_rounds_wait_s (checked against bench/adp_balance_replay.py, the rule replayed "
     "iteration by iteration: the round model within -23% ... +18% of its mean wait in 11 "
     "cases); nothing fitted"),
    ("tenstorrent/tt-inference-server issue #356 (DeepSeek-R1-0528: GPU Benchmarks), the report "
     "comment of 2025-07-17 (vLLM TP=16 and SGLang TP=16 on the same 16 H100: 128 / 128 tokens "
     "at concurrency 1, TTFT 55.6 and 179.7 ms, TPOT 25.9 and 23.1 ms) and the SGLang sweep of "
     "2025-07-09 (16 H100 over InfiniBand, concurrency 1: TTFT 179.7 / 391.7 / 190.5 / 200.4 / "
     "199.7 / 263.9 ms at 128 / 1,024 / 2,048 / 3,072 / 4,096 / 8,192 tokens); releases and "
     "CPU unstated in the excerpts read",
     "a same-host pair of one DeepSeek-R1 prompt pass replayed as piecewise CUDA graphs (vLLM V1) "
     "and issued eagerly (SGLang of mid-2025), and the eager floor flat in the prompt (max / min "
     "1.115 from 128 to 4,096 tokens, the 1,024 row of four requests left out)",
     "issue 20, moefloor round: calc.deploy.host_costs.EAGER_MLA_MOE_LAYER_SM90_S = (179.7 - "
     "55.6) ms / 61 = 2.03 ms a layer (a lower bound; 179.7 / 61 = 2.95 the upper), SGLang's "
     "eager DeepSeek-shaped layer on compute capability 9.x (the wing's eager_prefill_layer_s); "
     "derived from the pair, not fitted; the prefill-first wave share refits 0.272 -> 0.255; "
     "docs/validation/moe_eager_prefill.yaml, bench/moe_eager_floor.py"),
    ("SemiAnalysisAI/InferenceX (snapshot 843c6254f) benchmarks/dsr1_fp4_b200_trt_slurm.sh, "
     "dsr1_fp8_b200_trt_slurm.sh, dsr1_fp8_h200_trt_slurm.sh at ec90f3fe7 (2025-09-18), "
     "e06929c70 (2025-11-01) and 156fef3fc; 64af5a771 (2026-01-21 23:05 UTC, #258: the 8,192 "
     "floor); their _mtp_slurm.sh twins at bf3456727 (2026-01-15), dsr1_*_trt.sh / _trt_mtp.sh "
     "at b0c4ed21b, 5d517074c (#632), 6eecc0e66 (#620) and 0aae52d4c (#642); "
     "gptoss_fp4_b200_trt*.sh at 28e5a01ea, e06929c70, 156fef3fc and b0c4ed21b (git log -G "
     "MAX_NUM_TOKENS= over benchmarks/)",
     "the --max_num_tokens each script passes: DeepSeek-R1 (CONC + ISL + 64) rounded up to 64, "
     "at least 8,192 from 64af5a771; MTP ((MTP + 1) x MAX_BATCH_SIZE + ISL + 64) rounded up to "
     "64, MAX_BATCH_SIZE CONC / TP under attention DP (later CONC / 8 fp8, CONC / 4 NVFP4); "
     "gpt-oss 20,000; no enable_chunked_prefill in any of them",
     "issue 20, trttrickle round: tools/silicon_adp_rows.py's max_num_tokens column of "
     "docs/validation/aiconfigurator_silicon_adp.csv (92 runs: 1,152-1,344 for the 31 1k-prompt "
     "DeepSeek runs before the floor or under MTP), read by bench/validation_serving.py "
     "adp_prompts_per_iteration and _trickle_factor; the whole-request wave share refits 0.132 "
     "-> 0.120; nothing fitted to the rows"),
    ("NVIDIA/TensorRT-LLM cpp/tensorrt_llm/batch_manager/microBatchScheduler.cpp (stored "
     "revision 0a949d3128) MicroBatchScheduler::operator(); tensorrt_llm/_torch/pyexecutor/"
     "scheduler.py (stored revision 034fffb090: BindMicroBatchScheduler, PyMicroBatchScheduler, "
     "SimpleScheduler), py_executor.py (the stored revision with _waiting_requests: _schedule "
     "calls _balance_adp_requests on the micro-batch scheduler's context_requests); "
     "llmapi/llm_args.py (enable_chunked_prefill default False)",
     "with chunked prefill off a context request goes in whole only while the iteration's tokens "
     "(a generation request's beam width + its draft tokens, each prompt whole) stay within "
     "max_num_tokens, else the loop stops (break); each attention-DP rank runs its own "
     "scheduler and the balance all-gathers the counts it picked, so the prompts a release lets "
     "go are those that fit one iteration, the rest held to the next release",
     "issue 20, trttrickle round: bench/validation_serving.py adp_prompts_per_iteration "
     "(calc.reports.throughput.budget_prompts_per_chunk at M - n x draft tokens) and the replay's "
     "cap (bench/adp_balance_replay.py, now event by event, the same waits); nothing fitted"),
)


LOOKED_AT = (
    ("vllm 0.20.0 and 0.33.0 wheels (PyPI): envs.py, v1/worker/gpu_model_runner.py "
     "profile_cudagraph_memory, config/attention.py, v1/attention/backends/flash_attn.py, "
     "fa_utils.py, mla/flashattn_mla.py, model_executor/models/config.py; NVIDIA/TensorRT-LLM "
     "all-reduce workspace helpers (plugin.py, _torch/distributed/ops.py and search excerpts)",
     "vLLM's CUDA-graph estimate and its defaults per release; TensorRT-LLM's all-reduce "
     "workspace sizes: issue 21, seventh round: the vLLM estimate's form and its "
     "FlashAttention 3 first FULL capture (the capacity section lists every source); "
     "TensorRT-LLM's TP > 1 pre-load memory not changed (no log to check it)"),
    ("vllm 0.33.0 wheel: config/parallel.py (all2all_backend = \"allgather_reducescatter\"); "
     "sglang 0.5.23 wheel: srt/server_args.py (moe_a2a_backend), srt/layers/dp_attention.py "
     "(the DP-attention gather); NVIDIA/TensorRT-LLM _torch/modules/fused_moe "
     "(fused_moe_cutlass.py: allgather and reducescatter beside MnnvlMoe; "
     "disable_fp4_allgather)",
     "each engine's default expert-parallel traffic under attention data parallel "
     "(calc/deploy/moe_pipeline.py)"),
    ("aiconfigurator-core 0.12.0 wheel: sdk/operations/moe_comm.py and sdk/models/blocks/"
     "moe.py (the moe_a2a tables' backends, per-rank token counts, wire dtypes)",
     "what the a2a tables measure"),
    ("AMD ROCm performance results page in its English, French, Japanese and Chinese copies: "
     "the MI300X throughput table under rocm/vllm 0.9.0.1, 0.9.1, 0.10.1 and 0.11.1 (held out "
     "in the AMD section, bench/validation_amd.py RELEASES)",
     "MI300X TP8 vLLM throughput at max load, Llama 3.1 70B / 405B FP8, four more releases"),
    ("the same page's 0.11.1 copy (2025-11-03: 'MI355X/MI325X/MI300X' platforms named; only "
     "the MI300X tables seen); arXiv 2603.10031 (Georgiou, MI325X, vLLM 0.14.1, "
     "Llama-3.1-405B peak 15,944 tok/s, lengths not stated in the excerpt); docs.vultr.com "
     "inference-cookbook MI325X pages; mlcommons inference_results v5.1, v6.0, v6.1 "
     "summaries (MI300X, MI350X, MI355X llama2-70b, dataset-length workloads)",
     "AMD serving runs looked at in round 3, not used (no MI325X or MI355X run with stated "
     "lengths, concurrency and engine settings found)"),
    ("LMSYS blog 2026-06-26 'Improving DeepEP MoE Load Balance in SGLang with Waterfill and "
     "LPLB' (lmsys.org) and pages quoting the 2025-05-05 large-scale EP post",
     "EPLB on vs off: no per-GPU imbalance statistic with EPLB on found (throughput gains of "
     "0.8-7.3% from dispatch-time balancing beyond EPLB); not used"),
    ("SemiAnalysisAI/InferenceX@843c6254f experimental/token_position_decode_slo/{minimax-m2.5,"
     "qwen3.5,glm-5}/results/*.json and their serve/bench scripts (vLLM nightly, 8 x H200)",
     "not used: served with reasoning and tool-call parsers whose streamed reasoning the client "
     "does not count (median TTFT 4.6 s for a 1,024-token prompt at concurrency 4, TPOT up to 1.4 "
     "s), GLM-5 with MTP speculation"),
    ("SemiAnalysisAI/InferenceX git history (benchmarks/multi_node/results, removed 2026-05-04), "
     "SemiAnalysisAI/InferenceX-app (blog .mdx, supplemental-bmk.json: empty), "
     "ajith-sirra-amd/InferenceMAX_Rocm_Team results/*/agg_bmk.json, leoshan/inferencex-scraper "
     "and sskim-ai/InferenceX_analysis file lists",
     "not used: disaggregated multi-node runs, agentic multi-turn traces (prefix reuse), the "
     "InferenceX results database not in any repository"),
    ("ai-dynamo/aiconfigurator@095f58a51 collector/trtllm/collect_mla.py, its MLA tables' "
     "collection_meta.yaml, and the moe_perf tables' kernel_source columns",
     "what the MLA tables time (heads per GPU, the context in `step`) and which MoE kernel each "
     "engine's table holds (a newer TensorRT-LLM table with only non-gated kernels hid the older "
     "gated fp8 rows: fixed)"),
    ("vllm 0.33.0 wheel vllm/model_executor/layers/fused_moe/fused_moe.py get_default_config; "
     "sglang 0.5.23 wheel sglang/srt/server_args.py",
     "the Triton fused MoE's BLOCK_SIZE_M by tokens (16 to 128); SGLang's CUDA-graph batch "
     "defaults: looked at, not modelled"),
    ("ai-dynamo/aiconfigurator bench_run.sh.j2 (aiperf synthetic prompts, 20 x concurrency "
     "requests)", "the silicon sample's client"),
    ("docs.vultr.com inference-cookbook: rocm/benchmarks/multi-run-statistical-analysis and "
     "benchmark-methodology (8 x MI325X), cuda/benchmarks/methodology and results-overview, "
     "cuda/model-guides/minimax-m25 (8 x B200, vLLM 0.12/0.16, 2,048 / 512 random)",
     "not used: peak throughput per model without the per-concurrency table in the copy read; "
     "whether 'tok/s' counts input tokens is not stated"),
    ("lambda.ai/inference-models/minimaxai/minimax-m2.5; inferencex.semianalysis.com/blog/"
     "b200-minimax-m2-5-vllm-nvfp4-vs-h100-fp8-perf-per-dollar; InferenceX-app pull requests "
     "#387 and #454 (mirrors)",
     "not used: one concurrency per GPU, or throughput interpolated at a target interactivity"),
    ("rocm.blogs.amd.com/artificial-intelligence/scaling-ai-inference (MI355X vs B200, vLLM); "
     "amd.com technical articles 'InferenceMAX: Benchmarking Progress in Real Time' and 'AMD "
     "Instinct MI355X GPU Sets a New Bar for DeepSeek Inference'; arXiv 2603.10031 (MI325X, vLLM "
     "0.14.1) and its summaries (theneuralfeed, ai-navigate-news, sciencestack)",
     "not used: charts and peak figures, no per-run table in the copies read"),
    ("MLPerf Inference v5.1 rows of docs/validation/cross_vendor_runs.yaml; MLPerf v6.0 press "
     "(storagereview.com, pubgpclite.com, thetechdata.com, thedailyscout.com); mlcommons/inference "
     "language/llama2-70b README, docs.mlcommons.org get-llama2-70b-data, ctuning/MLPerf-OpenOrca "
     "dataset card",
     "not used: the OpenOrca subset's input lengths are not stated in what was read"),
    ("techcommunity.microsoft.com 'Performance of Llama 3.1 8B AI Inference using vLLM on "
     "ND-H100-v5'; ssaketh-ch/llama31b-benchmark; docs.nvidia.com NIM optimization; "
     "drpranayjha.com vmware private AI benchmarking; wbing520/ai-performance-engineering; "
     "git.aiot.ml TensorRT-LLM perf-overview.html (0.20.0rc2)",
     "search results looked at, not used"),
("ai-dynamo/aiconfigurator@095f58a51 collector/vllm/collect_moe.py, collect_gemm.py, "
     "collect_attn.py, collector/helper.py, collector/network/collect_nccl.py, "
     "collect_all_reduce.py", "what each table times (CUDA-graph replay, quantisation inside "
     "fp8/nvfp4 GEMMs, the whole fused MoE layer, message sizes in elements)"),
    ("ai-dynamo/aiconfigurator@095f58a51 aic-core/.../backends/vllm_backend.py, "
     "src/aiconfigurator/generator/config/backend_templates/benchmark/bench_run.sh.j2, "
     "tools/accuracy_tracking/silicon_refs.csv",
     "aiconfigurator's own prefill dispatch overhead and TTFT queueing; its benchmark's "
     "request count (20 × concurrency) and warm-up"),
    ("vllm 0.33.0 wheel: model_executor/layers/fused_moe/fused_moe.py, config/scheduler.py, "
     "config/vllm.py", "the MoE pipeline's kernels; async scheduling on by default"),
    ("NVIDIA TensorRT-LLM tech blogs 4 and 8: Scaling Expert Parallelism in TensorRT-LLM, parts "
     "1 and 2 (nvidia.github.io/TensorRT-LLM/blogs/tech_blog/)",
     "the CUTLASS MoE pipeline's kernels (expand, activation, finalize)"),
    ("vLLM blog 2024-09-05 'vLLM v0.6.0: 2.7x Throughput Improvement' (blog.vllm.ai)",
     "CPU overhead shares of v0.5.3 (API server 33%, scheduling 29%): an older engine, not used"),
    ("vllm-project/vllm issues #6913 and PRs #7049, #8050, #9826, #26796; tenstorrent/vllm "
     "PRs #337, #341, #346 and issue #339", "output-processing and async-scheduling timings: "
     "not used"),
    ("deepseek-ai/EPLB README; TensorRT-LLM examples/ep_load_balancer/README.md; "
     "docs.nvidia.com/dynamo SGLang EPLB page; impala-blog.pages.dev/widgets/eplb; "
     "devcheolu.com SGLang EP article; deepwiki lm-sys large-scale EP page",
     "EPLB background: no statistic used beyond LMSYS's"),
    ("mlcommons/inference_results_v6.0 summary (MI355X llama2-70b) and gfursin/OpenMLPerf",
     "looked at, not used (dataset-length workloads)"),
    ("rocm.docs.amd.com vLLM inference performance testing pages; rocm.blogs.amd.com LLM "
     "inference best practices; docs.vultr.com MI325X inference cookbook; substratus.ai 405B on "
     "MI300X; herdora.com MI300X; chinmayhebbal.com vLLM on MI300X; evokernel Llama 4 Scout "
     "MI300X case; dstackai/dstack MI300X blog posts; alpharomercoma/MI300X-vs-H200 REPORT.md "
     "(excerpt)", "AMD serving runs looked at, not used"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/bench/build/tuning.py (two stored versions: 04cba882, "
     "with BYTES_PER_ELEM, and an older one without it), bench/build/build.py@000a01de, "
     "bench/benchmark/utils/general.py@0171265e, and a newer bench tuning module "
     "(PytMaxThroughputScenario)",
     "trtllm-bench throughput's max_batch_size / max_num_tokens heuristic and chunked prefill "
     "off (issue 20, fourth round): bench_settings in bench/validation_throughput.py, the held-"
     "out section's last columns"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (CudaGraphConfig(StrictBaseModel), "
     "extra = 'forbid'; search excerpts)",
     "the perf-overview MoE options' nesting of enable_attention_dp: taken as top level"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py CudaGraphConfig (search excerpts of "
     "several versions: max_batch_size 0 -> 128, enable_padding False, "
     "_generate_cuda_graph_batch_sizes, graphs for decode-only batches, default_factory), "
     "bench/benchmark/utils/general.py@0171265e get_settings (cuda_graph_config padded up to "
     "max_batch_size), perf-overview.md@00f37686 llm_options.yml (batch_sizes up to 8,192)",
     "issue 20, sixth round: no decode step of the perf-overview rows is beyond the captured "
     "CUDA graphs (docs/step-time.md); TensorRT-LLM's decode-only graphs declared in its wing"),
    ("sglang 0.5.23 wheel: sglang/srt/arg_groups/parallel_hook.py (_handle_data_parallelism)",
     "chunked_prefill_size // attn_dp_size per attention-DP rank (Engine.rank_batched_tokens)"),
    ("the aiconfigurator-core 0.12.0 wheel's l40s moe tables of trtllm 1.0.0 and 1.3.0rc20 "
     "(the same shapes measured under both), and the h200_sxm, b200_sxm "
     "generation_attention_perf tables by GQA ratio and engine",
     "checks of round 4: TensorRT-LLM's bf16 MoE kernels did not change between 1.0 and 1.3 "
     "(median ratio 0.95-1.02); TensorRT-LLM's fp8 decode attention on H200 is 0.5-0.6 x the "
     "pooled curve at GQA 2-8; not fitted"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/model_config.py (ModelConfig: moe_backend "
     "'CUTLASS', enable_min_latency False, 'Currently only used for Llama4'; search index id "
     "36840864232) and aiconfigurator-core 0.12.0 sdk/operations/moe.py (the min-latency rows "
     "are its separate 'low-latency NVFP4' view)",
     "issue 20, fifth round: the fused-MoE fit keeps TensorRT-LLM's default CUTLASS rows and "
     "leaves out moe_torch_flow_min_latency (tools/fit_kernels.py moe_default_path)"),
    ("the aiconfigurator-core 0.12.0 wheel's b200_sxm moe (trtllm 1.3.0rc20, nvfp4; Qwen3-30B-"
     "A3B's and Llama 4 Scout's shapes), generation_attention (trtllm, 32/4 heads, fp8 KV) "
     "tables",
     "round 5's op-by-op comparison of the single-B200 MoE rows (docs/step-time.md); fitted "
     "as part of the kernel curves, nothing per record"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py (search "
     "excerpts of several versions, index ids 2436362266, 3628982806, 2550723763, 268157532: "
     "_get_padded_batch, _round_up_batch_size, pad_batch, _can_run_graph), "
     "_torch/pyexecutor/py_executor.py (_executor_loop_overlap, index id 1891464528), "
     "_torch/pyexecutor/model_engine.py (_filter_cuda_graph_batch_sizes, warmup's seq_len-1 "
     "dummy requests; index id 1034563403), "
     "llmapi/llm_args.py and _torch/pyexecutor/config.py (disable_overlap_scheduler default "
     "False, cuda_graph_padding_enabled)",
     "issue 20, seventh round: padded decode-only CUDA-graph replays in the steady-state "
     "throughput (serving_throughput graph_batch_sizes; no constant), the perf-overview "
     "page's graph list for its rows; eager steps holding a prompt found costless on these "
     "rows (overlap scheduler, launch below the step's GPU time), not modelled"),
    ("vllm 0.33.0 wheel: vllm/config/compilation.py (CUDAGraphMode FULL_AND_PIECEWISE, the "
     "V1 default: full graphs for decode batches, piecewise for prefill and mixed batches, "
     "attention outside the pieces) and vllm/config/vllm.py",
     "issue 20, seventh round: vLLM's graph declaration (no pass up to the capture size is "
     "eager) checked, unchanged"),
    ("sglang 0.5.23 wheel: sglang/srt/model_executor/cuda_graph_config.py "
     "(default_prefill_backend: breakable prefill graphs on CUDA), "
     "sglang/srt/arg_groups/cuda_graph_hook.py (apply_cuda_graph_compatibility: prefill "
     "graphs off by default under pipeline parallelism, for multimodal models, two-batch "
     "overlap, decode context parallel and unvalidated all-to-all backends)",
     "issue 20, seventh round: SGLang's decode-only declaration under pipeline parallelism"),
    ("mlcommons/inference_results_v5.1@965182b closed/AMD/results/8xMI325X_2xEPYC_9575F_2/"
     "llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt, open/AMD/results/"
     "8xMI355X_2xEPYC_9575F/llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt, "
     "their harness settings closed/AMD/code/llama2-70b-99/harness_llm/models/llama2-70b/"
     "offline_mi325x.yaml and open/AMD/code/llama2-70b-99/harness_llm/models/llama2-70b/"
     "offline_mi355x.yaml, closed/AMD/setup/dataset_and_model/processorca.py (inputs and "
     "outputs under 1,024 tokens); mlcommons/inference@b66003e language/llama2-70b/README.md "
     "(reference tokens per sample 294.45)",
     "issue 20, seventh round: MI325X FP8 and MI355X MXFP4 (W4A4) Offline runs held out: the "
     "GEMM rate their output tokens alone need, against the bands (the dataset's mean input "
     "length is in no file read: a lower bound); nothing fitted"),
    ("llama-2.ai/llama-2-in-mlperf-inference, mlcommons.org/?p=303, mlcommons.org/2025/04/"
     "llm-inference-v5 (search excerpts); SemiAnalysisAI/InferenceX@843c6254f "
     "benchmarks/single_node/fixed_seq_len/*mi325x*/*mi355x* scripts (settings, no results "
     "in the repository), SemiAnalysisAI/InferenceX-app packages/db/data, "
     "biannan79/inferencex-scraper (no data committed), ajith-sirra-amd/InferenceMAX_Rocm_Team "
     "file list",
     "issue 20, seventh round: looked for the OpenOrca set's mean input length and for "
     "MI325X / MI355X serving results with stated settings: not found there, not used"),
    ("ai-dynamo/aiconfigurator@095f58a51 collector/trtllm/collect_moe.py (run_moe_torch: "
     "create_moe, moe.forward(bf16 hidden states, router logits) timed under CUDA graphs, "
     "reduce_results False), aic-core/src/aiconfigurator_core/sdk/models/moe.py and "
     "sdk/models/blocks/moe.py (_default_moe_block_ops: router GEMM, pre-dispatch, MoE, "
     "post-dispatch), sdk/config.py (workload_distribution power_law by default)",
     "issue 20, eighth round: what aiconfigurator's TensorRT-LLM MoE table times and what its "
     "own op model adds per MoE layer; nothing fitted"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/models/modeling_qwen3_moe.py (Qwen3Gate: "
     "cublas_mm router; Qwen3MoE.forward: gate, then self.experts(hidden_states, "
     "router_logits, ...); Qwen3MoEDecoderLayer) and "
     "cpp/tensorrt_llm/batch_manager/microBatchScheduler.cpp (MicroBatchScheduler::operator(): "
     "each generation request charged beamWidth + draft tokens against maxNumTokens; a context "
     "request that does not fit ends the loop without chunking)",
     "issue 20, eighth round: the engine's MoE layer against the table's call (the same "
     "experts forward; only the router GEMM outside it, already charged) and the token budget "
     "modelled in calc/reports/throughput.py"),
    ("https://github.com/vllm-project/vllm/issues/40691, /issues/26300, /issues/40002, "
     "/issues/2136, /issues/14286, /pull/13596; https://github.com/kubernetes-sigs/"
     "gateway-api-inference-extension/pull/550 (issue-tracker search results for vLLM start-up "
     "logs, 2026-12-02: excerpts read, none predicted)",
     "issue 21, fourth round: where public start-up logs of vLLM 0.20-0.33 are"),
    ("https://github.com/vllm-project/vllm/issues/27679 (the async scheduling plan), /pull/19970 "
     "(async scheduling introduced, opt-in), /pull/31998 (on by default with speculative "
     "decoding, 2026-01-08), /pull/32775; https://github.com/vllm-project/vllm-gaudi/pull/768 "
     "(issue-tracker search excerpts)",
     "issue 23, sixth round: when async scheduling became vLLM's default (after 0.10.0, where "
     "it is off, and by 0.33.0; the release not pinned, nothing modelled depends on it)"),
    ("ai-dynamo/aiconfigurator src/aiconfigurator/generator/config/backend_templates/vllm/"
     "cli_args.0.12.0.j2 and run.sh.j2",
     "issue 23, sixth round: the vLLM 0.12.0 deployments aiconfigurator generates serve through "
     "Dynamo's front-end (`python3 -m dynamo.frontend`) and `dynamo.vllm` workers, with no "
     "--async-scheduling flag: the silicon sample is online serving, not an offline engine; "
     "nothing fitted"),
    ("aiconfigurator 0.2.0 and 0.4.0 wheels on PyPI: the same TensorRT-LLM 1.0.0rc3 / 1.0.0rc6 "
     "moe_perf.txt tables, and their 1.0 gemm_perf.txt and generation_attention_perf.txt (H100, "
     "H200, B200, GB200)",
     "issue 20, twelfth round: the 1.0 GEMM tables against 1.3.0rc20 (fp8 1.14-1.17x, bf16 "
     "1.0x on Hopper, nvfp4 1.01-1.05x on Blackwell): not applied, the dense fp8 rows of the "
     "v1.0 throughput table already come out slow"),
    ("aiconfigurator-core 0.12.0 wheel, used as an instrument in a separate venv: "
     "sdk/backends/base_backend.py run_static (static_gen, per-op breakdown) and run_agg, "
     "sdk/config.py ModelConfig.workload_distribution, sdk/models (Qwen3-235B-A22B-FP8, "
     "Qwen3-30B-A3B, Llama 4 Scout and Maverick, Llama 3.1 70B); its moe_perf.parquet "
     "balanced / power_law_1.01 / power_law_1.2 rows",
     "issue 20, twelfth round: one decode step op by op beside kvcalc's for 4 MoE rows and one "
     "dense row of the v1.0 throughput table (docs/step-time.md); nothing fitted"),
    ("ai-dynamo/aiconfigurator@095f58a51 collector/helper.py (sample_power_law, "
     "_generate_power_law_distribution: per-expert loads drawn from a power law between 1 and "
     "0.8 x tokens, the busiest EP rank measured)",
     "issue 20, twelfth round: what the power-law MoE rows assume (a synthetic skew, not a "
     "measured routing statistic); not used"),
    ("NVIDIA/TensorRT-LLM@00f37686 docs/source/performance/perf-overview.md, 'Reproducing "
     "Benchmarked Results' ($num_requests by ISL/OSL: 1000/1000 3,000 requests ...)",
     "issue 20, twelfth round: the page's dataset sizes; a finite run of them simulated moves "
     "the rows by under 4 points (not modelled)"),
    ("PyPI vllm wheels 0.10.0-0.33.0 (model_executor/models/config.py "
     "GptOssForCausalLMConfig; config/vllm.py _set_cudagraph_sizes; "
     "transformers_utils/model_arch_config_convertor.py and config/model.py is_mm_prefix_lm; "
     "v1/attention/backends/flash_attn.py supports_mm_prefix, supports_combination, "
     "_get_sliding_window_configs; fa_utils.py get_flash_attn_version; "
     "vllm_flash_attn/flash_attn_interface.py; platforms/cuda.py _get_backend_priorities)",
     "issue 21, eighth round: gpt-oss's capture ceiling (1,024 from 0.10.1, 992 in 0.11.0) and "
     "Gemma 3's TRITON_ATTN on Hopper (prefix LM by model_type from 0.13.0; FLASH_ATTN takes "
     "it only as FA4); source read, nothing fitted"),
    ("https://github.com/llm-d-incubation/llm-d-planner/blob/"
     "d3121e059da88662db39a926a3ead964be97359b/accuracy/results/v0.19.0/logs/ "
     "(openai-gpt-oss-20b tp2 and google-gemma-3-12b-it logs, already training records)",
     "issue 21, eighth round: their backend lines read ('Overriding max cuda graph capture size "
     "to 1024'; gpt-oss 'Using FLASH_ATTN ... FlashAttention version 3' with has_sink=True; "
     "Gemma 3 use_mm_prefix=True, 'Using TRITON_ATTN'), confirming the two rules; no new "
     "record"),
    ("code search 'flash_api.cpp s_aux num_splits sinks hopper vllm flash-attention' "
     "(2026-12-02)",
     "issue 21, eighth round: looking for FA3's split choice with sinks; nothing relevant "
     "found (the sink rule stays from the logs)"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/py_executor.py (search excerpts, "
     "several versions: _pad_attention_dp_dummy_request, _balance_adp_requests) and "
     "tensorrt_llm/llmapi/llm_args.py (AttentionDpConfig: enable_balance default False)",
     "issue 20, thirteenth round: under attention DP a rank with no active request runs a dummy "
     "generation request so every rank steps together; context requests are held back for "
     "balance only with attention_dp_config.enable_balance, off by default (not modelled: "
     "kvcalc's replica step already steps the ranks together)"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/executor_request_queue.py (search "
     "excerpts, several versions: _balance_requests_across_ranks)",
     "issue 20, thirteenth round: new requests spread over the attention-DP ranks by a heap on "
     "their active tokens, up to expected_num_active_requests each: equal-length requests "
     "land evenly, so the ranks admit and finish them in the same steps"),
    ("vLLM 0.33.0 wheel (PyPI): vllm/v1/worker/dp_utils.py coordinate_batch_across_dp, "
     "vllm/v1/worker/gpu_worker.py execute_dummy_batch",
     "issue 20, thirteenth round: data-parallel ranks pad their tokens to the largest rank's "
     "when CUDA graphs are on and idle ranks run dummy batches (no change for equal ranks)"),
    ("SGLang 0.5.23 wheel (PyPI): sglang/srt/managers/scheduler_components/dp_attn.py "
     "(get_idle_batch), sglang/srt/layers/dp_attention.py (DpPaddingMode)",
     "issue 20, thirteenth round: a DP-attention rank with no work runs an idle batch while any "
     "rank has tokens; decode gathers pad to the largest rank, prefill gathers to the sum "
     "(no change for equal ranks)"),
    ("aiconfigurator 0.7.0 wheel (PyPI): aiconfigurator/systems/data/{b200_sxm,gb200_sxm}/"
     "trtllm/1.0.0rc6/moe_perf.txt",
     "issue 20, thirteenth round: no Qwen3-30B-A3B shape (hidden 2,048, experts of 768) in "
     "TensorRT-LLM 1.0's MoE tables; the round-12 release factor stands for it"),
    ("sglang 0.4.0 wheel on PyPI: srt/managers/scheduler.py (event_loop_normal, "
     "event_loop_overlap, run_batch, process_batch_result_decode, stream_output), "
     "srt/managers/tp_worker_overlap_thread.py (forward_thread_func_, resolve_batch_result), "
     "srt/server_args.py (stream_interval 1, disable_overlap_schedule False), "
     "srt/distributed/device_communicators/custom_all_reduce.py (should_custom_ar: under "
     "8 MiB); sglang 0.5.23 wheel: srt/managers/scheduler_components/batch_result_processor.py "
     "process_batch_result_decode, output_streamer.py stream_output",
     "issue 23, seventh round: the scheduler's per-request loop and stream_output to the "
     "detokenizer run in the scheduler process behind every front-end, the next batch "
     "launched by a thread of the same process: SGLang 0.4.0's 0.10 ms per sequence moved to "
     "the engine core's term (calc/deploy/host_costs.py with_core; value unchanged, fitted "
     "earlier on the 70B runs); a model hiding it behind the GPU pass tried and not shipped; "
     "the all-reduce size limit named as a candidate for the 405B's slower large batches, "
     "not modelled"),
    ("datacrunch-research/h200-benchmarks@c091ef5 sglang/outputs/llama_3_3_70b_online_output"
     ".jsonl and llama_405b_online_output.jsonl, the ShareGPT runs at 4 and 8 requests/s",
     "issue 23, seventh round: a check of the per-sequence slope on other lengths (70B: ITL "
     "median 13.8 and 17.7 ms at 12.8 and 42.4 in flight, 0.13 ms a sequence, as the random "
     "runs' 0.132); not scored (no per-request lengths), nothing fitted"),
    ("https://github.com/sgl-project/sglang/pull/2067 ('Enable overlap by default', merged "
     "2024-11-18; issue-tracker search excerpt)",
     "issue 23, seventh round: when SGLang's overlap scheduler became the default (before "
     "0.4.0, whose source has it on; off then for the Triton backend, penalties and mixed "
     "chunked prefill; its author: the median TTFT rises because the first batch's result is "
     "processed after the next batch is launched, the batch ahead kvcalc models); nothing "
     "fitted"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py, three "
     "stored revisions (000a01de and a later 1.0-era one with the MXFP4 paths: forward_chunk; "
     "a 1.2-era one with quantize_input and the NVLink one-sided all-to-all), and "
     "tensorrt_llm/_torch/distributed/ops.py (0071496d: allgather, NCCL all-gather or a group "
     "of broadcasts when the ranks' sizes differ)",
     "issue 20, round 14: what the CUTLASS MoE all-gathers under attention DP: per-tensor fp8 "
     "quantised before the gather (1 B an element, no per-token scale), NVFP4 with its scales, "
     "fp8-block128 and W4A16 MXFP4 as the 16-bit hidden states (quantised in the fused op), "
     "beside each token its top-k int32 expert ids and fp32 weights; the output "
     "reduce-scattered in the hidden states' 16-bit dtype; with use_dp_padding every rank's "
     "rows padded to the largest's (calc/deploy/moe_pipeline.py TRTLLM_GATHER_BYTES); nothing "
     "fitted"),
    ("NVIDIA/TensorRT-LLM model files' MoE layers (compute_routed_output / forward; search "
     "excerpts of several stored revisions, Qwen3-MoE / Llama-style layers and DeepSeek-V3's)",
     "issue 20, round 14: use_dp_padding set only on SM120 for the Qwen3-MoE / Llama-style "
     "layers, for DeepSeek-V3 when the experts are not CUTLASS or hold NVFP4 (always in an "
     "older revision); with the TRTLLM-gen backend the layer all-gathers bf16 hidden states "
     "before the router; not modelled (the CUTLASS default is)"),
    ("sglang 0.4.0 wheel on PyPI: srt/managers/schedule_policy.py (PrefillAdder: add_one_req, "
     "add_one_req_ignore_eos, budget_state), srt/managers/scheduler.py (get_new_batch_prefill, "
     "update_running_batch, the ChunkCache under --disable-radix-cache), "
     "srt/managers/schedule_batch.py (check_decode_mem, retract_decode), global_config.py, "
     "bench_serving.py (ignore_eos unless --disable-ignore-eos); sglang 0.5.23 wheel: "
     "srt/managers/schedule_policy.py add_one_req_ignore_eos (IGNORE_EOS_RESERVE_TOKENS 1), "
     "srt/mem_cache/prefill_budget.py can_allocate_prefill, schedule_batch.py retract_decode; "
     "datacrunch-research/h200-benchmarks@c091ef5 sglang/experiments/llama_3_3_70b_sglang.sh "
     "and llama_405b_sglang.sh (the launch commands: --disable-radix-cache)",
     "issue 23, eighth round: a server without its radix cache admits ignore_eos requests by "
     "add_one_req_ignore_eos (every running request able to finish in the pool as the shorter "
     "ones free theirs; 0.4.0: each horizon the next request's tokens left; 0.5.23: its own, "
     "1 token kept a request, the prompt gated first): modelled (calc/serve/policies.py "
     "PrefillFirst.fits_to_finish, the engine wing's FutureTokens), the SGLang runs replayed "
     "with it; new_token_ratio (0.7, floor 0.098, 600 decode batches) and retraction were "
     "modelled already; 0.4.0's retraction goal (20 free tokens per remaining request; 0.5.23: "
     "the step's tokens) modelled per release (no simulated run here retracts); nothing "
     "fitted"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/modules/fused_moe/create_moe.py (get_moe_cls, "
     "search excerpts of four stored revisions: 1.0-era to 1.2-era) and "
     "fused_moe_cutlass.py / fused_moe_deepgemm.py (_get_quant_method, excerpts of two "
     "revisions), tensorrt_llm/llmapi/llm_args.py (MoeConfig.backend, two revisions)",
     "issue 20, round 15: MoeConfig.backend defaults to CUTLASS; the MoE class follows it "
     "(CUTLASS, VANILLA, CUTEDSL, "
     "DEEPGEMM, TRTLLM, ...); the CUTLASS MoE with fp8 block scales takes "
     "DeepSeekFP8BlockScalesFusedMoEMethodDeepGemm on SM100 (get_sm_version() == 100, later "
     "is_sm_100f()) and the CUTLASS block-scale method elsewhere; nothing fitted"),
    ("ai-dynamo/aiconfigurator aiconfigurator-core 0.12.0 wheel: "
     "systems/data/b200_sxm/moe/trtllm/1.3.0rc20/moe_perf.parquet and "
     "h200_sxm/moe/trtllm/1.3.0rc20/moe_perf.parquet, the fp8_block rows of DeepSeek-R1's "
     "shape (256 experts, 7,168 hidden, 2,048 per expert, top-8)",
     "issue 20, round 15: on B200 every fp8_block row is kernel_source 'deepgemm' (38,799 "
     "rows), on H200 'moe_torch_flow_cutlass'; kvcalc's TensorRT-LLM fp8_block curve beside "
     "them (tools/moe_fp8_block_b200.py): B200 MoE EP8 -22% to +14% at 1-16,384 tokens, "
     "+1% to +14% at 64-1,024; already fitted to these rows (their balanced third), not refitted"),
    ("aiconfigurator-core 0.12.0 wheel: systems/data/{h100_sxm,h200_sxm,b200_sxm,gb200}/moe/"
     "trtllm/1.3.0rc20/moe_perf.parquet (balanced and power_law_1.01 rows) and aiconfigurator "
     "0.7.0 wheel: systems/data/{h100_sxm,h200_sxm,b200_sxm,gb200_sxm}/trtllm/1.0.0rc3|1.0.0rc6/"
     "moe_perf.txt, the MoE layers of the page's MoE models",
     "issue 20, round 16 (tools/moe_large_batch.py): kvcalc's TensorRT-LLM fused-MoE curve at "
     "the held-out page's decode token counts (512-16,384 tokens a layer) is -7% to +7% of the "
     "measured balanced rows on the fp8 EP groups, -12% to -21% on Maverick B200 and "
     "Qwen3-30B-A3B NVFP4; the 1.0 / 1.3 ratio at those counts 1.15-1.21 (shipped 1.19); "
     "H200's Llama 4 Scout rows (16 experts, EP4, fp8) are 4-5x H100's and not monotonic in "
     "the tokens; nothing refitted"),
    ("aiconfigurator 0.7.0 wheel (PyPI): its SDK (sdk/backends/trtllm_backend.py run_agg and "
     "run_static, sdk/perf_database.py, sdk/config.py) run from the unpacked wheel on its "
     "TensorRT-LLM 1.0.0rc3 (H100, H200) and 1.0.0rc6 (B200) tables",
     "issue 20, round 16 (tools/moe_aic_release.py): aiconfigurator's own estimate of the "
     "page's Qwen3-235B-A22B rows at the page's release, power-law routing (the only routing "
     "those tables hold): signed median -2.8% H200, +15.9% H100, +29.5% B200 NVFP4 (kvcalc "
     "+41.7%, +38.4%, +23.5%); on the H200 1000/1000 row its MoE layer is 45.0 ms a step "
     "against kvcalc's 27.6 ms; an instrument, nothing fitted"),
    ("NVIDIA/TensorRT-LLM examples/wide_ep/README.md and examples/ep_load_balancer/README.md "
     "(moe_config.load_balancer default None; offline statistics collection), "
     "docs/source/blogs/tech_blog/blog4_Scaling_Expert_Parallelism_in_TensorRT-LLM.md "
     "(DeepSeek-R1 on 32 GB200: per-rank and per-expert token counts, shown as figures only)",
     "issue 20, round 16: without a load balancer each rank keeps a fixed block of experts; "
     "the blog's imbalance is stated in figures, no statistic taken; nothing modelled"),
    ("expert-imbalance threads (issue excerpts): HYGON-AI/vllm-plugin-das#69 (DP8/EP8 "
     "balancedness 0.6038), ROCm/ATOM#1210 (DeepSeek-V4-Pro EP8 MI355X random 8,192-token "
     "prefill: no EPLB 6.48 req/s, EPLB rearranged 7.56, 64 redundant naive 8.06 / biased "
     "8.68), ModelTC/LightLLM#961 and #962 (EP8 forced balance: prefill +35%, decode +15% "
     "throughput), ROCm/ATOM#1755 and #2073 (forced balanced router logits), "
     "sgl-project/sglang#25571 (random gate weights of dummy loads cause severe imbalance), "
     "#37741 and #6739, vllm-project/vllm#50151 (DeepSeek-V3 balanced routing on ROCm) and "
     "#57100 (zipf expert loads in benchmark_moe.py), deepseek-ai/DeepEP#393 (per-rank token "
     "counts on MMLU-Pro, log-normal), NVIDIA/Megatron-LM#7488 and #6757, "
     "flashinfer-ai/flashinfer#2678, fw-ai/benchmark#7 (repeated pad tokens route to the same "
     "experts), inference-sim/inference-sim#789, PrimeIntellect-ai/prime-rl#2368, "
     "pytorch/torchtitan#1670",
     "issue 20, round 16: what routing skew costs without EPLB (busiest rank 1.66x the mean "
     "at DP8/EP8 in one; EPLB +17-34% on random-token prefill in another), none of Qwen3 or "
     "Llama 4 on random-token prompts; the default imbalance 1.18 kept"),
    ("NVIDIA/TransformerEngine#2053 (High CPU overhead on Grace systems: PyTorch Linear "
     "forward CPU time 37.08 µs GB200, 33.17 µs GH200, 13.48 µs H100 DGX Xeon 8480C); "
     "search excerpts of NVIDIA/TensorRT-LLM#5929, #4043, #12651, #13561, "
     "vllm-project/vllm#18725 and #6317, intel/llm-scaler#143, sgl-project/sglang#2450",
     "issue 20, round 16: Grace's host time per PyTorch op 2.75x an x86 host's, a lead for "
     "GB200's slow single-GPU MoE rows; the x86 TensorRT-LLM per-request host figure it would "
     "scale is not measured; nothing modelled"),
    ("search excerpts shown beside those (round 16), unrelated to the step model: "
     "The-School-of-AI/LLM#7, meta-pytorch/torchtune#1902, pytorch/torchtitan#4275, "
     "anthony-chaudhary/fak#9388, stanford-futuredata/gavel#136, mullerhai/storch "
     "MOEConfig.scala, an unnamed repository's expert load balancer (Qingcheng.AI)",
     "nothing taken"),
    ("Hugging Face model cards of NVIDIA's ModelOpt releases, read through public mirrors: "
     "nvidia/DeepSeek-R1-FP4 (base_model deepseek-ai/DeepSeek-R1, nvidia-modelopt v0.23.0), "
     "nvidia/Llama-3.1-8B-Instruct-FP4 (base Llama-3.1-8B-Instruct), "
     "nvidia/Llama-3.1-405B-Instruct-FP8 (nvidia-modelopt v0.15.1), "
     "nvidia/Llama-3.1-405B-Instruct-FP4 (v0.23.0); nvidia/Llama-3.3-70B-Instruct-FP4 and "
     "nvidia/Llama-3.1-8B-Instruct-FP8 by their ids",
     "issue 21, launch commands (qa2): the fp8 entries added to calc/data/quantised_"
     "checkpoints.yaml (Llama 3.1 8B and 405B), which a quantised row's command now loads "
     "('only the weights and activations of the linear operators within transformer blocks "
     "are quantized'); DeepSeek-R1 nvfp4 stays nvidia/DeepSeek-R1-NVFP4, the checkpoint the "
     "timed B200 records ran; no figure taken"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py: the revision at commit "
     "fcd3f31682808ae56118ae43c1d7864a3a945e6f (pre-1.0: _ParallelConfig with auto_parallel) "
     "and four later revisions found by text search (index ids 1520735490, 7019226376, "
     "1090804222, 60194123896; their commits not named by the index); TensorRT-LLM's "
     "published API reference, CacheTransceiverConfig and KvCacheConfig pages (latest, "
     "1.3.0rc27, 1.4.0rc1, 1.4.0rc4) and PR 9352's diff of docs/source/features/"
     "disagg-serving.md",
     "issue 21, launch commands (qa2): KvCacheConfig.enable_block_reuse (bool, default True) "
     "in every revision read; dtype (str, 'auto') in 1520735490 and later; tokens_per_block "
     "(default 32) only in the later ones (not in 1520735490); "
     "CacheTransceiverConfig.backend Literal['default', 'ucx', 'nixl', 'mpi'] in 1520735490, "
     "'DEFAULT', 'UCX', 'NIXL', ('MOONCAKE',) 'MPI' in the published references; which "
     "release each stored revision is could not be pinned (the 1.0.0 and 1.2.1 files were "
     "not reachable here), docs/engines.md says so"),
    ("NVIDIA/TensorRT-LLM pull requests 6323 ('BREAKING CHANGE', merged 2025-07-25: cache "
     "transceiver backends DEFAULT, UCX, NIXL, MPI, uppercase) and 6766 (merged 2025-08-09: "
     "the test configs' backend default -> DEFAULT); ai-dynamo/dynamo PR 2276/2282 (1.0.0rc4 "
     "requires cache_transceiver_config for disaggregation); ai-dynamo/aiconfigurator PR 79 "
     "(2025-10-27: TorchLlmArgs rejects 'default': \"Input should be 'DEFAULT', 'UCX', 'NIXL' "
     "or 'MPI'\")",
     "issue 21, launch commands (qa2): the disaggregated TensorRT-LLM YAML's backend: DEFAULT "
     "holds for 1.0.0 (released after the change) and 1.2; the lowercase revision read is "
     "older than 1.0.0"),
    ("sglang 0.4.0-0.4.10 wheels (PyPI): srt/server_args.py, read by tools/capture_engine_"
     "options.py into tests/data/engine_options/sglang-0.4.*.json; 0.4.10's and 0.5.3's "
     "srt/layers/moe/ep_moe/layer.py (get_moe_impl_class)",
     "issue 21, launch commands (qa2): the 0.4 releases' forms (--pp-size from 0.4.7, "
     "--ep-size and --enable-ep-moe from 0.4.1, --page-size 0.4.4, --enable-deepep-moe and "
     "--disaggregation-mode 0.4.5, --disaggregation-transfer-backend 0.4.6, fp8_e4m3 KV 0.4.2); "
     "0.4 runs EP MoE only with enable_ep_moe, 0.5.3 by ep_size"),
    ("sglang 0.4.0-0.4.10 and 0.5.3 wheels: srt/managers/tp_worker.py (max_running_requests "
     "// dp_size under enable_dp_attention from 0.4.2, the whole value in 0.4.0-0.4.1); 0.5.23 "
     "srt/model_executor/pool_configurator.py (// attn_dp_size)",
     "issue 21, launch commands (qa2): SGLang's --max-running-requests is the server's total, "
     "so the command states kvcalc's per-rank limit x attention-DP ranks"),
    ("NVIDIA/TensorRT-LLM _torch attention modules and KV cache managers, ten revisions found "
     "by text search ('if mapping.enable_attention_dp: tp_size = 1'; index ids 26175533973, "
     "56170394716, 56579920106, 5721148561, 51768596745, 57350670334, 68582177554, 64662382, "
     "4099199850, 53149191378); sglang's dp_attention.py compute_dp_attention_world_info "
     "(attn_tp_size = tp_size // dp_size) by code search",
     "issue 21, launch commands (qa2): TensorRT-LLM's attention DP runs attention TP 1, so a "
     "TP > 1 layout with attention DP is refused for it; SGLang's --tp-size E --dp-size D "
     "form is attention TP E / D, as the commands state"),
    ("vllm 0.8.3 and 0.33.0 wheels (PyPI): vllm/distributed/device_communicators/"
     "custom_all_reduce.py (should_custom_ar), 0.33.0 all_reduce_utils.py "
     "(CUSTOM_ALL_REDUCE_MAX_SIZES, SYMM_MEM_ALL_REDUCE_MAX_SIZES); sglang 0.4.0 wheel: "
     "srt/distributed/device_communicators/custom_all_reduce.py (should_custom_ar, "
     "custom_all_reduce), srt/managers/tp_worker_overlap_thread.py, srt/managers/scheduler.py "
     "(event_loop_overlap, get_next_batch_to_run, update_running_batch), "
     "srt/model_executor/model_runner.py (sample: sampling_info_done waited only with "
     "grammars), srt/server_args.py (mem_fraction_static 0.81 at TP 8, 0.85 at TP 4); "
     "NVIDIA/TensorRT-LLM cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp "
     "(selectImplementation; code-search excerpt)",
     "issue 23, round 10: vLLM and SGLang take a message on their own all-reduce kernels only "
     "below the 8 MiB buffer (inp_size < max_size), TensorRT-LLM's plugin up to its workspace "
     "(messageSize > maxWorkspaceSize goes to the ring): modelled per engine "
     "(calc/deploy/parallel.py custom_fits; a pass of exactly 8 MiB a rank, Llama-3.1-405B's "
     "256 tokens or Llama-3.3-70B's 512, now NCCL on vLLM and SGLang); beyond 8 MiB the "
     "profiles' measured NCCL curve already times it (405B TP 8 at 350 sequences: 11.2 MiB, "
     "89.7 us x 252 = 22.6 ms of an 85.6 ms pass); vLLM 0.33's symmetric-memory thresholds "
     "noted, not modelled; the overlap scheduler read: the scheduler's per-request work runs "
     "while the worker thread runs the next batch, nothing in the sampler waits on it "
     "without grammars; nothing fitted"),
    ("datacrunch-research/h200-benchmarks@c091ef5 sglang/experiments/docker_dev_commands.txt "
     "and llama_405b_sglang.sh",
     "issue 23, round 10: the 405B server's launch command under '# Benchmarking' sets "
     "--mem-frac 0.87 (argparse's prefix of --mem-fraction-static; the .sh file's comment "
     "line sets none, 0.4.0's default at TP 8 being 0.81): the 405B runs replayed with it "
     "(bench/validation_score.py SGLANG_405B; the pool 283,948 → 421,492 tokens); a stated "
     "setting, nothing fitted"),
    ("kvcache-ai/Mooncake pull request #3484 (an nccl-tests all_reduce_perf table; the GPUs "
     "not in the excerpt read)",
     "issue 23, round 10: all-reduce of 8, 16, 32 MiB at 81.2, 121.3, 195.4 us (bus "
     "bandwidth 181, 242, 301 GB/s), against the H200 profile's NCCL curve at 8 GPUs: 76.4, "
     "109.7, 176.3 us (6-10% faster): a check of the curve's size, not used; nothing fitted"),
    ("ai-dynamo/aiconfigurator@095f58a51 (git history): the TensorRT-LLM generator templates "
     "src/aiconfigurator/generator/config/backend_templates/trtllm/extra_engine_args.{1.0.0rc3,"
     "1.0.0rc4,...}.yaml.j2 and their first form cli/templates/trtllm/dynamo/ of the initial "
     "commit efcae124c (2025-08-11: cuda_graph_config padding_enabled default true (rc3; rc4 "
     "enable_padding), batch_sizes default [1, 2, 4, ..., 256], disable_overlap_scheduler default "
     "true, max_batch_size bs), cli/backends/trtllm.py@efcae124c (agg max_num_tokens = bs + isl "
     "+ 1,500), generator/rule_plugin/trtllm.rule (agg_decode cuda_graph_batch_sizes 1-16, "
     "16-32 by 4 ... 256-512 by 64 and max_batch_size +- 8, enable_padding true; agg "
     "disable_overlap_scheduler false), the 2025-11 refactor (enable_padding default false in "
     "the per-version templates), silicon_sample.csv's silicon_data_source column (the 1.0.0rc3 "
     "records: an auto-gap-analysis file per model, no run settings) and "
     "docs/design/prediction_regression_gate_design.md ('a 2026-04 dump of the internal "
     "benchmark DB')",
     "issue 20, round 17: what the silicon sample's TensorRT-LLM runs set; not stated per "
     "record; its records at 256 sequences contradict TensorRT-LLM's default list (they would be "
     "eager, 30-77% slow), so the runs are read with padded graphs up to their batch, as the "
     "generator writes them (bench/validation_serving.py), a step holding a prompt eager"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py (search excerpts of five revisions, "
     "index ids 292162234 (the flat use_cuda_graph default False / cuda_graph_padding_enabled / "
     "cuda_graph_max_batch_size fields), 1520735490, 1090804222, 7019226376, 55143598664): "
     "_generate_cuda_graph_batch_sizes(max_batch_size or 128, padding): unpadded "
     "list(range(1, 32)) + [32, 64, 128] + powers of two from 256 below max_batch_size; "
     "CudaGraphConfig.enable_padding default False in every CudaGraphConfig revision; the "
     "newest's padded list slides by 64; pull requests #5480 (graphs on by default, 2025-06/07), "
     "#5014 and #5585 (CudaGraphConfig), #5795, #5818, #5895, #6003 (padding_enabled renamed "
     "enable_padding, 2025-07-15), #9134 (enable_padding default True, closed), #7031 "
     "(trtllm-bench's cuda_graph max_batch_size), #4249, #4827, issue #7675 (search excerpts)",
     "issue 20, round 17: TensorRT-LLM's default capture list declared in its wing "
     "(Engine.cuda_graph_batch_sizes: 1-31, 32, 64, 128, unpadded) and the steady-state cycle's "
     "eager steps (calc/reports/throughput.py); no constant"),
    ("aiconfigurator 0.7.0 wheel (PyPI aiconfigurator): its SDK's run_static decode step of "
     "Qwen/Qwen3-235B-A22B-FP8 at h100_sxm trtllm 1.0.0rc3 tables, TP 8 / EP 8, fp8_block, "
     "context 192, batch 16-128, and its run_agg serving estimate (TP 8 and TP 4, 128/128 "
     "at ctx_tokens 512, 1024/128 at 8,192)",
     "issue 20, round 17: the measured kernels' step grows 18.8 -> 23.6 ms from 64 to 128 "
     "sequences (MoE 12.1 -> 13.7 ms), its serving TPOT 20.8 -> 27.3 ms at TP 8: not the "
     "records' 21.7 -> 31.7 ms; an instrument, nothing fitted"),
    ("search excerpts shown beside those (round 17), unrelated to the step model: "
     "CudaGraphConfig classes of an unnamed multimodal-inference repository (mminf / mstar), "
     "a TensorRT-LLM visual_gen design note and args module, fairseq's AudioDataConfig, a "
     "vehicle-detection config, an image-processing config; vllm-project/vllm#20062, "
     "triton-inference-server/server#949, NVIDIA/TensorRT-LLM#10860, #6770, #5058, #5190, "
     "#3096, #5796, #4729, #7219",
     "nothing taken"),
    ("vllm wheels (PyPI) 0.8.3, 0.10.2, 0.11.0, 0.17.0, 0.18.0, 0.18.1, 0.19.0, 0.20.0, 0.20.1, "
     "0.20.2, 0.21.0, 0.22.0, 0.23.0, 0.24.0, 0.25.0, 0.26.0, 0.27.0, 0.28.0, 0.29.0, 0.33.0: "
     "distributed/device_communicators/{cuda_communicator,custom_all_reduce,all_reduce_utils,"
     "symm_mem,flashinfer_all_reduce,quick_all_reduce}.py, compilation/passes/fusion/"
     "allreduce_rms_fusion.py, envs.py (issue 20/21, comm1)",
     "vLLM's all-reduce choice by message size per release, capability and world size: the "
     "release each limit came in (calc/deploy/engines/vllm/rules.py allreduce_*); nothing fitted"),
    ("aiconfigurator-core 0.12.0 wheel: h100_sxm/comm/vllm/0.24.0/custom_allreduce_perf.parquet "
     "and comm/nccl/2.29.2/nccl_perf.parquet at 2, 4, 8 GPUs; aiconfigurator 0.7.0 wheel: "
     "systems/data/h100_sxm/vllm/0.14.0/custom_allreduce_perf.txt (issue 20/21, comm1)",
     "vLLM's measured all-reduce as dispatched (8 H100s: 10.8 us at 256 KiB, 15.0 us at 1 MiB, "
     "92.4 us at 16 MiB, 344 us at 64 MiB; NCCL 25.4, 121.9 us at 1, 16 MiB; 0.14.0: a step "
     "from 7.7 to 14.7 us at 256 KiB, where the custom all-reduce stops): read to check that "
     "the allreduce.custom curve measures symmetric memory beyond 256 KiB; the curves not "
     "refitted"),
    ("sglang 0.5.23 wheel (PyPI): srt/distributed/parallel_state.py "
     "_resolve_outplace_all_reduce_method, device_communicators/custom_all_reduce.py "
     "(_MAX_CAR_SIZE), torch_symm_mem.py, all_reduce_utils.py; server_args.py (issue 20/21, "
     "comm1)",
     "SGLang's all-reduce order (custom all-reduce below 8 MiB on CUDA, 16 MiB on ROCm; PCIe "
     "IPC; quick all-reduce; mscclpp; torch symmetric memory only when enabled; pynccl): "
     "nothing changed for SGLang, the ROCm 16 MiB buffer noted, not modelled"),
    ("vllm 0.10.0-0.33.0 wheels (PyPI): v1/core/kv_cache_utils.py, where 'GPU KV cache size' "
     "is printed (_report_kv_cache_config; get_kv_cache_capacity from 0.24.0)",
     "issue 21, printed figures (logs11): num_blocks // groups x block_size to 0.20.0, "
     "int(max_concurrency x max_model_len) from 0.21.0; no validation record moves (the one "
     "0.21 record's max_model_len is a multiple of 16)"),
    ("sglang 0.5.23 wheel: mem_cache/memory_pool.py ('#tokens'), managers/scheduler.py "
     "('max_total_num_tokens='), model_executor/pool_configurator.py (page-aligned pool), "
     "arg_groups/fields/parallel.py (attn_dp_size; --dp-size N --enable-dp-attention the "
     "deprecated spelling, dp_size 1); 0.5.4 managers/tp_worker.py",
     "issue 21, printed figures (logs11): SGLang prints the pool itself; max_running_requests "
     "is the server's total, each attention-DP rank max(1, it // dp), read so by kvcalc log"),
    ("NVIDIA/TensorRT-LLM cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp, one revision by "
     "text search ('for max tokens in paged KV cache'; index id 36927720914)",
     "issue 21, printed figures (logs11): 'Allocated X GiB for max tokens in paged KV cache "
     "(N)' prints N = blocksInPrimaryPool x tokensPerBlock, the pool itself; no figure taken"),
    ("the same search's other hits, TensorRT-LLM start-up log excerpts and log parsers (index "
     "ids 2263047771, 53827119515, 54591450631, 7011808521, 62264842570, 26725295630, "
     "6161481015, 70221477077, 52111571685; pools of 8,224, 190,656, 273,792, 220,480, "
     "263,008, 294,848 and 35,840 tokens printed)",
     "issue 21, printed figures (logs11): seen in passing, not used (no settings read, no "
     "record added)"),
    ("NVIDIA/TensorRT-LLM cpp/tensorrt_llm/common/customAllReduceUtils.h@005b299 "
     "(getMaxRequiredWorkspaceSize 16,000,000 B at TP <= 2, 8,000,000 B above; "
     "selectStrategyLookUpTable and AllReduceBestStrategyTable SM90/SM100 by TP 2/4/8, fusion "
     "op, hidden 128-8192, tokens 1-16384; out of range NCCL_SYMMETRIC), "
     "cpp/tensorrt_llm/thop/allreduceOp.cpp (index id 4345161651, a main revision with "
     "inter-node MNNVL: selectImplementation, ifFallbackToNCCL message_size_bytes > workspace), "
     "find_string excerpts of two other revisions of the lookup table (ids 4484569869, "
     "13719490634, 52214226274), tensorrt_llm/_torch/distributed/ops.py (search excerpt: "
     "get_allreduce_workspace)",
     "issue 20/21 (comm2): TensorRT-LLM's AUTO all-reduce declared in its wing "
     "(calc/deploy/engines/trtllm/rules.py allreduce_auto_max: its kernels up to 16,000,000 B "
     "at TP 2, 8,000,000 B at TP 4-8, NCCL beyond); a source rule, nothing fitted; the release "
     "tags not pinned"),
    ("ai-dynamo/aiconfigurator aiconfigurator-core 0.12.0 wheel (PyPI): "
     "systems/data/h100_sxm/comm/trtllm/1.2.0rc5/custom_allreduce_perf.parquet, beside "
     "comm/vllm/0.24.0/custom_allreduce_perf.parquet and comm/nccl/2.29.2/nccl_perf.parquet",
     "issue 20/21 (comm2): TensorRT-LLM 1.2.0rc5's measured all-reduce on 2/4/8 H100s meets "
     "NCCL's time at 16 MiB (TP 2: 83.1 against 82.2 us) and 8 MiB (TP 4: 62.9/62.8, TP 8: "
     "79.4/78.9 us) and is faster below (TP 8, 2 MiB: 28.3 against 38.2 us): the switch the "
     "workspace rule declares; a check, nothing fitted (the allreduce.custom curve stays "
     "vLLM 0.24.0's table)"),
    ("vllm wheels (PyPI) 0.19.0, 0.22.0, 0.24.0, 0.25.0, 0.25.1, 0.26.0, 0.27.0-0.33.0: "
     "distributed/device_communicators/custom_all_reduce.py (_SUPPORTED_WORLD_SIZES), "
     "compilation/passes/fusion/allreduce_rms_fusion.py (FI_ALLREDUCE_FUSION_MAX_SIZE_MB)",
     "issue 20/21 (comm2): the custom all-reduce at 2, 4, 6, 8 GPUs to 0.26.0 (a group across "
     "nodes disables it), 16 from 0.27.0; FlashInfer's fusion at 16 GPUs (64 MB, Blackwell) "
     "from 0.25.0; declared in calc/deploy/engines/vllm/rules.py, nothing fitted"),
    ("sglang wheels (PyPI) 0.4.0, 0.4.3, 0.4.4, 0.4.5, 0.4.7, 0.4.10, 0.5.3, 0.5.6-0.5.10, "
     "0.5.16, 0.5.20, 0.5.23: srt/distributed/device_communicators/custom_all_reduce.py",
     "issue 20/21 (comm2): _SUPPORTED_WORLD_SIZES [2, 4, 6, 8] throughout; _MAX_CAR_SIZE 16 MiB "
     "under HIP from 0.4.4; should_custom_ar inp_size <= max_size from 0.5.9 (< before); "
     "declared in calc/deploy/engines/sglang/rules.py, nothing fitted"),
    ("code-index searches (session 5): the file name profile_export_genai_perf.json and AIPerf's "
     "'\"request_throughput\": {\"unit\": \"requests/sec\"' across public repositories",
     "not used: only test fixtures with made-up figures (no real GenAI-Perf or AIPerf run)"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py@0171265e (CudaGraphConfig(BaseModel), "
     "padding_enabled), the revisions at index ids 1520735490, 1090804222, 7019226376 and the "
     "forks venkywonka/TensorRT-LLM@35d73ef0, ltalal/TensorRT-LLM@2497d427 (CudaGraphConfig("
     "StrictBaseModel), extra = 'forbid'; update_llm_args_with_extra_dict leaves "
     "cuda_graph_config a dict); tensorrt_llm/bench/dataclasses/configuration.py "
     "RuntimeConfig.get_llm_args (index id 1184925223: the file merged over trtllm-bench's "
     "arguments, its cuda_graph_config dict handed on whole); bench/benchmark/utils/general.py "
     "@0171265e and index id 351051112 (get_settings reads kv_cache_config and "
     "enable_chunked_prefill only); pull requests 5014, 5585, 5634, 5680, 5795, 5818, 6003 "
     "(cuda_graph_config's introduction and renames, 2025-06/07)",
     "issue 20, nineteenth round: the v1.0 page's enable_attention_dp nested under "
     "cuda_graph_config cannot have been silently dropped under 1.0 (strict since before "
     "2025-07-25; the file's enable_padding dates it after 2025-07-15): the runs did not use it "
     "as printed, attention DP kept (docs/step-time.md); the 1.0.0 tag's own file not "
     "reachable (no PyPI wheel, snapshot too large)"),
    ("NVIDIA/TensorRT-LLM@03e27c7d docs/source/developer-guide/perf-overview.md (a later "
     "revision: per-GPU units, 'DEP4'/'DEP8' layouts, 'Qwen3 MoE, Llama4 Maverick' options with "
     "enable_attention_dp at the top level); search openings of perf-overview revisions "
     "0c9430e5 and 8a9c66ce and the 0.19.0-1.2.0 docs-site pages; aiot.ml mirror pages "
     "(0.20.0rc2, not reachable)",
     "issue 20, nineteenth round: the later page states attention DP for these models; at "
     "1000/1000 its same-layout figures are 1.037x (Qwen3-235B-A22B H100 EP8) and 1.044x "
     "(Maverick H200 EP8) the 1.0 page's, the same drift as the one-GPU and dense columns "
     "(0.988-1.060), where kvcalc's DP/TP ratio is 1.57-1.74 (tools/moe_attention_dp_reading.py); "
     "Qwen3-30B-A3B GB200 / B200 at 1000/1000 0.68 -> 0.85 between the releases (the GB200 "
     "one-GPU lead, host time on Grace; not modelled)"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py MoeConfig (1.0-1.2 era: backend "
     "default 'CUTLASS'; later 'AUTO'), _torch/model_config.py resolve_moe_backend (AUTO -> "
     "TRTLLM only for GptOssForCausalLM and DeepSeek-V4 on SM100, FP8_BLOCK_SCALES on SM100 in "
     "the newest; CUTLASS otherwise), _torch/modules/fused_moe/create_moe.py get_moe_cls "
     "(TRTLLMGenFusedMoE only when moe_backend is TRTLLM), PR #11074 (2026-01-30, TRTLLM the "
     "GptOss default on Blackwell)",
     "issue 20, fp4 MoE round: the default MoE backend of DeepSeek-V3/R1 NVFP4 on B200/GB200 is "
     "CUTLASS in every modelled release, the path the shipped curve is fitted to; no change"),
    ("ai-dynamo/aiconfigurator collector/trtllm/collect_moe.py (006afd78): "
     "moe_torch_flow_min_latency = moe_backend 'trtllm' (TRTLLMGenFusedMoE, DeepSeek-V3 "
     "routing, do_finalize False), moe_torch_flow_cutlass = 'cutlass'; "
     "aic-core/rust/aiconfigurator-core/src/operators/moe.rs (097e0ef4): aiconfigurator "
     "itself times TensorRT-LLM NVFP4 gated MoE at <= 128 tokens from the min-latency table",
     "issue 20, fp4 MoE round: which kernel each table row is; aiconfigurator's modelling choice, "
     "not the engine's default: not adopted"),
    ("ai-dynamo/aiconfigurator generator templates extra_engine_args.1.2.0rc6.post2.yaml.j2 "
     "(moe_config.backend default('CUTLASS')), rule_plugin/trtllm.rule and benchmark/"
     "trtllm.rule (no MoE backend set; MTP when nextn > 0), backend_config_mapping.yaml "
     "(moe_backend -> moe_config.backend); PR #551 (GB200 DeepSeek on 1.2.0rc6 modelled as "
     "CutlassFusedMoE)",
     "issue 20, fp4 MoE round: what the silicon sample's TensorRT-LLM runs were launched with; the "
     "records (silicon_sample.csv silicon_data_source) state neither the MoE backend nor MTP"),
    ("aiconfigurator-core 0.12.0 wheel b200_sxm and gb200 moe/trtllm/1.3.0rc20/moe_perf.parquet "
     "(NVFP4 CUTLASS and min-latency rows, balanced); aiconfigurator 0.7.0 wheel (PyPI) "
     "b200_sxm/trtllm/1.2.0rc5/moe_perf.txt",
     "issue 20, fp4 MoE round (tools/fit_kernels.py --fp4-backend-study): CUTLASS / "
     "trtllm-gen 1.4-2.0 at 1-512 tokens; the shipped TensorRT-LLM fp4 curve meets the "
     "CUTLASS rows at DeepSeek-V3's shape (-0.2%, +3.3%, -2.2% by token range on B200) "
     "and is 1.5-2x the trtllm-gen rows; 1.2.0rc5's CUTLASS at TP 4, 4 tokens 113 us a "
     "layer (1.3.0rc20: 159)"),
    ("docs/validation/aiconfigurator_silicon_agg.csv, the TensorRT-LLM NVFP4 MoE rows "
     "(bench/validation_serving.py --moe-implied)",
     "issue 20, fp4 MoE round: the MoE time a layer each row's measured TPOT leaves, every "
     "other op as kvcalc times it: median 0.50 of kvcalc's (1.2.0rc6.post2, no release), 0.32 "
     "(1.1.0rc2.post2), 0.13 (1.2.0rc6.post3, many below 0): below the CUTLASS kernel the "
     "engine defaults to, so the excess is not that kernel's; DeepSeek-R1 fp8 on B200 is +44% "
     "too (DeepSeek-V3 fp8 -8%): not fitted"),
    ("vllm 0.8.3, 0.10.1, 0.11.0, 0.12.0, 0.15.1, 0.18.0 and 0.33.0 wheels (PyPI): "
     "model_executor/layers/fused_moe/fused_moe.py (fused_topk, vllm_topk_softmax; 0.15 on "
     "router/fused_topk_router.py), _custom_ops.py topk_softmax, gpt_oss_triton_kernels_moe.py, "
     "deep_gemm_moe.py _valid_deep_gemm, configs/ (tuned E=128 N=384/768 H200 fp8 block files), "
     "quantization/mxfp4.py get_mxfp4_backend; sglang 0.5.23 wheel srt/layers",
     "issue 20, round 19: vLLM's softmax top-k is 4 kernels in 0.8-0.11 (fp32 cast, "
     "topk_softmax, sum, division) and 1 from 0.12 (renormalised inside), "
     "calc/deploy/moe_pipeline.py VLLM_ROUTING; gpt-oss MXFP4 routes in its own kernels "
     "(triton_kernels on Hopper, FlashInfer trtllm-gen MXFP4 x BF16 by default on SM100 in "
     "0.11 and 0.15.1); DeepGEMM MoE needs M >= 128 tokens (decode runs Triton); the H200 tuned "
     "configs are in every wheel read: ruled out for the Qwen3-235B-FP8 runs below"),
    ("ai-dynamo/aiconfigurator@095f58a51 (fetched): collector/vllm/collect_moe.py "
     "(__compat__ vllm==0.24.0: every format built through FusedMoE, timed as "
     "moe_module(hidden_states, router_logits)), h200_sxm/moe/vllm/0.24.0/moe_perf.parquet and "
     "collection_meta.yaml (kernel_source per row); an earlier stored revision of the same file "
     "(000b928: top-k precomputed outside fused_experts, the 0.19.0 and 0.22.0 tables) and "
     "collector/vllm/collect_moe_v2.py; collector/sglang/collect_moe.py (sglang==0.5.14: "
     "select_experts inside the timed run_op); the aiconfigurator-core 0.12.0 wheel's b200_sxm "
     "moe/vllm/0.19.0, 0.22.0, 0.24.0 tables (gpt-oss-120b shape, 1-64 tokens)",
     "issue 20, round 19: vLLM's and SGLang's own fused-MoE curves hold the routing, so nothing "
     "is charged beside them but an older vLLM release's extra routing kernels; the B200 "
     "moe@vllm.mxfp4 curve against its own 0.24.0 table at gpt-oss-120b's shape (TP 1): 83 / "
     "242 / 509 us a layer at 4 / 16 / 64 tokens against 69-72 / 156-204 / 294-382 us measured "
     "(power-law / balanced rows), reported, not refitted (the curves are tools/fit_kernels.py's); "
     "the h100_sxm and b200_sxm moe/sglang/0.5.14 tables at gpt-oss-120b's shape (TP 8 / TP 4, "
     "1-2 tokens): moe@sglang.mxfp4 at one token 42.9 us a layer on H100 against 24.0-25.1 us "
     "measured, 20.4 us on B200 against 16.9-19.5 us (reported, not refitted)"),
    ("aiconfigurator's silicon sample (docs/validation/aiconfigurator_silicon_agg.csv, already "
     "the serving runs' training and held-out halves): its vLLM and SGLang MoE rows at "
     "concurrency <= 64 (the 558 kvcalc lays out)",
     "issue 20, round 19: the small-batch MoE section (bench/validation_moe_small.py), nothing "
     "fitted; the vLLM 0.12.0 Qwen3-235B-A22B-FP8 H200 runs (TPOT 35-58 ms nearly flat in "
     "concurrency, TP 1 runs of a 235 GB checkpoint on one 141 GB GPU) left unexplained"),
    ("searches (issues, pages, docs corpora) for published gpt-oss / Qwen3-MoE / Mixtral decode "
     "at concurrency 1-64: vllm-project/vllm PRs 23369 and 23696 (ShareGPT at full load), "
     "sgl-project/sglang PRs 8898, 9060, 9278 and issue 8833 (bench_serving tables at "
     "max-concurrency 1-128, the excerpts cut before the GPU or the figures), GPUStack "
     "performance-lab pages (gpt-oss-20b / 120b on A100 and H100, high concurrency only), "
     "devforth.io and millstoneai.com gpt-oss benchmarks (L4 / L40S / H100, RTX PRO 6000; "
     "figures in charts), SemiAnalysisAI/InferenceX PRs (MI300X)",
     "looked at, not used: no record stating GPU, engine release, lengths and a batch-1 to 64 "
     "TPOT together in the text read"),
    ("lm-sys/lm-sys.github.io blog/2025-08-27-gpt-oss.md (\"Low-Latency Performance (Batch "
     "Size = 1)\": gpt-oss-120b MXFP4 and BF16 on B200 TP 4 and H100 TP 8) with "
     "sgl-project/sglang benchmark/gpt_oss/README.md (v0.5.1.post3, bench_one_batch_server, "
     "1024 in / 512 out, H100 with Triton attention)",
     "issue 20, round 19: four held-out batch-1 records in the small-batch MoE section "
     "(bench/validation_moe_small.py PUBLISHED_BATCH1), looked at after the change, nothing "
     "fitted"),
    ("surajssd/llm-k8s@58b61c5 results_serving_meta-llama-Llama-3.3-70B-Instruct/lws-run-1.sh, "
     "lws-run-2.sh (server logs of 03_tp4_pp2_IB, 04_tp4_pp2_IB); vllm 0.8.3 wheel (PyPI) "
     "engine/arg_utils.py _is_v1_supported_oracle, engine/llm_engine.py, core/scheduler.py, "
     "core/block/common.py CacheMetricData",
     "issue 23, eleventh round: the TP 4 × PP 2 servers fell back to vLLM's V0 engine (PP "
     "without --distributed-executor-backend ray), a prefix cache per virtual engine; their "
     "printed hit rates (per run 0/55.9/84.0/94.0% and 0/50.8/73.6/82.3%) check the replay's "
     "1 − (1 − 1/pp)^k cached part of a later run's prompts (bench/validation_score.py "
     "v0_cached); nothing fitted"),
    ("surajssd/llm-k8s@58b61c5 results_serving_meta-llama-Llama-3.3-70B-Instruct/04_tp4_pp2_IB "
     "qps 01/04/16/inf", "issue 23, eleventh round: held out for the V0 cache rule (TTFT p50 at "
     "4, 16/s and at once -27.6/-20.5/-64.7% → -22.7/-19.3/-50.0% uncalibrated); scored in its "
     "own held-out table since the twelfth round (below)"),
    ("sglang 0.4.0 wheel (PyPI) srt/managers/scheduler.py get_new_batch_prefill, "
     "event_loop_overlap, process_batch_result_decode; srt/managers/tp_worker_overlap_thread.py "
     "resolve_batch_result; srt/managers/schedule_policy.py PrefillAdder; srt/server_args.py",
     "issue 23, eleventh round: re-read for SGLang at 16 requests/s: admission "
     "(add_one_req_ignore_eos with the next-longer horizon, batch_is_full on NO_TOKEN), "
     "retraction and CUDA graphs to 160 as modelled; resolve_batch_result waits for the next "
     "batch's launch (launch_done), so the overlap cycle is max(GPU, all host work) — the "
     "form issue 23's tenth round tried and the 1-4/s runs contradict; nothing changed"),
    ("vllm 0.8.3 and llm-k8s qps-inf per-request ttfts (01_tp8_pp1, 02/03 PP, deepseek-v2.5 PP)",
     "issue 23, eleventh round: within each burst wave the TTFT falls with the send order "
     "(about 0.45 ms a place: the wave's first tokens reach the client together); under PP the "
     "waves come about every 4 pipeline rounds (Llama 80 ms, DeepSeek 170 ms TPOT), 15-16 "
     "new requests a round; looked at, not modelled"),
    ("surajssd/llm-k8s@8a7fbb9 deepseek-v2.5/01_tp8_pp2_no_ib/lws.sh, 02_tp8_pp2_ib/lws.sh",
     "issue 23, eleventh round: the DeepSeek-V2.5 servers (vLLM 0.8.3) fell back to V0 too; the "
     "Ethernet one's cumulative prefix-cache hit rate ends its four runs at 21.1% (the Llama "
     "servers: 51.7-58.5%), the InfiniBand log is cut short: their runs keep the replay's "
     "every-later-run-cached (all their fits are refused); not changed"),
    ("vllm-project/vllm@0030b9ffce2b2e8b8e9f04a7b108f5877193cec0 "
     "vllm/entrypoints/openai/serving_engine.py _validate_prompt_and_tokenize",
     "looked at (qa4 audit, issue 21): the server refuses a request whose prompt + max_tokens "
     "exceed max_model_len ('This model's maximum context length is ...'); what latency and "
     "memory now warn of under --max-model-len; nothing fitted"),
    ("surajssd/llm-k8s@58b61c5 results_serving_meta-llama-Llama-3.3-70B-Instruct/04_tp4_pp2_IB "
     "(qps 01/04/16/inf; the publisher's tp4_pp2_optimized_IB, the server of lws-run-2.sh); the "
     "repository's folders at that commit and in its history (01_tp8_pp1, 02-04 PP, "
     "deepseek-v2.5/01-02; results/ and benchmark/genai-perf/ hold only PDF and PNG charts)",
     "issue 23, twelfth round: held out (bench/validation_score.py HELD_OUT, "
     "tests/data/bench_results/*_IB_trial-2_*): uncalibrated TTFT p50 / TPOT / output tok/s "
     "median -24.8/-12.6/+4.0% (all four runs), with the six stored fits of the two trained PP "
     "deployments 17 of 24 pairs within 10% (the misses: the burst under all six fits, TTFT "
     "-26 … -44%, and the InfiniBand 16/s fit at 4/s, TPOT -12%), median |error| 5.9/5.8/3.2%; "
     "nothing fitted"),
    ("vllm 0.8.3 wheel (PyPI) engine/multiprocessing/client.py is_unsupported_config, "
     "entrypoints/openai/api_server.py, engine/async_llm_engine.py step_async, "
     "engine/llm_engine.py _process_model_outputs, config.py (use_async_output_proc), "
     "executor/ray_distributed_executor.py _driver_execute_model_async, worker/worker_base.py "
     "prepare_input, worker/model_runner.py _prepare_model_input_tensors, sequence.py; the "
     "servers' logs (lws-run-1.sh, lws-run-2.sh: V0, Ray executor, use_ray_spmd_worker False)",
     "issue 23, twelfth round: the path the TP 4 × PP 2 runs took, V0 under PP: AsyncLLMEngine "
     "in the API server's process (no MQLLMEngine at PP > 1), no async output processing, "
     "every stage's driver rebuilding its inputs from every sequence's metadata each step; the "
     "pipeline host cost (calc/deploy/host_costs.py with_pipeline, 0.325 ms a sequence a "
     "stage) re-sourced to it and charged only where PP runs V0 (engine wing "
     "host_pp_sequence_stage, vLLM below 0.9.1); nothing refitted"),
    ("vllm 0.8.5, 0.9.0, 0.9.1, 0.9.2, 0.10.0 wheels (PyPI) engine/arg_utils.py "
     "_is_v1_supported_oracle, config.py ParallelConfig.distributed_executor_backend",
     "issue 23, twelfth round: PP without a backend set falls back to V0 in 0.8.5 (only ray "
     "accepted) and 0.9.0 (ray, mp, external_launcher); 0.9.1 onward accept the default "
     "(None) on V1: the boundary of the pipeline host cost"),
    ("nerdalert/vllm-bench-automation@13ee6ea README.md (llm-d, Llama-3.2-3B-Instruct, vLLM "
     "benchmark_serving at 10, 30 and inf requests/s)",
     "issue 23, twelfth round: looked at for a held-out set, not added: four decode replicas on "
     "4 × L40S behind a routing gateway (kvcalc scores one server), vLLM release unstated, "
     "random 1000/500 without ignore_eos (mean output 270)"),
    ("ericgong2005/NVFP4_Quantized_LLM@ec47c81693ee0d32829fe3e0a9b6e35de17f53fb StepByStep.md "
     "(trtllm-bench's printed report; Scripts/Benchmark_NVFP4_Model.sh, README.md at b3dade5)",
     "issue 23, printed reports: Llama-3.2-3B-Instruct bf16 on the PyTorch backend of "
     "TensorRT-LLM 1.1.0rc2, one RTX PRO 6000 Blackwell, 16 requests of 13/256 tokens at "
     "--concurrency 8: kept as tests/data/bench_results test data; uncalibrated E2E -24%, "
     "throughput +32% (replayed at concurrency 8)"),
    ("NVIDIA/TensorRT-LLM pull request #7104 (2025-08-21 description, the stored copy of its "
     "text)",
     "issue 23, printed reports: DeepSeek-R1-0528 NVFP4 (KV FP8), TP 4 EP 4 on GB200, 6,144 "
     "requests of 1,024/1,024, max batch 1,024, trtllm-bench 1.1.0rc1: kept (the header and the "
     "overview's first five lines); uncalibrated throughput +83% (kvcalc too fast), E2E +91% "
     "all at once, -45% at a client limit of 1,024"),
    ("triton-inference-server/tutorials@6b48ce4a0f3d4bab6920e638b37ca57a88924a40 "
     "Feature_Guide/Speculative_Decoding/TRT-LLM/README.md (table added in f6fd598)",
     "issue 23, printed reports: GenAI-Perf's table for vicuna-7b-v1.3 fp16 on a TensorRT-LLM "
     "engine (max batch 4) behind Triton, one RTX 5880 Ada, HumanEval prompts at concurrency "
     "1: kept as reader test data, not scored (no RTX 5880 profile; 310.75 output tokens in "
     "2,663 ms is at most 8.6 ms a token, which would read the 13.5 GB of fp16 weights at "
     "1.57 TB/s, about twice a 384-bit GDDR6 Ada board's (the shipped L40S profile: 864 GB/s): "
     "the counted output likely includes the prompt the ensemble echoes)"),
    ("NVIDIA/TensorRT-LLM issue #6294 (Llama 3.1 8B FP8 on H100, trtllm-bench report)",
     "issue 23, printed reports: only excerpts reachable; its 6,957 output tokens/s at 248 "
     "requests/s is 28 tokens a request against 128 asked: not kept"),
    ("NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md (example report) and "
     "perf-benchmarking.md (the 0.x '= STATISTICS' example)",
     "issue 23, printed reports: example output without the model or GPU block: layout only "
     "(the old layout's test is built on it)"),
    ("NVIDIA technical blog 'LLM Inference Benchmarking: Performance Tuning with TensorRT-LLM' "
     "(trtllm-bench streaming report, Llama-3.1-8B-Instruct)",
     "issue 23, printed reports: 'a sample of the output', no GPU stated: layout only"),
    ("NVIDIA/TensorRT-LLM pull request #9459 (Nemotron Nano 31B trtllm-bench table)",
     "issue 23, printed reports: the report retyped as a markdown table of two runs, no GPU "
     "named in the excerpt: not kept"),
    ("ai-dynamo GenAI-Perf tutorial (genai-perf docs, 'Benchmark Dynamo with GenAI-Perf'); "
     "triton-inference-server/perf_analyzer issue #374; Popular_Models_Guide/Llama2 trtllm "
     "guide of triton-inference-server/tutorials",
     "issue 23, printed reports: GenAI-Perf tables without the GPU (Dynamo, llava on vLLM) "
     "or with output lengths that contradict the command (300 printed, 100 asked): layout only"),
    ("NVIDIA/cloudai@13816b1a828d55a0a70ad5f3b6a313f5395cda0d doc/ai_dynamo.md (a "
     "profile_export_genai_perf.csv of Llama-3.1-405B-Instruct-FP8 on AI Dynamo)",
     "issue 23, printed reports: kept as the CSV reader's real test data; no GPU or "
     "concurrency stated: not scored"),
    ("ai-dynamo/aiconfigurator collector/helper.py balanced_logits (the same function in "
     "collector/vllm/collect_moe.py and collector/trtllm/collect_moe.py); aiconfigurator-core "
     "0.12.0 wheel, systems/data/*/moe/*/moe_perf.parquet (balanced rows by kernel_source, "
     "tokens, EP)",
     "issue 20 Deliver 1: the tables' balanced routing puts T x k routes on min(E, T k) distinct "
     "experts (kvcalc's fit had counted a random batch's, fewer: tools/fit_kernels.py "
     "table_active_experts); the fused-MoE curves' misses by token range (--moe-report): the "
     "pooled kernel sources (vLLM Marlin beside FlashInfer/Triton MXFP4, SGLang Marlin beside "
     "Triton), and EP rows whose time grows with all T tokens, not T k / EP routes (SGLang "
     "NVFP4 on B200, EP 64-256: measured 2-5x the curve at 4k-16k tokens); found, not modelled"),
    ("PyPI wheels vllm 0.10.0 to 0.33.0 (the 39 modelled releases, e.g. "
     "vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl; names and sha256 in "
     "calc/data/engine_architectures.json), vllm/model_executor/models/registry.py",
     "issue 21, engine releases: the keys of _TEXT_GENERATION_MODELS, _MULTIMODAL_MODELS and "
     "_TRANSFORMERS_SUPPORTED_MODELS, read by ast (tools/capture_engine_architectures.py): the "
     "architectures each release loads (GptOssForCausalLM from 0.10.1, "
     "Qwen3_5ForConditionalGeneration from 0.17.0, 53 gone by 0.33.0, as "
     "_PREVIOUSLY_SUPPORTED_MODELS says)"),
    ("PyPI wheels sglang 0.4.0 to 0.5.23 (the 32 modelled releases, e.g. "
     "sglang-0.4.5-py3-none-any.whl), sglang/srt/models/*.py",
     "issue 21, engine releases: each module's EntryClass (the names srt/models/registry.py "
     "registers): Llama4ForConditionalGeneration and Gemma3ForConditionalGeneration from 0.4.5 "
     "(mllama4.py, gemma3_mm.py), Qwen3 from 0.4.6, DeepseekV3ForCausalLM from 0.4.1; no "
     "FalconForCausalLM or JambaForCausalLM module in any (left unknown, not refused)"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/models/ (find_files: modeling_*.py with "
     "@register_auto_model, stored by commit; fetch of the repository refused, 2.5 GB)",
     "issue 21, engine releases: the stored files are not tied to the 1.0.0-1.2.1 tags and "
     "the wheel is not on PyPI, so TensorRT-LLM's table is unknown (null): never refused"),
    ("config.json architectures[0] of the shipped models (each model_configs file's source:); "
     "the stored copies tests/data/hf/*.json and tests/data/hf_configs/*/config.json",
     "issue 21, every shipped model states architecture: 21 checked against those copies "
     "(Mixtral 8x22B, Qwen2.5-72B, gpt-oss, Mistral 7B, Jamba, DeepSeek-V2/V3.2, Gemma 2 9B, "
     "Gemma 7B, Kimi-K2, Nemotron H/3 Nano, Phi-2, Qwen3-Next, Qwen3-235B, Qwen3.5, MiniMax-M2.5, "
     "GLM-5, GLM-4.7 for GLM-4.6, Granite 3.3); the rest (Llama 2/3/3.1/3.3/4, Qwen3 dense, "
     "Phi-3/4 as Phi3ForCausalLM, Falcon, Mistral Small 3.1, Gemma 3) as their config.json names "
     "them, not re-read here (huggingface.co unreachable from this machine)"),
    ("NVIDIA/TensorRT-LLM gh-pages <version>/commands/trtllm-serve/trtllm-serve.html: 1.0.0 at "
     "commit 090dc64986babe6445f97234e18db6e35d50af55 (built from TensorRT-LLM ae8270b, "
     "September 23, 2025), 1.1.0 at 8660c119a1f9be58cb574b8895f60bdb2e2c40ec (48b7b5d, "
     "December 12, 2025), 1.2.0 at 7e873e54c296912df55b4c961e67079963ae4d34 (dbdb13b, March 12, "
     "2026), 1.2.1 at 58fb435eacc402f3bd177e60f592c955d2b0719d (376f7e1, April 16, 2026)",
     "issue 21, TensorRT-LLM releases: each release's published trtllm-serve reference "
     "(sphinx-click's rendering of its serve.py), its serve and disaggregated sections read by "
     "tools/capture_engine_options.py --trtllm-docs into tests/data/engine_options/trtllm-*.json "
     "(22, 22, 39, 39 serve options; 1.1.0 and 1.2.0 had no table, 1.0.0's had 14 from mixed "
     "pages; 1.0.0's --backend takes pytorch | trt, later releases pytorch | tensorrt | "
     "_autodeploy; --config and --enable_chunked_prefill from 1.2.0)"),
    ("NVIDIA/TensorRT-LLM gh-pages 1.0.0/_modules/tensorrt_llm/llmapi/llm_args.html (commit "
     "090dc64986babe6445f97234e18db6e35d50af55) and 1.1.0/_modules/tensorrt_llm/llmapi/"
     "llm_args.html (8660c119a1f9be58cb574b8895f60bdb2e2c40ec): the releases' llm_args.py as "
     "published (KvCacheConfig, CacheTransceiverConfig, BaseLlmArgs to max_batch_size)",
     "issue 21, TensorRT-LLM releases: 1.0.0's KvCacheConfig (a StrictBaseModel) has "
     "enable_block_reuse, free_gpu_memory_fraction, dtype ('auto') and no tokens_per_block; "
     "1.1.0's adds tokens_per_block (int, 32); CacheTransceiverConfig.backend "
     "Literal['DEFAULT', 'UCX', 'NIXL', 'MPI'] and BaseLlmArgs (extra 'forbid') "
     "enable_attention_dp, kv_cache_config, enable_chunked_prefill, cache_transceiver_config in "
     "1.0.0 (TorchLlmArgs' disable_overlap_scheduler not re-read): the per-release YAML keys "
     "of the option tables and the 1.0.0 refusal of a DeepSeek sparse-attention deployment "
     "(its 64-token blocks need tokens_per_block)"),
    ("triton-inference-server/tensorrtllm_backend (git snapshot, HEAD 0b9d7d5): the "
     "tensorrt_llm submodule pins of its 'TensorRT-LLM Backend vX release' commits (v1.0.0 tag: "
     "ae8270b713446948246f16fadf4e2a32e35d0f62; 1.1.0rc0-rc5, 1.2.0rc0-rc7) and branches "
     "r25.10-r26.07 (r25.12: 9bab773cb5d367a705d7727807ccde1de7ec1b21 with "
     "dockerfile/Dockerfile.triton.trt_llm_backend TENSORRTLLM_VER=1.1.0; r26.04: release/1.2.1 "
     "of its own TensorRT-LLM fork)",
     "issue 21, TensorRT-LLM releases: the release commits tried for reading tensorrt_llm/ at a "
     "dated commit (none stored in the index); ae8270b matches the commit 1.0.0's published docs "
     "name"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py (stored revisions at commits "
     "4c05a74891e4df8066f08ed4ce14b0972abe4e25 and 00209af149e7774406881a37283dce303571eb11, a "
     "0.x revision and a grpc_server command by text search, index ids 50627517773 and "
     "36475340805), tensorrt_llm/version.py (000a01de66f0eab4ab05640711f0253f50f5209c: "
     "1.0.0rc4; b35ac1b64368513d215c57d2ed01d62d910df8da: 1.2.0rc2), "
     "tensorrt_llm/_torch/models/ (find_files listing; __init__.py at 89fd9b74), "
     "docs/source/release-notes.md (001eaecea63dd6bdbfd02aed1bf8dc7fad567bd0); forks' "
     "tensorrt_llm/version.py (Ammar-Alnagar, Mu-L, WhiteD2125, chiendb97, glqglq, k-l-lambda, "
     "ltalal, mikeiovine, codego7250, Ataraksia: 0.7.1 to 1.3.0rc80) and find_files listings "
     "of forks' serve.py (52) and _torch/models/__init__.py (36); the PyPI sdist "
     "tensorrt_llm-1.1.0.tar.gz (a wheel_stub that fetches from NVIDIA's index)",
     "issue 21, TensorRT-LLM releases: no stored source file could be tied to a modelled release "
     "(read_file at the release commits finds none), so the option tables come from the "
     "published references and the architecture table records every release as not read; the "
     "serve.py at 00209af that gave the former 1.2.1 table was undated (its 39 options match "
     "1.2.1's published reference)"),
    ("NVIDIA/TensorRT-LLM gh-pages 1.0.0/models/supported-models.html (commit "
     "090dc64986babe6445f97234e18db6e35d50af55) and 1.1.0/models/supported-models.html "
     "(8660c119a1f9be58cb574b8895f60bdb2e2c40ec); search excerpts of the nvidia.github.io "
     "trtllm-serve pages (0.18.2, 0.19.0rc0, 0.20.0rc1, 1.0.0rc6, 1.1.0rc5, 1.4.0rc4, latest) "
     "and of mintlify.com/NVIDIA/TensorRT-LLM cli/trtllm-serve",
     "issue 21, TensorRT-LLM releases: the supported-models tables are incomplete lists (1.1.0's "
     "18 architectures without GptOssForCausalLM, while 1.0.0's key-model matrix has a GPT-OSS "
     "row and the release notes add GPT-OSS in 1.1), so they do not bound what a release "
     "loads: not used for the architecture table; the search excerpts hold no option list"),
    ("vllm-project/vllm issue #6854 (RFC: multi-step scheduling, 2024-07), issue #6913 (RFC: "
     "asynchronous output processor, 2024-07), issue #10634 (asynchronous scheduling idea, "
     "2024-11), PR #9856 (V1 multiprocessing tensor parallel, 2024-10), PR #17866 (V1 fast "
     "decode prepare path, 2025-05), PR #19970 (async scheduling, 2025-06), PR #23391 and "
     "issue #23233 (core loop for async input preparation, 2025-08), PR #23569 (fully overlap "
     "model execution, 2025-08), PR #23914 (async scheduling in one process, 2025-08), PR "
     "#42131 (decode fast path, 2026-05)",
     "issue 20, host round: what the GPU idles for between steps in each vLLM generation: V0 "
     "of mid-2024 about 4 ms a decode step (5-13 ms; nsys, #6854), _process_model_outputs "
     "0.2 and 3.4 ms at batch 1 and 32 on Llama-3-70B fp8, 4 × H100 (#6913), 5-6 ms between "
     "decodes at batch 256 (#10634); V1's "
     "TP executor broadcasting the scheduler output to every worker through a shared-memory "
     "queue, each worker preparing inputs and sampling (#9856); async scheduling from 0.10.0 "
     "(#19970), its throughput gain 1.1-5.4% at 32-256 sequences on A100 TP 2 (#23914) and an "
     "expected 5-10% more from overlapping the model runner (#23569); about 0.4 ms of "
     "scheduling and input preparation a step in 2026 (#42131, B200). None measures 0.8.x at "
     "TP 8: the 2.6 ms a step of vLLM before 0.10.0 is fitted (above), these bound and explain "
     "it; nothing fitted to them"),
    ("lmsys.org/blog/2024-12-04-sglang-v0-4 (zero-overhead batch scheduler; read as "
     "mirrored at openlm.ai/sglang-v0.4); "
     "nvidia.github.io/TensorRT-LLM overlap scheduler page",
     "issue 20, host round: SGLang 0.4's overlap scheduler leaves no GPU idle between decode "
     "batches with the Triton backend and 'a minor gap' with FlashInfer (nsys figure, no "
     "number); TensorRT-LLM's overlap scheduler the same design: neither gives a per-step or "
     "per-request figure; nothing fitted"),
    ("issue 21, eleventh round (logs): the round's four records, docs/validation/"
     "engine_logs_versions.yaml: search index file 7292846353 (vLLM 0.10.2, "
     "Qwen3-Next-80B-A3B-Instruct at TP 2 on H200s, a terminal session of 2025-10-23), "
     "sgl-project/sglang .claude/skills/clean-startup-log/SKILL.md @ 31a40974 (SGLang's "
     "reference start-up log, Qwen3-8B on a B200, 2026-04-27), search index file 57978845466 "
     "(vLLM 0.19.1, Qwen3-8B on an A100-SXM4-40GB, 2026-06-25), search index file 70947466353 "
     "(vLLM 0.26.0, Llama 3.1 8B on an A40, a harness's test fixture, 2026-08-10)",
     "predicted with every rule and constant as they stood (training +0.89% and +2.94%, "
     "held-out +0.76% and -0.78%); nothing fitted or changed because of them"),
    ("issue 21, eleventh round (logs), second batch of records: search index file 34342936495 "
     "(vLLM 0.15.1, Llama 3.1 8B on an A100 40GB, offline and eager, 2026-02-06), 54570340937 "
     "(vLLM 0.24.0, Qwen2.5-7B on an RTX 4090, a study log of 2026-07-06), "
     "samilazrak/vllm-optimization-lab @ a7b193a3 results/raw/base.startup.log, "
     "awq.startup.log, tuned.startup.log and README.md @ 902b7e49 (vLLM 0.29.0, Qwen3-14B and "
     "Qwen3-14B-AWQ on an L40S, 2026-09-12); vllm 0.28.0 and 0.29.0 wheels (PyPI): "
     "config/vllm.py use_v2_model_runner (0.28.0: V2 by default only for "
     "DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES; 0.29.0: on CUDA for every architecture), "
     "v1/worker/gpu/model_runner.py, cudagraph_utils.py profile_cudagraph_memory, states.py, "
     "sample/penalties.py",
     "predicted as the rules stood (training +1.63%, +7.08%, +2.07%; held-out +0.63%, "
     "+3.33%); the 0.29.0 excess (about 1 GiB more kept outside the KV cache under the V2 "
     "runner) explained as far as the source allowed, nothing fitted or changed"),
    ("issue 21, eleventh round (logs): real lines read for the log readers' tests "
     "(tests/test_log_release_lines.py): https://github.com/noonghunna/club-3090/pull/1139 "
     "(vLLM's 'Free memory on device ... consumed memory' report), search index files "
     "70347757402 (vLLM 0.31.0 one-line pool), 2263047771 (TensorRT-LLM 1.1.0rc3 on a DGX "
     "Spark: its estimation pass), 68907005610 (vLLM's refusal line quoted in a log "
     "classifier), 5516360 (NVIDIA/TensorRT-LLM docs/source/reference/memory.md: the "
     "runtime's 'Memory usage when calculating max tokens' line), 56304441455, 5721148561, "
     "3501434665 and 843526953 (TensorRT-LLM resource_manager.py calculate_max_num_blocks and "
     "_torch/pyexecutor/_util.py: the engine sets kv_cache_config.max_tokens to its own "
     "estimate), 7292846353 (vLLM 0.10.2's report in bytes)",
     "the lines the readers now read (total memory, utilisation, terms, the engine's own "
     "max_tokens and max_seq_len kept apart from the settings); not fitted"),
    ("vllm 0.33.0 wheel (PyPI): v1/worker/gpu_worker.py (determine_available_memory, "
     "compile_or_warm_up_model's 'Free memory on device' report and 'CUDA graph pool memory'), "
     "v1/worker/utils.py (the refusal), v1/core/kv_cache_utils.py update_kv_cache_capacity (one "
     "line: 'GPU KV cache size: N tokens, Maximum concurrency ...'; 'GPU + host' with "
     "hisparse), utils/mem_utils.py format_gib; sglang 0.5.10-0.5.16 wheels (PyPI): their "
     "file dates (0.5.10 2026-04-05, 0.5.11 2026-05-07, 0.5.12 2026-05-16, 0.5.13 2026-06-11, "
     "0.5.14 2026-06-26, 0.5.16 2026-07-25) to date SGLang's main branch; PaddlePaddle's "
     "paddle.device.cuda documentation (search index files 15187234989, 34325702647, "
     "10665576045: A100-SXM4-40GB total_memory=40536MB)",
     "issue 21, eleventh round: the readers' line formats; the SGLang record's release; the "
     "A100 40GB record's cause (the validation profile's 40 GiB label against torch's 39.59 "
     "GiB); not fitted"),
    ("issue 21, eleventh round (logs): looked at, none a record: search index files 54815375998 "
     "(SGLang's same reference log on 2026-05-24: 275.75 GB free before loading, no GPU named "
     "and no shipped profile that large), 51912001300, 52359741241, 51830815744, 52147250738, "
     "56970046574, 56753445407, 61569442000, 60823496477 (Qwen3.6/3.8 NVFP4 builds, DGX "
     "Spark), 55746429542 (vLLM-Metal), 56725819772, 61561276785 (DeepSeek V4), 61222544093, "
     "60449471537, 56878676544, 56681168668, 61511710941, 55685126685, 63707531255, 70097890134, "
     "51923877316, 59915398117, 58308197829 (hybrid or unshipped models, patched builds, GB10), "
     "57759592298, 62375882188, 69518881731, 54553741852, 65786485110, 66328347892, "
     "66047034485, 71071236012, 65738777320, 55068335887, 54807160509, 66584923754 (SGLang: "
     "GB10, unshipped models, pools capped by --max-total-tokens, a tutorial), 57372830844 "
     "(vLLM 0.22.0 Qwen2.5-7B offline: no GPU or pool line), 54926105127, 55021192520, "
     "58506115429, 55752471452, 55665240602, 56007080126, 55592757904, 54492899325, "
     "63102470423, 54865411404, 61452860829, 71644558209, 54603410239, 67109588529, "
     "68324944604, 70296252952, 70102893825, 68406592539, 70206473364, 71132288543, "
     "71234811774, 70705928983, 69218136759 (vLLM 0.20-0.31: AWQ/GPTQ/LoRA/VL/unshipped "
     "models, CPU or Metal devices, parsers' fixtures without settings), 59140501328, "
     "16529787389, 6696219135, 19088562682, 29371299753, 7011808521, 53172557771, "
     "61634826145, 70957398956 (TensorRT-LLM: engine builds, examples, no GPU or fraction); "
     "threads https://github.com/noonghunna/club-3090/pull/96, /issues/652, /issues/612, "
     "/issues/295, /issues/294, /pull/594, /pull/323, /issues/127 (RTX 3090/5090 with Genesis "
     "patches, drafters, Qwen3.6), https://github.com/guqiong96/Lvllm/issues/35 (a CPU-offload "
     "fork), https://github.com/vllm-project/vllm/issues/28228, /issues/40691 (Qwen3.5-27B on "
     "an H20 with --load-format dummy: the model line contradicts the environment), "
     "/issues/43308, /issues/46367, /issues/50780, /pull/51590, /issues/53013, /issues/57936, "
     "/issues/51041, /pull/54275, /pull/57656, /pull/38408, /pull/42159, /pull/48526, "
     "https://github.com/gpustack/runner/pull/251, https://github.com/eugr/spark-vllm-docker/"
     "issues/396, https://github.com/wtdcode/vllm-backport/issues/15, https://github.com/"
     "aivrar/vllm-windows-build/issues/4, https://github.com/mitchross/talos-argocd-proxmox/"
     "pull/1995, https://github.com/vllm-project/vllm-ascend/pull/8289, /pull/9309, "
     "https://github.com/sgl-project/sglang/issues/29575, /pull/36583, /pull/28876, "
     "https://github.com/NVIDIA/TensorRT-LLM/pull/3362, https://github.com/"
     "triton-inference-server/tutorials/pull/150, https://github.com/Tanguille/cluster/pull/"
     "4179, https://github.com/MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks/issues/204; pages "
     "blog.huikang.dev/2025/12/28/vllm-logs.html (0.11.2), devfloor9.github.io",
     "no shipped model on a shipped GPU with its settings and pool, or a patched build, or a "
     "pool capped by the user"),

    ("nirjhar17/guidellm-pd-disaggregation@2ff15754673a267ec23b1f3c2e29e13af0af186e "
     "reports/sync-benchmarks.yaml, reports/all-benchmarks.csv (the author's own table), "
     "manifests/04-rosa-machinepool-commands.sh; manifests/01-llminferenceservice-pd.yaml at "
     "048af10",
     "issue 23, result formats: a GuideLLM 0.5.0 benchmarks.yaml (Qwen3-0.6B on llm-d "
     "prefill/decode over time-sliced Tesla T4s, synchronous): kept trimmed as reader test "
     "data; not scored (no T4 profile, a P/D router kvcalc does not model)"),
    ("anud18/qwen36-vllm-aiperf-benchmark@d254ffc72ef9236ee68c01172b74d8261396a0fd "
     "results/nvfp4/5090/agent/c2/{profile_export_aiperf.json,profile_export_aiperf.csv}, "
     "meta.json at 0861548; RESULTS_qwen3-8b-fp8.md at bd55b67",
     "issue 23, result formats: AIPerf 0.10.0 JSON and CSV of Qwen3.6-35B-A3B-NVFP4 on vLLM, "
     "one RTX 5090, concurrency 2: kept as reader test data, not scored (the model is not "
     "shipped); the Qwen3-8B-FP8 runs (H100 PCIe, RTX 5080, GB10) are stored as tables only, "
     "their result files are not in the repository"),
    ("er0080/vllm-benchmarking@35d37799380d8acc17607202959a5f17999ef30e "
     "packages/protocol/tests/fixtures/bench_serve_v0.25.1.json; @57cb02c "
     "packages/api/tests/fixtures/vllm_sweep_v0.25.1/SERVE--max_num_seqs=4-BENCH--"
     "max_concurrency=2-num_prompts=8/{run=0.json,summary.json}",
     "issue 23, result formats: vllm bench serve and vllm bench sweep (0.25.1) output for "
     "facebook/opt-125m, GPU unstated: kept as reader test data, not scored"),
    ("ajith-sirra-amd/InferenceMAX_Rocm_Team@598828615e7701f3f4f8ac5b1da2dbb49fe11460 "
     "results/0603_sa/.../glm5.1_tp2_conc4_...json, results/0601/*/agg_bmk.json; "
     "sariekr/gpu_conc@995b194 H200/benchmark_concurrency_16.json",
     "issue 23, result formats: the harnesses' own summaries (not a benchmark tool's file): "
     "looked at, not kept"),
    ("PyPI wheels guidellm 0.1.0, 0.2.1, 0.3.0, 0.4.0, 0.5.0, 0.8.1 (guidellm/benchmark/"
     "benchmark.py, output.py, schemas/, outputs/csv.py, schemas/request_stats.py, "
     "schemas/benchmark/goodput.py, core/report.py of 0.1.0); aiperf 0.1.1, 0.3.0, 0.8.0, "
     "0.13.0 (exporters/json_exporter.py, metrics_json_exporter.py, metrics_csv_exporter.py, "
     "common/models/export_models.py, record_models.py, post_processors/"
     "record_export_results_processor.py, metrics/metric_dicts.py); genai-perf 0.0.10, 0.0.16 "
     "(export_data/json_exporter.py, parser.py); sglang 0.2.7, 0.3.0, 0.4.0 (bench_serving.py)",
     "issue 23, result formats: the key sets each release writes: GuideLLM 0.2-0.3 "
     "args.strategy/worker.backend_model/request_totals, 0.4+ config.strategy/config.backend, "
     "0.8 config.slo and request_goodput, --sample-requests samples; AIPerf 0.1 records "
     "nesting; GenAI-Perf 0.0.10 flat input_config; SGLang 0.2's record without completed"),
    ("vllm-project/vllm benchmarks/benchmark_serving.py and vllm/benchmarks/serve.py as stored "
     "copies (find_string: result_json ramp_up_strategy, request_inthroughput)",
     "issue 23, result formats: the ramp-up keys beside request_rate; the first --save-result "
     "files' misspelt request_inthroughput"),
    ("NVIDIA/TensorRT-LLM@0249976575050d2c624a5f285683c66de311a3b7 "
     "tensorrt_llm/bench/dataclasses/reporting.py (get_request_info, get_output_tokens); "
     "tensorrt_llm/bench/dataclasses/statistics.py at 3856265",
     "issue 23, result formats: --request_json (RequestRecord per request, ns timestamps) and "
     "--output_json (texts only) layouts; nearest-rank percentiles"),
    ("LambdaLabsML/vllm-benchmark@a4f9f4371a1ccac781293837fce2bce0cc6d25cc "
     "results/prompt_10/1xH100-80GB-SXM/Meta-Llama-3.1-8B-FP8_tp1_len2048.json; benchmark.py "
     "at 29dd18a, benchmark.sh at 680cc0a, README.md at 332b716",
     "issue 23, result formats: vLLM benchmark_serving (v0.5.4 image) JSON with E2E under "
     "*_latency_ms and three empty successes: kept; held out, scored uncalibrated, nothing "
     "changed for it: TTFT p50 -51%, TPOT mean -20%, output tok/s +12%, E2E mean -16% "
     "(10 requests all at once; vLLM 0.5.4 replayed as 0.10.0, the oldest modelled)"),
    ("triton-inference-server/perf_analyzer issue #298 (2025-02, 'Using --streaming does not "
     "respect --output-tokens-mean'), the stored copy of its text",
     "issue 23, result formats: two GenAI-Perf profile_export_genai_perf.json (TensorRT-LLM "
     "0.16 ensemble, concurrency 100, streaming and not): the streaming one kept as reader "
     "test data (its tokenizer a path string: the reader had refused it); not scored (GPU "
     "unstated, output lengths over-counted by the tool's bug)"),
    ("jhurlocker/guidellm-pipeline@c925e317ed651153ae80ce7d192a2a02272b5bd2 "
     "utils/guidellm-wb/results/llama-3-2-3b_20250721_003902/benchmark-results.yaml",
     "issue 23, result formats: a GuideLLM 0.2 benchmarks.yaml (llama-3-2-3b behind a "
     "model-as-a-service endpoint, synchronous, 512/128): kept trimmed as reader test data; "
     "not scored (GPU unstated)"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm.py BaseLLM._check_arguments at "
     "4c05a74891e4df8066f08ed4ce14b0972abe4e25 (PyTorch backend, chunked prefill off, not "
     "generation-only: prompt_len / cp_size + query_len > max_num_tokens raises 'should not "
     "exceed max_num_tokens') and at 00966934ce32e0603a33f8c922525cf3678afab4 (an older revision "
     "whose PyTorch branch returns before any check); NVIDIA/TensorRT-LLM pull 6259 (merged "
     "2025-07, the review thread shows the check added to _check_arguments), issue 9277 "
     "(2025-11-18: the ValueError raised at llm.py line 583 for a 9,351-token prompt over 8,192), "
     "pull 9499 (chunked prefill on by default: closed, not merged) and pull 15467 (open: block "
     "reuse exempting cache hits)",
     "issue 21, TensorRT-LLM whole prompts: every modelled release (1.0.0 to 1.2.1, cut after "
     "pull 6259) refuses a prompt over max_num_tokens with chunked prefill off, so kvcalc sizes "
     "max_num_tokens to the max model length unless stated (calc/deploy/engines/trtllm/"
     "prompts.py); the release tags themselves were not read"),
    ("vllm 0.33.0 wheel from PyPI (pip download --no-deps): vllm/v1/worker/gpu_worker.py "
     "(determine_available_memory, the 'Free memory on device' line), "
     "vllm/v1/core/kv_cache_utils.py (update_kv_cache_capacity: 'GPU KV cache size: N tokens, "
     "Maximum concurrency for L tokens per request: Cx' on one line, N = int(C × L)), "
     "vllm/v1/worker/gpu_model_runner.py ('Model loading took', 'Profiling CUDA graph "
     "memory', 'Estimated CUDA graph memory'), vllm/v1/engine/core.py, vllm/utils/mem_utils.py",
     "QA of issue 21: a start-up log written from 0.33's own format strings, read by kvcalc "
     "log and held against kvcalc capacity --engine-version 0.33 (they agree: 449,696 "
     "tokens for Llama 3 8B on one H100 at max-model-len 8,192); nothing fitted"),
    ("sglang 0.5.23 wheel from PyPI (pip download --no-deps): sglang/srt/server_args.py "
     "(--attn-dp-size, the deprecated --enable-dp-attention and --disable-cuda-graph)",
     "QA of issue 21: the attention-DP + EP form of plan's SGLang commands; nothing fitted"),
    ("issue 21, the V2 model runner's profile (round 11 follow-up): vllm 0.28.0-0.33.0 wheels "
     "(PyPI): v1/worker/gpu_worker.py determine_available_memory and its start-up report, "
     "utils/mem_utils.py memory_profiling, v1/worker/gpu/model_runner.py (profile_run, "
     "_dummy_run, _dummy_sampler_run, load_model), gpu/input_batch.py InputBatch.make_dummy, "
     "gpu/sample/{sampler,states,penalties,gumbel,logprob}.py, gpu/states.py, "
     "gpu/buffer_utils.py (UVA tensors), gpu/cudagraph_utils.py profile_cudagraph_memory, "
     "config/vllm.py use_v2_model_runner, engine/arg_utils.py get_batch_defaults, "
     "model_executor/layers/logits_processor.py; vllm 0.11.0-0.14.0 and 0.28.0-0.33.0 "
     "config/compilation.py (combo_kernels and benchmark_combo_kernel from 0.11.1, torch >= "
     "2.9); torch 2.13.0 _inductor/scheduler.py speedup_by_combo_kernel and "
     "codegen/triton.py benchmark_combo_kernel, codegen_kernel_benchmark (get_args); "
     "samilazrak/vllm-optimization-lab @ a7b193a3 results/raw/{base,awq,tuned}.startup.log "
     "read whole (the 'Actual usage' report, 'Compiling a graph for compile range', 'CUDA "
     "graph pool memory'), results/raw/versions.txt and nvidia-smi-idle.txt; search index file "
     "57978845466 read whole (0.19.1 'Directly load the compiled graph(s)'); "
     "vllm-project/vllm issue 50159 (V2 against V1 on 0.26.0: 0.89 GiB more KV under V2) and "
     "pull 49233 (excerpts); vllm 0.19.1 wheel: v1/worker/gpu_model_runner.py "
     "profile_cudagraph_memory, v1/attention/backends/flash_attn.py (FA2: UNIFORM_BATCH, no "
     "split bound for graphs)",
     "the 0.29.0 L40S excess read as a cold torch.compile's benchmark copy of the embedding "
     "table (1.449 GiB + 2 × tokens × d_model × 2 B against the logs' 1.48, 1.48, 1.60 GiB "
     "transient peaks) with the V2 runner's lighter sampler pass and its kept penalty "
     "buffers; no rule changed (the compile cache's state is a fact of the start kvcalc has "
     "no setting for), the decomposition in bench/validation_capacity.py STATED; the A100 "
     "0.19.1 graph estimate (2.35 GiB, ~28 MiB a graph) not explained by the source"),
    ("search excerpts (issue 21, lead, session 7): NVIDIA/TensorRT-LLM tests (test_llm's "
     "test_max_num_token_check), taco-project/FlexKV examples/trtllm_adaption/launch.sh, "
     "banjuede/deepseek-test trt-llm/serve.sh, and client code quoting trtllm-serve's 'should "
     "not exceed max_num_tokens' refusal; vllm-project/vllm issues 21348, 28228, "
     "guqiong96/Lvllm issue 35 and noonghunna/club-3090 pull 96 (start-up log excerpts)",
     "that trtllm-serve refuses a prompt over max_num_tokens with chunked prefill off, and "
     "that users launch it so (--max_seq_len 155648 --max_num_tokens 16384): led to the "
     "prompt budget rule (calc/deploy/engines/trtllm/prompts.py); the log excerpts pointed the "
     "round-11 search, none a record by itself"),
    ("ai-dynamo/aiconfigurator@095f58a51 aic-core/src/aiconfigurator_core/systems/"
     "silicon_sample.csv, its silicon_data_source column; tools/accuracy_regression_testing/"
     "README.md, .claude/skills/aic-silicon-align/SKILL.md",
     "issue 20, MTP round: each TensorRT-LLM run's origin (InferenceX images, config ids, "
     "measured dates), read by tools/silicon_mtp_rows.py; the skill and README say nothing of "
     "speculative decoding"),
    ("SemiAnalysisAI/InferenceX-app@77ca49a67 packages/db/migrations/001_initial_schema.sql; "
     "inferencex.semianalysis.com compare-spec-decode pages (DeepSeek R1 B200 FP4, GB200 FP4, "
     "GB300 FP8; search excerpts)",
     "issue 20, MTP round: a config id includes its spec_method; InferenceX publishes MTP and "
     "plain runs of the same deployments side by side; no acceptance rates"),
    ("NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/blog2_DeepSeek_R1_MTP_Implementation_and_"
     "Optimization.md (commit 000a01de6) and blog1 (search excerpt); docs/source/deployment-guide/"
     "quick-start-recipe-for-deepseek-r1-on-trtllm.md (search excerpt: MoE backend matrix); "
     "docs/source/performance/perf-overview.md@00f37686 llm_options.yml again",
     "issue 20, MTP round: MTP Eagle calls the one MTP module K times; acceptance only in "
     "figures (images, not read); the page's MoE options set no speculative_config and no "
     "moe_config"),
    ("ROCm/ATOM#609, vllm-project/vllm PR 36561 and issue 33497, sgl-project/sglang PR 3582, "
     "HabanaAI/vllm-fork PR 1254, vllm-project/vllm PR 13626 (search excerpts)",
     "issue 20, MTP round: DeepSeek MTP acceptance elsewhere (chat templates lower it; ~1.9 "
     "accepted of 2 drafts in SGLang's first MTP, 'accept rate 0.84%' on Gaudi); none of "
     "InferenceX's workload, not used for α"),
    ("NVIDIA/TensorRT-LLM gh-pages 1.0.0/_modules/tensorrt_llm/llmapi/llm_args.html (090dc649) "
     "MoeConfig; tensorrt_llm/_torch/modules/fused_moe create_moe.py get_moe_cls, "
     "fused_moe_trtllm_gen.py can_implement / _check_configs, fused_moe_deepgemm.py "
     "_get_quant_method (code-index excerpts of several revisions)",
     "issue 20, MoE-backend round: MoeConfig.backend Literal[CUTLASS, CUTEDSL, WIDEEP, TRTLLM, "
     "DEEPGEMM, VANILLA] default CUTLASS (a later revision adds TRITON); TRTLLM builds "
     "TRTLLMGenFusedMoE only for fp8 block scales, NVFP4 and the MXFP4 modes (else CUTLASS with a "
     "warning), on SM 100/103 alone; DEEPGEMM takes fp8 block scales or unquantised experts: "
     "the refusals of calc/deploy/engines/trtllm/moe_backend.py"),
    ("issue 21, the cold compile (compile round): vllm 0.11.0, 0.11.1, 0.28.0-0.33.0 wheels "
     "(PyPI): config/compilation.py CompilationConfig.__post_init__ (combo_kernels, "
     "benchmark_combo_kernel), config/vllm.py (enforce_eager -> CompilationMode.NONE), "
     "METADATA (torch==2.8.0 in 0.11.0, 2.9.0 in 0.11.1), v1/worker/gpu/cudagraph_utils.py "
     "profile_cudagraph_memory (V2: every PIECEWISE graph captured, FULL extrapolated); torch "
     "2.13.0 _inductor/scheduler.py speedup_by_combo_kernel, _inductor/codegen/triton.py "
     "benchmark_fused_nodes, benchmark_codegened_module, benchmark_combo_kernel, "
     "codegen_kernel_benchmark (get_args: rand_strided per buffer and constant); "
     "llm-d-incubation/llm-d-planner @ d3121e0 accuracy/results/v0.19.0/logs/*.log (every "
     "log's 'Compiling a graph' / 'Directly load' and 'Memory profiling takes' lines; "
     "meta-llama-llama-3--h100-80gb--tp1pp1dp1--8192-dtf32.log: torch peak 2.21 GiB cold in "
     "fp32, meta-llama-llama---h100-80gb--tp1pp1dp1--8192-dtbf16.log: 1.89 GiB warm, as the "
     "cold bf16 runs); samilazrak/vllm-optimization-lab @ a7b193a "
     "results/raw/{base,awq,tuned}.startup.log (the compile lines); search index files "
     "70947466353 (the A40 fixture: 'compilation: 29.60 s'), 57978845466 (0.19.1's cache "
     "load), 54570340937 (0.24.0's cache hit); LMCache/LMCache issue 3430 and pull 1740 "
     "(search excerpts: the config dump, no compile line found), vllm-project/vllm pull 35472 "
     "(title only); for the L40S total: search index files 62046585405 and 70819400116 and "
     "the find_string hits for '/44.39 GiB)' and '/44.52 GiB)' (the latter an L20)",
     "the cold-compile rule (rules.py 0.11.1 change, memory.compile_benchmark_bytes): no "
     "constant fitted; the copy of the table and two token-wide outputs checked against the "
     "four printed peaks (1.48, 1.48, 1.60, 2.21 GiB against 1.488, 1.488, 1.605, 2.207); the "
     "L40S profile's usable memory set to 44.39 GiB"),
    ("ROCm/vllm@040de12d45c16d6de6ad386cc57dd68b8c5b805e docs/dev-docker/README.md (rocm/vllm-dev, "
     "vLLM 0.10.0, 2025-08-13) and the file's 147 stored revisions (git history of the fetched "
     "mirror; branches 355_wip*, whose READMEs hold no MI355X table)",
     "issue 20, round 20: its MI300X throughput table (8 rows) and benchmark_latency table (32 "
     "rows, batch 1-128, 128 and 2,048 tokens in, 2,048 out) held out in the AMD section "
     "(bench/validation_amd.py DEV_DOCKER_RECORDS: signed median -0.2%, median |error| 9.9%); "
     "the other revisions (MI300X tables of older releases; MI325X and MI355X named, never "
     "tabled) looked at, not used"),
    ("issue 20, round 20 searches for MI325X / MI355X runs: rocm.blogs.amd.com/artificial-"
     "intelligence/w4a6-quant-mm (MI355X BF16/FP8/MXFP4 Llama-3.1-8B and Qwen3.6-27B; only its "
     "opening was readable, the tables not reached) and its summary at 24-ai.news; metrum.ai "
     "'The FP4 Breakthrough' (MI355X MXFP4 vs FP8 ratios, no per-run table in the part read); "
     "inferencex.semianalysis.com compare-precision pages (llama-3-3-70b-mi355x-fp4-vs-fp8, "
     "qwen-3-5-mi355x-fp8-vs-bf16: interpolated at target interactivity); docs.vultr.com "
     "inference-cookbook rocm/benchmarks/validation-testing/llama-3-1 and model-guides/"
     "llama-3-1-405b (MI325X, vLLM 0.14.1: whether tok/s counts input tokens not stated, lengths "
     "of the 'quick' mode not stated); hf.edwardfuchs.keenetic.pro/papers/2603.10031.md "
     "(opening only); llm-d/llm-d docs/accelerators/amd-mi355x-pd-validation.md (file list "
     "only); ROCm/ATOM pull 536; modular/modular issue 5664 (MAX engine on MI355X); "
     "vllm-project/recipes pulls 127, 443, 476, 665, 857, 926, 968; SemiAnalysisAI/InferenceX "
     "pulls 827, 837, 980, 1936, 2793 and issue 859 (unshipped or MoE models, speculative "
     "decoding, or settings only); sgl-project/sglang pulls 30179 and 36732; vllm-project/vllm "
     "pull 27058 (DeepSeek-R1 on MI355X, the excerpt cut before its figures); ROCm/"
     "legacy-rocm-build pull 5554; samuel-bohman/AI-benchmarking-guide Azure_Results/"
     "ND_MI300X_v5_results.md (MI300X hipBLASLt FP8 GEMM up to 1,159.5 TFLOPS, HBM copy 4.11 "
     "TB/s: kernel ceilings, not serving runs); mlcommons inference_results v6.0 summary "
     "(MI355X fp4, 11-node Interactive); issue-tracker excerpts of ROCm/vllm pull 920, "
     "vllm-project/vllm pulls 27776 and 43276, sgl-project/sglang pulls 21710, 30812 and 31044 "
     "(MI300X GLM-5.1 / MiniMax-M2.7 on SGLang: unshipped models)",
     "looked at, not used: no MI325X run with stated lengths, concurrency and engine found; no "
     "further MI355X run of a shipped model with all of GPU, checkpoint, engine release, TP, "
     "lengths, concurrency and a measured figure in the text read"),
    ("vllm 0.8.3 (PyPI wheel) `vllm/benchmarks/serve.py` get_request and main (the same code as "
     "the repository's benchmarks/benchmark_serving.py of April 2025); vllm 0.28.0 (PyPI wheel) "
     "`vllm/benchmarks/serve.py` (precomputed, rescaled gaps); vllm-project/vllm pull 21108 "
     "(merged 2025-07-17) and issue 21104; surajssd/llm-k8s@58b61c5 results_serving_meta-"
     "llama-Llama-3.3-70B-Instruct/01_tp8_pp1/benchmark-script-run.sh (the client's Namespace: "
     "seed=0, burstiness=1.0, sharegpt)",
     "issue 23, score round: the vLLM client before 2025-07-17 slept np.random.gamma(burstiness, "
     "1 / (rate × burstiness)) after each send, unscaled, numpy seeded with --seed (0), its "
     "ShareGPT sample shuffled by Python's generator: the runs dated before it are replayed "
     "with those gaps (calc/data/bench_results/vllm_serve.py client_draw); nothing fitted"),
    ("sglang 0.4.0 (PyPI wheel) `sglang/bench_serving.py` sample_random_requests, get_request, "
     "run_benchmark (--seed default 1); datacrunch-research/h200-benchmarks@c091ef5 "
     "sglang/outputs/llama_3_3_70b_online_output.jsonl and llama_405b_online_output.jsonl "
     "(total_input_tokens, total_output_tokens of each run)",
     "issue 23, score round: the random dataset's lengths are np.random.randint(max(int(L × "
     "ratio), 1), L + 1) and randint(int(L × ratio), L + 1) from numpy seeded 1, then "
     "np.random.exponential(1 / rate) after each send; the seeded draw reproduces every run's "
     "input and output token totals exactly (e.g. 152,612 and 160,347 at 1 request/s), so those "
     "runs are replayed with the lengths and send times the client drew "
     "(calc/data/bench_results/sglang_serving.py client_draw); nothing fitted"),
    ("issue 20, vLLM silicon round: the vllm 0.12.0 wheel's quantization/fp8.py "
     "(get_fp8_moe_backend: DeepGEMM for block-fp8 MoE below TP 8 where installed, Triton "
     "otherwise), fused_moe/fused_moe.py and deep_gemm_moe.py (_valid_deep_gemm: DeepGEMM only "
     "from 128 tokens, so a decode step of 4-48 runs Triton), deep_gemm_utils.py "
     "(compute_aligned_M), envs.py (VLLM_USE_DEEP_GEMM 1, VLLM_MOE_USE_DEEP_GEMM 1) and the "
     "tuned configs fused_moe/configs/E=128,N={384,768},device_name=NVIDIA_H200,dtype=fp8_w8a8,"
     "block_shape=[128,128].json; aiconfigurator 0.7.0 wheel (PyPI) systems/data/h200_sxm/vllm/"
     "0.12.0/moe_perf.txt (Qwen3-235B's layer, fp8_block, TP 2 and 4, power-law routing)",
     "why Qwen3-235B-A22B-FP8 under vLLM 0.12.0 on H200 measures about 1.8 × kvcalc's step: "
     "not a missing tuned config nor DeepGEMM at decode; the 0.12.0 kernel table's layer time "
     "(0.17 ms at 16 tokens, 0.33 ms at 128, TP 2) does not explain it either; left open "
     "(docs/step-time.md)"),
    ("SemiAnalysisAI/InferenceX benchmarks gptoss_fp4_h100 launch (search excerpt of an "
     "experimental copy: --max-num-seqs $CONC, max-num-batched-tokens 8192, "
     "no-enable-prefix-caching, VLLM_MXFP4_USE_MARLIN=1, --num-prompts CONC × 10) and "
     "utils/bench_serving/KNOWN_LIMITATION.md (the client becomes client-bound); "
     "ajith-sirra-amd/InferenceMAX_Rocm_Team utils/bench_serving/backend_request_func.py (one "
     "aiohttp session per request)",
     "how the silicon sample's gpt-oss-120b H100 c512 rows were run: the server could hold "
     "512, yet Little's law on their TTFT and TPOT gives about 100 decoding in every one; no "
     "source states the cap: set aside by the roofline floor (bench/validation_serving.py "
     "floor_s), not modelled"),
    ("sglang 0.4.1, 0.5.5, 0.5.7 and 0.5.9-0.5.23 wheels (PyPI): server_args.py "
     "(_handle_piecewise_cuda_graph, _handle_gpu_memory_settings, reserve_for_graph_mb, "
     "_apply_cuda_graph_compatibility, _disable_tc_piecewise/_disable_breakable_cudagraph_"
     "if_incompatible), arg_groups/cuda_graph_hook.py and memory_hook.py (0.5.19+), "
     "model_executor/cuda_graph_config.py default_prefill_backend, model_runner.py and "
     "model_runner_kv_cache_mixin.py (init_torch_distributed, load_model, "
     "profile_max_num_token, _init_pools: the req_to_token and KV pools are allocated after "
     "the profile), mem_cache/kv_cache_configurator.py _profile_available_bytes (0.5.23), "
     "utils/common.py get_available_gpu_memory",
     "issue 21, SGLang sign round (2026-12-02): prefill CUDA graphs on by default from 0.5.10 "
     "and their reserve in the automatic mem_fraction_static, each release's off-switches "
     "(rules prefill_graph_off); no constant fitted. The seven SGLang records' remaining "
     "excess read against their own log lines, nothing changed for it"),
    ("vllm-project/vllm vllm/benchmarks/serve.py (main at 009e6d4a1; read for get_request "
     "and benchmark): at --request-rate inf every request's delay is 0, at most "
     "--max-concurrency in flight; --num-warmups default 0",
     "how vllm bench serve sends a run's first requests; issue 20, AMD serving round: the "
     "first wave in the mean TTFT of the MI355X runs that state --num-prompts "
     "(bench/validation_amd_serving.py first_wave_ttft_s; weight c / N, no constant fitted): "
     "the llm-d 4,096 / 4,096 c32 row -53.2% -> -21.3%, pull 25135 -59.4% -> -30.6%"),
    ("vllm 0.15.1 wheel on PyPI (pip download --no-deps vllm==0.15.1): "
     "vllm/platforms/rocm.py get_attn_backend_cls (TRITON_ATTN by default when "
     "VLLM_ROCM_USE_AITER is unset), vllm/envs.py (VLLM_ROCM_USE_AITER default False, "
     "VLLM_ROCM_QUICK_REDUCE_QUANTIZATION NONE), vllm/v1/attention/backends/triton_attn.py "
     "and ops/triton_unified_attention.py (the 3D kernel, 16 softmax segments, below 128 // "
     "kv heads sequences)",
     "which kernels the llm-d MI355X rows' plain vLLM 0.15.1 runs; issue 20, AMD serving "
     "round: the llm-d rows' decode gap read as the stack's attention (reported, not "
     "shipped)"),
    ("vllm-project/vllm pull 18686 ('[Hardware][AMD] integrate aiter chunked prefill into "
     "vllm', 2025-05-26; issue-tracker search excerpt of its description) and pull 17710 "
     "(the same author's earlier AITER integration)",
     "vllm serve of amd/Llama-3.1-8B-Instruct-FP8-KV at TP 4 on MI300X, 2,048 / 1,024, "
     "concurrency 128, 1,280 prompts, with and without AITER: output tokens/s 2,236.56 / "
     "964.17, median TPOT 56.22 / 129.89 ms, median TTFT 1,041.87 / 2,621.44 ms; issue 20, "
     "AMD serving round: the size of the AITER switch on a dense FP8-KV Llama (2.3x), "
     "against the llm-d rows' 1.5x; nothing fitted"),
    ("vllm-project/vllm issue 56945 ('rocm/vllm image never sets VLLM_ROCM_USE_AITER'; "
     "issue-tracker search excerpt)",
     "Qwen3.5-122B-A10B-FP8 at batch 1 on MI325X (the same reported on MI300X and MI355X): "
     "57, 49, 26 tokens/s at about 200, 2K, 12K prompt tokens with Triton MoE and ROCM_ATTN; "
     "98, 98, 97 with AITER and ROCM_AITER_UNIFIED_ATTN; issue 20, AMD serving round: the "
     "non-AITER attention's cost growing with context, as the llm-d rows' decode gap does; "
     "nothing fitted"),
    ("SemiAnalysisAI/InferenceX benchmarks/70b_fp8_mi355x_slurm.sh (0bfb8e3) and "
     "70b_fp8_mi355x_docker.sh (b6dff19)",
     "InferenceX's MI355X Llama-3.3-70B FP8 vLLM runs: VLLM_ROCM_USE_AITER=1 (slurm), "
     "VLLM_ROCM_QUICK_REDUCE_QUANTIZATION=INT4, --async-scheduling, --max-num-batched-tokens "
     "131072, --num-prompts 10 × c, --request-rate inf, --ignore-eos; issue 20, AMD serving "
     "round: the tuned stack the mi355x expected figures stand for, and InferenceX's "
     "first-wave weight (1 / 10) in the prompt-count report"),
    ("vllm-project/vllm pull 19417, pull 16674, pull 16727, pull 29065; ROCm/vllm pull 1285; "
     "ROCm/legacy-rocm-build pull 5554; rocm.docs.amd.com vLLM V1 performance optimization "
     "page (search excerpts); saleelk/GraphBench README (search excerpt)",
     "AITER on/off runs of MoE models, ROCm attention-backend guidance, a hipGraphLaunch "
     "microbenchmark with no published MI300X/MI355X figure; issue 20, AMD serving round: "
     "looked at for a measured per-kernel cost or AITER ratio on a dense model; none used"),
    ("NVIDIA/TensorRT-LLM cpp/tensorrt_llm/thop/reducescatterOp.cpp (revision 0bd88711: with "
     "sizes, an NCCL group of one ncclReduce per rank) and tensorrt_llm/_torch/distributed/"
     "ops.py (revision 0071496d: allgather with sizes, an NCCL group of ncclBroadcast); pull "
     "requests 3439 (attention-DP padding removed, 2025-04), 6790 and 7965 (padding back on "
     "SM120 only: reduce + broadcast 'can cause 30% context phase comm perf regression')",
     "issue 20, trtmoe round: what TensorRT-LLM's CUTLASS MoE gathers and scatters with under "
     "attention DP; the 30% is measured on SM120 only, and the EP columns would need 2-6x on "
     "the collectives: not modelled (tools/trtllm_ep_gap.py, docs/step-time.md)"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/bench/benchmark/utils/general.py (revision 0171265e: "
     "get_settings, kv_cache_config dtype 'auto' when the options file has none) and "
     "tensorrt_llm/_torch/pyexecutor/executor_request_queue.py (an older revision: "
     "_fetch_new_requests_attention_dp, _schedule_attention_dp_requests, "
     "_balance_requests_across_ranks: each rank capped at the ceiling of the mean active "
     "requests); ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/"
     "nvidia--Qwen3-30B-A3B-NVFP4_hf_quant_config.json (kv_cache_quant_algo FP8)",
     "issue 20, trtmoe round: the page's KV cache follows the checkpoint (fp8 for NVIDIA's "
     "ModelOpt MoE checkpoint found; kvcalc's fp8 kept) and its requests are spread over the "
     "attention-DP ranks evenly at once (a burst, as round 12 simulated); nothing changed"),
    ("NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/blog10_ADP_Balance_Strategy.md (DeepSeek-V3 "
     "on 8 GB200, attention DP 8 / EP 8, 16,000 requests of mean 803 / 3,653 tokens: balance "
     "ratio 54.11%, 25,664 against a speed of light of 39,552 tokens/s by default; 1.31-1.33x "
     "with the balance strategy)",
     "issue 20, trtmoe round: what attention-DP ranks out of step cost; not the prefill-bound "
     "EP rows' excess (every rank's budget full every step), and the page's fixed-length "
     "requests keep the ranks in step: not modelled (docs/step-time.md)"),
    ("vllm 0.8.3 wheel (PyPI): engine/async_llm_engine.py (run_engine_loop, engine_step, "
     "step_async, AsyncStream), executor/ray_distributed_executor.py "
     "_driver_execute_model_async (pp_locks), core/scheduler.py (_schedule_prefills, "
     "_get_num_new_uncached_and_cached_tokens, _chunk_new_tokens_to_schedule, "
     "PartialPrefillMetadata); the TP 4 × PP 2 runs of surajssd/llm-k8s@58b61c5 (03, 02, and "
     "the held-out 04: TPOT mean, ITL median, in flight)",
     "issue 23, score round 2 (2026-12-02): why kvcalc's TPOT of the V0 pipeline runs is +7 … "
     "+10% at 16 requests/s and +13 … +23% at once while within 3% at 1 and 4/s: the "
     "per-sequence host time each run implies (0.80-0.84 ms a sequence at 1 and 4/s, 0.61-0.67 "
     "at 16/s, 0.48-0.58 at once) falls with the load, where every mechanism read (stage "
     "locks, all stages launched at once, one interpreter for HTTP, scheduling, stage 0's "
     "input preparation and the outputs; V0's token budget counts only uncached tokens) makes "
     "a step grow faster with the load; nothing changed (docs/step-time.md)"),
    ("sglang 0.4.0 wheel (PyPI): srt/managers/scheduler.py (event_loop_overlap, "
     "process_batch_result_prefill, stream_output), srt/managers/tp_worker_overlap_thread.py "
     "(forward_thread_func_, resolve_batch_result, forward_batch_generation), "
     "srt/model_executor/model_runner.py sample, bench_serving.py "
     "(async_request_sglang_generate, sample_random_requests); the 70B and 405B runs of "
     "datacrunch-research/h200-benchmarks@c091ef5 (TTFT and ITL medians)",
     "issue 23, score round 2: SGLang 0.4.0's uncalibrated TTFT median is 18-26 ms (70B) and "
     "43-49 ms (405B) under the measured at 1-4 requests/s, 1.1-1.4 measured ITL medians, "
     "where it is 0.42-0.71 of a modelled 512-token prefill: about a decode step; the overlap "
     "loop as read puts a request in the batch after the next, as modelled; bench_serving's random "
     "prompts are ShareGPT tokens cut or repeated, so the server's prompt is the stated "
     "length; nothing changed"),
    ("vllm-project/vllm issue 8295, 4806, pulls 7402, 11636, 24174 (search excerpts)",
     "issue 23, score round 2: looked for a measured per-token cost of vLLM's API-server "
     "process (the TP 8 burst's TPOT -11%); none states one; nothing used"),
    ("sglang 0.4.1-0.4.10 (0.4.1, 0.4.2, 0.4.3, 0.4.4, 0.4.5, 0.4.7, 0.4.10), 0.5.4, 0.5.10, "
     "0.5.13.post1, 0.5.19, 0.5.23 wheels (PyPI): layers/rotary_embedding.py, "
     "rotary_embedding/base.py, factory.py, rope_variant.py, model_runner.py, "
     "distributed/parallel_state.py, model_loader/loader.py, mem_cache/kv_cache_configurator.py, "
     "arg_groups/overrides.py, environ.py",
     "issue 21, sgmem round (2026-12-02): SGLang keeps RoPE's cos/sin table FP32 on CUDA from "
     "0.4.3 (0.4.0-0.4.2: vLLM's get_rope, cast to the model dtype; ROCm cast until 0.5.23), "
     "charged before the pool (rules rope_bytes_cuda/rope_bytes_rocm); what SGLang allocates "
     "between its free-memory baseline and the weight load (nothing found on the GPU); no "
     "constant fitted from these"),
    ("sgl-project/sglang pull 11716, 36583, 15909, 9842, 27537; noonghunna/club-3090 issue "
     "1261; kvcache-ai/ktransformers issue 1971; ROCm/ATOM issue 1959; datawhalechina/"
     "llm-algo-leetcode issue 133; generative-computing/granite-switch issue 128; mintlify "
     "copies of SGLang's memory-management page (search excerpts)",
     "issue 21, sgmem round: searched for public SGLang start-up logs to hold out; none "
     "complete enough to predict (pull 11716: 8 × H200 at TP 8 holds 2.51 GiB at its weight "
     "load, looked at as a check on the NVLink pre-load figure, not fitted)"),
    ("AIPerf wheels 0.2.0, 0.3.0, 0.4.0 and 0.5.0 on PyPI (ai-dynamo/aiperf): "
     "aiperf/common/config/config_defaults.py (PromptDefaults.NUM = 100, "
     "InputDefaults.DATASET_SAMPLING_STRATEGY = SHUFFLE from 0.3.0), "
     "aiperf/dataset/dataset_samplers.py ShuffleSampler, dataset_manager.py (random.choice in "
     "0.2.0)",
     "issue 20, MoE prefill round: how the campaign's load generator picks each prompt (a shuffle "
     "from 0.3.0); calc/serve/prompt_reuse.py's shuffled first draws and LRU keep, no constant"),
    ("ai-dynamo/aiconfigurator@095f58a51 src/aiconfigurator/generator/sflow.py (pip install "
     "aiperf==0.3.0), generator/rule_plugin/vllm.rule (and its history: tensor_parallel_size = "
     "moe_tp x moe_ep / dp from 2026-04-14; max_num_tokens rules), "
     "aic-core/src/aiconfigurator_core/sdk/config.py resolve_moe_parallelism (tp x "
     "attention_dp = moe_tp x moe_ep), tools/accuracy_regression_testing/"
     "predict_silicon_sample.py",
     "issue 20, MoE prefill round: the AIPerf release of aiconfigurator's benchmark flow, and "
     "the layout of the gap-analysis vLLM Qwen3-235B rows whose tp is below moe_tp x moe_ep "
     "(19 rows, not scored)"),
    ("aiconfigurator-core 0.12.0 wheel: h200_sxm/moe/{vllm/0.24.0,sglang/0.5.14,trtllm/"
     "1.3.0rc20}, b200_sxm/moe/{sglang/0.5.14,trtllm/1.3.0rc20}, h100_sxm/moe/trtllm/1.3.0rc20 "
     "moe_perf.parquet at Qwen3-235B-A22B's and DeepSeek-V3's shapes, 256 to 16,384 tokens",
     "issue 20, MoE prefill round: kvcalc's fused-MoE time at prefill sizes against the tables "
     "its curves were fitted to (tools/moe_prefill_tables.py); compared, nothing refitted"),

    ("vllm 0.24.0 wheel (PyPI; the release of aiconfigurator's vLLM MoE tables): "
     "model_executor/layers/quantization/mxfp4.py (GptOssMxfp4Config, GptOssMxfp4MoEMethod), "
     "fused_moe/oracle/mxfp4.py (_get_priority_backends_for_gpt_oss, select_mxfp4_moe_backend), "
     "fused_moe/experts/trtllm_mxfp4_moe.py (_supports_current_device), "
     "quantization/compressed_tensors/compressed_tensors_moe/compressed_tensors_moe_w4a4_mxfp4.py; "
     "vllm 0.18.0 wheel (the silicon sample's gpt-oss runs): quantization/mxfp4.py "
     "get_mxfp4_backend, utils/import_utils.py has_triton_kernels",
     "issue 20, mxfp4 round: which MXFP4 MoE kernel vLLM runs for gpt-oss on each GPU "
     "(trtllm-gen BF16 on SM100, Triton on SM90) and that the compressed-tensors W4A4 rows are "
     "another checkpoint format's; no constant fitted from them"),
    ("vllm wheels 0.9.2, 0.11.0 and 0.15.1 (PyPI): envs.py (VLLM_ROCM_USE_AITER default False, "
     "VLLM_V1_USE_PREFILL_DECODE_ATTENTION default False), platforms/rocm.py "
     "get_attn_backend_cls (TRITON_ATTN the last choice), 0.15.1 v1/attention/backends/"
     "triton_attn.py (MIN_LAUNCH_GRID_SIZE_2D 128, NUM_PAR_SOFTMAX_SEGMENTS 16) and "
     "v1/attention/ops/triton_unified_attention.py (_get_tile_size: decode tile 16 for a 16-bit "
     "query; the 2D kernel with a prompt in the step or above the 3D threshold); the newest "
     "stored vllm-project/vllm vllm/platforms/rocm.py (TRITON_ATTN still the default); "
     "sglang 0.4.10 wheel srt/model_executor/model_runner.py (MHA on HIP: attention backend "
     "aiter) and server_args.py",
     "issue 20, rocmattn round: each engine's default ROCm attention kernels "
     "(EngineSettings.rocm_kernels) and the Triton decode kernel's serial walk"),
    ("ROCm/vllm docker/Dockerfile.rocm (newest stored: sets no VLLM_ROCM_USE_AITER) and "
     "docs/dev-docker/README.md@040de12 (exports VLLM_V1_USE_PREFILL_DECODE_ATTENTION=1; "
     "'AITER FP8 KV cache', 'AITER full graph capture'); ROCm/vllm pull 584 (the 355_wip MXFP4 "
     "Llama-3.1-405B commands: VLLM_ROCM_USE_AITER=1); vllm-project/vllm pull 18596 (the "
     "MI300X AITER on/off table also cited as 18686); vllm issue 46596 (ROCM_ATTN against "
     "ROCM_AITER_FA, MI300X/MI355X); vllm pull 29065 (Gemma-3 Triton unified attention against "
     "AITER, MI300X, TP 2); ROCm/aiter pulls 3297 and 5415 and issue 2495 (paged-attention and "
     "Triton unified-attention microbenchmarks on MI300X/MI325X/MI355X); vllm pull 30191 "
     "(a Triton unified-attention benchmark, GPU not stated); ROCm legacy-rocm-build pull 5554 "
     "(the vLLM optimization guide's AITER switches)",
     "issue 20, rocmattn round: which setting the AMD rows' stacks ran (README and AMD images: "
     "tuned; pull 25135: AITER), and a kernel table of Triton against AITER decode attention "
     "on MI355X; none had one at the llm-d shape, none fitted"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/modules/linear.py (FP8QDQLinearMethod.apply, "
     "Linear.enable_cuda_core); ai-dynamo/aiconfigurator collector/trtllm/collect_gemm.py and "
     "collector/sglang/collect_gemm.py",
     "issue 20, fp8small round: which GEMM TensorRT-LLM runs for fp8 per-tensor weights at a few "
     "rows (cublas_scaled_mm on SM90/SM100; the CUDA-core cuda_scaled_mm only on SM89) and how "
     "the tables' fp8 rows were timed (TensorRT-LLM's Linear loaded without an input_scale, so "
     "its input quantised dynamically; SGLang per-token quantisation + fp8_scaled_mm): read to "
     "explain the tables' small-m rows, no constant taken from them"),
    ("aiconfigurator-core 0.12.0 wheel: systems/data/{h200_sxm,b200_sxm}/moe/trtllm/1.3.0rc20/"
     "moe_perf.parquet fp8_block rows at 1-64 tokens by MoE TP and EP (DeepSeek-V3's and "
     "Qwen3-235B's shapes), beside SGLang's and vLLM's",
     "issue 20, fp8small round: TensorRT-LLM's fp8-block MoE pays about 0.3-0.36 µs per local "
     "expert at a few tokens (DeepSeek-V3, MoE TP 8, one token: 114.7 µs at EP 1, 35.1 at EP 8 "
     "on H200); not modelled (docs/step-time.md, fp8small round)"),
    ("surajssd/llm-k8s@58b61c5 results_serving_meta-llama-Llama-3.3-70B-Instruct 01_tp8_pp1, "
     "02_tp4_pp2_no_IB, 03_tp4_pp2_IB, qps-inf and qps-16 (untrimmed: per-request itls); "
     "vllm 0.8.3 (PyPI wheel) v1/engine/output_processor.py RequestOutputCollector, "
     "v1/engine/async_llm.py output_handler, core/scheduler.py _schedule_prefills and "
     "PartialPrefillMetadata",
     "issue 23, score round 3: every burst request's chunks are its output tokens - 1 (the "
     "API server merges a request's tokens produced while its consumer waits), so the "
     "front-end's first-token hand-out holds the whole stream (calc/serve/simulate.py); "
     "nothing fitted; V0's prefill admission read, no per-step limit on new prefills found "
     "(docs/step-time.md, score round 3)"),
    ("aiconfigurator 0.12.0 (PyPI, with aiconfigurator-core 0.12.0; ai-dynamo/aiconfigurator, "
     "Apache-2.0), run in a venv of its own: sdk/backends/base_backend.py run_agg, run_static "
     "(static_gen), find_best_agg_result_under_constraints and its run_agg cache keyed without "
     "the model; sdk/backends/trtllm_backend.py (_tpot_mix_steps, 'empirical correction'); "
     "systems/data/b200_sxm/attention/trtllm/1.3.0rc20/generation_attention_perf.parquet "
     "(batch x context coverage)",
     "issue 20, aicdiff round: its throughput model at kvcalc's per-rank concurrency on every "
     "MoE row of the TensorRT-LLM v1.0 page, and one decode step op by op beside kvcalc's "
     "(tools/aic_compare.py); nothing fitted, no model change (docs/step-time.md, aicdiff "
     "round)"),
    ("NVIDIA/TensorRT-LLM pull 16564 (TorchSampler.update_requests batched fast path: an "
     "8.8 ms per-iteration host bubble at 256 requests on GB200, gpt-oss-120b, 2026) and pull "
     "9675 (greedy_search_sampling_batch's full-vocabulary softmax replaced by a one-hot); "
     "sampler.py greedy_search_sampling_batch revisions (search excerpts, releases not "
     "identified)",
     "issue 20, aicdiff round: the sampler's large-batch cost, looked at; a few per cent of a "
     "decode step on dense and MoE rows alike, release 1.0's code not read: not modelled"),
    ("SemiAnalysisAI/InferenceX benchmarks/dsr1_fp4_b200*.sh, dsr1_fp8_b200*.sh, "
     "dsr1_fp4_b300.sh, dsr1_fp8_b300.sh, dsr1_fp8_h200*.sh, dsr1_*_trt*.sh, gptoss_fp4_*_trt.sh, "
     "70b_fp8_b200_trt_slurm.sh, 70b_fp8_h200_trt_slurm.sh, 70b_fp4_b200_trt_slurm.sh and "
     "_docker.sh at every revision (InferenceX#148 b328c7f59, authored 2025-10-29), "
     "benchmarks/benchmark_lib.sh; kimbochen/bench_serving backend_request_func.py (TTFT: the "
     "first SSE chunk with a choice, empty text included)",
     "issue 20, MoE TTFT round: the scheduler settings the runs set (SGLang "
     "--scheduler-recv-interval 10 below c 16 and 30 from 16 on B200/B300; TensorRT-LLM "
     "batch_wait_timeout_iters 20, ratio 0.9, max_num_tokens 16384 for Llama-3.1-70B 1k/1k "
     "below TP 8), mapped to rows by tools/silicon_admission_rows.py; no constant fitted"),
    ("sgl-project/sglang python/sglang/srt/managers/scheduler_recv_skipper.py "
     "(SchedulerRecvSkipper: decode weight 1, other forwards 1000) and the scheduler output "
     "processor's stream_interval rule (first token sent at once); NVIDIA/TensorRT-LLM "
     "tensorrt_llm/_torch/pyexecutor/py_executor.py (_waiting_requests, _schedule, "
     "_balance_adp_requests, _handle_responses: py_decoding_iter == 1 always streamed)",
     "issue 20, MoE TTFT round: how the receive interval and batch waiting hold a new request "
     "back (calc/serve/admission.py), and that stream_interval does not delay the first token"),
    ("ai-dynamo/aiconfigurator@095f58a51 tools/accuracy_regression_testing/"
     "predict_silicon_sample.py, aic-core sdk/backends/base_backend.py (_ttft_queuing_factor, "
     "_prefill_dispatch_overhead_ms) and vllm_backend.py; aiconfigurator 0.12.0's cli_estimate "
     "on three silicon-sample rows (tools/aic_ttft.py: DeepSeek-R1 TensorRT-LLM NVFP4 B200 TP 8 "
     "1024 and 8192 x 1024 c 4, Qwen3-235B TensorRT-LLM H100 TP 4 / EP 4 512 x 128 c 4)",
     "issue 20, MoE TTFT round: aiconfigurator's TTFT is its prefill step (which agrees with "
     "kvcalc's) times a heuristic queuing factor (2.05 at c 4), plus 0.8 ms a layer for vLLM; "
     "compared, not copied"),
    ("vllm 0.15.1 wheel (PyPI): v1/attention/ops/triton_unified_attention.py (unified_attention: "
     "BLOCK_M 16 when a KV head serves at most 16 query heads, the 2D kernel for any step with "
     "max_seqlen_q > 1, _get_tile_size: 32 keys a tile at prefill), engine/arg_utils.py "
     "get_batch_defaults (max_num_batched_tokens 8192 for the API server on a GPU of 70 GiB or "
     "more, no ROCm branch), utils/torch_utils.py resolve_kv_cache_dtype_string (only a modelopt "
     "checkpoint's kv_cache_quant_algo resolves --kv-cache-dtype auto to fp8)",
     "issue 20, amdttft round: the Triton prefill path's tile shapes (the mechanism of "
     "TRITON_PREFILL_SCALE), the llm-d MI355X rows' chunk budget (8,192, as kvcalc has it), and "
     "their KV cache: amd/Llama-3.3-70B-Instruct-FP8-KV is a Quark checkpoint and llm-d's "
     "command passes no --kv-cache-dtype, so its cache ran 16-bit (kvcalc scores it fp8; "
     "reported, not changed)"),
    ("llm-d/llm-d@a974157 docs/accelerators/amd-mi355x-perf.md (re-read)",
     "issue 20, amdttft round: the server command (no --kv-cache-dtype, no "
     "--max-num-batched-tokens), each config run once, fixed random lengths; the TTFT left "
     "after the prefill multiple is the unstated --num-prompts (at N = c every row's TTFT "
     "within -13% to +152%, the long-prompt rows -11% to +5%)"),
    ("makora.com/blog/fp8-gemms-mi355x (search excerpt, opening only); the pages corpus searched "
     "for MI355X hipBLASLt fp8 GEMM tables",
     "issue 20, amdttft round: looked for a measured MI355X fp8 GEMM rate at prefill shapes; no "
     "table reached, mi355x's unmeasured fp8 band left as it was"),
    ("surajssd/llm-k8s@58b61c5 results_serving_meta-llama-Llama-3.3-70B-Instruct/03_tp4_pp2_IB, "
     "02_tp4_pp2_no_IB, 04_tp4_pp2_IB and 01_tp8_pp1: the qps_inf files untrimmed (per-request "
     "ttfts and itls)",
     "issue 23, score round 4: each burst's median gap against the requests decoding per "
     "virtual engine, beside kvcalc's modelled step (bench/pp_step_curve.py): within 9% up to "
     "30 sequences a virtual engine, +9 … +38% at 35-77 (PP only; TP 8 within -3 … +12%); "
     "the first requests sent got their first tokens after the whole intake (288-383 ms); "
     "nothing fitted"),
    ("vllm 0.8.3 wheel (PyPI): engine/async_llm_engine.py run_engine_loop, engine_step and "
     "step_async; executor/ray_distributed_executor.py _driver_execute_model_async and "
     "driver_exec_method; engine/multiprocessing/client.py is_unsupported_config; utils.py "
     "make_async; worker/worker_base.py "
     "execute_model (prepare_input before recv_tensor_dict); core/scheduler.py Scheduler.__init__; "
     "config.py use_async_output_proc",
     "issue 23, score round 4: each virtual engine's scheduler keeps the whole max_num_seqs and "
     "max_num_batched_tokens (only the blocks divided, as replayed); a step awaits every stage "
     "(the chain, as modelled); stage 0's driver runs in a thread of the API server's process; "
     "the V0 engine steps in the API server's loop, so a burst's intake (1.18 ms a request, "
     "calc/serve/front_end.py) holds it: modelled (front_end_in_engine_pp, "
     "Limits.paused_until_s), no constant added"),
    ("CPython sys.getswitchinterval / setswitchinterval documentation (Doc/library/sys.rst, "
     "python/cpython pull 130457; the interpreter's own value 0.005 s)",
     "issue 23, score round 4: the switch interval a thread waiting for the GIL may wait, the "
     "candidate for the TP 4 x PP 2 host time that stops growing at 25-30 sequences a virtual "
     "engine; not pinned, nothing fitted"),
    ("vllm 0.14.0 and 0.15.1 wheels (PyPI): v1/attention/ops/triton_unified_attention.py "
     "(kernel_unified_attention_3d, reduce_segments, _get_tile_size, unified_attention's 2D / 3D "
     "choice), v1/attention/backends/triton_attn.py (MIN_LAUNCH_GRID_SIZE_2D, "
     "NUM_PAR_SOFTMAX_SEGMENTS, the threshold moved to the nearest CUDA-graph size); and the "
     "newest stored vllm-project/vllm triton_unified_attention.py (001394336, one kernel with an "
     "IS_3D switch, the same segmenting)",
     "issue 20, amdwalk round: the 3D decode kernel's walk is cdiv(seq_len, 16 x 16) tiles a "
     "workgroup at any context (16 segments fixed, no cap), its grid sequences x KV heads x 16; "
     "the walk's form kept (keys / 256 x the tile time)"),
    ("pages corpus searched for MI300X / MI355X HBM latency (chipsandcheese.com 'Testing AMD's "
     "Giant MI300X', fridayswithfaraday.com MI300X post: openings only)",
     "issue 20, amdwalk round: looked for a measured memory latency to set the tile time against "
     "(two dependent loads a tile); no figure reached, not used"),
    ("sgl-project/sglang PRs #10062 (piecewise CUDA graph and torch.compile backend, "
     "2025-09/10: 'SGLang's current native prefilling can incur kernel launch overhead'), "
     "#11812 (MLA), #12996 (DeepSeek-V3: R1-0528 TP 8, 1,024-token prompts at concurrency "
     "1-32 with and without; its tables not reached here), #13179 (W4A8 DeepSeek-V3.1), "
     "#13466 (Kimi-K2 TP 8 with piecewise graphs: median TTFT 92.9 ms at concurrency 1, "
     "1,024 tokens; the table without not reached), #16331 (piecewise graphs on by default), "
     "issue #11490, and docs/advanced_features/piecewise_cuda_graph.md (split at MoE dispatch "
     "ops; cap 2,048 tokens with an MLA backend; off under DP attention, an MoE A2A backend, "
     "PP)",
     "issue 20, moehost round: which SGLang releases issue their prompt passes eagerly (the "
     "engine wing's prefill_graph_off rules: piecewise graphs opt-in before 0.5.10) and "
     "whether a DeepSeek eager-versus-graph TTFT pair is published; none reached in full"),
    ("NVIDIA/TensorRT-LLM docs/source/features/torch_compile_and_piecewise_cuda_graph.md "
     "('Piecewise CUDA Graph primarily benefit host-bound iterations in the context phase'; "
     "bubbles remain 'due to the attention operator's substantial host-side overhead'), PR "
     "#8044 (DeepSeek-R1 context layer 7,829 us at 8K-1K, a copy kernel), issue #5929 "
     "(0.21.0rc2, DeepSeek-R1 batch 1, 1,600-token prompts, TP 8: TTFT 0.160-0.173 s on B200 "
     "NVFP4 and 0.124-0.165 s on H200 FP8, the B200 no faster), issue #9470",
     "issue 20, moehost round: TensorRT-LLM's context passes run eagerly by default and are "
     "host-bound at short prompts (qualitative; no per-layer host time measured): the SGLang "
     "layer figure is not applied to TensorRT-LLM (a what-if reported in docs/step-time.md)"),
    ("tenstorrent/tt-inference-server issue #356 (DeepSeek-R1-0528 sweeps: SGLang on 16 H100 "
     "TTFT 180-200 ms from 128 to 4,096 tokens at concurrency 1, 264 at 8,192; vLLM AWQ on 8 "
     "H100 105-132 ms from 1,024 to 4,096), vllm-project/vllm issue #54677 (DeepSeek-V4-Flash "
     "0.28 with its breakable graphs off: eager prefill steps, TTFT p50 0.98-1.25 s at "
     "concurrency 8 whatever the other settings), xLLM-AI/xllm PR #872 and "
     "PaddlePaddle/FastDeploy PR #3459 (prefill graphs: 21.3 -> 9.3 ms at 10 tokens, "
     "36.5 -> 21.4 ms at 480), "
     "lightseekorg/tokenspeed PR #45",
     "issue 20, moehost round: the signature of a host-bound prefill pass (a TTFT flat in the "
     "prompt below a few thousand tokens) in other engines and models; none used as a figure"),
    ("sglang 0.5.2, 0.5.10, 0.5.13, 0.5.14, 0.5.15, 0.5.16, 0.5.20 and 0.5.23 wheels (PyPI): "
     "srt/managers/scheduler_recv_skipper.py (0.5.2-0.5.15: SchedulerRecvSkipper asserts "
     "enable_dp_attention off) and srt/managers/scheduler_components/recv_skipper.py (0.5.16+: "
     "the ranks' gathered forward mode), 0.5.23 arg_groups/fields/schedule.py "
     "scheduler_recv_interval (default 1)",
     "issues 20/21, admitwire round: which SGLang releases take --scheduler-recv-interval beside "
     "attention DP (calc/deploy/engines/sglang/launch.py); nothing fitted"),
    ("NVIDIA/TensorRT-LLM pulls 7287 and 7416 ('Add batch waiting when scheduling', 2025-08/09: "
     "batch_wait_timeout_iters, batch_wait_max_tokens_ratio, validation iters >= 0 and ratio in "
     "[0, 1]) and tensorrt_llm/_torch/pyexecutor/py_executor.py _waiting_requests at a stored "
     "main revision (stop waiting when the iterations reach the timeout or the tokens reach "
     "ratio x max_num_tokens)",
     "issues 20/21, admitwire round: the release the YAML keys are stated from (1.1.0) and why "
     "the two are given together; nothing fitted"),
    ("sglang 0.5.20, 0.5.22 and 0.5.23 wheels (PyPI): srt/entrypoints/engine.py (the start-up "
     "line logger.info(f\"server_args={...}\"): server_args.resolved_dict() in 0.5.20, "
     "_server_args_for_logging (the same dict) in 0.5.22/0.5.23), srt/server_args.py "
     "resolved_dict; NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/config.py at stored "
     "revisions (PyTorchConfig with batch_wait_timeout_iters / batch_wait_max_tokens_ratio, "
     "update_executor_config's logger.info of its repr) and llmapi/llm_args.py "
     "update_llm_args_with_extra_dict (logs only 'Overriding <field>' for nested configs)",
     "issues 20/21, admitlog round: the start-up lines `kvcalc log` reads the admission "
     "settings from (calc/deploy/engines/sglang/log.py, trtllm/log.py); nothing fitted"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/scheduler/scheduler.py at a stored "
     "revision (RequestScheduler.schedule_step: the batch wait checked only with context and "
     "generation requests both scheduled and no attention DP; _apply_batch_waiting: held while "
     "the count is below batch_wait_timeout_iters and the contexts' whole token counts + 1 a "
     "generation request are below ratio x max_num_tokens, the count +1 a held iteration and "
     "reset to 0 when they go)",
     "issue 20, admitevents round: the batch wait replayed iteration by iteration in the "
     "serving simulation (calc/serve/policies.py MixedBatches.batch_wait); nothing fitted"),
    ("sgl-project/sglang docs_new/src/snippets/configs/qwen/qwen3.5-benchmarks.jsx (the SGLang "
     "0.5.16 re-bench: H100/H200/B200/B300, Qwen3.5 0.8B-397B, isl 8192 / osl 1024 at "
     "concurrency 1, 16, 1024, 4096; earlier stored versions at 0.5.15, concurrency 1 and 100) "
     "and docs_new/src/snippets/configs/qwen/qwen3.5.jsx@00a49ea2c (the cells' server flags, "
     "the bench_serving command)",
     "issue 20, newruns round: 16 high-throughput rows of Qwen3.5-27B and 397B-A17B held out in "
     "docs/validation/published_runs_2026.yaml (bench/validation_newruns.py); the MTP "
     "low-latency rows, the 0.5.15 rows (workload the file calls uncorrected) and the models "
     "kvcalc does not ship left out; nothing fitted"),
    ("docs.vultr.com/inference-cookbook/cuda/optimization/concurrency-tuning (vLLM 0.16.0 on "
     "HGX B200: Nemotron Nano 30B FP8 TP 2, Nemotron Super 49B, MiniMax M2.5 tables by "
     "concurrency) and cuda/model-guides/nemotron-nano, cuda/dynamo/dynamo-executive-summary",
     "issue 20, newruns round: the nine Nemotron 3 Nano FP8 rows held out in "
     "docs/validation/published_runs_2026.yaml; Nemotron Super (not shipped) and MiniMax "
     "(table cut in the copy read) left out; nothing fitted"),
    ("sgl-project/sglang cookbook benchmark files of models kvcalc does not ship "
     "(deepseek-v4, qwen3.6, glm-5.1, glm-5.2, minimax-m2.7, kimi-k2.6 benchmarks.jsx) and "
     "sglang's hybrid memory-pool code (model runner: mamba_budget = rest memory x "
     "mamba_full_memory_ratio / (1 + ratio), --mamba-full-memory-ratio 0.9 by default)",
     "issue 20, newruns round: not used as records (models not shipped); SGLang's Mamba / KV "
     "split reported as the likely cause of the hybrid rows' TPOT gap, not applied"),
    ("vllm-project/vllm issues and pulls searched for vLLM >= 0.20 serving runs (#31826, "
     "#33743, #36795, #37205, #42484, #51349, vllm-project/perf-eval#9, vllm-metal#352), "
     "tenstorrent/tt-inference-server sweeps, SemiAnalysisAI/InferenceX#1672, "
     "vllm-project/tpu-inference#3050, sgl-project/sglang pulls #9278, #31363, #32046, "
     "#32959, NVIDIA/srt-slurm#132, llm-d/llm-d-benchmark#1919, docs.gpustack.ai performance "
     "lab, research.aimultiple.com/gpu-benchmark, the DigitalOcean B300 inference digest",
     "issue 20, newruns round: search results looked at, not used (older releases, models or "
     "GPUs kvcalc does not ship, or settings not stated)"),
    ("NVIDIA/TensorRT-LLM PR #11983 (L40S, Llama-3.2-1B, batch 1,000, logprobs=0: TorchSampler's "
     "sampling host overhead 13.8 -> 11.3 ms, TRTLLMSampler 5.9 ms; 2026-03), PR #16564 (GB200 "
     "gpt-oss-120b gen-only, 256 a rank: an 8.8 ms GPU bubble a step from update_requests' "
     "per-request pybind calls; 2026-07), PR #5550 (TRTLLMSampler update_requests 60 -> 3.5 ms, "
     "TorchSampler 6.2 ms, batch unstated; 2025-06), PR #6842 (update_requests with logprobs), "
     "PR #7041 (stop criteria moved to sample_async), PR #11141, PR #14127 (hostStepTimeMS: the "
     "loop's wall time), PR #16313, PR #16047, PR #17257, PR #15841, PR #9703, issue #13957 (B200 "
     "Llama-3.1-8B FP8 c 64: 580 us a step exposed), issue #9591, issue #4866, PR #3914",
     "issue 20, trthost round: the TensorRT-LLM host loop's size elsewhere; none a whole loop "
     "at large batch on x86 (the sampler alone 6-14 us a sequence on an L40S host in 2026), "
     "nothing fitted"),
    ("vllm 0.21.0-0.29.0 wheels (PyPI): config/vllm.py _is_default_v2_model_runner_model and "
     "DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES, v1/worker/gpu/model_runner.py "
     "profile_cudagraph_memory; lmcache 0.4.7 wheel (PyPI) integration/vllm and "
     "v1/gpu_connector; https://github.com/LMCache/LMCache/issues/3430 and /pull/3433, "
     "https://github.com/vllm-project/vllm/pull/10511 (the sources bench/validation_capacity.py "
     "EXTRA_SOURCES lists for the round)",
     "issue 21, vout round: the V2 model runner's default by release and architecture and its "
     "missing CUDA graph estimate until 0.29.0 (calc/deploy/engines/vllm/rules.py v2_runner); "
     "LMCache issue 3430's compile state from its own figures; PR 10511's log is V0; nothing "
     "fitted"),
    ("issue 21, vnew round (engine memory): the round's six held-out records, docs/validation/"
     "engine_logs_versions.yaml: search index files 70682754770 and 70231782181 (vLLM 0.31.0, "
     "Llama 3.1 8B on an A100 80GB, 2026-10-06), Tensward/tensward examples/case-studies "
     "a10g-qwen7b-fp8-kv-cache/baseline-report.md and fp8-report.md @ ef403667, "
     "l4-qwen7b-ngram-speculation/baseline-report.md and l4-qwen7b-what-changed/"
     "baseline-report.md @ 4deccc5c, l4-mistral7b-baseline/baseline-report.md @ 4d5b67b3 (vLLM "
     "0.30.0 on an A10G and an L4, 2026-10-01 and 10-04); vllm 0.29.0-0.33.0 wheels (PyPI): "
     "v1/worker/gpu/cudagraph_utils.py, model_runner.py, sample/penalties.py, "
     "v1/worker/gpu_worker.py, v1/attention/backends/flashinfer.py and fa_utils.py, "
     "platforms/cuda.py, envs.py, config/vllm.py; flashinfer-python 0.6.18.post1 (PyPI) "
     "decode.py (8 MiB index buffer per wrapper)",
     "held out: predicted, errors reported; the V2 runner's graph and penalty-state rules and "
     "FlashInfer's workspace come from the source, their two constants from the training "
     "record above"),
    ("vLLM 0.16.0 wheel source (pip download --no-deps vllm==0.16.0): "
     "model_executor/layers/mamba/mamba_mixer2.py, ops/mamba_ssm.py, ops/causal_conv1d.py, "
     "ops/ssd_combined.py, models/nemotron_h.py, models/config.py (NemotronHForCausalLMConfig, "
     "MambaModelConfig), config/vllm.py and config/compilation.py (optimisation levels, custom "
     "ops, splitting ops), v1/attention/backends/mamba_attn.py and flashinfer.py, "
     "fused_moe/oracle/fp8.py, flashinfer_cutlass_moe.py, flashinfer_trtllm_moe.py, "
     "shared_fused_moe.py, layer.py, router/grouped_topk_router.py, "
     "quantization/input_quant_fp8.py, kernels/scaled_mm/ScaledMMLinearKernel.py, envs.py",
     "issue 20, mamba2 round: the kernels of a Mamba-2 layer at decode (+1: the gated RMSNorm) "
     "and prefill (the chunked scan's 5, the state scatter, the gated norm), the fp32 recurrent "
     "state of Nemotron-H; the MoE layer's kernels listed, not applied; nothing fitted"),
    ("aiconfigurator-core 0.12.0 wheel tables (ai-dynamo/aiconfigurator, Apache-2.0): "
     "b200_sxm/linear_attention/trtllm/1.3.0rc20/mamba2_perf.parquet (causal_conv1d_fn and "
     "causal_conv1d_update only), b200_sxm/linear_attention/vllm/0.24.0/gdn_perf.parquet "
     "(causal_conv1d_update, fused_recurrent_gated_delta_rule_packed_decode), "
     "b200_sxm/moe/vllm/0.24.0/moe_perf.parquet (the Nemotron 3 Nano expert shape: NVFP4 and "
     "bf16 only)",
     "issue 20, mamba2 round: looked at for a measured selective_state_update fixed cost (none "
     "in the tables); nothing fitted"),
    ("Hugging Face model pages found by search: unsloth/Nemotron-3-Nano-30B-A3B-FP8 (a copy of "
     "NVIDIA's FP8 card), the NVFP4 hf_quant_config.json exclude list as mirrored on "
     "ollama.com (dhiltgen/nemotron-3-nano:30b-a3b-nvfp4)",
     "issue 20, mamba2 round: which layers NVIDIA's quantised checkpoints keep in bf16; not "
     "applied"),
    ("https://github.com/SemiAnalysisAI/InferenceX/issues/870 (DeepSeek-R1-0528 FP8, SGLang "
     "0.5.7, TP 8 on H200, 1k/1k c 4-64, 1k/8k and 8k/1k c 4), "
     "https://github.com/SemiAnalysisAI/InferenceX/issues/828 (gpt-oss-120b on H100, vLLM "
     "0.15.1, TP 2/4/8, c 4-64: TPOT and output tokens/s per GPU), "
     "https://github.com/SemiAnalysisAI/InferenceX/pull/1053 (and its reopening #1061: "
     "gpt-oss-120b on one MI300X, vLLM 0.17.0, c 64-256), "
     "https://github.com/SemiAnalysisAI/InferenceX/pull/832 (MiniMax-M2.5 FP8 on H100, vLLM "
     "0.16.0, TP 4/EP 4 and TP 8/EP 8, c 4), "
     "https://github.com/SemiAnalysisAI/InferenceX/pull/3318 (its baseline: DeepSeek-R1-0528 FP8 "
     "on 8 x MI325X, SGLang 0.5.19, 8k/1k c 4-64), "
     "https://github.com/vllm-project/vllm/pull/23151 (Qwen3-30B-A3B bf16 on one H100, c 10), "
     "https://github.com/vllm-project/recipes/pull/431 (Qwen3Guard-Gen-8B on MI300X, c 32); the "
     "server flags and client from SemiAnalysisAI/InferenceX (mirror at 843c6254f) "
     "benchmarks/dsr1_fp8_h200.sh@1fc5d73cd, benchmarks/single_node/dsr1_fp8_h200.sh@ade7c0015, "
     "gptoss_fp4_h100.sh@f267602ff, gptoss_fp4_mi300x.sh@f8543f9d1, minimaxm2.5_fp8_h100.sh@"
     "ac0d2a853, fixed_seq_len/dsr1_fp8_mi325x.sh@843c6254f, benchmarks/benchmark_lib.sh "
     "(--ignore-eos, 2 x c warm-ups), utils/bench_serving/benchmark_serving.py (lengths uniform "
     "over [int(len x ratio), len]), .github/workflows/benchmark-tmpl.yml (RANDOM_RANGE_RATIO "
     "0.8), utils/matrix_logic (max-model-len = isl + osl + 200), .github/configs/"
     "{nvidia,amd}-master.yaml (images), pull #2757 (the 0.8 ratio) and #2949 (v0.5.19 with the "
     "flags unchanged)",
     "issue 20, newruns2 round: 29 held-out rows of ordinary dense and MoE models in "
     "docs/validation/published_runs_2026.yaml (bench/validation_newruns.py); #870's and #828's "
     "are InferenceX's harness, whose dashboard runs of the same model, GPU and engine are in "
     "the silicon sample (flagged overlaps_fit, reported apart); nothing fitted"),
    ("issue 20, newruns2 round searches (issues, pages, docs corpora): SemiAnalysisAI/InferenceX "
     "pulls 1061, 1092 (gpt-oss MI300X TP 8 c 1: figures not in the text read), 696, 695, 544, "
     "247, 666, 869, 1628, 1629, 2844, 2949, 2988, 3061, 3064, 3072, 3107, 3285, 3290, 3311 "
     "(Qwen3.5 hybrids, MTP / ATOM, disaggregated or no table), issue 870's third comment; "
     "vllm-project/vllm pulls 42497 (MiniMax-M2, GPU not in the part read), 36554, 43250, 37340, "
     "26887 (hybrid), 19315 and 19401 (H20-3e 141 GB: not shipped), 23340 (A100), 17530, "
     "28373, 29217, 28888 (MI355X Llama-3.3-70B MXFP4: figures not reached), 23369, 23696 "
     "(ShareGPT at full load), 39897, 18566, 15322 (L20), 23867, 54628, 52149, issues 7567, "
     "16011, 9722, 13124; vllm-project/recipes pulls 272, 320, 96; sgl-project/sglang pulls "
     "7445 (Qwen3-235B-A22B-FP8 TP 4 c 16: GPU not in the part read), 7687 (DeepSeek-V3 TP 16 "
     "on two H200 nodes), 20565, 23682, 27112, 33273, 33274, 34795, 5839, 2560, 14194, 7762, "
     "10027 (w4afp8), 4918, 5571, 7039, 5360, 5611, 9812, 34645, 21576, issues 3196, 5429, "
     "6017; vllm-project/tpu-inference pulls 1006, 3088; tenstorrent/tt-inference-server "
     "issues 340 (Qwen3 on A100), 251, 246, 247, 342, 508, 707, 745, 3105, 3563 and pulls "
     "851, 1932, 1842, 1571, 1708, 1446, 634, 312, 2149, 2129, 1966, 2658, 2301, 3397, 4996; "
     "ROCm/aiter pull 2814; ROCm/legacy-rocm-build pulls 5376, 3417; "
     "antgroup/sglang pull 4; QwenLM/Qwen3 issue 1536; vllm-project/vllm-ascend issues 1605, "
     "5991, 12568; intel/llm-scaler issue 285; kubeai-project/kubeai pull 341; "
     "Avarok-Cybersecurity/atlas issue 899; LMCache/LMCache-Ascend pull 221; "
     "huggingface.co/neural-nova/gpt-oss-120b-Instruct-Optimized (vLLM 0.24.0 H100 c 16: "
     "figures not in the text read), johnmusgrave.com/p/vllm-throughput-latency-sweep-on "
     "(A100 40GB: no profile), techcommunity.microsoft.com Llama 3.1 8B on ND-H100-v5 posts "
     "(tables not reached), blog.ori.co Llama 3.1 8B H100 (2024), morphllm.com/vllm-benchmarks "
     "(secondary), docs.nvidia.com/dynamo/recipes/gpt-oss-120b (agentic trace, EAGLE3), the Red "
     "Hat MLPerf v5.1 post (offline / server scenarios); vllm's MiniMaxText01RMSNormTP.forward_qk "
     "(one tensor-parallel all-reduce of the q and k variances a layer; sglang's copy the same)",
     "issue 20, newruns2 round: looked at, not used (models or GPUs kvcalc does not ship, "
     "hybrids, settings or figures not stated in the text read); the MiniMax qk-norm all-reduce "
     "reported as a small part of the MiniMax H100 gap, not applied"),
    ("sglang 0.5.7 and 0.5.19 wheels (PyPI): srt/models/deepseek_v2.py (_handle_attention_backend"
     ": an extend without a cached prefix runs MHA_ONE_SHOT on flashinfer; handle_attention_aiter"
     ": MHA for every extend), srt/managers/scheduler.py event_loop_overlap (a batch's results "
     "processed after the next batch is launched), scheduler_output_processor_mixin.py "
     "(len(output_ids) % stream_interval == 1: the first token streamed at once), server_args.py "
     "(num_continuous_decode_steps declared and read nowhere else in either wheel; 0.5.7 on "
     "sm100: DeepSeek's attention trtllm_mla and MoE runner flashinfer_trtllm by default, on sm90 "
     "the Triton fused MoE), 0.5.19 model_executor/cuda_graph_config.py default_prefill_backend "
     "(breakable graphs on CUDA, tc_piecewise elsewhere); SemiAnalysisAI/InferenceX "
     "benchmarks/benchmark_lib.sh@ade7c0015 and @843c6254f (--num-warmups 2 x concurrency, "
     "--random-range-ratio, --ignore-eos) and utils/bench_serving/benchmark_serving.py@ade7c0015 "
     "(sample_random_requests: lengths re-tokenised to the target)",
     "issue 20, dsr1ttft round: the prompt's path of the held-out DeepSeek-R1 SGLang rows "
     "(InferenceX #870, PR #3318) read against kvcalc's; nothing in it uncharged that moves "
     "their TTFT by more than a few ms (docs/step-time.md); no constant changed"),
    ("aiconfigurator-core 0.12.0 wheel (PyPI): h200_sxm/mla/sglang/0.5.14/context_mla_perf."
     "parquet (flash_attention, bf16, 16 heads a GPU, batch 1: 0.046 ms a layer at 1,024 tokens, "
     "1.99 at 8,192) and h200_sxm/moe/sglang/{0.5.10,0.5.14}/moe_perf.parquet "
     "(sglang_fused_moe_triton fp8_block, hidden 7,168, expert width 2,048, 256 experts, top 8, "
     "MoE TP 8: 0.59 / 0.39 ms a layer balanced at 1,024 tokens, 2.22 / 1.88 at 8,192)",
     "issue 20, dsr1ttft round: compared with kvcalc's prefill ops of DeepSeek-R1 on H200 TP 8 "
     "(attention -7 ... +10%; routed experts 1.3-1.9 x the tables at 1,024-8,192 tokens, the "
     "pooled curve's per-route term); not fitted, reported for the kernel fits"),
    ("sgl-project/sglang PR #12160's description (2025-10-26): the 82.64 ms pass was an extend of "
     "1 new token beside 1 cached (the MLA path, not the MHA one of a prompt without a prefix), "
     "after TTFTs of 80-100 ms at 90% cache hits; GPU unstated (a 23.10 ms graph replay of a "
     "one-token DeepSeek-V3 pass is a slow GPU's decode step); tenstorrent/tt-inference-server "
     "issue #356 (SGLang DeepSeek-R1-0528, 16 H100 over InfiniBand, concurrency 1: TTFT 180-200 "
     "ms from 128 to 4,096 tokens, about 2.85 ms a layer)",
     "issue 20, dsr1ttft round: the two measurements of an eager SGLang DeepSeek pass; the second "
     "used only in a what-if (docs/step-time.md), not shipped"),
    ("vllm 0.17.0 wheel (PyPI): model_executor/layers/quantization/mxfp4.py get_mxfp4_backend "
     "(ROCm: CK only with AITER on gfx950, else Mxfp4Backend.TRITON), "
     "quantization/utils/mxfp4_utils.py _swizzle_mxfp4 (ROCm: StridedLayout values, strided "
     "scales off gfx950), fused_moe/gpt_oss_triton_kernels_moe.py (matmul_ogs; the AITER w4a8 "
     "branch only for use_mxfp4_w4a8); vllm-project/vllm pull 55934 (gfx942 TP 8 gpt-oss "
     "serving on triton 3.8, the regressed build), 37826; triton-lang/triton pulls 10810, 8052 "
     "(RDNA configs), issues 7199, 4959; ROCm/triton pulls 951, 952, 918, 931, 685; ROCm/ATOM "
     "pulls 220, 1584; ROCm/aiter pulls 790, 2723, 3470, 4640; meta-pytorch/MSLK pulls 379, 381; "
     "chinmayhebbal.com vLLM-on-MI300X posts (gpt-oss-120b, settings not all stated)",
     "issue 20, mi300fp4 round: the kernel vLLM runs for MXFP4 experts on gfx942 (triton_kernels "
     "matmul_ogs, w4a16); no other MI300X / MI325X measurement of it at serving shapes found; "
     "aiconfigurator's vLLM MXFP4 MoE rows on H100 / H200 (already in FITTED) read as a "
     "cross-check of the band's high end"),
    ("vLLM 0.16.0 wheel source (pip download --no-deps vllm==0.16.0): "
     "fused_moe/layer.py (forward_native, forward_impl, _maybe_setup_shared_experts_stream), "
     "modular_kernel.py, fused_moe_method_base.py (mk_owns_shared_expert), oracle/fp8.py "
     "(select_fp8_moe_backend), flashinfer_cutlass_moe.py, fused_moe.py (get_config_file_name, "
     "get_moe_configs, get_default_config), fused_moe/configs/ (the tuned-config listing), "
     "router/fused_topk_bias_router.py, router/grouped_topk_router.py, router/base_router.py, "
     "quantization/fp8.py, quantization/modelopt.py, quantization/input_quant_fp8.py, "
     "kernels/scaled_mm/__init__.py and flashinfer.py, layers/activation.py, "
     "layers/mamba/linear_attn.py (MiniMaxText01RMSNormTP), models/minimax_m2.py, "
     "models/nemotron_h.py, config/vllm.py (custom ops none, +quant_fp8 for block weights), "
     "utils/flashinfer.py, the wheel's METADATA (flashinfer-python==0.6.3)",
     "issue 20, vmoe round: the shared experts' eager kernels inside moe_forward_shared (ReLU² "
     "and SiLU-and-mul as 2, QuantFP8.forward_native 5 per GEMM for a static per-tensor fp8 "
     "scale; sequential where a modular kernel owns them) and the layer-wide q/k norm's "
     "all-reduce, applied from the source; the fp8 block MoE backend on H100 "
     "(FLASHINFER_CUTLASS before TRITON): the Triton tuned-config lookup does not run for the "
     "MiniMax rows; nothing fitted"),
    ("vllm-project/vllm issue 34249 (FLASHINFER_CUTLASS auto-selected on H100 for a non-MLA fp8 "
     "MoE checkpoint, vllm 0.15.2rc1.dev, its start-up log)",
     "issue 20, vmoe round: corroborates the backend vLLM 0.16.0 picks for MiniMax-M2.5 FP8 on "
     "H100; not fitted"),
    ("vllm-project/vllm pulls 34846 (improved default Triton fused-MoE configs, merged "
     "2026-02-18, after 0.16.0: old/new default against tuned on H100), 24700, 44152 (H20 "
     "default vs tuned, 1.0-1.6x), 54500 (H20 up to 1.93x), 44818 (H200 bf16 E=128 N=704: "
     "1.00-1.05x), 37814 (A100 E=16 N=3072), 40542 (A100 E=64 N=1408: 1.00x at decode); "
     "sgl-project/sglang pulls 21872 (FlashInfer CUTLASS vs Triton fp8 block on H100 TP 1: "
     "-13.8% / -5.7% output tokens/s under CUDA graphs), 28355, 18388",
     "issue 20, vmoe round: the measured default-against-tuned slowdown of vLLM's Triton fused "
     "MoE differs by shape, batch and GPU from 1.0x to 1.9x; no measurement at MiniMax's "
     "shapes, and the MiniMax rows run FlashInfer CUTLASS, so no untuned-config rule was made; "
     "not fitted"),
    ("aiconfigurator-core 0.12.0 wheel table h100_sxm/moe/vllm/0.24.0/moe_perf.parquet "
     "(ai-dynamo/aiconfigurator, Apache-2.0): the MiniMax-M2.5 expert shape (hidden 3,072, "
     "width 1,536, 256 experts, top-8, fp8_block) under vllm_fp8moe_flashinfer_cutlass at EP "
     "4 and 8",
     "issue 20, vmoe round: the measured layer at 4 tokens (EP 4: 74.3 us balanced, 84.6 us "
     "power-law; EP 8: 50.9 / 65.2 us) against kvcalc's pooled curve (61.6 us at EP 4 with the "
     "1.18 imbalance): reported, the curve not refitted (already fitted to these tables)"),
    ("ROCm/aiter aiter/configs/model_configs/a8w8_blockscale_tuned_gemm_ds_v3.csv (commit "
     "84493f0e5b, PR #3951 'gfx942 MI325X: tuned a8w8 blockscale GEMM + FMoE configs for DSv3.2 "
     "TP8'; read at e4048607a): the tuner's measured us / TFLOPS of CK a8w8 block-scale GEMMs at "
     "DeepSeek's TP 8 shapes on 304 CUs",
     "issue 20, amdprefill round: 0.197-0.383 of the fp8 peak at M = 8,192 (kvcalc charges "
     "0.17-0.18); the MI325X fp8 band's edges checked to hold them, expected not moved; "
     "bench/amd_prefill_parts.py"),
    ("ROCm/aiter PR #4261 (commit ebc905b031, '[MoE] Add tuned config for MiMo-V2.5-Pro prefill "
     "on MI300X'): mimo_v2_5_pro_tuned_fmoe.csv, the fp8 block-scale fused MoE at model_dim "
     "6,144, inter_dim 256, 384 experts, top-8, 2k-32k tokens, and the PR's before/after "
     "(up to 1.8x, 1.56 on average)",
     "issue 20, amdprefill round: 0.084 / 0.111 / 0.168 / 0.176 / 0.196 of the fp8 peak; the "
     "MI325X fp8 band's low edge set to hold it (0.12 -> 0.08), not fitted; the default-kernel "
     "ratio bounds DeepSeek's untuned TP 8 MoE shape (not shipped)"),
    ("ROCm/aiter a8w8_blockscale_tuned_fmoe_ds_v3.csv and tuned_fmoe.csv (e4048607a and their "
     "history): DeepSeek's fused MoE rows by CU count",
     "issue 20, amdprefill round: gfx942 holds only the EP 8 shape (7,168 / 2,048 / 33 / top-9: "
     "0.358 at 8,192 tokens), gfx950 the TP 8 shape (copied beyond 1,024 tokens); not used"),
    ("ROCm blogs 'Supercharge DeepSeek-R1 Inference on AMD Instinct MI300X' (2025-03-21) and "
     "'Accelerate DeepSeek-R1 Inference: Integrate AITER into SGLang' (2025-05-16); "
     "sgl-project/sglang pulls 14043 and 13617; ROCm/aiter pulls 1930 (MI300X TPOT only) and "
     "1232 (MI350 rows); ROCm/vllm pull 776 (MHA on MI355 only); ROCm/ATOM pull 409 (DeepSeek-R1 "
     "FP8 TP 8 TTFT, ATOM's runners); arXiv 2603.10031 (MI325X, vLLM 0.14.1)",
     "issue 20, amdprefill round: searched for gfx942 DeepSeek prefill rates; speed-ups, other "
     "GPUs or serving rows without kernel times; not used"),
    ("SemiAnalysisAI/InferenceX pulls 2949 (dsr1-fp8-mi325x-sglang v0.5.12 baseline) and 3048 "
     "(dsr1-fp8-mi300x-sglang: baseline rows N/A), issue 863 (MI300X DeepSeek profile runs "
     "failed, no trace)",
     "issue 20, amdprefill round: no MI300X / MI325X DeepSeek trace or concurrency-1 TTFT found; "
     "the held-out #3318 rows' sibling runs, not used"),
    ("aiconfigurator-core 0.12.0 wheel table h200_sxm/moe/sglang/0.5.10/moe_perf.parquet and "
     "the vllm_fp8moe_triton_tritonexperts rows of {h100_sxm,h200_sxm}/moe/vllm/0.24.0, the "
     "sglang_flashinfer_trtllm_moe / sglang_fused_moe_triton split of b200_sxm/moe/sglang/0.5.14",
     "issue 20, moefit round: SGLang 0.5.10 against 0.5.14 at DeepSeek-R1's shape (0.5.14 "
     "25-40% faster at every token count), vLLM's Triton rows and SGLang's two B200 backends "
     "fitted apart (tools/fit_kernels.py --moe-backend-study); not fitted"),
    ("sgl-project/sglang python/sglang/srt/layers/moe/fused_moe_triton/"
     "fused_moe_triton_kernels.py (fused_moe_kernel: filter_expert -> write_zeros_to_output for "
     "a block of routes whose expert is on another rank) and the configs/ folder listing "
     "(tuned E=257 N=256 H200 block-fp8 files by Triton version); vLLM's fused_moe_kernel (the "
     "same filter)",
     "issue 20, moefit round: the mechanism of the batch route count (every route of the "
     "tokens a GPU holds is sorted, zero-filled or computed, and summed); the tuned-config "
     "question left open"),
    ("vllm 0.16.0 wheel (PyPI): vllm/config/vllm.py (OPTIMIZATION_LEVEL_00-03: O2, the "
     "default, and O3 FULL_AND_PIECEWISE, O1 PIECEWISE), vllm/config/compilation.py "
     "(CUDAGraphMode, _attention_ops, set_splitting_ops_for_v1 with unified_kv_cache_update), "
     "vllm/compilation/cuda_graph.py (CUDAGraphWrapper.__call__), "
     "vllm/compilation/piecewise_backend.py, vllm/v1/attention/backends/flash_attn.py "
     "(AttentionCGSupport.ALWAYS on FA3, forward_includes_kv_cache_update False), "
     "vllm/model_executor/layers/attention/attention.py",
     "issue 20, piecewise round: what PIECEWISE leaves eager in a decode pass (2 attention ops a "
     "layer, one replay a piece) and the default mode by release; no rule changed"),
    ("SemiAnalysisAI/InferenceX benchmarks/single_node/minimaxm2.5_fp8_h100.sh (stored version "
     "34bc7c409: --compilation-config cudagraph_mode PIECEWISE)",
     "issue 20, piecewise round: the held-out MiniMax rows' graph mode; nothing fitted"),
    ("vllm 0.10.1 and 0.11.0 wheels (PyPI): vllm/config/__init__.py VllmConfig.__post_init__ "
     "(the V1 default cudagraph_mode: PIECEWISE in 0.10.1, FULL_AND_PIECEWISE in 0.11.0) and "
     "vllm/config/compilation.py",
     "issue 20, piecewise round: the release from which decode graphs are whole by default"),
    ("vllm-project/vllm pulls 20059 (Qwen2.5-1.5B-Instruct ITL, piecewise 5.39 ms vs full "
     "5.03 / 4.97 ms at QPS 1, 6.80 vs 6.19 / 6.15 at QPS 100), 20050 (A100 40 GB, the same "
     "author), 25444 (Qwen3-Coder-30B-A3B-FP8 on one H100: 4.07 req/s PIECEWISE vs 5.98 "
     "FULL_AND_PIECEWISE, 10 x 1,024 / 128), 16072 (full graphs for FA3: median TPOT -7% on "
     "Qwen 2.5 1.5B), 9715 (toy-model piecewise vs full graph timings)",
     "issue 20, piecewise round: the measured cost of PIECEWISE decode (13-15 us and 129 us a "
     "layer exposed, the arithmetic in docs/step-time.md); not fitted, no constant shipped"),
    ("issue-corpus excerpts looked at in the piecewise round: vllm-project/vllm pulls 21477, "
     "24123, 30072, 53899, issue 40543; vllm-project/vllm-ascend pull 8016, issue 5739; "
     "pytorch/torchtitan pull 3685; pie-project/pie pull 348",
     "issue 20, piecewise round: FULL vs PIECEWISE comparisons at other models, GPUs or "
     "engines (or none stated); not used"),
    ("vllm 0.13.0, 0.14.0 and 0.16.0 wheels (PyPI): config/scheduler.py (async_scheduling's "
     "default: False in 0.13.0, None from 0.14.0), config/vllm.py VllmConfig.__post_init__ "
     "(None → True unless non-EAGLE speculative decoding, a ray executor or Mamba prefix "
     "caching), model_executor/models/config.py and config/model.py (hybrid models: prefix "
     "caching off by default, so async stays on), v1/executor/multiproc_executor.py and "
     "uniproc_executor.py max_concurrent_batches (2 under async scheduling), "
     "v1/engine/core.py step_with_batch_queue, benchmarks/lib/endpoint_request_func.py (TTFT: "
     "the first chunk with choices, from the send); vllm-project/vllm issue #27679 (the async "
     "scheduling plan, PR #27614 the default)",
     "a new request's first step under vLLM's async scheduling (ttftgap round: "
     "calc/deploy/engines/vllm schedule_ahead from 0.14.0; the held-out TTFT gap otherwise "
     "not explained)"),
    ("sglang wheels (PyPI) 0.5.3, 0.5.4, 0.5.5, 0.5.6, 0.5.7, 0.5.8, 0.5.9, 0.5.10, 0.5.13, "
     "0.5.14, 0.5.16, 0.5.17, 0.5.23: srt/server_args.py (--mamba-ssm-dtype, "
     "--max-mamba-cache-size; 0.5.23 arg_groups/serving_hook.py), configs/mamba_utils.py "
     "mamba2_state_dtype (0.5.3 configs/qwen3_next.py), model_executor/model_runner.py / "
     "model_runner_kv_cache_mixin.py handle_max_mamba_cache, mem_cache/kv_cache_configurator.py "
     "_handle_max_mamba_cache and resolve_max_num_reqs; tests/data/engine_options (both flags "
     "from 0.5.2, float16 from 0.5.9)",
     "issue 21/20, mambadtype round: the recurrent state's dtype and the stated slot count of "
     "SGLang's hybrid state pool by release (sglang/hybrid.py); no constant fitted"),
    ("sgl-project/sglang docs_new/src/snippets/configs/qwen/qwen3.5.jsx@00a49ea2c, every "
     "high-throughput cell of the held-out cookbook rows (H200 397B BF16 / FP8, B200 397B FP8 / "
     "NVFP4, H200 and B200 27B BF16 / FP8)",
     "issue 21/20, mambadtype round: which cells state --mamba-ssm-dtype (the H200 397B FP8 "
     "one, bfloat16; also the H200 122B and 35B FP8 cells, not in the rows) or "
     "--max-mamba-cache-size (none); the rows' settings only"),
    ("sglang 0.5.16 wheel (PyPI): srt/managers/scheduler.py (get_new_batch_prefill, "
     "get_num_allocatable_reqs, update_running_batch, _add_request_to_queue), "
     "managers/schedule_policy.py (SchedulePolicy.calc_priority: fcfs leaves the queue "
     "unsorted; PrefillAdder: rem_total_tokens with full_evictable_size for a hybrid radix "
     "cache, rem_input_tokens from --max-prefill-tokens 16384, rem_mamba_slots and "
     "_mamba_gap_budget_for_req only under the unified pool, --enable-unified-memory, off), "
     "managers/schedule_batch.py (check_decode_mem, retract_decode), "
     "managers/scheduler_components/new_token_ratio_tracker.py and environ.py (0.7, factor "
     "0.14, 600 steps, 20 retract steps, clip 4096), mem_cache/allocation.py alloc_req_slots "
     "(radix-cached states evicted for a new request's slots), mem_cache/memory_pool.py "
     "HybridReqToTokenPool (a slot and, under extra_buffer, two ping-pong slots a request), "
     "mem_cache/mamba_radix_cache.py (cache_finished_req, evict_mamba, full_evictable_size), "
     "mem_cache/kv_cache_configurator.py (_profile_available_bytes, _handle_max_mamba_cache, "
     "_calculate_mamba_ratio, resolve_max_num_reqs), configs/mamba_utils.py "
     "(mamba_cache_per_req), arg_groups/overrides.py _qwen3_5_hybrid_overrides (Blackwell: "
     "trtllm_mha, page 64), layers/rotary_embedding/factory.py get_rope and models/qwen3_5.py "
     "(rotary_dim = head_dim × partial_rotary_factor); sgl-project/sglang "
     "docs_new/src/snippets/configs/qwen/qwen3.5-benchmarks.jsx (the stored versions: which "
     "statistic ttft_ms / tpot_ms are, not stated) and the Gemma-4 cookbook benchmarks file's "
     "header (the same harness)",
     "issue 20/21, sgadmit round: how SGLang bounds the running requests of a hybrid model "
     "(the state pool's cap, modelled since the sghybrid round; no other gate in the default "
     "pool) and where a retracted request waits (the end of the queue); the held-out "
     "diagnostic rebuilt on kvcalc's own pool (bench/validation_newruns.py "
     "sglang_pool_limits); nothing fitted, no constant moved"),
    ("sglang 0.5.16 wheel source (pip download --no-deps sglang==0.5.16): models/qwen3_5.py "
     "(Qwen3_5GatedDeltaNet.forward, _forward_input_proj), layers/attention/linear/"
     "gdn_backend.py (forward_decode, forward_extend, maybe_set_default_flashinfer_gdn_prefill), "
     "linear/kernels/gdn_triton.py, layers/attention/hybrid_linear_attn_backend.py, "
     "kernels/ops/attention/fla/chunk.py and chunk_delta_h.py, server_args.py "
     "(_handle_linear_attn_backend)",
     "issue 20, gdnstep round: the kernels of a gated DeltaNet layer at decode (the qkvz / ba "
     "split, causal_conv1d_update, the packed decode with its gating fused, the gated RMSNorm) "
     "and prefill (causal_conv1d_fn, fused_gdn_gating, chunk_gated_delta_rule's six, the gated "
     "norm); the Triton prefill on SM90 and on SM100 with the fp32 state (FlashInfer's only with "
     "a bf16 state and CUDA 13)"),
    ("aiconfigurator-core 0.12.0 wheel tables {h200_sxm,b200_sxm}/linear_attention/sglang/0.5.14/"
     "gdn_perf.parquet generation rows (causal_conv1d_update, "
     "fused_recurrent_gated_delta_rule_packed_decode), {gpu}/linear_attention/trtllm/1.3.0rc20/"
     "gdn_perf.parquet (TensorRT-LLM's chunk_gated_delta_rule)",
     "issue 20, gdnstep round: kvcalc's decode delta-rule op (its split and norm kernels "
     "included) against SGLang's packed decode kernel alone, Qwen3.5-27B TP 1: +13 / +21 / +0 / "
     "+1 / −26% at batch 1 / 8 / 32 / 64 / 256 on H200, +12 / +4 / −5 / −3 / +1% on B200; "
     "TensorRT-LLM's own chunked kernel beside SGLang's; nothing fitted"),
    ("https://github.com/vllm-project/vllm/pull/27299 (closed; cyang49's comment of "
     "2025-10-25: the reference Mamba-2 SSD chain's throughput on one H100 at "
     "granite-4.0-h-small's shape, 128 heads of 64, d_state 128, 1-262k tokens), "
     "https://github.com/vllm-project/vllm/pull/35397 (merged 2026-02-26: the description "
     "only, the state-passing kernel serial over every chunk of every sequence before it)",
     "issue 20, gdnstep round: the Mamba-2 chunked scan is also far slower than its matmul "
     "roofline (≈ 0.29 ms a layer at 1-2k tokens against kvcalc's ≈ 15 µs for Nemotron 3 "
     "Nano's smaller TP 2 layer); one shape on one GPU, not applied: the next round's lead"),
    ("vllm 0.16.0 wheel (PyPI): model_executor/models/minimax_m2.py (MiniMaxM2MoE: fp32 gate, "
     "FusedMoE with reduce_results False, then tensor_model_parallel_all_reduce; partial "
     "rotary rotary_dim / head_dim), layers/fused_moe/config.py FusedMoEParallelConfig "
     "(use_all2all_kernels = dp_size > 1 and use_ep; under TP + EP the MoE's tp_size 1, "
     "ep_size = TP), config/parallel.py (all2all_backend default allgather_reducescatter; "
     "use_sequence_parallel_moe needs DP > 1), layers/fused_moe/all2all_utils.py "
     "maybe_make_prepare_finalize (MoEPrepareAndFinalizeNoEP at DP 1), oracle/fp8.py and "
     "flashinfer_cutlass_moe.py (FlashInfer CUTLASS with or without EP), "
     "quantization/utils/fp8_utils.py W8A8BlockFp8LinearOp and utils/deep_gemm.py "
     "(DeepGEMM for block-fp8 linears when deep_gemm imports; VLLM_USE_DEEP_GEMM 1), "
     "compilation/passes/fusion/rms_quant_fusion.py and config/vllm.py O2 (the qkv's group "
     "quant fused into the RMSNorm; o_proj's not)",
     "issue 20, minimax round: what a MiniMax-M2.5 decode step runs at TP 4 / EP 4 and TP 8 / "
     "EP 8 (no all-to-all at DP 1: every GPU holds the batch, runs its E / EP experts, "
     "all-reduces); every MoE layer ends in a collective, so the busiest GPU's experts set the "
     "layer (calc.formulas.flops.busiest_active_experts); nothing fitted"),
    ("flashinfer-python 0.6.3 wheel (PyPI, vLLM 0.16.0's pin): data/csrc/fused_moe/"
     "cutlass_backend/cutlass_fused_moe_kernels.cuh (BlockScaleFC1 / FC2, the "
     "CutlassFp8BlockScaleGemmRunner<bf16, fp8, bf16>), nv_internal/.../fp8_blockscale_gemm/"
     "fp8_blockscale_gemm.cu (moeGemm, getWorkspaceSize: expected_m = the call's tokens) and "
     "fp8_blockscale_gemm_kernel.cuh (fp8_grouped_gemm_run: scale_1x128_kernel then "
     "grouped_gemm_dispatch, swap-AB below 32 rows an expert on H100), nv_internal/"
     "tensorrt_llm/deep_gemm/scheduler.cuh (GroupedWithOffsetScheduler(SwapAB): only experts "
     "with rows are walked)",
     "issue 20, minimax round: the block-fp8 MoE kernel vLLM 0.16.0 runs on H100 streams the "
     "weights of the GPU's touched experts only; no slow path found; nothing fitted"),
    ("SemiAnalysisAI/InferenceX pull 832 (its comment table: TP 8 / EP 8 against TP 4 / EP 4 "
     "at 1k1k c 4, P99 ITL 23.6 ms at TP 4, the TP 8 start-up traceback in "
     "apply_top_k_top_p), utils/bench_serving/backend_request_func.py@ac0d2a853 (the vllm "
     "backend sends temperature 0.0: greedy decode), perf-changelog.yaml entries of pulls "
     "958 and 1516 (later MiniMax H100 recipes: vLLM 0.18, 0.19.1 with full graphs and "
     "fuse_minimax_qk_norm), vllm-project/recipes MiniMax/MiniMax-M2.md (4 x H20-3e TP 4, "
     "2,048 / 1,024 at c 10: 82.8 ms TPOT, release not stated), sgl-project/sglang pull "
     "21872 (FlashInfer CUTLASS against Triton block-fp8 MoE on one H100: -13.8% / -5.7% "
     "tok/s under CUDA graphs at E 128 / 64)",
     "issue 20, minimax round: the held-out MiniMax rows' client and the PR's figures (the "
     "start-up sampler run, not the decode step, sorts the vocabulary); the other runs read, "
     "not used (another release, GPU or engine); nothing fitted"),
    ("vllm 0.16.0 wheel source (pip download --no-deps vllm==0.16.0): model_executor/layers/"
     "mamba/ops/ssd_state_passing.py (_state_passing_fwd_kernel), ssd_chunk_scan.py, "
     "ssd_combined.py, mamba_mixer2.py",
     "issue 20, ssd round: vLLM 0.16.0 still runs the chain PR #27299 timed (the state walk one "
     "program per head and state block over every chunk of every sequence, tl.exp, not PR "
     "#35397's batch-parallel walk and exp2), so the fitted rate applies to the held-out "
     "Nemotron rows' release; the mixer is a custom op outside the CUDA graphs at prefill"),
    ("https://github.com/vllm-project/vllm/pull/43083 (merged; danisereb's tuning table of the "
     "Triton selective_state_update on one H100: head_dim 64, d_state 128, 8 groups, fp16 "
     "state, µs by sequences × heads 8-12,288)",
     "issue 20, ssd round: kvcalc's decode state update (the state read and written at its H100 "
     "memory band, one kernel's fixed cost) against it: -12 ... +19% from 256 sequence-heads "
     "up, -31 ... -36% below 128 (the kernel's ≈ 2 µs latency against kvcalc's 1.4 µs, under "
     "1 µs a layer); nothing fitted, no change (bench/ssd_prefill_fit.py prints it)"),
    ("aiconfigurator 0.10.0 and aiconfigurator-core 0.12.0 wheel tables {gpu}/.../trtllm/"
     "{1.3.0rc10,1.3.0rc20}/mamba2_perf.parquet and sdk/operations/mamba.py",
     "issue 20, ssd round: the Mamba2Kernel op names four kernels (causal_conv1d_fn, "
     "mamba_chunk_scan_combined, causal_conv1d_update, selective_state_update) but every table "
     "holds only the two conv kernels: no SSD or state-update timing to fit"),
    ("https://github.com/tile-ai/TileOPs/pull/1557, /pull/1934, /pull/1608 (H200 timings of "
     "TileOPs' SSD kernels against mamba_ssm's), https://github.com/NVIDIA/Megatron-LM/pull/5829 "
     "(Nemotron 3 Nano's SSD duration, Triton against a CuTe DSL kernel, in nsys screenshots), "
     "https://github.com/flashinfer-ai/flashinfer/pull/2709 (a Blackwell SSD kernel), "
     "https://github.com/sgl-project/sglang/pull/39130 (SGLang's SSD kernels without their "
     "autotune, at BLOCK_SIZE 16), https://pytorch.org/blog/accelerating-mamba2-with-kernel-fusion",
     "issue 20, ssd round: searched for more SSD chain timings (other GPUs, head counts, "
     "batches); their tables were not readable in full here (descriptions only, or images), so "
     "nothing taken from them; SGLang's note says its chain ran slower still before #39130"),
    ("sglang wheels (PyPI, pip download --no-deps) 0.4.0, 0.4.5, 0.4.6, 0.4.7, 0.4.8, 0.4.9, "
     "0.4.10, 0.5.2, 0.5.10, 0.5.11, 0.5.12, 0.5.13, 0.5.14, 0.5.15, 0.5.16, 0.5.23: "
     "srt/managers/schedule_policy.py PrefillAdder (__init__ rem_input_tokens, budget_state, "
     "_prefill_one_req / _update_prefill_budget, add_being_chunked_req / add_chunked_req, "
     "add_one_req, add_one_req_ignore_eos), srt/managers/scheduler.py get_new_batch_prefill "
     "(the waiting-queue loop: no budget test before a request), srt/managers/tp_worker.py "
     "get_worker_info, srt/server_args.py and 0.5.23 arg_groups/fields/schedule.py "
     "(max_prefill_tokens 16384 in every one; not divided by the attention-DP ranks; the "
     "activation reserve takes it only without chunked prefill)",
     "issue 20/21, sgprefill round: --max-prefill-tokens as an engine setting and its rule in "
     "the simulation by release (0.4.0-0.4.7: a request refused first when its prompt tokens "
     "left exceed the budget left; 0.4.8-0.5.12: reach it, in whole pages; 0.5.13+: that test "
     "only without chunked prefill, else the batch ends once the budget is spent, the last "
     "request overrunning it; a first request always taken); nothing fitted"),
    ("SemiAnalysisAI/InferenceX benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi325x.sh@843c6254f "
     "(as quoted in docs/validation/published_runs_2026.yaml, not re-read)",
     "issue 20/21, sgprefill round: the MI325X DeepSeek-R1 rows' --max-prefill-tokens 131072, "
     "now stated on the rows (max_prefill_tokens)"),
    ("vllm 0.10.2, 0.16.0 and 0.19.1 wheels (PyPI): model_executor/layers/rotary_embedding/"
     "__init__.py get_rope (rotary_dim from partial_rotary_factor; the cache key), base.py, "
     "mrope.py (MRotaryEmbedding: 4 × max_position_embeddings rows), "
     "phi3_long_rope_scaled_rope.py, yarn_scaling_rope.py, deepseek_scaling_rope.py; "
     "models/qwen3_next.py, qwen3_5.py, minimax_m2.py, glm4_moe.py, phi.py, deepseek_v2.py "
     "(indexer_rope_emb), jamba.py and nemotron_h.py (no rotary embedding); "
     "transformers_utils/config.py patch_rope_parameters (partial_rotary_factor, rotary_pct, "
     "rotary_emb_fraction); sglang 0.5.16 wheel: layers/rotary_embedding/factory.py, base.py, "
     "mrope.py, rope_variant.py, models/qwen3_5.py, qwen3_next.py, glm4_moe.py, minimax_m2.py, "
     "phi.py, deepseek_v2.py, nemotron_h.py, layers/attention/dsa/dsa_indexer.py, "
     "configs/qwen3_5.py and qwen3_next.py (partial_rotary_factor default 0.25); vLLM "
     "gemma3.py (0.10.2, 0.19.1) and SGLang models/gemma3_causal.py (0.4.5, 0.5.4, 0.5.6, "
     "0.5.8, 0.5.9, 0.5.10, 0.5.16 wheels: Gemma 3's local and global RoPE); "
     "NVIDIA/TensorRT-LLM tensorrt_llm/_torch/attention_backend/interface.py at commit "
     "000a01de (RopeParams.from_config, create_rope_const_params), the TrtllmAttention and "
     "Llama4Attention constructors in search-index excerpts (files 55410938029, 426411151), "
     "https://github.com/NVIDIA/TensorRT-LLM/pull/14241, /pull/11598, /pull/3020; the "
     "config.json files of tests/data/hf_configs/ and GLM-4.6's partial_rotary_factor 0.5 in a "
     "public copy of its config (andreidhoang/stanford-ai GLM-4.6_DEEP_DIVE.md)",
     "issue 21, rope round (engine memory, not step time): the RoPE cos/sin table's rotary "
     "width, rows and count per engine; the records it moves are the Qwen3-Next vLLM 0.10.2 "
     "log (its 'Model loading took' line), the two Gemma 3 vLLM 0.19.0 logs and the held-out "
     "Qwen3.8-27B SGLang 0.5.18 log; nothing fitted"),
    ("sglang 0.5.18 wheel (PyPI): srt/models/qwen3_5.py (Qwen3_5GatedDeltaNet: conv1d, "
     "in_proj_qkvz, in_proj_ba, dt_bias, A_log, RMSNormGated, out_proj; Qwen3_5LinearDecoderLayer, "
     "Qwen3_5AttentionDecoderLayer: get_rope before qkv_proj, q/k norms after the MLP; "
     "Qwen3_5ForCausalLM, Qwen3_5ForConditionalGeneration), qwen3_next.py (Qwen3GatedDeltaNet, "
     "the same tensors), qwen3_vl.py (Qwen3VLForConditionalGeneration: the vision tower built "
     "first with quant_config None; Qwen3VLMoeVisionModel, Qwen3_VisionBlock, Qwen3_VisionMLP, "
     "Qwen3VLMoeVisionPatchMerger), qwen2_moe.py (Qwen2MoeSparseMoeBlock: experts before the "
     "gate, shared_expert_gate, enable_shared_expert_fusion)",
     "issue 21, gdnseg round (engine memory, not step time): the tensors SGLang builds on the "
     "GPU for a gated-DeltaNet hybrid and its vision tower, in order, replayed through the "
     "caching allocator (sglang/load.py); the record it moves is the held-out Qwen3.8-27B "
     "SGLang 0.5.18 log, used to diagnose only; nothing fitted"),
    ("ai-dynamo/aiconfigurator@095f58a51 collector/vllm/collect_gemm.py history (bec0beb8b "
     "2025-12-22 vLLM 0.12.0 data, 5ef50c9b9 2026-01-30 0.14.0 data: CUDA graphs, bf16; "
     "4bed48d96 2026-05-11 on: use_cuda_graph=False for fp8_block) and collector/helper.py "
     "benchmark_with_power",
     "issue 20, vfp8 round: which vLLM GEMM tables time the GPU (graph replays) and which the "
     "host (the eager fp8_block rows of 0.19.0+, left out of every curve); nothing fitted"),
    ("vllm 0.12.0 and 0.16.0 wheels (PyPI): model_executor/layers/quantization/utils/"
     "fp8_utils.py W8A8BlockFp8LinearOp.apply (DeepGEMM when deep_gemm imports and N % 64 = "
     "K % 128 = 0 with bf16 output, else CUTLASS; FlashInfer block-scale GEMM behind "
     "VLLM_BLOCKSCALE_FP8_GEMM_FLASHINFER, default 0, in 0.16.0), utils/deep_gemm.py "
     "(is_deep_gemm_e8m0_used: E8M0 scales on Hopper too, VLLM_USE_DEEP_GEMM_E8M0 default 1; "
     "0.16.0 adds VLLM_USE_DEEP_GEMM_TMA_ALIGNED_SCALES, default 1), envs.py",
     "issue 20, vfp8 round: the block-fp8 linear path of both releases on Hopper (the same "
     "DeepGEMM path; the 0.12.0 / 0.14.0 curve is applied to every vLLM release); nothing "
     "fitted"),
    ("aiconfigurator 0.7.0 wheel: h200_sxm/vllm/0.12.0/generation_attention_perf.txt against "
     "aiconfigurator-core 0.12.0's attention/vllm/0.24.0/generation_attention_perf.parquet "
     "(Qwen3-235B's 32 q / 2 kv heads a GPU at TP 2)",
     "issue 20, vfp8 round: vLLM 0.12.0's decode attention at batch 16 and 2,048 / 4,096 tokens "
     "(28.5 / 48.6 us) against 0.24.0's FA3 rows (18.1 us at 2,048); reported, not fitted"),
    ("vllm-project/vllm pulls 19085 (DeepGEMM for block-fp8 linears; Qwen3-32B-FP8 decode "
     "27 ms with CUTLASS against SGLang's 14 ms), 26197 (E8M0 on by default on Hopper), "
     "29346 (DeepGEMM MoE off at TP 8)",
     "issue 20, vfp8 round: the history of vLLM's block-fp8 linear kernels; nothing fitted"),
    ("aiconfigurator 0.7.0 / 0.10.0 and aiconfigurator-core 0.12.0 wheels on PyPI "
     "(ai-dynamo/aiconfigurator, Apache-2.0): every generation_attention_perf and "
     "context_attention_perf table of H100, H200 and B200 (vLLM 0.12.0-0.24.0, SGLang "
     "0.5.6.post2-0.5.14, TensorRT-LLM 1.0.0rc3-1.3.0rc20)",
     "issue 20, vattn round: each engine's own rows against the pooled attention curves × its "
     "scale by context band and KV heads (tools/study_engine_attention.py); nothing fitted, "
     "nothing shipped"),
    ("ai-dynamo/aiconfigurator collector/vllm/collect_attn.py at e954ae4c4 (vLLM 0.12.0), "
     "5ef50c9b9 (0.14.0) and d5bad971c (0.24.0), collector/helper.py benchmark_with_power, "
     "collector/vllm/fake_hf_model/config.json, and commit a924baa01 (#1004, 2026-05-12: FA3 "
     "scheduler_metadata built for the placeholder model's 16 q / 8 kv heads)",
     "issue 20, vattn round: every attention table timed in a CUDA graph; vLLM 0.12.0 / 0.14.0's "
     "(and H200 0.19.0's) long-context excess at 1-4 KV heads is the collector's mis-sized FA3 "
     "schedule; nothing fitted"),
    ("vllm-project/vllm 0.19.1 wheel: vllm/v1/attention/backends/flash_attn.py "
     "(FlashAttentionMetadataBuilder: num_heads_kv from model_config.get_num_kv_heads, "
     "get_scheduler_metadata with num_splits)",
     "issue 20, vattn round: serving sizes FA3's ahead-of-time schedule by the model's own heads "
     "per GPU; nothing fitted"),
    ("vllm 0.16.0 wheel (PyPI): model_executor/layers/fused_moe/layer.py determine_expert_map "
     "(linear placement: rank r holds the contiguous block of E / ep experts; round_robin only "
     "when asked), config/parallel.py (expert_placement_strategy \"linear\", enable_eplb False, "
     "num_redundant_experts 0), fused_moe/router/grouped_topk_router.py (scores viewed "
     "[tokens, n_group, E / n_group]: groups are contiguous; group score the top-2 sum with a "
     "routing bias); sglang 0.5.15 wheel: srt/server_args.py (init_expert_location "
     "\"trivial\", enable_eplb False, ep_num_redundant_experts 0), srt/eplb/expert_location.py "
     "init_trivial (physical expert i is logical i), srt/layers/moe/topk.py "
     "biased_grouped_topk_impl / grouped_topk_gpu (the same contiguous groups); "
     "NVIDIA/TensorRT-LLM _torch/modules/fused_moe/fused_moe_trtllm_gen.py (content search, "
     "revision not pinned: without a load balancer initial_global_assignments gives rank r "
     "experts r · E / ep onward); tests/data/hf_configs deepseek-v3.2, glm-5, kimi-k2-instruct, "
     "nemotron-3-nano config.json (n_group 8 / topk_group 4 for DeepSeek-V3.2, 1 / 1 for the "
     "others) and DeepSeek-V2's config.json (n_group 8, topk_group 3, 160 experts, top-6)",
     "issue 20, grouproute round: the routing structure and expert placement behind the busiest "
     "GPU's experts under expert parallelism (calc.formulas.expert_routing: DeepSeek's "
     "group-limited routing, contiguous placement, no redundant experts by default); nothing "
     "fitted"),
    ("sglang 0.5.16 wheel (PyPI, sha256 d5f345a1...): srt/server_args.py (moe_runner_backend "
     "default \"auto\"), srt/arg_groups/overrides.py (_qwen3_moe_family_overrides: Qwen3MoE, "
     "Qwen3-VL-MoE, Qwen3-Next, Qwen3.5-MoE on SM100 with fp8, modelopt_fp4 or no quantization "
     "and no all-to-all backend -> flashinfer_trtllm; _deepseek_moe_quant_resolution and "
     "_DEEPSEEK_FAMILY_ARCHS: the same for DeepSeek V3 / V3.2, Kimi K2.5, GLM-5, Mistral Large 3; "
     "_glm4_moe_overrides: GLM-4.5 only for modelopt_fp4 or none; "
     "_moe_runner_backend_quant_constraints), srt/layers/quantization/fp8.py "
     "(Fp8MoEMethod.create_moe_runner: auto -> DeepGEMM under DeepEP / Mooncake / NIXL, else "
     "Triton; is_deepgemm_moe_runner_backend_enabled)",
     "issue 20, sgb200moe round: which fused-MoE kernel SGLang runs on B200 for block-fp8 and "
     "NVFP4 experts (MOE_ENGINE_BACKEND of tools/fit_kernels.py)"),
    ("sglang 0.5.16 wheel (PyPI): srt/utils/common.py (is_sm100_supported: "
     "_check_cuda_device_version with device_capability_majors [10] and CUDA 12.8; the test "
     "the SM100 MoE-runner overrides of srt/arg_groups/overrides.py make)",
     "issue 20, sgtrtgen round: the trtllm-gen runner rule holds on every compute capability "
     "10.x GPU (B200, GB200, B300, GB300), so MOE_ENGINE_BACKEND of tools/fit_kernels.py names "
     "the trtllm-gen rows on all four"),
    ("aiconfigurator-core 0.12.0 wheel table b200_sxm/gemm/sglang/0.5.14/gemm_perf.parquet "
     "(fp8_block rows, collected 2026-08-13 with the Qwen3.5-397B model filter) at Qwen3.5-397B's "
     "TP 4 linears (n x k: 5,120 x 4,096, 4,096 x 2,048, 512 x 4,096, 4,096 x 256)",
     "issue 20, sgb200moe round: the pooled gemm.fp8_block curve at those shapes, -15 ... +11% "
     "at 1-256 rows, -40 ... +18% at 4-16k; not refitted"),
    ("vllm 0.16.0, 0.17.0, 0.18.0, 0.19.0, 0.20.0 and 0.33.0 wheels (PyPI): platforms/rocm.py "
     "(get_attn_backend_cls, _get_backend_priorities, use_rocm_custom_paged_attention), envs.py "
     "(VLLM_ROCM_USE_AITER and its sub-switches), _aiter_ops.py, v1/attention/backend.py "
     "validate_configuration, v1/attention/backends/rocm_attn.py, v1/attention/ops/"
     "chunked_prefill_paged_decode.py and prefix_prefill.py, model_executor/layers/utils.py "
     "rocm_unquantized_gemm_impl; vllm-project/recipes@ad3ea9e (and 2dc5113) models/Qwen/"
     "Qwen3Guard-Gen-8B.yaml (the ROCm command PR 431 verified: VLLM_ROCM_USE_AITER=1, "
     "--max-model-len 32768)",
     "issue 20, amddense round: from 0.19.0 vLLM's ROCm attention default is ROCM_ATTN (ROCm's "
     "paged-attention decode, the Triton prefix-prefill), AITER on or off (VLLM "
     "rocm_kernels_by_release); bf16 linear layers on gfx942 run hipBLASLt above 4 tokens; the "
     "held-out recipes431 row's settings; nothing fitted"),
    ("ROCm/aiter (mirror at e404860, 2026-08-22): aiter/configs/bf16_decode_gfx942_m1_m4_canary."
     "csv (FlyDSL decode GEMMs on gfx942 at 1-4 tokens, 3.0-5.0 TB/s), model_configs/{llama70B,"
     "qwen32B,kimi,glm5,dsv3}_bf16_tuned_gemm.csv (their gfx942 rows; e.g. glm5 6,144 x 4,096 at "
     "8-16 tokens 1.45 TB/s), the history of aiter/configs/bf16_tuned_gemm.csv (no gfx942 rows "
     "in any version); an unattributed aiter tuning guide found by content search (hipBLASLt "
     "bf16 on gfx942: 4,096^3 at 563.9 TFLOPS, 1 x 4,096 x 4,096 at 2.45 TB/s; repository not "
     "identified); sgl-project/sglang pull 31216 (Gemma-4-31B bf16 on one MI300X, SGLang "
     "0.5.13.post1, c 1 / 16 / 64: TPOT 21.49 / 31.45 / 62.93 ms); recipes pulls 443 and 476 "
     "re-read (Ministral-3 on MI300X, the recipes431 harness); samuel-bohman/AI-benchmarking-"
     "guide Azure_Results/AMD_MI300X_results.md (its FP16 GEMM table empty); the openings of "
     "herdora.com/blog/the-overlooked-gpu, rocm.blogs.amd.com artificial-intelligence/"
     "LLM_Inference and hipblaslt_offline_tuning (no figure read)",
     "issue 20, amddense round: candidates for mi300x's bf16 GEMM rate and decode bytes rate, "
     "looked at, not used: no bf16 dense MI300X run of a model kvcalc has outside the held-out "
     "row's harness, and the gfx942 kernel tables disagree at small M"),
    ("sglang 0.5.16 wheel (PyPI): srt/managers/scheduler.py (get_next_batch_to_run, "
     "get_new_batch_prefill, _get_new_batch_prefill_raw, get_num_allocatable_reqs, "
     "is_disable_overlap_for_batch), managers/min_free_slots_delayer.py, server_args.py "
     "(enable_mixed_chunk False, chunked_prefill_size by GPU memory: 8,192 on H200, 16,384 on "
     "B200, enable_prefill_delayer False), arg_groups/overrides.py (_qwen3_5_hybrid_overrides, "
     "_mamba_radix_cache_resolution), environ.py (SGLANG_DISABLE_CONSECUTIVE_PREFILL_OVERLAP "
     "False), mem_cache/memory_pool.py (HybridReqToTokenPool.alloc, the ping-pong slots), "
     "mem_cache/kv_cache_configurator.py (resolve_max_num_reqs), "
     "layers/quantization/fp8_utils.py (dispatch_w8a8_block_fp8_linear)",
     "issue 20, sg27cycle round: the schedule of the held-out Qwen3.5-27B rows (prefill batches "
     "alone and first, no mixing, no delayer, overlapped consecutive prefills: cohorts under "
     "fixed lengths), as the simulation already runs it (bench/sglang_cycle.py); nothing "
     "changed, nothing fitted"),
    ("aiconfigurator-core 0.12.0 wheel: systems/data/{h200_sxm,b200_sxm}/gemm/{sglang/0.5.14,"
     "trtllm/1.3.0rc20,vllm/0.24.0}/gemm_perf.parquet (bf16 and fp8_block rows against the "
     "fitted curve by m, and at the 27B's shapes; b200 gemm collection_meta.yaml), "
     "attention/sglang/0.5.14/{context,generation}_attention_perf.parquet (FA3, Triton and "
     "trtllm_mha rows at 24 / 4 heads of 256)",
     "issue 20, sg27cycle round: the 27B's prefill and decode pieces against SGLang's measured "
     "kernels (SGLang's bf16 GEMMs 13-19% above the pooled curve at m >= 2,049 on H200, its "
     "fp8_block ones 15% below; not applied: opposite directions); nothing fitted"),
    ("ai-dynamo/aiconfigurator@526f823b0 collector/helper.py benchmark_with_power",
     "issue 20, sg27cycle round: how long a table row runs (3 warm-ups, 6 replays of a graph "
     "of repeat_n kernels, GEMMs 5; power sampling and the > 10% clock-drop flag only under "
     "COLLECTOR_MEASURE_POWER, off by default): short bursts, so the tables say nothing of "
     "sustained-load clocks; nothing fitted"),
    ("sgl-project/sglang docs_new/src/snippets/configs/qwen/qwen3.5-benchmarks.jsx (stored "
     "versions read 2026-12-03): the 0.5.16 low-latency cells of Qwen3.5-27B at concurrency 1 "
     "(H100, H200, B200; bf16, FP8; EAGLE on), the H200 397B bf16 one, and the 0.5.15 B200 "
     "cells",
     "issue 20, sg27cycle round: the c 1 TTFT as a look at one 8,192-token prefill (27B: B200 "
     "+32 / +39% over kvcalc's, Hopper contradictory: H100 bf16 −19%, H200 bf16 +28%; 397B "
     "H200 bf16 220 ms against kvcalc's 266); diagnosis only, not added to the held-out rows "
     "(speculative decoding); nothing fitted"),
    ("sglang wheels (PyPI) 0.5.4, 0.5.5, 0.5.6, 0.5.7, 0.5.8, 0.5.9, 0.5.10, 0.5.11, 0.5.12, "
     "0.5.13, 0.5.14, 0.5.16, 0.5.18 and 0.5.23: srt/server_args.py "
     "_handle_model_specific_adjustments (to 0.5.14), srt/arg_groups/overrides.py "
     "_deepseek_moe_quant_resolution, _qwen3_moe_family_overrides, _glm4_moe_overrides, "
     "_llama4_overrides (0.5.16, 0.5.18), _minimax_m2_overrides (0.5.18), "
     "srt/arg_groups/model_overrides/{qwen3_moe,glm4_moe,minimax_m2,llama4}.py and "
     "overrides.py _DEEPSEEK_FAMILY_ARCHS (0.5.23), srt/layers/quantization/fp8.py "
     "Fp8MoEMethod.create_moe_runner and is_deepgemm_moe_runner_backend_enabled (0.5.4, 0.5.16, "
     "0.5.23), srt/utils/common.py is_sm100_supported (majors [10], 0.5.16)",
     "issue 20, sgrunner round: which block-fp8 MoE runner --moe-runner-backend auto resolves to "
     "by release, GPU and architecture (calc/deploy/engines/sglang/moe_runner.py)"),
    ("vLLM 0.16.0 wheel source (pip download --no-deps vllm==0.16.0): fused_moe/oracle/fp8.py "
     "(select_fp8_moe_backend: AITER, FLASHINFER_TRTLLM, FLASHINFER_CUTLASS, ... in order), "
     "fused_moe/flashinfer_trtllm_moe.py (is_supported_config_trtllm_fp8: "
     "_supports_no_act_and_mul False, silu only, per-tensor routing Llama4 / Renormalize / "
     "RenormalizeNaive), fused_moe/flashinfer_cutlass_moe.py (FlashInferExperts: silu and "
     "relu2_no_mul, per-tensor fp8 from sm90), quantization/modelopt.py (ModelOptFp8MoEMethod: "
     "kFp8StaticTensorSym weights and activations)",
     "issue 20, nemoload round: Nemotron-H's non-gated relu2 experts run FlashInfer CUTLASS, not "
     "trtllm-gen, on B200 (the backend of the fp8_cutlass curve); nothing fitted"),
    ("vLLM 0.16.0 wheel source: quantization/input_quant_fp8.py (QuantFP8.forward_native: "
     "x.to(float32), the scalar scale's reciprocal, the product, clamp, cast to fp8), "
     "quantization/utils/quant_utils.py (group_broadcast, prep_scale_for_group_broadcast: a "
     "per-tensor scale stays a scalar), layers/activation.py (ReLUSquaredActivation: "
     "torch.square(F.relu(x)))",
     "issue 20, nemoload round: the bytes of the shared experts' eager kernels inside "
     "moe_forward_shared (27 B an element a static fp8 quantisation, 8 B relu², 10 B "
     "silu-and-mul; calc/deploy/moe_pipeline.py VLLM_SHARED_QUANT_BYTES, VLLM_SHARED_ACT_BYTES), "
     "counted from the source; nothing fitted"),
    ("vllm-project/vllm pulls 53791 (closed RFC: Nemotron Ultra NVFP4 on 4 x GB200, the shared "
     "expert's eager ReLU2 / static fp8 quantisation boundary 813.6 -> 140.5 us fused at M = "
     "32,768, the shared MLP 3,655 -> 2,968 us) and 53793 (merged: the fused ReLU2 + static fp8 "
     "producer for Nemotron-H MLPs, after 0.16.0); flashinfer-ai/flashinfer pull 5332 (cuTile "
     "against CUTLASS fp8 per-tensor MoE at Nemotron's relu2 shape 2,688 / 1,856 / 128 / top-6; "
     "the GPU of that table not read)",
     "issue 20, nemoload round: corroborate that the eager boundary is a memory-bound chain "
     "several times the fused kernel (its shape not stated in the text read: not used to fit); "
     "a lead for a CUTLASS measurement at Nemotron's exact shape; nothing fitted"),
    ("aiconfigurator-core 0.12.0 wheel tables (ai-dynamo/aiconfigurator, Apache-2.0): "
     "b200_sxm/moe/trtllm/1.3.0rc20/moe_perf.parquet (moe_torch_flow_cutlass fp8 rows, 13 "
     "shapes; moe_torch_flow_nongated fp8 rows at 2,048 / 5,120 and 8,192 / 5,120, 512 experts, "
     "top-22, and bf16 at Nemotron 3 Nano's 2,688 / 1,856 / 128 / top-6); "
     "b200_sxm/moe/vllm/0.19.0/moe_perf.parquet (vllm_fused_moe, fp8 at Nemotron 3 Nano's shape, "
     "the gated Triton kernel); b200_sxm/moe/vllm/0.24.0 trtllm-gen fp8 rows",
     "issue 20, nemoload round: checks of the CUTLASS curve's transfer across shapes (the form "
     "fitted to TensorRT-LLM's CUTLASS rows at 2,816 / 704 alone: -19 ... +12% median by shape "
     "over 12 other shapes; on the non-gated rows with two matrices -24% / -4%) and of the pooled "
     "curve against trtllm-gen (+6%) and CUTLASS (-38.5%) rows (bench/nemotron_step_parts.py "
     "--wheel); nothing fitted to them"),
    ("ROCm/aiter (mirror at e4048607a5): aiter/configs/bf16_tuned_gemm.csv and "
     "a8w8_blockscale_tuned_gemm.csv, their gfx950 rows with 256 CUs (MI355X / MI350X) at the "
     "same (M, N 3,072, K 6,144), M 1,024-16,384 (bf16 0.20-0.55 of 2,516.6 TFLOPS, fp8 block-"
     "scale 0.17-0.30 of 5,033.2: r = 1.08-1.72); a8w8_bpreshuffle_tuned_gemm.csv's gfx942 rows "
     "(int8 per-token, M >= 1,024, 735-1,268 TOPS: 0.28-0.49 of 2,614.9; no bf16 twin); the "
     "history of the model_configs bf16 tables (no gfx942 row at M >= 1,024 in any version)",
     "issue 20, amdband round: the gfx950 pairs lie inside mi355x's bf16 band as set by the "
     "gfx942 rule (expected 0.20 x 2 / r = 0.23-0.37 against 0.04-0.60), not used for its "
     "expected (block-scale fp8 only, five shapes of one model); nothing fitted"),
    ("sglang 0.5.16 wheel (PyPI): METADATA (Requires-Dist sgl-deep-gemm==0.1.4.post1), "
     "srt/layers/deep_gemm_wrapper/configurer.py (ENABLE_JIT_DEEPGEMM, DEEPGEMM_SCALE_UE8M0), "
     "srt/layers/quantization/fp8_utils.py (_dispatch_auto_backend, "
     "deepgemm_w8a8_block_fp8_linear_with_fallback, apply_fp8_linear, cutlass_fp8_supported), "
     "fp4_utils.py (initialize_fp4_gemm_config), modelopt_quant.py (ModelOptFp8LinearMethod "
     "enable_flashinfer_bmm), fp8.py (Fp8LinearMethod.apply), srt/utils/common.py "
     "(is_sm100_supported: major 10)",
     "issue 20, sggemm round: which kernel SGLang 0.5.16 runs by default for each dense-linear "
     "dtype (the tables' kernels, but per-tensor fp8 on sm100: FlashInfer bmm_fp8 for ModelOpt "
     "checkpoints, so that dtype keeps the pooled curve there); nothing fitted"),
    ("ai-dynamo/aiconfigurator@e23be5a79 collector/sglang/collect_gemm.py (the 0.5.14 SGLang "
     "GEMM collector) and collector/helper.py benchmark_with_power (use_cuda_graph True)",
     "issue 20, sggemm round: what the SGLang GEMM rows time (F.linear; "
     "sglang_per_token_group_quant_fp8 + gemm_nt_f8f8bf16; sgl_per_token_quant_fp8 + "
     "fp8_scaled_mm; fp4_quantize + mm_fp4 cute-dsl / cutlass), in CUDA graphs; nothing fitted"),
    ("SGLang 0.5.16 and 0.5.23 wheel source (pip download --no-deps sglang==X): "
     "srt/entrypoints/engine.py (logger.info(f\"{server_args=}\") after ServerArgs is built; "
     "0.5.23 the resolved dict), srt/server_args.py (__post_init__ runs the model overrides, "
     "materialize_declarations writes resolved values back; moe_runner_backend default 'auto'), "
     "srt/arg_groups/overrides.py (0.5.16) and srt/arg_groups/model_overrides/qwen3_moe.py, "
     "deepseek_v2.py, beam.py (0.5.23): the 'Use X as MoE runner backend ...' info lines",
     "issue 21, sglogmoe round: what a start-up log's moe_runner_backend means (resolved: 'auto' "
     "left is fp8.py create_moe_runner's own pick) and the line naming the overrides' runner "
     "(calc/deploy/engines/sglang/log.py); nothing fitted"),
    ("vLLM 0.16.0 and 0.33.0 wheel source: model_executor/layers/fused_moe/oracle/fp8.py, "
     "nvfp4.py, unquantized.py (0.16.0, 0.33.0), int8.py, int_wna16.py, mxfp4.py, mxfp8.py "
     "(0.33.0): _make_log_backend's 'Using X <format> MoE backend out of potential backends' "
     "lines; config/kernel.py (0.33.0 KernelConfig.moe_backend, --moe-backend, default 'auto')",
     "issue 21, sglogmoe round: the vLLM line naming the MoE backend the oracle chose "
     "(calc/deploy/engines/vllm/log.py MOE_CHOSEN); nothing fitted"),
    ("vllm-project/vllm issue 34249 (2026-02-10, vLLM 0.15.2rc1.dev152 on 8 x H100, "
     "Qwen3-235B-A22B-Instruct-2507-FP8): the start-up line 'Using FLASHINFER_CUTLASS Fp8 MoE "
     "backend out of potential backends: [...]'",
     "issue 21, sglogmoe round: a real vLLM selection line for tests/test_log_moe_backend.py; "
     "nothing fitted"),
    ("ROCm/rocm-systems pull 2934 (2026-01-28, rocprofiler-compute tests/"
     "test_metric_validation.py: the roofline HBM bandwidth each part is expected to reach, "
     "MI300X 3,910.62 GB/s = 0.738 of 5.3 TB/s, MI325X 4,287.31, MI308 2,003.45); "
     "ROCm/legacy-rocm-build issue 5070 (2025-07-21: /opt/rocm/bin/roofline on MI300X 4.2 TB/s, "
     "MI308X 2 TB/s); ROCm/rocm_bandwidth_test issue 121 (5.3 TB/s a theoretical peak, no "
     "figure); ROCm/rocm-amdgpu-bench issue 22 (MI300X MALL, not HBM, 6,423 GB/s)",
     "issue 20, amddecode round: measured HBM stream ceilings of MI300X, an upper bound on the "
     "decode memory fraction (0.74-0.79, with Azure's STREAM 0.78): along the OCI 405B fit's "
     "line (memory 0.352 at 0 us a kernel to 0.723 at 10 us) they cap mi300x's kernel cost at "
     "about 10 us; a bound written up, nothing fitted"),
    ("ROCm/rocm-systems issue 10834 (2026-08-27: HIP graph replay per node on gfx1100 / "
     "gfx1151, 3.8-10 us, against Vulkan) and pull 1073 (hip-tests hipGraphTopology perftest, "
     "per-node launch cost printed, no MI300X figure published); nod-ai/amd-shark-ai docs/"
     "amdgpu_kernel_optimization_guide.md (@4199207705, MI300X HBM 1,300 MHz x 1,024 B x 4 = "
     "5.2 TB/s theoretical) and pull 1236; chipsandcheese.com/p/testing-amds-giant-mi300x "
     "(opening only, no bandwidth figure reached); Epliz/muiLLM pull 5 (Llama 3 8B fp16 on 4 x "
     "MI300X, its own engine, CPU-bound: 410 tokens/s a user)",
     "issue 20, amddecode round: a measured per-kernel graph-replay cost on MI300X, looked for, "
     "none found (the HIP graph figures are RDNA parts; muiLLM is neither vLLM nor one GPU)"),
    ("sgl-project/sglang pulls 31044 (MiniMax-M2.7 FP8 on MI300X, SGLang 0.5.13.post1, TP 2 x EP "
     "2 c 1: TPOT 14.94 ms) and 30812 (GLM-5.1-FP8 on MI300X TP 8, c 1: TPOT 28.38 ms); "
     "SemiAnalysisAI/InferenceX pull 3307 (Qwen3.8-27B bf16 MTP on one MI300X, vLLM nightly) and "
     "issues 863, 871; mlcommons/inference_results_v5.1 summary (8 x MI300X llama2-70b "
     "Interactive, 8,840.42 tokens/s); alpharomercoma/MI300X-vs-H200 REPORT.md and "
     "METHODOLOGY.md (@6077fdc7bf, re-read: vLLM 0.26.0 on one MI300X, 'Dense 8B, single "
     "stream' and 'Dense 70B FP8, single stream' named in its summary, their figures beyond the "
     "stored opening; the repository has no stored snapshot); the AMD performance results "
     "page's latency tables beside its fitted throughput table (Llama 3.1 70B / 405B FP8 TP 8, "
     "batch 1-128, 128 / 2,048: 70B batch 1 15.882 s at rocm/vllm 0.10.2, 15.254 s at 0.10.1, "
     "17.236 s at 0.9.1, which is the held-out ROCm/vllm README's figure); Oracle's 405B post "
     "re-read for its earlier Llama 2 70B MI300X post (not found); hn.masterscheme.cn item "
     "40833109 (a 'Llama 2 70B at 314 tokens/s, batch 1' claim, its batch 256 prompts)",
     "issue 20, amddecode round: candidates for two dense decode shapes on MI300X outside the "
     "fitted and held-out sources, looked at, not used: MoE or unshipped models, throughput "
     "under a latency bound, figures not reached, or the fitted page whose latency copies "
     "repeat a held-out table"),
    ("vLLM 0.16.0, 0.17.0, 0.18.0, 0.19.0, 0.20.0 and 0.33.0 wheel source (pip download "
     "--no-deps vllm==X): model_executor/layers/fused_moe/oracle/fp8.py (select_fp8_moe_backend, "
     "_get_priority_backends, map_fp8_backend), oracle/unquantized.py "
     "(select_unquantized_moe_backend, _get_priority_backends), oracle/nvfp4.py; "
     "flashinfer_trtllm_moe.py and experts/trtllm_fp8_moe.py, experts/trtllm_nvfp4_moe.py, "
     "experts/trtllm_bf16_moe.py (_supports_no_act_and_mul, _supports_activation, "
     "_supports_routing_method), flashinfer_cutlass_moe.py FlashInferExperts, deep_gemm_moe.py, "
     "fused_moe.py TritonExperts, fused_marlin_moe.py, cutlass_moe.py CutlassExpertsFp4, "
     "quantization/utils/flashinfer_fp4_moe.py and flashinfer_utils.py "
     "(get_flashinfer_moe_backend), quantization/mxfp4.py get_mxfp4_backend (0.16.0), "
     "fused_moe/config.py get_routing_method_type, models/nemotron_h.py, envs.py "
     "(VLLM_USE_FLASHINFER_MOE_FP8/FP16, VLLM_FLASHINFER_MOE_BACKEND, VLLM_USE_DEEP_GEMM, "
     "VLLM_ROCM_USE_AITER), config/kernel.py MoEBackend (0.17.0, 0.19.0, 0.20.0, 0.33.0)",
     "issue 20/21, vllmmoerule round: which fused-MoE backend each release picks by GPU family, "
     "format and gating, what --moe-backend takes and from which release, the 0.16 environment "
     "variables (calc/deploy/engines/vllm/moe_backend.py); nothing fitted"),
    ("aiconfigurator-core 0.12.0 systems/data/{h200_sxm,b200_sxm}/moe/vllm/0.24.0/"
     "moe_perf.parquet: rows by moe_dtype and kernel_source (H200 bf16 Triton 16,281; fp8 "
     "FlashInfer CUTLASS 14,418; fp8_block CUTLASS 9,234 + Triton 5,994; B200 bf16 trtllm-gen "
     "12,424 + CUTLASS 1,944; fp8 trtllm-gen 12,304 + CUTLASS 972; fp8_block trtllm-gen 15,228; "
     "nvfp4 trtllm-gen 17,803 + CUTLASS 972)",
     "issue 20/21, vllmmoerule round: which backend each shipped vLLM MoE curve times "
     "(moe_backend.py OWN_CURVE), counted, nothing fitted"),
    ("the `issues` search corpus for vLLM 0.32/0.33 start-up logs (2026-12-03): "
     "vllm-project/vllm issues #21348, #18121, #9660, #10517, #33263, #2136, #11391 and PR "
     "#19804, guqiong96/Lvllm #35, QwenLM/Qwen3 #295",
     "issue 21, session 13 (lead): excerpts read looking for a vLLM 0.33 log to hold "
     "`capacity --engine-version 0.33` against; none is of 0.32/0.33 (older releases or a fork), "
     "not used"),
    ("the `issues` search corpus again for a vLLM 0.33.0 start-up log (session 14, 2026-12-03): "
     "vllm-project/vllm issues #235, #7154, #9660, #10517, #11391, #18121, #21348, #33263 and PR "
     "#19804, QwenLM/Qwen3 #295, tenstorrent/tt-xla #1257, noonghunna/club-3090 PR #96 (a vLLM "
     "0.20.2rc1 nightly on two RTX 3090s); find_string 'vLLM version 0.33' (no hit)",
     "issue 21, session 14 (lead): excerpts read looking for a vLLM 0.33 log; none is of "
     "0.32/0.33, not used"),
    ("the `issues` search corpus and find_string once more (session 15, 2026-12-03): "
     "https://github.com/aivrar/vllm-windows-build/issues/17 (a 2026-09 Windows build serving an "
     "INT4 W4A16 Qwen3.8-27B fine-tune at max_num_seqs 1: no shipped model, release not printed), "
     "/issues/4 again, ovg-project/kvcached PRs #242/#243, vllm-project/vllm #43308, #15664, "
     "#11391, #7154, #6689, sgl-project/sglang #29575, #11698, #6002, #5192, #2742, #140, #133, "
     "NVIDIA/TensorRT-LLM PR #3497, vllm-project/vllm PR #17538; find_string 'sglang==0.5.2' "
     "(search index files 68358855467, 69286260327, 70107855794, 70607753415, 71650973833, "
     "70181082313: SGLang 0.5.20/0.5.21 install notes, no log), 'vllm==0.33', 'vllm==0.32', "
     "'API server version 0.33' (no hit)",
     "issue 21, session 15 (lead): excerpts read looking for a vLLM 0.32/0.33 or SGLang "
     "0.5.20-0.5.22 start-up log; none found, not used"),
    ("vllm 0.16.0 and 0.19.1 wheels (PyPI): model_executor/layers/quantization/mxfp4.py "
     "(0.16.0 get_mxfp4_backend l. 103-161, Mxfp4MoEMethod.apply l. 1033-1048: "
     "SM100_FI_MXFP4_MXFP8_TRTLLM quantises x with mxfp8_quantize, then "
     "trtllm_fp4_block_scale_moe), fused_moe/oracle/mxfp4.py (0.19.1 l. 280-340: "
     "FLASHINFER_TRTLLM_MXFP4_MXFP8 when the variable is set; _make_log_backend), "
     "config/kernel.py (0.19.1 MoEBackend names); vllm 0.18.0 quantization/mxfp4.py; sglang "
     "0.5.16 wheel layers/quantization/mxfp4.py (l. 1180-1213: flashinfer_mxfp4 at precision "
     "'default' -> mxfp8_quantize, trtllm_fp4_block_scale_moe); ai-dynamo/aiconfigurator@"
     "095f58a51 collector/sglang/collect_moe.py (w4a8_mxfp4_mxfp8 through flashinfer_mxfp4 "
     "with the precision set per row)",
     "issue 20, mxfp4big round: which kernel vLLM runs for gpt-oss on SM 10.x with the "
     "variable InferenceX sets, and that SGLang's W4A8 rows time the same FlashInfer call "
     "(calc/deploy/engines/vllm/moe_backend.py)"),
    ("SemiAnalysisAI/InferenceX benchmarks/single_node/gptoss_fp4_h100.sh and _h200.sh at "
     "626932a11 (2026-03-27, the Hopper runs' day; .github/configs/nvidia-master.yaml image "
     "vllm/vllm-openai:v0.18.0): export VLLM_MXFP4_USE_MARLIN=1, max-num-batched-tokens 8192 "
     "(InferenceX#789: 'Keep VLLM_MXFP4_USE_MARLIN=1 for Hopper (H100/H200)')",
     "issue 20, mxfp4big round: the Hopper gpt-oss runs' MoE kernel is Marlin, not the Triton "
     "kernel vLLM's MXFP4 curve times there; not modelled (left in docs/step-time.md)"),
    ("sglang 0.5.9, 0.5.10.post1 and 0.5.16 wheels (PyPI): srt/server_args.py "
     "(_set_default_nsa_kv_cache_dtype: fp8_e4m3 by default only for DeepSeek V3.2's DSA on SM "
     "10.x; the trtllm_mla backend accepts fp8_e4m3, fp4_e2m1, bf16 or auto; "
     "_handle_gpu_memory_settings), 0.5.16 arg_groups/overrides.py (the DSA and DeepSeek V4 "
     "fp8 defaults), model_executor/model_runner.py configure_kv_cache_dtype (0.5.9, 0.5.10) and "
     "mem_cache/kv_cache_dtype.py (0.5.16): 'auto' is the model's dtype unless the checkpoint's "
     "quant config says kv_cache_quant_algo FP8",
     "issue 20/21, sgdsbw round: SGLang leaves DeepSeek-R1's KV cache 16-bit by default on B200 "
     "and B300 at the rows' releases; no engine rule kvcalc misses"),
    ("SemiAnalysisAI/InferenceX (mirror at 843c6254f) every main-branch revision of "
     "benchmarks/dsr1_fp8_b200{,_docker,_slurm}.sh, dsr1_fp4_b200{,_docker,_slurm}.sh, "
     "single_node/{,fixed_seq_len/}dsr1_fp{4,8}_b{200,300}.sh and dsr1_fp8_h200*.sh; "
     ".github/configs/nvidia-master.yaml at 12ba0ae07 (2026-03-25, the v0.5.9-cu130 image) and "
     "5b302f147 (2026-04-17, B300) and at 2026-03-27 on all 943 branches",
     "issue 20/21, sgdsbw round: the B200/B300 SGLang DeepSeek-R1 scripts pass --kv-cache-dtype "
     "fp8_e4m3 at every revision that launches the server (two 2026-01-04/05 revisions without "
     "it live on experimental branches only), the H200 ones never; mapped to the InferenceX rows "
     "by tools/silicon_kv_rows.py; their --mem-fraction-static 0.82 / 0.95, "
     "--max-running-requests and --cuda-graph-max-bs 128 / 32 (TP 8 / TP 4) not applied: the "
     "B200 8k/1k runs at c 128-512 lie outside every branch's search space (c 4-64) and their "
     "measured TPOT rules out a 128 cap (Little's law: 239 and 260 decoding at c 256 and 512); "
     "nothing fitted"),
    ("vllm 0.16.0, 0.17.0, 0.18.0, 0.19.0, 0.19.1, 0.20.0, 0.33.0 wheels (PyPI): "
     "quantization/mxfp4.py get_mxfp4_backend, select_gemm_impl, get_fused_moe_quant_config "
     "(0.18.0 l. 109-173, 925-1000: VLLM_MXFP4_USE_MARLIN -> MARLIN -> MarlinExperts with "
     "mxfp4_w4a16_moe_quant_config; no moe_backend read at 0.16-0.18); 0.18.0 "
     "compressed_tensors_moe.py CompressedTensorsW4A4Mxfp4MoEMethod (MarlinExperts, "
     "make_mxfp4_moe_quant_config = mxfp4_w4a16_moe_quant_config, "
     "prepare_moe_fp4_layer_for_marlin); fused_moe/oracle/mxfp4.py (0.19.0 on: "
     "map_mxfp4_backend 'marlin' -> MARLIN, the variable still honoured at 0.19.1 l. 336); "
     "0.33.0 envs.py (no VLLM_MXFP4_USE_MARLIN)",
     "issue 20, marlinfp4 round: that the compressed-tensors Marlin rows time gpt-oss's Marlin "
     "kernel, and how a release is told it (MXFP4_MARLIN_ENV before 0.19.0, --moe-backend "
     "marlin from it; calc/deploy/engines/vllm/moe_backend.py)"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/pyexecutor/config.py (search index file "
     "204719384, a 1.x revision with the batch-wait fields: PyTorchConfig's moe_backend: str = "
     "'CUTLASS' beside attn_backend; update_executor_config logs the dataclass's repr) and "
     "tensorrt_llm/llmapi/llm_args.py (index file 1520735490: TorchLlmArgs."
     "get_pytorch_backend_config passes moe_backend=self.moe_config.backend)",
     "issue 21, trtlogmoe round: the MoE backend a TensorRT-LLM start-up log prints, read from "
     "the PyTorchConfig line kvcalc already reads (calc/deploy/engines/trtllm/log.py "
     "BACKEND_KEYS); nothing fitted"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52 "
     "(get_moe_cls: no line naming the backend it builds, only the fallback warnings "
     "'... Using CutlassFusedMoE instead.'); pull 17570 (2026-08, TRTLLM falling back on "
     "pre-Blackwell GPUs, closed), pull 7239 (2025-09, create_py_executor takes the LLM "
     "args) and pull 18626 (2026-09, wide-EP docs: moe_config.backend "
     "defaults to AUTO in later builds)",
     "issue 21, trtlogmoe round: looked for another printed form of the backend; none read "
     "(a fallback warning names the class, not the setting)"),
    ("search index file 2263047771 (TensorRT-LLM 1.1.0rc3, gpt-oss-120b on a DGX Spark, "
     "2025-12-20): the real line '[TRT-LLM] [I] PyTorchConfig(... attn_backend='TRTLLM', "
     "moe_backend='CUTLASS', ...)'",
     "issue 21, trtlogmoe round: a real excerpt for tests/test_log_moe_backend.py; nothing "
     "fitted"),
    ("SGLang 0.5.23 wheel source (pip download --no-deps sglang==0.5.23): srt/arg_groups/"
     "fields/exec_.py (moe_a2a_backend, a Literal of none, deepep, mooncake, nixl, mori, "
     "ascend_fuseep, flashinfer, megamoe, ...), fields/spec.py (speculative_moe_a2a_backend), "
     "server_args.py resolved_dict (every field), entrypoints/engine.py "
     "_server_args_for_logging; the captured option tables tests/data/engine_options/"
     "sglang-0.5.5, 0.5.16 and 0.5.21.json (--moe-a2a-backend's choices, dest moe_a2a_backend)",
     "issue 21, trtlogmoe round: SGLang's MoE all-to-all on its settings dump and command line, "
     "read into EngineSettings.moe_a2a ('none' gather, 'deepep' deepep; calc/deploy/engines/"
     "sglang/log.py A2A); nothing fitted"),
    ("SemiAnalysisAI/InferenceX@9596d23d7 (2025-10-29, the day the silicon sample's 225 "
     "Llama-3.1-70B vLLM rows were measured; the scripts removed by 2582bce40 that day): "
     "benchmarks/70b_fp4_b200_docker.sh and 70b_fp8_b200_docker.sh (kv-cache-dtype fp8 and "
     "cudagraph_mode FULL_DECODE_ONLY from their first revisions, 27f29acbe 2025-09-21 and "
     "425f74d51 2025-09-12; unchanged since 4b860b78e, 2025-10-01), 70b_fp8_h100_docker.sh, "
     "70b_fp8_h100_slurm.sh, 70b_fp8_h200_slurm.sh, .github/workflows/70b-tmpl.yml "
     "(vllm/vllm-openai:v0.10.2; nvidia/Llama-3.3-70B-Instruct-FP4 and -FP8), "
     "runners/launch_b200-nvd.sh (kimbochen/bench_serving, 10 x c prompts)",
     "issue 20, fp4dense round: the runs' settings: vLLM 0.10.2, kv-cache-dtype fp8 (H100, "
     "H200 and B200), async scheduling, no prefix caching, max-num-batched-tokens 8192; on "
     "B200 compilation-config cudagraph_mode FULL_DECODE_ONLY with splitting_ops [] and the "
     "FlashInfer all-reduce fusion (VLLM_FLASHINFER_ALLREDUCE_FUSION_THRESHOLDS_MB 32 / 32 / 8 "
     "at TP 2 / 4 / 8); not stated on the rows (what-if: the fp8 cache on the 225 rows takes "
     "the vLLM rows' TPOT median -3.2% -> -7.8%); nothing fitted"),
    ("vllm 0.10.2 wheel source (pip download --no-deps vllm==0.10.2): config/compilation.py "
     "(CUDAGraphMode.FULL_DECODE_ONLY = (FULL, NONE): 'Mixed prefill-decode batches are run "
     "without cudagraphs'; PassConfig enable_fusion off under V1, fi_allreduce_fusion_max_"
     "token_num 16384), config/__init__.py (PIECEWISE the V1 default), model_executor/layers/"
     "quantization/modelopt.py ModelOptNvFp4LinearMethod (flashinfer-cutlass where FlashInfer "
     "imports, VLLM_USE_TRTLLM_FP4_GEMM off; scaled_fp4_quant before every GEMM), "
     "compilation/collective_fusion.py (_FI_MAX_SIZES and the thresholds variable; max_token_num "
     "= size / (hidden x TP x 2): 1,024 / 512 / 64 tokens at TP 2 / 4 / 8 with the runs' "
     "thresholds; the AR + RMSNorm + fp8 and + NVFP4 quant patterns), compilation/"
     "fusion_attn.py (AttentionNvfp4QuantPattern), compilation/activation_quant_fusion.py, "
     "distributed/device_communicators/custom_all_reduce.py (max_size 8 MiB) and "
     "cuda_communicator.py (custom, then symmetric memory, off by default, then pynccl)",
     "issue 20, fp4dense round: the kernels and graphs of the runs' NVFP4 and fp8 linears and "
     "all-reduces; nothing fitted"),
    ("ai-dynamo/aiconfigurator@095f58a51 collector/vllm/collect_gemm.py (the layer's forward "
     "timed: scaled_fp4_quant inside an NVFP4 row); aiconfigurator-core 0.12.0 wheel "
     "b200_sxm/gemm/vllm/0.24.0/gemm_perf.parquet (FlashInferCuteDslNvFp4LinearKernel, "
     "CutlassFP8ScaledMMLinearKernel), attention/vllm/0.24.0 generation and context tables, "
     "comm/vllm/0.24.0/custom_allreduce_perf.parquet (vllm_graph and vllm_eager rows); the "
     "vLLM 0.24.0 GEMM tables of B200, GB200, B300 and GB300 fitted alone under "
     "tools/fit_engine_gemm.py's rule (nvfp4: 0.059 / 0.069 / 0.058 / 0.063 median |error| "
     "against the pooled curve's 0.059 / 0.072 / 0.065 / 0.066; fp8: 0.163 / 0.157 / 0.150 / "
     "0.154 against 0.256 / 0.239 / 0.241 / 0.221)",
     "issue 20, fp4dense round: the Llama-3.1-70B decode step and 1k prefill op by op "
     "(bench/vllm70b_step_parts.py); no curve changed (B200's own NVFP4 fit no better than "
     "the pooled curve)"),
    ("vllm-project/vllm#44806 (Qwen3.5-397B NVFP4 DEP8 on 8 x B200: a mixed prefill-decode "
     "step 6 x a decode step), #16072, #20059, #25444 (read in the piecewise round), and the "
     "issue-corpus searches for a measured vLLM pass run without CUDA graphs",
     "issue 20, fp4dense round: no measured host time of a vLLM compiled pass run without "
     "CUDA graphs at a dense 70B layer found; nothing fitted"),
    ("vllm-project/vllm#42235 (FlashInfer CuTe-DSL NVFP4 GEMM backend: CuTeDSL / CUTLASS / "
     "TRTLLM TFLOP/s by M on B200, excerpts), #30885 (NVFP4 small-batch scale-factor tiling, "
     "Llama-3.3-70B-Instruct-NVFP4 10240 x 8192 in figures only); flashinfer-ai/flashinfer#2540 "
     "(cute-dsl mm_fp4: cudnn / cutlass / trtllm / cute_dsl times at M 1, n x k including "
     "1,280 x 8,192 and 2,560 x 8,192; excerpts)",
     "issue 20, fp4dense round: FlashInfer's CUTLASS NVFP4 GEMM (vLLM 0.10.2's flashinfer-cutlass "
     "backend) at 1.19-1.29 x CuTe-DSL's time at M 8-128 and 0.92-1.19 x at M 1: a bracket for "
     "the NVFP4 decode step's extra time; nothing fitted"),
    ("aiconfigurator-core 0.12.0 wheel (PyPI): systems/data/{h100_sxm,h200_sxm,b200_sxm,gb200}/"
     "attention/{sglang/0.5.14,trtllm/1.3.0rc20,vllm/0.22.0,vllm/0.24.0}/"
     "generation_attention_perf.parquet at batch 65-2,048, 1-8 KV heads, head_dim 128, 1-8k tokens",
     "issue 20, bigbatch round: kvcalc's decode-attention curves x engine_scale against the "
     "tables at large batch: measured / curve 0.63-1.07 (the curve slower, not faster); "
     "nothing fitted"),
    ("aiconfigurator-core 0.12.0 wheel: systems/data/{h100_sxm,h200_sxm,b200_sxm}/comm/"
     "trtllm/1.3.0rc20/custom_allreduce_perf.parquet, comm/vllm/0.24.0/custom_allreduce_perf."
     "parquet (vllm_graph rows) and comm/nccl/2.29.2/nccl_perf.parquet at 2, 4, 8 GPUs, "
     "0.125-16 MiB",
     "issue 20, bigbatch round: TensorRT-LLM's own all-reduce against the allreduce.custom curve "
     "it is timed by, at decode batches' messages (1-4 MiB): 1.4-1.6x at TP 8, 0.6-1.0x at TP 4; "
     "a lead, not applied"),
    ("sglang 0.5.6.post2 wheel (pip download --no-deps): srt/managers/tokenizer_manager.py "
     "_handle_batch_output (state.text += ...; state.output_ids.copy() per request per chunk "
     "without --stream-output), srt/entrypoints/openai/serving_completions.py (delta = "
     "text[len(stream_buffer):]), srt/managers/schedule_batch.py init_incremental_detokenize",
     "issue 20, bigbatch round: a per-chunk cost growing with the output so far, the reading of "
     "the c 512 rows' per-sequence time rising with the output length; a lead, not modelled"),
    ("sgl-project/sglang issue #10514 (2025-09-16: the overlap scheduler's process_batch_result "
     "and the forward contending for the CPU); vllm-project/vllm PR #46112 (2026-06-18: "
     "Scheduler.update_from_output 0.142 ms at batch 128, 0.287 ms at 256, RTX 5090)",
     "issue 20, bigbatch round: searched for a measured per-sequence host loop of SGLang or "
     "vLLM at large batch; none of SGLang's whole loop found (the constant is fitted); vLLM's "
     "engine-core update loop about 1.1 us a sequence, far below the TPOT gaps"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/models/modeling_deepseekv3.py (one stored "
     "revision, search index file 1539226111): Deepseekv3MoE.forward runs the shared experts "
     "and the routed experts through maybe_execute_in_parallel on an aux stream",
     "issue 20, trtbigmoe round: a lead (the shared experts, about 1 ms of a 25 ms DeepSeek "
     "decode step, overlap the routed ones under CUDA graphs); not modelled"),
    ("aiconfigurator-core 0.12.0 wheel table b200_sxm/moe/trtllm/1.3.0rc20/moe_perf.parquet: "
     "DeepSeek-V3's NVFP4 layer (hidden 7,168, width 2,048, 256 experts, top-8) by "
     "moe_torch_flow_cutlass and moe_torch_flow_min_latency at MoE TP 4 / 8 and EP 4 / 8, "
     "16-1,024 tokens, balanced and power-law",
     "issue 20, trtbigmoe round: kvcalc's routed experts against the kernel the silicon "
     "sample's fp4 runs above 64 requests state (bench/trt_bigmoe_parts.py); nothing fitted"),
    ("ai-dynamo/aiconfigurator collector/collect_all_reduce.py (stored revision 0a3146b1b, "
     "benchmark_trtllm_allreduce); NVIDIA/TensorRT-LLM tensorrt_llm/_torch/distributed/ops.py "
     "AllReduce.__init__ (AUTO or MNNVL: MNNVLAllReduce only where MNNVLAllReduce.is_mnnvl, a "
     "mapping across nodes on aarch64 with MNNVL support) and cpp/tensorrt_llm/common/"
     "customAllReduceUtils.h getMaxRequiredWorkspaceSize (64 MiB now; stored revisions via the "
     "search index)",
     "issue 20, trtallreduce round: which kernel the TensorRT-LLM table measures (AUTO, fusion "
     "NONE, hidden 4,096) and that the runs' AUTO runs it on one node (MNNVL across trays only: "
     "GB200 / GB300 above 4 GPUs, left to NCCL's curve); the switch to NCCL as the comm2 round "
     "read it"),
    ("aiconfigurator-core 0.12.0 wheel: systems/data/{h100_sxm,h200_sxm,b200_sxm,b300_sxm,gb200,"
     "gb300}/comm/sglang/0.5.14/custom_allreduce_perf.parquet (graph rows), comm/vllm/0.24.0/"
     "custom_allreduce_perf.parquet, comm/trtllm/{1.2.0rc5,1.3.0rc10}/custom_allreduce_perf."
     "parquet; h100_sxm and h200_sxm comm/sglang/0.5.6.post2 (kernel_source TRTLLM: a "
     "TensorRT-LLM measurement filed under SGLang)",
     "issue 20, trtallreduce round: SGLang's own table against allreduce.custom (faster at 0.5-2 "
     "MiB on Hopper at 8 GPUs, slower at 8 MiB; on Blackwell 2-8 MiB at 2-4 GPUs 0.5-0.8x); "
     "TensorRT-LLM's older tables within ~20% of 1.3.0rc20's; nothing fitted"),
    ("SemiAnalysisAI/InferenceX benchmarks/gptoss_fp4_b200_trt_slurm.sh, "
     "gptoss_fp4_b200_docker.sh, gptoss_fp4_h200_slurm.sh, gptoss_fp4_h100_docker.sh and "
     "gptoss_fp4_h100_slurm.sh at e06929c70 (2025-11-01)",
     "issue 20, layoutrows round: the layout of the other 2025-11-02 runs, found as stated "
     "(TensorRT-LLM gpt-oss on B200 EP 1 below 256 requests; vLLM without expert parallel or "
     "data parallel); also read, not applied: gptoss_fp4_h200_trt_slurm.sh's kv_cache_config "
     "dtype auto (a 16-bit cache where kvcalc's rows take fp8) and the fp8 DeepSeek scripts' "
     "max_num_tokens (concurrency + ISL + 64, rounded up to 64)"),
    ("aiconfigurator-core 0.12.0 wheel tables {h100_sxm,h200_sxm,b200_sxm}/moe/{vllm,sglang,"
     "trtllm}/<every version>/moe_perf.parquet: the balanced rows of each engine MoE curve's "
     "format and backend by version and layer shape (tools/moe_table_shapes.py)",
     "which shapes only an older table measured (H100 / H200 TensorRT-LLM bf16 and fp8: "
     "1.3.0rc10's three; SGLang bf16 / fp8_block / int4: 0.5.10's five / one / nine; vLLM "
     "bf16 / fp8 / int4 on H200 and B200: 0.19.0's and 0.22.0's one to ten; B200 vLLM "
     "fp8_block one), and the older table's median time over the newest's at the shapes both "
     "measured; issue 20, pershape round: the per-shape refits that the acceptance rule "
     "(median |error| on the rows lower by more than 0.001) refused (TensorRT-LLM bf16 / fp8 on "
     "H100 / H200, vLLM bf16 on H200 / B200, vLLM fp8 on H200, SGLang fp8_block on H100 / H200, "
     "vLLM fp8_block on B200) and the three it passed but the release check (releases_agree) "
     "refused (vLLM int4 on H200 / B200: 0.19.0's Marlin rows 2.42 / 2.54 x 0.24.0's; vLLM fp8 "
     "on B200: 0.19.0 / 0.22.0 Triton rows against 0.24.0's FlashInfer trtllm-gen, 1.53 / "
     "1.58 x): not shipped"),
    ("SemiAnalysisAI/InferenceX benchmarks/dsr1_fp4_b200_trt.sh (stored revision 111f0312c: "
     "--max_num_tokens max(8,192, (CONC + ISL + 64 + 63) // 64 × 64), --num-prompts CONC × 10), "
     "benchmarks/gptoss_fp4_b200_trt.sh (stored revision 1825e7f06: --max_num_tokens 20000), "
     "the same formula in the fp8 DeepSeek TensorRT-LLM scripts (search index), "
     "benchmarks/benchmark_lib.sh run_benchmark_serving (--request-rate inf, --ignore-eos, "
     "--max-concurrency); kimbochen/bench_serving benchmark_serving.py sample_random_requests "
     "(stored revision 406abc35f: input and output lengths each np.random.randint(int(len × "
     "ratio), len + 1), drawn per request); ai-dynamo/aiconfigurator at 095f58a51 "
     "src/aiconfigurator/generator/config/backend_templates/benchmark/bench_run.sh.j2, "
     "generator/config/deployment_config.yaml (BenchConfig.isl_stddev, osl_stddev default 0) and "
     "generator/rule_plugin/benchmark/trtllm.rule (agg max_num_tokens = batch + ISL + 1,500)",
     "issue 20, silsim round: each silicon row's client replayed through the serving simulation "
     "(bench/silicon_sim.py): InferenceX's 10 × c prompts over [0.8, 1] × the stated lengths and "
     "its TensorRT-LLM scripts' token budgets; AIPerf's fixed lengths, 2 × c warm-up and 20 × c "
     "timed requests (the AIPerf campaign's server budget not published: the release's default "
     "kept, the generator's rule read, not applied); nothing fitted"),
    ("https://github.com/NVIDIA/TensorRT-LLM/blob/main/docs/source/blogs/tech_blog/"
     "blog10_ADP_Balance_Strategy.md (stored revision 011cfc2cc; pull 7213, 2025-08-28) and "
     "pull 6061's description (2025-07-15)",
     "issue 20, adpbalance round: the balance's purpose and its measured effect (DeepSeek-V3 on "
     "8 GB200, DP 8 / EP 8, ISL 803 / OSL 3,653: 25,664 -> 33,499 tokens/s with the context "
     "wait at timeout_iters 50, 34,140 with batching_wait_iters too; 'increased TTFT' named, "
     "no TTFT figure): read for the mechanism, no number used"),
    ("NVIDIA/TensorRT-LLM pull 17700 (2026-08, review thread on _balance_adp_requests: a "
     "shorter timeout while the least busy rank is under-occupied) and pull 15169 (2026-06, "
     "AutoDeploy config enabling the balance: '+64-111% output-token throughput ... raising "
     "TTFT at high concurrency'); PaddlePaddle/FastDeploy pulls 4562 / 4594 (the same strategy)",
     "issue 20, adpbalance round: later changes after the sample's releases (1.1.0rc2.post2 to "
     "1.2.0rc6.post3), not applied; no TTFT figure"),
    ("tenstorrent/tt-inference-server issue #356, comment of 2025-07-08 (DeepSeek-R1-0528 on 16 "
     "H100, the engine not named in the excerpt read: TTFT 208.5 / 812.3 / 689.7 ms at 128 / "
     "1,024 / 2,048 tokens, concurrency 1); NVIDIA/TensorRT-LLM issue #5929 again (0.21.0rc2, "
     "DeepSeek-R1 batch 1: TTFT p50 at 1,600 / 8,192 tokens 124-165 / 353-516 ms H200 FP8, "
     "160-173 / 390-448 ms B200 NVFP4 by EP); sgl-project/sglang PR #11845 (Qwen3-30B-A3B on "
     "H20, 7k prompts: TTFT 310 ms eager, 289 ms with piecewise graphs), PR #13466, #13179, "
     "#13480, #13101, #13094 (piecewise-graph before / after tables at 1,024 tokens: only the "
     "'with' halves reached in the excerpts), #30889 (Kimi-K2.7 int4 H200 TP 8 A/B: figures not "
     "reached), issue #32655 and PR #32785 (Kimi-K2.6 NVFP4 4 x GB300, 1k / 1k at concurrency 1: "
     "184.53 tok/s eager against 177.71 with tc_piecewise, a slower paged-MLA fallback), issue "
     "#23842; NVIDIA/TensorRT-LLM PR #12581 (DeepSeek-V3.2 DSA host work about 50 us x 2 a "
     "layer, 4-5 ms a step), PR #17257 (DeepSeek-V4 generation _prepare_inputs 12.5 ms over "
     "about 1,480 ATen dispatches on GB300), PR #12691, #12525, #11515, issue #3594, #13816, "
     "docs/source/features/torch_compile_and_piecewise_cuda_graph.md again (no figures); "
     "sgl-project/sglang docs/advanced_features/piecewise_cuda_graph.md again (capture sizes, "
     "auto-disable list; no figures); uw-syfi/vibesys PR #421 (Qwen3.5-397B MXFP4 on MI300A: a "
     "bs=1 prefill floor of about 160 ms flat from 128 to 1,024 tokens against about 90 ms of "
     "GPU compute); tenstorrent/tt-inference-server issue #340 (Qwen3-30B-A3B on A100 under "
     "vLLM: TTFT 35.7 / 70.3 ms at 128 / 1,024 tokens); vllm-project/vllm issue #54677 again; "
     "ai-dynamo/aiconfigurator vLLM backend tests (_prefill_dispatch_overhead_ms 0.8 ms a "
     "layer, fitted to its silicon corpus); search excerpts of deepspeedai/DeepSpeed PR #8271, "
     "lmdeploy PR #4895, xLLM PR #872, ROCm/ATOM PR #1541, vllm-project/vllm PR #51425, "
     "#47202, #24123, sgl-project/sglang PR #12160 again and issue #2591, pages-corpus results "
     "on eager prefill launch overhead (none with a figure)",
     "issue 20, moefloor round: looked for a measured eager MoE prompt pass (single-request "
     "TTFT at short prompts, eager-versus-graph pairs, per-layer host time); recorded in "
     "docs/validation/moe_eager_prefill.yaml; none measures TensorRT-LLM's eager context layer, "
     "Qwen3-MoE's or gpt-oss's: nothing else shipped"),
    ("vllm-project/vllm vllm/config/cache.py (stored revision 002f10e0, the newest stored; "
     "read 2026-12-03), and search excerpts of v1/worker/utils.py select_common_block_size, "
     "the attention backends' get_supported_kernel_block_sizes (FlashAttention and Triton "
     "MultipleOf(16), FlashInfer 16/32/64) and config/scheduler.py SchedulerConfig checks",
     "issue engineopts round: what vLLM takes as --block-size and --kv-cache-dtype beside its "
     "captured parser tables (block_size Field(gt=0) from 0.18.0; 'No common block size' at "
     "start-up; max_num_batched_tokens >= max_num_seqs, and >= max_model_len without chunked "
     "prefill): refusals and warnings, no figure"),
    ("sgl-project/sglang python/sglang/srt/mem_cache/memory_pool.py MHATokenToKVPoolFP4 "
     "(search excerpts of stored revisions, read 2026-12-03)",
     "issue engineopts round: the fp4_e2m1 KV pool keeps a uint8 scale per 16 values "
     "(scale_block_size 16) beside the packed values: a warning on --kv-dtype fp4, no figure"),
    ("NVIDIA/TensorRT-LLM docs/source/advanced/kv-cache-reuse.md (stored revision c3589f17)",
     "issue engineopts round: 'tokens_per_block must be a power of 2': --block-size refused "
     "otherwise under TensorRT-LLM, no figure"),
    ("LambdaLabsML/vllm-benchmark@a4f9f4371a1ccac781293837fce2bce0cc6d25cc results/prompt_10/"
     "1xH100-80GB-SXM/Meta-Llama-3.1-8B-FP8_tp1_len2048.json and Meta-Llama-3-8B-Instruct_tp1_"
     "len2048.json untrimmed (per-request itls, dated 2024-09-07); @de55d46 Meta-Llama-3.1-8B-"
     "FP8_tp1_len8000.json (2024-08-19); benchmark_v0.md at 0e8fc5d (its 'vLLM v0.5.4 v.s. "
     "v0.6.0' section), benchmark.py at 29dd18a and c347618, benchmark_1x2x4x8x.sh at 3dd9ba5",
     "read (issue 23, itl054 round): the 2048 file's 45 gaps are 10-token chunks (each "
     "request's gaps 47-52 ms, at the same instants for all requests; a 6-token request's last "
     "5 tokens in one chunk), as the same day's Llama-3-8B run (72 ms chunks); the same "
     "prompts on the same GPU in the 0.5.4 campaign (len8000) stream one token a gap (ITL mean "
     "6.13 ms, TPOT 6.27 ms); the publisher's write-up ran v0.6.0 with num-scheduler-steps 10 "
     "at max-num-seq 256, max-seq-len 2048 (the file's settings) and says its ITL is inflated "
     "by the steps. The len8000 run scored as a diagnostic (--engine-version 0.5.4: TPOT "
     "+7.1%, ITL mean +9.5%, output tok/s -8.7%): the pre-0.10 host time per step holds; "
     "nothing fitted"),
    ("vllm 0.5.4 (PyPI wheel) entrypoints/openai/rpc/server.py and client.py, "
     "engine/async_llm_engine.py (AsyncStream, RequestTracker, engine_step, run_engine_loop), "
     "engine/arg_utils.py; vllm 0.6.0 (PyPI wheel) engine/llm_engine.py step and "
     "_has_remaining_steps, engine/arg_utils.py num_scheduler_steps",
     "read (issue 23, itl054 round): 0.5.4 has no multi-step scheduling (num_scheduler_steps "
     "first in 0.6.0; multi-step code only in spec_decode) and its stream queues one "
     "RequestOutput a step, unmerged, sent over ZMQ one by one: its ITL is the step. In 0.6.0 "
     "a multi-step round's intermediate steps return no outputs and the round's tokens are "
     "processed after its last step: one chunk of num_scheduler_steps tokens. kvcalc's "
     "vLLM reader now says so when a file's ITL mean exceeds every request's TPOT "
     "(calc/data/bench_results/stream_chunks.py); no constant"),
    ("NVIDIA/nccl@01afd20a77b5804e0ecf1042509dd9d20ebf9e93 src/graph/tuning.cc "
     "ncclTopoTuneModel (read 2026-12-03)",
     "issue 20 train links, traindp round: across nodes a ring's bus bandwidth is nChannels × "
     "speedInter (its channels through the nodes' NICs), nsteps 2(n − 1) for all-reduce and "
     "n − 1 for reduce-scatter / all-gather, the latency (nsteps − nInterSteps) × intraLat + "
     "nInterSteps × interLat: calc/training/links.py's rate min(scale-up, g × NIC) and mean "
     "ring step; no constant fitted"),
    ("NVIDIA/Megatron-LM megatron/core/parallel_state.py initialize_model_parallel "
     "(order=\"tp-cp-ep-dp-pp\", expert_tensor_parallel_size; main, read 2026-12-03)",
     "issue 20 train links, traindp round: the rank layout calc/training/links.py assumes "
     "(TP innermost, then CP, DP, PP outermost)"),
    ("saturncloud.io/blog/crusoe-nccl-cluster-validation (read 2026-12-03)",
     "issue 20 train links, traindp round: expected nccl-tests all_reduce_perf bus bandwidth "
     "across nodes, H100 SXM with NVLink and NDR InfiniBand 400-450 GB/s (the order of 8 NICs "
     "× 50 GB/s, not one NIC's 50 GB/s); a sanity check of the min(scale-up, g × NIC) rate, "
     "not fitted"),
    ("vllm 0.18.0 and 0.19.1 wheels (PyPI): v1/worker/gpu_worker.py determine_available_memory "
     "(profile_cudagraph_memory run unless enforce_eager or ROCm; "
     "cudagraph_memory_estimate_applied only under VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, "
     "envs.py default 0 in 0.19.1; the 'In v0.19, CUDA graph memory profiling will be enabled' "
     "notice), 0.20.0's (the estimate applied by default); 0.17.0's (no estimate); "
     "tests/data/engine_logs/excerpts/vllm-a100-40g-qwen3-8b-0.19.1.log (search index file "
     "57978845466)",
     "graphrow round (2026-12-03), a new-user audit: the ledger's rows did not sum to "
     "kv_budget_bytes (the CUDA graph estimate, the RoPE table, SGLang's state pool and the "
     "memory fraction's reserve had no row); they now do, to the byte. The rule "
     "cudagraph_profiled (0.18+) lets kvcalc log compare the estimate 0.18 and 0.19 print "
     "but do not subtract (it compared 0: -100% on the A100 excerpt; now -85% read as an H100, "
     "the excerpt naming no GPU, and -95% with -H a100-80g, kvcalc's 0.35 and 0.12 GiB against "
     "2.35 GiB printed: the unexplained A100 estimate noted above). Nothing "
     "fitted; no figure of docs/validation.md moves"),
    ("vllm 0.17.0, 0.18.0, 0.19.0, 0.20.0, 0.20.2, 0.21.0, 0.23.0, 0.24.0, 0.25.0, 0.26.0, 0.27.0, "
     "0.28.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0, 0.33.0 wheels (PyPI): v1/worker/gpu_worker.py "
     "determine_available_memory (profile_cudagraph_memory: not is_rocm() 0.18.0-0.20.2, "
     "is_cuda() 0.21.0-0.25.0, is_cuda_alike() from 0.26.0, pull 44825; "
     "maybe_rocm_profiling_fallback 0.29.0+), platforms/rocm.py (get_current_memory_usage: "
     "mem_get_info total - free to 0.20.2, also in 0.10.2; torch's max_memory_allocated from "
     "0.21.0; check_and_update_config block size 16, 64 only under "
     "VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION to 0.18), config/vllm.py (the AITER all-reduce + "
     "RMSNorm fusion on ROCm at TP > 1 with VLLM_ROCM_USE_AITER, 0.21.0+; "
     "ROCM_DEFAULT_MRV1_ARCHITECTURES 0.29.0-0.31.0), _aiter_ops.py (_ALL_REDUCE_MAX_SIZE "
     "128 MiB), distributed/device_communicators (custom all-reduce 8 MiB on ROCm, quick "
     "all-reduce off under VLLM_ROCM_QUICK_REDUCE_QUANTIZATION=NONE), "
     "v1/sample/ops/topk_topp_sampler.py (forward_hip: DISABLE_AITER_SAMPLER, the native path), "
     "v1/attention/backends (ROCM_ATTN and TRITON_ATTN AttentionCGSupport.ALWAYS), "
     "v1/attention/ops/chunked_prefill_paged_decode.py (partition buffers per call), "
     "engine/arg_utils.py get_batch_defaults (no platform branch), "
     "model_executor/layers/quantization/fp8.py and utils/w8a8_utils.py (0.17.0: "
     "normalize_e4m3fn_to_e4m3fnuz, the AITER MoE weight shuffle)",
     "issue 21, rocmpool round (2026-12-04): every start-up memory rule that differs on ROCm, "
     "at its release; modelled: the CUDA graph profile ROCm skips in 0.18.0-0.25.x "
     "(VllmRules.cudagraph_profiled_rocm: no estimate, no capture residue there); the others "
     "written up in docs/engines.md and not modelled. Nothing fitted"),
    ("https://github.com/vllm-project/recipes/pull/273 (2026-03-11) and MiniMax/MiniMax-M2.md "
     "(vllm-project/recipes, the ROCm TP 2 command it adds)",
     "issue 21, rocmpool round: held-out record vllm0171-2xmi300x-minimax-m25-tp2 (MiniMax-M2.5, "
     "2 x MI300X, vLLM 0.17.1 ROCm wheel, 497,600 tokens; kvcalc +4.89%, diagnosed, nothing "
     "fitted)"),
    ("https://github.com/vllm-project/vllm/issues/28052 (2025-11-08); "
     "vllm-project/recipes MiniMax/Minimax-M2_AMD.md; search of the issues and pages corpora "
     "for ROCm vLLM start-up lines (MI300X, MI325X, MI355X, gfx942)",
     "issue 21, rocmpool round: looked at, not records (a 0.11.1rc6 Qwen3-VL-8B pool on a "
     "gfx1151 APU with shared system memory; a recipe without a pool figure)"),
    ("tgarg01/silybench-data derived/csv/gpu_prices.csv@045df3bf; upb-pc2.atlassian.net "
     "PC2DOK page 1900609 'NVIDIA A100 40GB with NVLINK'; glennklockwood.com/garden/processors/"
     "A100; nvidia-smi tables in search index files 55216552280, 13596190881, 7320613109, "
     "19218568118; gpu.blog, aiminingco.com and grokipedia H100 NVL pages",
     "newgpus round (2026-12-04), the A100 SXM4 40GB profile shipped (hardware_profiles/"
     "a100-40g.yaml, the validation profile moved): the silybench price file (Lambda 1x A100 "
     "SXM 40GB $1.99, 2026-09-25; also its H100 NVL "
     "$2.59 / $3.19 RunPod and GH200 96GB $2.29 Lambda rows, not used: no profile); "
     "the PC2 page (undated: 400 W "
     "TDP, 1,555 GB/s, deviceQuery 40,441 MBytes) and glennklockwood.com "
     "(A100 40G SXM4: 1.555 TB/s, 400 W) for the board power; the nvidia-smi tables of "
     "A100-SXM4-40GB hosts (55216552280 and 13596190881: 40,960 MiB; "
     "7320613109 and 19218568118, older drivers: 40,536 MiB) for the reported total the usable "
     "memory sits under; the secondary H100 NVL spec pages (94 GB HBM3, 3.9 or 4.8 TB/s, "
     "350-400 W: conflicting; not used). Nothing fitted; no "
     "figure of docs/validation.md moves (the A100 40GB rows were already sized on the same "
     "figures)"),
    ("vllm 0.33.0 wheel on PyPI: vllm/benchmarks/serve.py (benchmark's result dicts for "
     "generation and pooling, _get_server_metrics_results, process_one_metric, main's "
     "result_json and the --save-detailed removal list), vllm/benchmarks/sweep/serve.py "
     "(run=N.json, summary.json, summary.csv, *.failure.json, warmup.json)",
     "issue 23, scorefmt round: what the newest writer adds: latencies and queue_times kept "
     "without --save-detailed, client_queue_time and e2el_including_client_queue statistics, "
     "server_queue_times/server_ttfts, probe, speculative and diffusion keys (none compared); a "
     "pooling run (no output tokens) now refused in one line; the sweep's summary.csv and "
     "failure records named; nothing fitted"),
    ("sglang 0.5.23 wheel on PyPI: sglang/bench_serving.py (a shim), sglang/benchmark/"
     "serving.py (the result dict, result_details, the JSONL append), benchmark/goodput.py "
     "(GoodputMetrics), srt/entrypoints/http_server.py (/server_info: server args, scheduler "
     "info, internal_states, version)",
     "issue 23, scorefmt round: the keys the reader takes are unchanged since its last read; "
     "server_info.version now names the engine release replayed (where --engine-version is "
     "not given); nothing fitted"),
    ("PyPI: guidellm 0.8.1 and aiperf 0.13.0 (pip download, 2026-12-04: the newest releases)",
     "issue 23, scorefmt round: no release newer than the ones the readers were checked "
     "against in the result-formats round; no change"),
    ("NVIDIA/TensorRT-LLM@2787769cae353023784dce105d648bcd4d04f4d4 "
     "tensorrt_llm/bench/dataclasses/reporting.py (get_statistics_dict, report_statistics)",
     "issue 23, scorefmt round: the --report_json keys the reader takes are those of "
     "0249976; decoding_stats and dataset not read; no client concurrency recorded (now said "
     "in a note, with request_info.avg_num_concurrent_requests)"),
    ("Scicom-AI-Enterprise-Organization/llm-benchmaq@123eefe (snapshot): benchmarks/vllm/"
     "runpod_h100sxm/Qwen3-8B/qwen3_8b_TP8_DP1_in1024_out128_p1000_c10_9635f8.{json,txt} "
     "(last changed at fb2d755), benchmarks/sglang/runpod_h100sxm/Qwen3-8B/"
     "tp8_dp1_Qwen3-8B_in1024_out128_p100_c100_38769a.{jsonl,txt} (at 3e344dd), setup.py "
     "(vllm==0.15.0), benchmaq/vllm/core/server.py",
     "issue 23, scorefmt round: a vLLM 0.15.0 --save-detailed file and an SGLang 0.5.9 "
     "--output-details JSONL of Qwen3-8B at TP 8 on H100 SXM, kept trimmed as reader test "
     "data and scored uncalibrated end to end in tests; not validation rows, nothing fitted"),
    ("find_string / code search for the current writers' keys (rtfx, max_output_tokens_per_s, "
     "mean_client_queue_time_ms, total_input_vision_tokens, queue_times) and a markdown report "
     "embedding a vLLM 0.20.0 Qwen3-8B RTX 5090 result (index id 56542576667, repository not "
     "named by the index)",
     "issue 23, scorefmt round: looked at; only parsers' test fixtures, no result file, "
     "except the embedded run, whose source could not be cited: not kept"),
    ("SemiAnalysisAI/InferenceX: benchmarks/gptoss_fp4_b200_trt_slurm.sh at 06667a51e "
     "(2025-12-02) and 645b97aa4 (2026-01-07), .github/configs/nvidia-master.yaml "
     "gptoss-fp4-b200-trt at 645b97aa4 and d7dbd045b (2026-02-05), and those commits' messages",
     "issue 20, gptossadp round: gpt-oss-120b B200 attention-DP runs: MOE_BACKEND TRTLLM, "
     "cuda_graph_config enable_padding / max_batch_size CONC, EP > 1 forcing "
     "TRTLLM_FORCE_ALLTOALL_METHOD MNNVL (mnnvlthroughput), EP 1 NotEnabled; the 2025-12-17 "
     "runs' EP 1 called a mistake by 645b97aa4; image 1.2.0rc2 until d7dbd045b (1.2.0rc2.post2). "
     "Nothing fitted; no model change"),
    ("ai-dynamo/aiconfigurator collector/trtllm/collect_moe.py (stored revision 006afd781); "
     "aiconfigurator-core 0.12.0 wheel: b200_sxm/moe/trtllm/1.3.0rc20/moe_perf.parquet "
     "(w4a8_mxfp4_mxfp8 and w4a16_mxfp4 rows at 2,880 / 2,880 / 128 experts / top 4, EP 1-8, "
     "balanced and power_law_1.01), b200_sxm/comm/nccl/2.27.3-2.29.2/nccl_perf.parquet "
     "(all_gather, reduce_scatter, 2 GPUs, 32 KiB-1 MiB), b200_sxm/attention/trtllm/1.3.0rc20/"
     "generation_attention_perf.parquet (64 / 8 heads, head 64, fp8 KV, windows 0 and 128), "
     "b200_sxm/comm/trtllm/1.3.0rc11/moe_a2a_perf.parquet (DeepEP at EP 8 only)",
     "issue 20, gptossadp round: gpt-oss-120b's decode step at DP 2 / EP 2, 64 requests, op "
     "by op against the measured kernels (MXFP4 on SM100 is collected with TRTLLMGenFusedMoE); "
     "diagnosis only, nothing fitted"),
    ("NVIDIA/TensorRT-LLM tensorrt_llm/_torch/modules/fused_moe/fused_moe_trtllm_gen.py "
     "(select_alltoall_method_type, a 2026 revision), tensorrt_llm/_mnnvl_utils.py "
     "(supports_mnnvl, revision 021fb1ee7); pulls 6645 (2025-08, MnnvlMemory on B200, as "
     "flashinfer-ai/flashinfer pull 1601 describes it), 7499 (2025-09, MnnvlThroughput), 8675 "
     "(2025-10-27, all-to-all for the TRTLLMGen MoE), 8950 (2025-11-12, "
     "select_alltoall_method_type), 9329 (2025-11, backend names); a third-party bring-up script "
     "quoting the 0.21-era supports_mnnvl (aarch64 only)",
     "issue 20, gptossadp round: the runs' forced MNNVL all-to-all most likely ran on x86 B200; "
     "whether 1.2.0rc2 holds those pulls not checked; no measured EP 2 table: not modelled, at "
     "most the 0.75 ms kvcalc charges for NCCL's gather and scatter"),
    ("vLLM 0.16.0 wheel (vllm-0.16.0-cp38-abi3-manylinux_2_31_x86_64.whl, PyPI): "
     "model_executor/layers/fused_moe/fused_moe.py get_config_file_name and get_moe_configs, "
     "quantization/utils/fp8_utils.py get_w8a8_block_fp8_configs, platforms/cuda.py and "
     "platforms/rocm.py get_device_name (the ROCm device-id table; the H200 family named "
     "NVIDIA_H200 in get_config_file_name)",
     "issue 21, logdevice round: the log lines that name the GPU (kernel-config file names "
     "device_name=<torch name, spaces as underscores>); read, nothing fitted"),
    ("SGLang 0.5.16 wheel (sglang-0.5.16-cp311-cp311-manylinux_2_34_x86_64.whl, PyPI): "
     "srt/layers/moe/moe_runner/triton_utils/fused_moe_triton_config.py get_config_file_name "
     "and its 'Using MoE kernel config from' / 'Config file not found at' lines",
     "issue 21, logdevice round: SGLang's device-naming lines; read, nothing fitted"),
    ("search index files 7292846353 (vLLM 0.10.2 on 2 x H200, record "
     "vllm0102-2xh200-qwen3-next-80b-tp2), 57978845466 (vLLM 0.19.1 on a DGX Station A100, "
     "record vllm0191-a100-40g-qwen3-8b: its nvidia-smi table), 69624180828 (SGLang on H100, "
     "record sglang-h100-qwen3-30b-a3b-fp8-tsk043), 38628584938 (a vLLM block-FP8 kernel "
     "check on H100), 30516319950 and 56910307467 (collect_env in vLLM issue forms), "
     "60804802875 (rocm-smi --showproductname on an MI300X), 70682754770 (record "
     "vllm0310-a100-80g-llama31-8b: no device line)",
     "issue 21, logdevice round: real device lines, kept as test excerpts "
     "(tests/test_log_device.py) and added to the three records' log_lines; no figure moves "
     "(the records state their GPU)"),
    ("flashinfer-ai/flashinfer@fb28d7242 (snapshot): flashinfer/autotuner/autotuner.py "
     "get_config_path and its '[Autotuner]: Loading configs for ...' lines",
     "issue 21, logdevice round: the bundled tuning configs are named for the device, the log "
     "lines name the op only: no device line to read"),
    ("sglang 0.5.9 PyPI wheel: srt/entrypoints/http_server.py (server_info: the server "
     "arguments, the scheduler info, internal_states, version), srt/managers/scheduler.py "
     "(max_total_num_tokens in the scheduler info; get_internal_state: memory_usage and "
     "effective_max_running_requests_per_dp), srt/model_executor/model_runner.py "
     "(max_running_requests = min(max_total_num_tokens // 2, req_to_token_pool.size) when none "
     "is given), bench_serving.py (the result's server_info); sglang 0.5.23 wheel: "
     "benchmark/serving.py (server_info saved whole; under PD disaggregation keyed by "
     "prefill/decode), srt/managers/scheduler_components/internal_state.py, "
     "api/v1/api_types.py",
     "issues 23/21, scorepool round (2026-12-04): which keys of an SGLang result file record "
     "the pool and limits the server ran with (kvcalc score's deployment check, "
     "--pool-from-file). Nothing fitted"),
    ("Scicom-AI-Enterprise-Organization/llm-benchmaq@3e344dd "
     "benchmarks/sglang/runpod_h100sxm/Qwen3-8B/tp8_dp1_Qwen3-8B_in1024_out128_p100_c100_"
     "38769a.jsonl (server_info.internal_states[0], read again)",
     "issues 23/21, scorepool round: the test file's internal_states restored without its "
     "copy of the server arguments (memory_usage, effective_max_running_requests_per_dp 4096); "
     "held-out capacity record sglang059-8xh100-qwen3-8b-tp8-bench-serving (max_total_num_tokens "
     "3,944,182; kvcalc 3,940,715, -0.09%); nothing fitted"),
    ("tests/data/bench_results' other files (vLLM 0.5.4-0.25.1 --save-result, vllm bench "
     "sweep, SGLang of 2024-12, GuideLLM 0.2/0.5, AIPerf 0.8/0.10, GenAI-Perf, trtllm-bench "
     "1.1.0rc1/rc2 printed reports)",
     "issues 23/21, scorepool round: read for a recorded pool; none records one (trtllm-bench's "
     "reports record the runtime batch size and tokens, compared with kvcalc's TensorRT-LLM "
     "defaults); nothing fitted"),
)


def render() -> str:
    lines = [
        "## Sources of the step-time model (issue 20): fitted to or looked at",
        "",
        "<!-- generated by bench/validation_sources.py -->",
        "",
        "Every source the step-time model was fitted to, and every one looked at while building",
        "it (used or not). The sources of the other sections are named in them.",
        "",
        "Fitted to:",
        "",
    ]
    for src, what, use in FITTED:
        lines.append(f"- {src}: {what}. Used for {use}.")
    lines += ["", "Looked at:", ""]
    for src, what in LOOKED_AT:
        lines.append(f"- {src}: {what}.")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(render())
