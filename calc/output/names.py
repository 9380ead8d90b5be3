"""One meaning per output name: every JSON/CSV key every command emits, with its unit, its scope
and what it means. ``python -m calc.output.names`` prints docs/names.md; tests/test_names.py fails when
a command emits a key this registry lacks.

Keys inside a list of records are written ``list[].key`` (``ops[].time_s``). Columns of the
tabular outputs (``sweep`` rows, ``plot`` rows, ``check`` results) that mean exactly what the
same key means at the top level of another command are registered once, bare: a lookup of
``rows[].max_concurrency`` falls back to ``max_concurrency``.

To register a key, add one line to ``_TABLE``: ``key | unit | scope | commands | meaning``.
"""

from __future__ import annotations

from dataclasses import dataclass

UNITS = (
    "bytes", "B/s", "s", "ms", "GPU-h", "tokens/s", "FLOP", "FLOP/s", "FLOP/B", "USD", "USD/h",
    "sequences", "tokens", "params", "blocks", "count", "elements", "fraction", "percent", "ratio",
    "flag", "label", "requests/s", "kWh",
)  # fmt: skip
SCOPES = (
    "per sequence", "per GPU", "per deployment", "whole model", "per op", "setting", "label",
    "summary",
)  # fmt: skip

# key | unit | scope | commands | meaning
_TABLE = """
model | label | label | memory capacity latency roofline flops cost sweep plot speculate measure train log plan simulate | model name (shipped name or the config's name)
hardware | label | label | memory capacity latency roofline flops cost sweep measure train log plan simulate | accelerator profile name (null without --hardware)
engine | label | setting | memory capacity cost log plan simulate | serving engine whose KV-budget rule applies (vllm, sglang, trtllm)
attention | label | label | memory plot | attention layout of the KV cache: mha, gqa, mqa or mla (the what-if of --attention when given)
weight_dtype | label | setting | memory capacity latency roofline flops cost sweep plan simulate | weight dtype or quantisation format
kv_dtype | label | setting | memory capacity latency roofline flops cost sweep plan simulate | KV-cache dtype or format
compute_dtype | label | setting | latency roofline flops | tensor-core dtype the matmuls run at (null without --hardware)
tp | count | setting | memory capacity latency roofline flops cost sweep train log plan simulate | tensor-parallel GPUs per pipeline stage
pp | count | setting | memory capacity latency roofline flops cost train log sweep plan simulate | pipeline-parallel stages
ep | count | setting | memory capacity latency roofline flops cost train plan simulate | expert-parallel GPUs: the GPUs the routed experts are spread over
dp | count | setting | memory capacity latency roofline cost train simulate | data-parallel replicas (attention-DP ranks under expert parallelism)
gpus | count | per deployment | memory capacity latency roofline cost train sweep plan simulate | GPUs of the deployment in all: max(tp, ep) × pp × replicas (= tp × pp × dp); train: tp × pp × cp × dp
ctx | tokens | per sequence | memory capacity latency roofline flops cost sweep plot speculate measure train | tokens per sequence the figures are sized at (serving: prompt + generated; train: one training sequence, split over cp GPUs); latency/roofline/flops: the context of the reported decode step (default prompt + gen), their ledger keys are sized at max(ctx, prompt + gen)
batch | sequences | per deployment | memory capacity latency roofline flops cost sweep speculate measure | concurrent sequences the deployment serves
prompt | tokens | per sequence | latency roofline flops cost sweep plan | prompt tokens of one sequence (prefill)
gen | tokens | per sequence | latency roofline flops cost sweep plan | tokens generated per sequence (cost, sweep: ctx − prompt, at least 1)
block_size | tokens | setting | capacity | tokens per KV block (paged allocation)
mem_util | fraction | setting | capacity | the engine's memory fraction as applied: --mem-util, else the engine's default (vLLM gpu_memory_utilization, SGLang mem_fraction_static incl. its automatic choice, TensorRT-LLM free_gpu_memory_fraction); `log` calls the same figure memory_fraction
max_model_len | tokens | setting | capacity log | the engine's maximum model length (the setting, else the model's context limit); capacity sizes contiguous preallocation with it and raises it to ctx when ctx is longer (with a warning)
efficiency | label | setting | cost simulate plan | which achievable fraction of peak the times use: peak, low, expected or high
usd_per_hour_per_deployment | USD/h | per deployment | cost | usd_per_gpu_hour × gpus: one hour of the whole deployment
price_kind | label | label | cost train | what the price is (docs/hardware.md): list, median (of several providers' lists), estimate (a TCO model), approximate, derived, placeholder, stated (--usd-per-gpu-hour, --price) or tco (owned: --capex-usd-per-gpu)
price_source | label | label | cost | where usd_per_gpu_hour comes from: the provider and instance, the rule of a median or derived figure, or the TCO arithmetic
kwh_per_million_output_tokens_serving | kWh | per deployment | cost | energy of a million output tokens at the steady state: power per GPU (board power, or --power-kw-per-gpu) × PUE / 3600 / serving_output_tokens_per_s_per_gpu × 10^6 (all GPU time charged to output tokens; at board power: an upper bound; null: no board power)
params_total | params | whole model | memory train | parameters of the whole model
params_active | params | whole model | memory | parameters one token runs through (MoE: top-k routed experts)
weights_bytes | bytes | whole model | memory | weights of the whole model: params_total × bytes per weight (scales included)
kv_bytes_per_token_per_layer | bytes | whole model | memory | KV one token adds to one caching layer (all KV heads)
kv_bytes_per_token | bytes | whole model | memory | KV one token adds to one sequence over all caching layers, below every window
kv_bytes_per_sequence | bytes | per sequence | memory | KV of one sequence of ctx tokens, whole model (windowed layers capped, unpaged)
kv_cache_bytes | bytes | whole model | memory plot | KV of batch sequences of ctx tokens, whole model (unpaged)
ssm_state_bytes_per_sequence | bytes | per sequence | memory | Mamba conv + SSM state of one sequence, whole model
ssm_state_bytes | bytes | whole model | memory | Mamba conv + SSM state of batch sequences, whole model
total_bytes | bytes | whole model | memory | weights_bytes + kv_cache_bytes + ssm_state_bytes (analytic, no runtime reserve)
memory_capacity_bytes | bytes | per deployment | memory | memory of all the deployment's GPUs: gpus × memory_bytes
memory_bytes | bytes | per GPU | capacity | memory of one GPU as its profile states it
usable_memory_bytes | bytes | per GPU | memory capacity latency roofline cost | memory of one GPU as torch reports it (the profile's usable_memory_bytes; a log's printed total), which engines budget from: the first term of the ledger, less every term after it down to kv_budget_bytes, is kv_budget_bytes exactly (whole bytes)
memory_fraction_reserve_bytes | bytes | per GPU | memory capacity latency roofline cost | what the engine's memory fraction (mem_util) holds back from the KV budget: usable_memory_bytes − the other terms − kv_budget_bytes, which is the engine's own share (vLLM usable × (1 − gpu_memory_utilization); SGLang (usable − non-torch) × (1 − mem_fraction_static); TensorRT-LLM (usable − weights − activation − non-torch) × (1 − free_gpu_memory_fraction)) plus the budget's flooring and the terms' rounding to whole bytes (under a byte each)
weights_bytes_per_gpu | bytes | per GPU | memory capacity latency roofline cost sweep train | weights held by the busiest GPU (its share of layers, heads and experts; train: in the recipe's weight dtype, the frozen base under LoRA/QLoRA, sharded over dp under ZeRO-3)
kv_cache_bytes_per_gpu | bytes | per GPU | memory capacity latency roofline cost sweep | KV of the sequences the busiest GPU serves at ctx (ceil(batch / sequence groups), unpaged)
ssm_state_bytes_per_gpu | bytes | per GPU | memory capacity latency roofline cost sweep | SSM state of the sequences the busiest GPU serves
activation_peak_bytes | bytes | per GPU | memory capacity latency roofline cost | activation peak of the largest forward pass on one GPU (estimate or --activation)
overhead_bytes | bytes | per GPU | memory capacity latency roofline cost | framework memory outside weights, KV and activations on one GPU (--overhead)
rope_table_bytes | bytes | per GPU | memory capacity latency roofline cost | RoPE's cos/sin table the engine builds with the model on every GPU (vLLM, SGLang), a term of the budget apart from the weights (0: none, or the weights were measured, which hold it)
cuda_graph_bytes | bytes | per GPU | memory capacity latency roofline cost | the engine's CUDA graph estimate taken from the KV budget before the pool (vLLM 0.20+: profile_cudagraph_memory, what its log prints as 'Estimated CUDA graph memory'); 0 where graphs are captured after the pool, in the slack the memory fraction leaves (vLLM before 0.20, SGLang, TensorRT-LLM, eager)
state_pool_bytes | bytes | per GPU | memory capacity latency roofline cost | a recurrent-state pool the engine sets apart from the budget before the KV pool (SGLang on hybrid Mamba/gated-DeltaNet models: its slots × bytes per slot); 0: none, the state is paged inside the budget
kv_budget_bytes | bytes | per GPU | memory capacity latency roofline cost sweep check | what the engine leaves for KV and SSM state on the busiest GPU (floored; negative: the weights do not fit): usable_memory_bytes − memory_fraction_reserve_bytes − weights_bytes_per_gpu − rope_table_bytes − activation_peak_bytes − overhead_bytes − cuda_graph_bytes − state_pool_bytes, to the byte
max_concurrency | sequences | per deployment | memory capacity latency roofline cost sweep plot | sequences of ctx tokens the deployment holds at once: floor(kv_budget_bytes / paged KV + state per sequence) × sequence groups (whole sequences; `kvcalc log`'s terms[] row named max_concurrency is instead the engine's printed ratio, see terms[].predicted)
fits | flag | per deployment | memory capacity latency roofline cost sweep train | the whole per-GPU ledger fits its busiest GPU. Serving: batch sequences of ctx tokens (KV in whole blocks, plus SSM state; under vLLM the blocks its pool reserves per request) fit in the KV budget the engine leaves after weights, activation peak and non-torch memory; train: weights + grads + optimizer states + activations + overhead fit the usable memory
headroom_bytes_per_gpu | bytes | per GPU | memory train | memory left on the busiest GPU after everything its ledger holds (negative: short by that much). Serving: kv_budget_bytes − sequences × sequence bytes; train: usable memory − total_bytes_per_gpu
max_batch_that_fits | sequences | per deployment | memory | = max_concurrency at ctx
max_ctx_that_fits | tokens | per sequence | memory | longest context (whole blocks) at which batch sequences fit
kv_bytes_per_token_per_gpu | bytes | per GPU | capacity log | KV one token adds to a sequence on the busiest GPU, below every window
kv_block_bytes | bytes | per GPU | capacity | KV of one block of block_size tokens on the busiest GPU
kv_cache_blocks | blocks | per GPU | capacity | KV blocks that fit in the budget of one GPU
kv_cache_tokens | tokens | per GPU | memory capacity latency roofline cost sweep | KV pool of one GPU as the engine pages it (calc.deploy.engines): what vLLM prints as "GPU KV cache size"
engine_version | label | setting | memory capacity cost simulate | engine release whose defaults and accounting apply (the latest modelled unless --engine-version)
engine_version_asked | label | setting | memory capacity cost simulate log | engine release --engine-version (log: or the log) named where kvcalc models it as another (engine_version; log: engine_version_modelled; tables show "0.5.4 (modelled as 0.10.0)"); null: not named, or a modelled release or a prefix of one
kv_bytes_per_sequence_per_gpu | bytes | per GPU | capacity sweep | KV of one sequence of ctx tokens on the busiest GPU, paged to whole blocks (no SSM state)
ssm_state_bytes_per_sequence_per_gpu | bytes | per GPU | capacity | SSM state of one sequence on the busiest GPU
max_ctx_at_batch | tokens | per sequence | capacity | longest context (whole blocks) at which batch sequences fit
max_concurrency_contiguous | sequences | per deployment | capacity | max_concurrency if each sequence preallocated max_model_len tokens
paged_waste_bytes_per_sequence | bytes | per GPU | capacity | KV reserved but unused by one sequence under paging (last partial block)
contiguous_waste_bytes_per_sequence | bytes | per GPU | capacity | KV reserved but unused by one sequence under contiguous preallocation
paged_waste_bytes | bytes | per GPU | capacity | paged_waste_bytes_per_sequence × max_concurrency
contiguous_waste_bytes | bytes | per GPU | capacity | contiguous_waste_bytes_per_sequence × max_concurrency_contiguous
shared_prefix | tokens | per sequence | capacity | prompt tokens every one of users shares (--shared-prefix)
users | sequences | per deployment | capacity | sequences sharing the prefix (--users)
shared_prefix_tokens | tokens | per sequence | capacity | prefix tokens a paged cache can share: whole blocks of shared_prefix
shared_prefix_bytes | bytes | per GPU | capacity | KV of the shared prefix on the busiest GPU
kv_without_sharing_bytes | bytes | per GPU | capacity | KV of users sequences on the busiest GPU without sharing
kv_with_sharing_bytes | bytes | per GPU | capacity | KV of users sequences on the busiest GPU with one shared prefix
kv_saved_bytes | bytes | per GPU | capacity | KV sharing saves: (users − 1) × shared_prefix_bytes
users_fit_with_sharing | flag | per deployment | capacity | users ≤ max_concurrency_shared
max_concurrency_shared | sequences | per deployment | capacity | sequences of ctx tokens that fit when they share the prefix
concurrency_gain | sequences | per deployment | capacity | max_concurrency_shared − max_concurrency
decode_flops_per_token | FLOP | whole model | latency roofline flops | FLOPs of one token's decode step at ctx
decode_flops_per_step | FLOP | whole model | flops | decode_flops_per_token × batch
prefill_flops | FLOP | whole model | latency roofline flops | FLOPs of prefilling batch prompts
prefill_flops_per_token | FLOP | whole model | flops | prefill_flops / (batch × prompt)
e2e_flops | FLOP | whole model | flops | prefill_flops + the FLOPs of generating gen tokens per sequence
decode_bytes_per_step_per_gpu | bytes | per GPU | latency roofline flops | bytes one tensor-parallel rank moves in one decode step (weights, KV, activations), summed over the pp stages the step passes through: one GPU's when pp = 1
decode_arithmetic_intensity | FLOP/B | per GPU | latency roofline flops | FLOPs per byte of one decode step
prefill_arithmetic_intensity | FLOP/B | per GPU | flops | FLOPs per byte of the prefill
ridge_point_flop_per_byte | FLOP/B | per GPU | latency roofline flops | peak FLOP/s of compute_dtype over HBM bandwidth
matmul_efficiency | fraction | setting | latency roofline measure | achievable fraction of peak FLOP/s (expected)
memory_efficiency | fraction | setting | latency roofline measure | achievable fraction of HBM bandwidth (expected)
ttft_s | s | per deployment | latency roofline | time to first token: the prefill of all batch prompts together (expected efficiency)
ttft_speed_of_light_s | s | per deployment | latency roofline | ttft_s at 100% of peak
ttft_low_s | s | per deployment | latency roofline | ttft_s at the profile's high efficiencies (fastest of the band; a calibrated profile with a residual band: ttft_s / (1 + its high end), band_basis)
ttft_high_s | s | per deployment | latency roofline | ttft_s at the profile's low efficiencies (slowest of the band; calibrated: ttft_s / (1 + its low end))
tpot_s | s | per deployment | latency roofline cost sweep | time per output token: one decode step of batch sequences at ctx (expected efficiency)
tpot_speed_of_light_s | s | per deployment | latency roofline | tpot_s at 100% of peak
tpot_low_s | s | per deployment | latency roofline | tpot_s, fastest of the band
tpot_high_s | s | per deployment | latency roofline | tpot_s, slowest of the band
tpot_mean_s | s | per deployment | latency roofline | mean decode step over the generation: (e2e_s − ttft_s) / (gen − 1)
tpot_mean_speed_of_light_s | s | per deployment | latency roofline | tpot_mean_s at 100% of peak
tpot_mean_low_s | s | per deployment | latency roofline | tpot_mean_s, fastest of the band
tpot_mean_high_s | s | per deployment | latency roofline | tpot_mean_s, slowest of the band
e2e_s | s | per deployment | latency roofline | end-to-end time of a request: ttft_s + the gen − 1 decode steps
e2e_speed_of_light_s | s | per deployment | latency roofline | e2e_s at 100% of peak
e2e_low_s | s | per deployment | latency roofline | e2e_s, fastest of the band
e2e_high_s | s | per deployment | latency roofline | e2e_s, slowest of the band
output_tokens_per_s | tokens/s | per deployment | latency roofline | decode throughput of the deployment: batch / tpot_s (was tokens_per_s)
output_tokens_speed_of_light_per_s | tokens/s | per deployment | latency roofline | output_tokens_per_s at 100% of peak
output_tokens_low_per_s | tokens/s | per deployment | latency roofline | output_tokens_per_s, slowest of the band
output_tokens_high_per_s | tokens/s | per deployment | latency roofline | output_tokens_per_s, fastest of the band
band_basis | label | label | latency roofline | where the _low/_high band comes from: "efficiency bands" (the profile's low and high efficiencies), or a --calibration file fitted by kvcalc score with its residual band per figure and rule (a calibrated row carries the calibration's own residual, not the efficiency bands)
output_tokens_per_s_per_gpu | tokens/s | per GPU | latency roofline cost sweep | batch / tpot_s / gpus
tokens_per_sequence_per_s | tokens/s | per sequence | latency roofline | decode speed one user sees: 1 / tpot_s
e2e_tokens_per_s | tokens/s | per deployment | latency roofline | batch × gen / e2e_s
memory_per_gpu_bytes | bytes | per GPU | latency roofline | weights_bytes_per_gpu + kv_cache_bytes_per_gpu + ssm_state_bytes_per_gpu
memory_capacity_per_gpu_bytes | bytes | per GPU | latency roofline | memory of one GPU as its profile states it (= memory_bytes)
ttft_one_prompt_s | s | per deployment | cost sweep | prefill time of one prompt alone (was ttft_s in cost/sweep)
input_tokens_per_s_per_gpu | tokens/s | per GPU | cost sweep | prompt / ttft_one_prompt_s / gpus (was input_tokens_per_s)
usd_per_million_output_tokens | USD | per deployment | cost sweep | usd_per_hour / 3600 / output_tokens_per_s_per_gpu × 10^6
usd_per_million_input_tokens | USD | per deployment | cost sweep | usd_per_hour / 3600 / input_tokens_per_s_per_gpu × 10^6
serving_concurrency | sequences | per deployment | latency roofline cost sweep plot | sequences in flight at steady state under load: min(max_num_seqs, sequences of prompt + gen tokens the KV pool holds) per sequence group × groups (null/empty when none fits); plot frontier: at each point's load, 1, 2, 4, ... per sequence group up to that
serving_cycle_s | s | per deployment | latency roofline cost sweep | time to serve every in-flight sequence from its first prompt token to its last output token: chunked prefill (max_batched_tokens per step) + gen − 1 decode steps at the mean context, pipelined under pp
serving_output_tokens_per_s_per_gpu | tokens/s | per GPU | latency roofline cost sweep plot | steady-state output throughput with prefill charged: serving_concurrency × gen / serving_cycle_s / gpus (plot frontier: at the point's serving_concurrency)
serving_input_tokens_per_s_per_gpu | tokens/s | per GPU | latency roofline cost sweep | steady-state prompt throughput: serving_concurrency × prompt / serving_cycle_s / gpus
usd_per_million_output_tokens_serving | USD | per deployment | cost sweep | usd_per_hour / 3600 / serving_output_tokens_per_s_per_gpu × 10^6 (all GPU time charged to output tokens)
usd_per_million_tokens_serving | USD | per deployment | cost sweep | usd_per_hour / 3600 / (serving_output_tokens_per_s_per_gpu + serving_input_tokens_per_s_per_gpu) × 10^6 (GPU time spread over prompt and output tokens)
max_batch_tpot_s | s | per deployment | cost | tpot_s at batch = max_concurrency (null when nothing fits)
max_batch_output_tokens_per_s_per_gpu | tokens/s | per GPU | cost | output_tokens_per_s_per_gpu at batch = max_concurrency
usd_per_million_output_tokens_max_batch | USD | per deployment | cost | usd_per_million_output_tokens at batch = max_concurrency
max_tpot_ms | ms | setting | cost | latency target: time per output token (--max-tpot-ms)
max_ttft_ms | ms | setting | cost | latency target: time to first token of one prompt (--max-ttft-ms)
target_batch | sequences | per deployment | cost | largest batch ≤ max_concurrency meeting the latency targets (0: none)
target_tpot_s | s | per deployment | cost | tpot_s at target_batch
target_output_tokens_per_s_per_gpu | tokens/s | per GPU | cost | output_tokens_per_s_per_gpu at target_batch
usd_per_million_output_tokens_target | USD | per deployment | cost | usd_per_million_output_tokens at target_batch
ops[].name | label | per op | latency roofline flops | op of one decode step (embedding, qkv_proj, attn_scores, ffn, tp_allreduce …)
ops[].flops | FLOP | per op | latency roofline flops | FLOPs of the op on one tensor-parallel rank in one decode step (all pp stages)
ops[].bytes | bytes | per op | latency roofline flops | bytes the op moves on one tensor-parallel rank in one decode step (all pp stages)
ops[].arithmetic_intensity | FLOP/B | per op | latency roofline flops | ops[].flops / ops[].bytes
ops[].bound | label | per op | latency roofline flops | what limits the op: compute, memory or comm (null without --hardware)
ops[].time_s | s | per op | latency roofline flops | time of the op at the expected efficiency (null without --hardware)
ops[].time_speed_of_light_s | s | per op | latency roofline | time of the op at 100% of peak
prefill_ops[].name | label | per op | latency roofline flops | op of the prefill
prefill_ops[].flops | FLOP | per op | latency roofline flops | FLOPs of the op on one tensor-parallel rank over the prefill (all pp stages)
prefill_ops[].bytes | bytes | per op | latency roofline flops | bytes the op moves on one tensor-parallel rank over the prefill (all pp stages)
prefill_ops[].arithmetic_intensity | FLOP/B | per op | latency roofline flops | prefill_ops[].flops / prefill_ops[].bytes
prefill_ops[].bound | label | per op | latency roofline flops | what limits the op: compute, memory or comm
prefill_ops[].time_s | s | per op | latency roofline flops | time of the op at the expected efficiency
prefill_ops[].time_speed_of_light_s | s | per op | latency roofline | time of the op at 100% of peak
n_rows | count | summary | sweep | rows of the grid
derivation | label | summary | memory capacity latency roofline flops cost train log plan score | with --explain: one line per figure, key = formula = numbers = value unit
kind | label | label | plot | what the plot shows: roofline, memory, capacity or frontier
rows[].series | label | label | plot | curve of the chart (attention what-if and its KV heads; frontier: the layout, e.g. tp 4)
rows[].serving_output_tokens_per_s_per_user | tokens/s | per sequence | plot | frontier: gen / serving cycle, the output rate one request sees over its life (its prefill and the others' prefill chunks included; below 1 / TPOT)
rows[].on_frontier | flag | label | plot | frontier: no point of any layout has more tokens/s both per user and per GPU
rows[].own | flag | label | plot | the series is the model's own attention layout
rows[].phase | label | label | plot | decode or prefill (roofline)
rows[].name | label | per op | plot | op placed on the roofline (as ops[].name)
rows[].flops | FLOP | per op | plot measure | FLOPs of the op (plot: on one GPU, as ops[].flops; measure: of the kernel)
rows[].bytes | bytes | per op | plot | bytes the op moves on one GPU (as ops[].bytes)
rows[].arithmetic_intensity | FLOP/B | per op | plot | rows[].flops / rows[].bytes
rows[].attained_flops_per_s | FLOP/s | per op | plot | FLOP/s the op attains at the expected efficiency
rows[].time_s | s | per op | plot | time of the op at the expected efficiency
rows[].bound | label | per op | plot measure | what the roofline says limits the op or kernel: compute, memory or comm
passed | flag | summary | check | every requirement passed
failed | count | summary | check | requirements that failed
results[].deployment | label | label | check | deployment name in the spec
results[].requirement | label | label | check | requirement: must_fit, min_concurrency, max_tpot_ms, max_ttft_ms, max_usd_per_million_output_tokens, max_usd_per_million_input_tokens, training_fit, or under load (the serving simulation at the workload's rate) max_ttft_p50_s, max_ttft_p90_s, max_ttft_p99_s, max_tpot_p50_s, max_tpot_p90_s or max_tpot_p99_s
results[].figure | label | per deployment | check | computed figure, in results[].unit: must_fit: KV + state bytes of the busiest GPU's sequences (paged); min_concurrency: max_concurrency; max_tpot_ms: tpot_s in ms; max_ttft_ms: ttft_one_prompt_s in ms; cost limits: usd_per_million_…; load limits: the simulated TTFT/TPOT percentile in s (null: no request was served)
results[].limit | label | per deployment | check | the requirement's limit in results[].unit (must_fit: kv_budget_bytes)
results[].unit | label | label | check | unit of figure and limit: bytes, sequences, ms, s or USD
results[].passed | flag | per deployment | check | figure meets limit
lengths | label | setting | plan | the request lengths as stated: fixed (prompt and gen tokens each), or each distribution (prompt and gen are then their means, which the analytic screen uses; the simulation samples them) and the longest sampled request (the engine's max model length)
ttft_p99_slo_s | s | setting | plan | target: 99th-percentile time to first token (--ttft-p99)
tpot_p99_slo_s | s | setting | plan | target: 99th-percentile time per output token (--tpot-p99)
max_gpus | count | setting | plan | most GPUs a planned deployment may use (--max-gpus; null: no limit)
budget_usd_per_hour | USD/h | setting | plan | most a planned deployment may cost per hour (--budget-usd-per-hour; null: no limit)
pricing | label | setting | plan | how a GPU-hour is priced: the basis (and whether derived and placeholder prices are used), the prices stated, or owned-hardware TCO (capex / (years × 8,766 h) + kW × PUE × USD/kWh)
answer | label | summary | plan | the answer in one sentence: GPUs, layout, dtypes, engine and version, USD per hour and basis, p99 TTFT and TPOT (and at the pessimistic end), confidence and the weakest provenance
concurrency | count | setting | plan | users in a closed loop the plan sizes for (--concurrency; null: a rate)
prefix_shared | fraction | setting | plan | the share of every prompt that is a prefix all requests share, served from the prefix cache (--prefix-shared)
margin | fraction | setting | plan | a uniform margin on both p99s in place of the class bands (--margin; null: the bands of calc/data/error_bands.json)
unpriced | label | summary | plan | profiles left out for want of a price on the basis (or with only a derived or placeholder one)
method | label | setting | plan | how loads were evaluated: simulation (calc.serve) or analytic (the queueing estimate of calc.reports.plan_eval); a row's own in rows[].method
n_families | count | summary | plan | deployment families built (model × hardware × dtypes × tp/pp/ep × engine the model's shape allows)
n_screened_out | count | summary | plan | families the analytic screen rejected (does not fit, latency bound above the SLO, budget)
n_evaluated | count | summary | plan | cheapest surviving families whose replicas were sized under load (the cheapest 10 by their lower-bound price, then up to 10 more below the best price those found)
n_unscreened | count | summary | plan | families not screened: the least they could cost (one replica) is above the bound of every family the evaluation could reach, so none could be ranked
n_unexplored | count | summary | plan | surviving families not evaluated: the cheapest simulate_top (10) are, then up to 10 more whose lower-bound price is below the best found; the rest cannot beat the winner or lie past that cap
launch_commands[].role | label | label | plan | who runs the command: server, prefill, decode, router, or one node of a multi-node server ("server, node 1 of 2")
launch_commands[].count | count | per deployment | plan | identical copies to run (independent replicas or prefill/decode servers), each its own server
launch_commands[].gpus | count | per deployment | plan | GPUs one copy of the command runs on (0: none, a router)
launch_commands[].command | label | label | plan | the command on one line, every word from input shell-quoted (the engine release's own option names: docs/engines.md)
launch_commands[].argv | label | label | plan | the command's words, unquoted
launch_commands[].files | label | label | plan | files the command reads, by name (the YAML of --extra_llm_api_options, a router config)
launch_commands[].notes | label | label | plan | what the flags cannot say (a quantised checkpoint to serve, the head node's address, a router)
rows | label | summary | plan | the ranked deployments, one record each (empty: none meets the targets)
rejected | label | summary | plan | the rejected families, one record each (empty: none)
rows[].rank | count | per deployment | plan | 1 = cheapest deployment per hour meeting both SLOs at the pessimistic end of its band (ties: fewer GPUs, a simulated row before an analytic one, aggregated before disaggregated, then lower p99 TPOT)
rows[].mode | label | setting | plan | aggregated (prefill and decode share each replica) or disaggregated (prefill_replicas + decode_replicas, KV sent between them)
rows[].replicas | count | per deployment | plan | copies of the tp × pp × ep shape serving the rate (disaggregated: prefill + decode replicas)
rows[].prefill_replicas | count | per deployment | plan | disaggregated: prefill-only replicas (null when aggregated)
rows[].decode_replicas | count | per deployment | plan | disaggregated: decode-only replicas (null when aggregated)
rows[].gpus_per_replica | count | per deployment | plan | GPUs of one replica: max(tp, ep) × pp (disaggregated: of one prefill replica)
rows[].usd_per_hour_per_deployment | USD/h | per deployment | plan | gpus × usd_per_gpu_hour
rows[].usd_per_million_input_tokens_at_load | USD | per deployment | plan | usd_per_hour_per_deployment × prefill share / 3600 / (rate × prompt) × 10^6 (share: the prefill time of the steady-state serving cycle; disaggregated: the prefill pool's share of the GPUs)
rows[].kwh_per_million_input_tokens_at_load | kWh | per deployment | plan | gpus × power per GPU (board power, or --power-kw-per-gpu) × PUE × prefill share / 3600 / (rate × prompt) × 10^6 (at board power: an upper bound; null: no board power)
rows[].kwh_per_million_output_tokens_at_load | kWh | per deployment | plan | gpus × power per GPU × PUE × (1 − prefill share) / 3600 / (rate × gen) × 10^6
rows[].requests_per_s | requests/s | per deployment | plan | requests/s the row serves: the offered rate, or the closed loop's achieved rate (--concurrency)
rows[].decode_tp | count | setting | plan | disaggregated: the decode pool's tensor-parallel GPUs (its shape is chosen apart from the prefill pool's; null when aggregated)
rows[].decode_pp | count | setting | plan | disaggregated: the decode pool's pipeline stages
rows[].decode_ep | count | setting | plan | disaggregated: the decode pool's expert-parallel GPUs
rows[].decode_gpus_per_replica | count | per deployment | plan | disaggregated: GPUs of one decode replica (gpus_per_replica is the prefill replica's)
rows[].engine_version | label | setting | plan simulate | the engine release whose rules the row was sized by (--engine-version, else the newest modelled)
rows[].engine_version_asked | label | setting | plan simulate | engine release --engine-version named where kvcalc models it as another (rows[].engine_version); null: not named, or modelled
rows[].checkpoint | label | label | plan | the published checkpoint in the row's weight format (calc/data/quantised_checkpoints.yaml; null: as released or none known)
rows[].needs_checkpoint | flag | setting | plan | a 4-bit weight format the model has no published checkpoint in: quantise one to serve it
rows[].price_kind | label | label | plan | the row's price kind (list, median, estimate, approximate; derived and placeholder only with --derived-prices; stated; tco)
rows[].price_flagged | flag | label | plan | a derived or placeholder price used because --derived-prices asked for it
rows[].ttft_factor | ratio | per deployment | plan | the pessimistic end of the class's TTFT band: 1 / (1 + p25 of the signed error) (--margin: 1 + margin; an unvalidated class: the widest band measured; a calibrated row: 1 / (1 + the low end of the calibration's residual band))
rows[].tpot_factor | ratio | per deployment | plan | the same for TPOT
rows[].ttft_p99_pessimistic_s | s | per deployment | plan | ttft_p99_s × ttft_factor: the p99 a ranked row must keep within the target
rows[].tpot_p99_pessimistic_s | s | per deployment | plan | tpot_p99_s × tpot_factor
rows[].confidence_class | label | label | plan | the class whose measured error band applies: vendor × weight dtype × dense/MoE (docs/validation.md, confidence bands)
rows[].confidence_basis | label | label | plan | band (the class's own), widest (a time the class has no band for: the widest measured), margin (--margin) or calibration (a calibrated row: the --calibration file's own residual band)
rows[].confidence | label | label | plan | the band in words: each time's 25th–75th percentile of signed error and its records, or what stands in for it
rows[].weakest_provenance | label | label | plan | the weakest figure behind the row's speed and price, "kind: figure" (measured, published, list, median < fitted, estimate < derived, approximate < copied < assumed, placeholder)
rows[].usd_per_million_output_tokens_at_load | USD | per deployment | plan | usd_per_hour_per_deployment × (1 − prefill share) / 3600 / (rate × gen) × 10^6
rows[].ttft_p99_headroom | fraction | per deployment | plan | 1 − ttft_p99_pessimistic_s / ttft_p99_slo_s (the share of the target left at the pessimistic end)
rows[].tpot_p99_headroom | fraction | per deployment | plan | 1 − tpot_p99_pessimistic_s / tpot_p99_slo_s
rows[].kv_transfer_s | s | per deployment | plan | disaggregated: one prompt's KV sent from a prefill to a decode replica (each GPU's shard, point-to-point over the scale-out network); 0 when aggregated
rows[].method | label | setting | plan | how this row's latencies were evaluated: simulation or analytic (a disaggregated pair is simulated, both pools, where it could beat the best aggregated price)
rejected[].mode | label | setting | plan | aggregated or disaggregated family
rejected[].reason | label | per deployment | plan | why the family was rejected: does not fit, SLO ttft, SLO tpot, budget, saturated or engine release (the engine version cannot start the layout)
rejected[].detail | label | per deployment | plan | the figures behind the reason (bytes, the latency against its target, replicas at the limit)
gamma | tokens | setting | speculate | draft tokens per proposal (γ)
alpha | fraction | setting | speculate | acceptance rate of each draft token (α)
draft | label | label | speculate | draft model name, or "N MTP module(s)"
draft_tp | count | setting | speculate | tensor-parallel GPUs of the draft model (--draft-tp; null with --mtp, whose modules run inside the target)
expected_tokens_per_step | tokens | per sequence | speculate | tokens accepted per target step: (1 − α^(γ+1)) / (1 − α)
target_step_s | s | per deployment | speculate | one plain decode step of the target at batch and ctx
draft_step_s | s | per deployment | speculate | one decode step of the draft (on draft_tp GPUs)
verify_step_s | s | per deployment | speculate | the target's verification of γ + 1 positions per sequence (weights and each sequence's KV read once)
speculative_step_s | s | per deployment | speculate | γ draft steps + one verification
tokens_per_s_plain | tokens/s | per deployment | speculate | output tokens/s of one TP group without speculation: batch / target_step_s
tokens_per_s_speculative | tokens/s | per deployment | speculate | output tokens/s with speculation: batch × expected_tokens_per_step / speculative_step_s
speedup | ratio | per deployment | speculate | tokens_per_s_speculative / tokens_per_s_plain
draft_params | params | whole model | speculate | parameters of the draft
draft_weights_bytes | bytes | whole model | speculate | weights of the draft, whole model
draft_kv_cache_bytes | bytes | whole model | speculate | KV of the draft for batch sequences of ctx tokens, whole model
extra_memory_bytes | bytes | whole model | speculate | draft_weights_bytes + draft_kv_cache_bytes
models[].name | label | label | models | shipped model name
models | label | label | plot plan | the models a multi-model plot draws, one series each
models[].attention | label | label | models | attention layout: mha, gqa, mqa or mla
models[].n_layers | count | whole model | models | layers
models[].d_model | elements | whole model | models | hidden width
models[].n_heads | count | whole model | models | query heads
models[].n_kv_heads | count | whole model | models | KV heads
models[].head_dim | elements | whole model | models | key head width
models[].moe_experts | count | whole model | models | routed experts per MoE layer (0: dense)
models[].layer_kinds | label | label | models | the model's layers by kind and count, e.g. "full 12 + linear_attention 36" (full, sliding, chunked attention; linear_attention: gated DeltaNet; mamba, mamba2; mlp, moe: FFN-only layers)
models[].state_kind | label | label | models | the fixed per-sequence state a layer keeps instead of KV: gated_deltanet, mamba, mamba2, or none
models[].sparse_topk | tokens | per sequence | models | DeepSeek sparse attention: keys each query attends to (index_topk); 0 for dense attention
models[].params_mtp | params | whole model | models | parameters of the multi-token-prediction modules, loaded only for MTP speculation (not in params_total)
models[].max_ctx | tokens | per sequence | models | longest context the model supports
models[].params_total | params | whole model | models | parameters of the whole model
models[].params_active | params | whole model | models | parameters one token runs through
models[].dtype | label | setting | models | default weight dtype
hardware[].name | label | label | hardware | shipped accelerator name
hardware[].display_name | label | label | hardware | vendor name of the accelerator
hardware[].memory_bytes | bytes | per GPU | hardware | memory of one GPU
hardware[].memory_label | label | label | hardware | memory as marketed (e.g. 80 GB)
hardware[].hbm_bandwidth_bytes_per_s | B/s | per GPU | hardware | peak HBM bandwidth
hardware[].bf16_flops_per_s | FLOP/s | per GPU | hardware | dense bf16 tensor peak
hardware[].fp8_flops_per_s | FLOP/s | per GPU | hardware | dense fp8 tensor peak (null: none)
hardware[].fp4_flops_per_s | FLOP/s | per GPU | hardware | dense fp4 tensor peak (null: none)
hardware[].interconnect_bandwidth_bytes_per_s | B/s | per GPU | hardware | GPU-to-GPU bandwidth per direction
hardware[].usd_per_gpu_hour | USD/h | per GPU | hardware | the reference price of one GPU-hour: the first of prices (the neocloud on-demand median where the profile has one)
hardware[].price_basis | label | label | hardware | the reference price's basis (neocloud_on_demand, hyperscaler_on_demand, marketplace_on_demand, spot, committed, committed_1yr, committed_3yr, owned_tco)
hardware[].price_kind | label | label | hardware | the reference price's kind: list, median, estimate, approximate, derived or placeholder
hardware[].price_date | label | label | hardware | when the reference price was read: YYYY, YYYY-MM or YYYY-MM-DD
hardware[].prices | label | label | hardware | every price of the profile, one per basis (JSON: records; CSV and table: "basis $USD (kind, date); …")
hardware[].prices[].basis | label | label | hardware | what the price is a price of (see hardware[].price_basis)
hardware[].prices[].usd_per_gpu_hour | USD/h | per GPU | hardware | one GPU-hour on that basis
hardware[].prices[].kind | label | label | hardware | list, median, estimate, approximate, derived or placeholder
hardware[].prices[].source | label | label | hardware | who publishes it, for which instance, where it was read
hardware[].prices[].date | label | label | hardware | when the source was read or dated
hardware[].prices[].rule | label | label | hardware | how a median, derived or placeholder figure follows
hardware[].board_power_w | count | per GPU | hardware | the board's rated power [W] (NVIDIA TGP, AMD TBP; null: not published): the owned TCO's and the energy per token's power per GPU
hardware[].provenance | label | label | hardware | what each figure that moves a speed or a price is (JSON: records; CSV: "kind: figure; …")
hardware[].provenance[].figure | label | label | hardware | the figure: a price, peak_flops_per_s, hbm_bandwidth_bytes_per_s, interconnect, usable_memory_bytes, scale_out, kernel_overhead_s, efficiency, kernel curves, board_power_w
hardware[].provenance[].kind | label | label | hardware | published, measured, fitted, derived, assumed or copied (prices: their kind)
hardware[].provenance[].source | label | label | hardware | where the figure comes from, or its rule
hardware[].provenance[].copied_from | label | label | hardware | the profile a copied figure is taken from (null: not copied)
hardware[].weakest_provenance | label | label | hardware | the profile's weakest figure, "kind: figure" (measured, published, list, median < fitted, estimate < derived, approximate < copied < assumed, placeholder)
hardware[].usable_memory_bytes | bytes | per GPU | hardware | memory the driver hands a process: torch's device total on an idle server (null: not stated); the same figure as usable_memory_bytes
hardware[].scale_up_domain_gpus | count | per GPU | hardware | GPUs that reach each other over the scale-up link (NVLink/xGMI): HGX 8, NVL72 72, PCIe card 1 (null: not stated)
hardware[].scale_out_bandwidth_bytes_per_s | B/s | per GPU | hardware | bandwidth between scale-up domains (InfiniBand, RoCE, Ethernet) per GPU per direction (null: not stated)
hardware[].price_source | label | label | hardware | where the reference price comes from
finetune | label | setting | train | what trains: full (every weight), lora (adapters on a frozen base) or qlora (adapters on a frozen NF4 base)
recipe | label | setting | train | precision recipe: bf16, bf16-fp32-grads, fp32, fp8 or fp8-bf16-moments (bytes of weights, grads, master weights and Adam moments)
zero_stage | label | setting | train | ZeRO stage over the data-parallel ranks: 0 DDP, 1 optimizer states, 2 + gradients, 3 + weights (FSDP full shard)
recompute | label | setting | train | activation recomputation: none, selective (the attention core) or full (checkpointing each layer's input)
flash_attention | flag | setting | train | FlashAttention: no ctx × ctx score matrix is stored
micro_batch | sequences | setting | train | sequences per micro-batch on one data-parallel replica
global_batch | sequences | per deployment | train | sequences per optimizer step, all replicas: microbatches × micro_batch × dp
microbatches | count | per deployment | train | micro-batches each data-parallel replica runs per optimizer step (m)
cp | count | setting | train | context-parallel GPUs: each holds ctx / cp tokens of a sequence
params_trainable | params | whole model | train | parameters that receive gradients: params_total (full) or the LoRA adapters' (lora, qlora)
params_per_gpu | params | per GPU | train | parameters of the busiest GPU's share of layers, heads and experts (before ZeRO sharding)
grads_bytes_per_gpu | bytes | per GPU | train | gradients held by the busiest GPU (of the trainable parameters; sharded over dp under ZeRO ≥ 2)
optimizer_bytes_per_gpu | bytes | per GPU | train | optimizer states held by the busiest GPU: master weights and Adam moments (sharded over dp under ZeRO ≥ 1)
gathered_weights_bytes_per_gpu | bytes | per GPU | train | ZeRO-3 all-gathered full weights of two layers (current and prefetched) on the busiest GPU (0 below ZeRO-3)
activation_bytes_per_layer | bytes | per GPU | train | stored activations of one layer of the first pipeline stage for one micro-batch on one GPU (the stage's mean; full recompute: the layer's checkpointed input)
activation_bytes_per_gpu | bytes | per GPU | train | stored activations of the busiest pipeline stage's GPU: its layers × micro-batches in flight + embedding, the recomputed layer's working set and the logits
activation_stage | label | label | train | pipeline stage whose activations are the larger: first or last (first when pp = 1)
overhead_bytes_per_gpu | bytes | per GPU | train | memory per GPU outside model states and activations: CUDA context, NCCL, allocator (--overhead)
total_bytes_per_gpu | bytes | per GPU | train | training memory of the busiest GPU: weights + grads + optimizer + gathered weights + activations + overhead
memory_bytes_per_gpu | bytes | per GPU | train | device memory a training process may use per GPU: the profile's usable memory (what torch reports as the total; the label where none is stated)
max_micro_batch_that_fits | sequences | per GPU | train | largest micro_batch whose total_bytes_per_gpu fits memory_bytes_per_gpu (0: not even one sequence)
matmul_params | params | whole model | train | parameters a token multiplies: params active less norms and the embedding lookup (tied embeddings count as the lm_head)
model_flops_per_token | FLOP | whole model | train | model FLOPs of training on one token: 3 × forward_flops_per_token = 6 × matmul_params + 3 × attention forward (what MFU counts)
forward_flops_per_token | FLOP | whole model | train | FLOPs of one token's forward pass: 2 × matmul_params + attention forward at ctx
backward_flops_per_token | FLOP | whole model | train | FLOPs of one token's backward pass: 2 × forward_flops_per_token
recompute_flops_per_token | FLOP | whole model | train | forward work redone per token beyond the model FLOPs (recomputation, FlashAttention's backward scores)
hardware_flops_per_token | FLOP | whole model | train | FLOPs the GPUs execute per token: model_flops_per_token + recompute_flops_per_token
tokens_per_step | tokens | per deployment | train | training tokens of one optimizer step: global_batch × ctx
microbatch_s | s | per GPU | train | forward + backward of one micro-batch on one pipeline stage: compute + TP, EP and PP communication
bubble_fraction | fraction | per deployment | train | share of a pipelined step spent idle: (pp − 1) / (virtual stages × microbatches + pp − 1)
tp_comm_per_microbatch_s | s | per GPU | train | tensor-parallel all-reduces of one micro-batch on one stage (on the link the TP group crosses)
ep_comm_per_microbatch_s | s | per GPU | train | expert-parallel all-to-alls of one micro-batch on one stage (0 without ep or MoE)
pp_comm_per_microbatch_s | s | per GPU | train | activations and their gradients across one stage boundary for one micro-batch (the scale-up link while the pipeline stays in one domain, else the network; 0 when pp = 1)
dp_comm_per_step_s | s | per GPU | train | gradient synchronisation of one step over the data-parallel ranks (ZeRO-3: + weight all-gathers; the scale-up link while the group stays in one domain, else the network)
dp_comm_exposed_s | s | per GPU | train | the part of dp_comm_per_step_s the backward does not hide: max(0, dp_comm_per_step_s − ⅔ × one micro-batch's compute)
step_s | s | per deployment | train | one optimizer step: (microbatches + (pp − 1) / virtual stages) × microbatch_s + dp_comm_exposed_s
mfu | fraction | per deployment | train | model-FLOPs utilisation of the step: model_flops_per_token × tokens_per_step / (gpus × peak FLOP/s × step_s)
tokens_per_s_per_gpu | tokens/s | per GPU | train | training tokens processed per second per GPU: tokens_per_step / step_s / gpus
tokens | tokens | setting | train | training tokens of the run (--tokens)
steps | count | per deployment | train | optimizer steps of the run: tokens / tokens_per_step (fractional)
run_model_flops | FLOP | whole model | train | model FLOPs of the run: model_flops_per_token × tokens
mfu_assumed | fraction | setting | train | MFU the run is timed at (--mfu; null: the compute model's step_s)
run_s | s | per deployment | train | wall time of the run: at mfu_assumed, else tokens / tokens_per_step × step_s
gpu_hours | GPU-h | per deployment | train | GPU-hours of the run: gpus × run_s / 3600
usd_per_gpu_hour | USD/h | per GPU | cost sweep plan train | price of one GPU-hour: the profile's price on --price-basis (default neocloud_on_demand; cost and train fall back to its reference price, with a warning), a stated price (--usd-per-gpu-hour, --price) or owned hardware (capex / (years × 8,766 h × utilisation) + kW × PUE × USD/kWh)
price_basis | label | label | cost plan train | what usd_per_gpu_hour is a price of: a profile's basis (neocloud_on_demand, hyperscaler_on_demand, marketplace_on_demand, spot, committed, committed_1yr, committed_3yr, owned_tco) or owned (the TCO of --capex-usd-per-gpu); plan: the one basis of every ranked row
run_usd | USD | per deployment | train | cost of the run: gpu_hours × usd_per_gpu_hour
engine_version_printed | label | label | log | engine version the log prints (null: none printed)
engine_version_modelled | label | setting | log | engine version whose memory model made the prediction (--engine-version, the printed one's major.minor, else the newest modelled)
memory_fraction | fraction | setting | log | the engine's memory fraction: vLLM gpu_memory_utilization, SGLang mem_fraction_static, TensorRT-LLM free_gpu_memory_fraction (from the log, else the engine's default)
terms[].term | label | label | log | start-up term compared: usable_memory, weights (the ledger's weights_bytes_per_gpu + rope_table_bytes: the printed load holds the RoPE table), activation, non_torch, cuda_graphs (the estimate the release computes and prints: the ledger's cuda_graph_bytes where it takes it from the budget, vLLM 0.20+; the estimate it leaves in the slack on 0.18 and 0.19), kv_cache, blocks, tokens or max_concurrency
terms[].unit | label | label | log | unit of the term's predicted and printed: bytes, blocks, tokens or requests
terms[].predicted | label | per GPU | log | kvcalc's prediction of the term from the log's settings only, in terms[].unit (on the busiest GPU; tokens: the figure the engine prints, by that release's formula (vLLM to 0.20 blocks × block_size, from 0.21 int(max_concurrency × max_model_len)); max_concurrency: vLLM's printed "Maximum concurrency", num_blocks / blocks a max_model_len request takes, a ratio with decimals, not capacity's whole sequences)
terms[].printed | label | per GPU | log | the term as the log prints it, in terms[].unit (null: not printed)
terms[].error | ratio | per GPU | log | (predicted − printed) / printed (null: not printed)
device | label | label | measure | torch device the kernels ran on: cpu or cuda
device_name | label | label | measure | the device as torch names it
torch_version | label | label | measure | torch version of the run
dtype | label | setting | measure | dtype the kernels ran in
scale | count | setting | measure | widths and head counts divided by this (--quick; always on cpu)
peak_flops_per_s | FLOP/s | per GPU | measure | peak FLOP/s in dtype of the profile the predictions use
peak_bytes_per_s | B/s | per GPU | measure | memory bandwidth of the profile the predictions use
profile_probed | flag | label | measure | the profile was probed on this machine (cpu)
n_rejected | count | summary | measure | kernels whose output missed the float64 reference
n_errors | count | summary | measure | kernels that failed to run
rows[].kernel | label | per op | measure | kernel measured (gemm, decode_attention, paged_decode, probe_gemm …)
rows[].variant | label | per op | measure | which instance: weight matrix, head layout, probe kind
rows[].backend | label | per op | measure | implementation that ran (torch.matmul, flash, …)
rows[].shape | label | per op | measure | operand shapes
rows[].status | label | per op | measure | ok, rejected (output missed the reference) or error
rows[].message | label | per op | measure | why a kernel was rejected or failed (empty when ok)
rows[].moved_bytes | bytes | per op | measure | bytes the kernel must move (the roofline's count)
rows[].intensity | FLOP/B | per op | measure | rows[].flops / rows[].moved_bytes
rows[].predicted_s | s | per op | measure | roofline time of the kernel on the profile at its expected efficiencies
rows[].measured_median_s | s | per op | measure | median of the timed runs
rows[].measured_p10_s | s | per op | measure | 10th percentile of the timed runs
rows[].measured_p90_s | s | per op | measure | 90th percentile of the timed runs
rows[].spread_pct | percent | per op | measure | (p90 − p10) / median × 100
rows[].achieved_flops_per_s | FLOP/s | per op | measure | rows[].flops / measured_median_s
rows[].achieved_bytes_per_s | B/s | per op | measure | rows[].moved_bytes / measured_median_s
rows[].flops_fraction | fraction | per op | measure | achieved_flops_per_s / peak_flops_per_s
rows[].bandwidth_fraction | fraction | per op | measure | achieved_bytes_per_s / peak_bytes_per_s
rows[].fraction_of_peak | fraction | per op | measure | flops_fraction if compute-bound, else bandwidth_fraction (what calibration uses)
rows[].error_pct | percent | per op | measure | (predicted_s − measured_median_s) / measured_median_s × 100
rows[].rel_error | ratio | per op | measure | max abs error of the output against a float64 reference, over the reference's max
rows[].tolerance | ratio | per op | measure | rel_error above which the kernel is rejected
rows[].predicted_kv_bytes | bytes | per op | measure | KV bytes the kernel's inputs hold (prediction)
rows[].predicted_activation_bytes | bytes | per op | measure | activation bytes of inputs and outputs (prediction)
rows[].predicted_weight_bytes | bytes | per op | measure | weight bytes of the kernel (prediction)
rows[].predicted_memory_bytes | bytes | per op | measure | predicted_kv_bytes + predicted_activation_bytes + predicted_weight_bytes
rows[].peak_memory_bytes | bytes | per op | measure | memory the kernel's run peaked at (see memory_source)
rows[].memory_source | label | label | measure | how peak_memory_bytes was taken (allocator peak on cuda, tensor bytes on cpu)
rows[].n_buffers | count | per op | measure | input/output buffer sets rotated so timings do not hit the cache
rows[].repeats | count | per op | measure | timed runs
rows[].clock | label | label | measure | timer used (cuda events; cuda events, queued: launches queued ahead, device time alone; perf_counter)
rows[].too_noisy | flag | per op | measure | the runs' spread_pct exceeds max_spread_pct (over 5 or more runs): the row has no error_pct and calibrates nothing
max_spread_pct | percent | setting | measure | spread_pct above which a row is too noisy to score (--max-spread)
n_too_noisy | count | summary | measure | rows too noisy to score (rows[].too_noisy)
n_scored | count | summary | measure | rows in the error statistics: ok, not too noisy, not kernel_overhead, not a probe the profile was probed from
median_error_pct | percent | summary | measure | median of rows[].error_pct over the scored rows (null without any)
median_abs_error_pct | percent | summary | measure | median of abs(rows[].error_pct) over the scored rows (null without any)
kernel_overhead_eager_s | s | per GPU | measure | fixed cost of one kernel launched eagerly: median time per kernel of a chain of tiny kernels (null if not measured)
kernel_overhead_graph_s | s | per GPU | measure | fixed cost of one kernel replayed from a CUDA graph (cuda only; null on cpu)
calibration_kernel_overhead_s | s | per GPU | measure | the fixed kernel cost --save-calibration writes: the CUDA-graph figure where measured, else the eager one
calibration_gemm_m_curve[].m | count | per GPU | measure | GEMM rows M of one point of the small-M curve
calibration_gemm_m_curve[].slowdown | ratio | per GPU | measure | median over the GEMM shapes at M of (measured − kernel cost) / roofline time at the calibrated bands
max_num_seqs | sequences | setting | simulate | sequences one iteration may hold (vLLM max_num_seqs), as resolved for the engine and GPU
max_batched_tokens | tokens | setting | simulate | tokens one iteration may hold (vLLM max_num_batched_tokens; the chunked-prefill budget), as resolved
arrival | label | setting | simulate | arrival process: poisson, constant or trace
prompt_dist | label | setting | simulate | prompt-length distribution of the requests (a number, uniform, lognormal mean/cv, or trace)
gen_dist | label | setting | simulate | output-length distribution of the requests
prefix_shared_fraction | fraction | setting | simulate | fraction of each prompt that is a prefix all requests share (served from the prefix cache, held once)
seed | count | setting | simulate | seed of the sampled arrivals and lengths
ttft_slo_s | s | setting | simulate | TTFT target of goodput (--ttft-slo; null: none)
tpot_slo_s | s | setting | simulate | TPOT target of goodput (--tpot-slo; null: none)
rate_per_s | requests/s | setting | simulate plan | mean arrival rate asked for (--rate, or the sweep's rate; null: a trace's own times); plan: the Poisson rate it sizes deployments for
offered_requests_per_s | requests/s | per deployment | simulate | arrival rate of the simulated requests: (n − 1) / (last arrival − first arrival)
n_requests | count | per deployment | simulate | requests simulated (refused ones excluded)
rejected_requests | count | per deployment | simulate | requests refused because prompt + output alone need more KV blocks than the pool holds, or exceed the max model length
ttft_p50_s | s | per sequence | simulate plan | median time to first token under load: first token − arrival (queueing, chunked prefill, shared iterations); plan: of the row's deployment at the plan's rate (rows[].method: simulated, or the analytic estimate)
ttft_p90_s | s | per sequence | simulate | 90th percentile of the TTFT under load
ttft_p99_s | s | per sequence | simulate plan | 99th percentile of the TTFT under load
ttft_avg_s | s | per sequence | simulate | mean TTFT over the requests under load
tpot_p50_s | s | per sequence | simulate plan | median time per output token under load: (finish − first token) / (output tokens − 1), requests of more than one output token
tpot_p90_s | s | per sequence | simulate | 90th percentile of the TPOT under load
tpot_p99_s | s | per sequence | simulate plan | 99th percentile of the TPOT under load
tpot_avg_s | s | per sequence | simulate | mean TPOT over the requests under load (latency's tpot_mean_s is one request's mean decode step)
itl_p50_s | s | per sequence | simulate score | median inter-token latency under load: each gap between two consecutive output tokens of a request, pooled over all requests' tokens (vLLM's benchmark ITL); a prefill stalling the decoders shows in its tail
itl_p90_s | s | per sequence | simulate score | 90th percentile of the inter-token gaps under load (over tokens)
itl_p99_s | s | per sequence | simulate score | 99th percentile of the inter-token gaps under load (over tokens)
itl_avg_s | s | per sequence | simulate score | mean inter-token gap under load, over all tokens (a request's mean is its TPOT)
e2e_p50_s | s | per sequence | simulate | median end-to-end latency under load: finish − arrival
e2e_p90_s | s | per sequence | simulate | 90th percentile of the end-to-end latency under load
e2e_p99_s | s | per sequence | simulate | 99th percentile of the end-to-end latency under load
e2e_avg_s | s | per sequence | simulate | mean end-to-end latency over the requests under load
served_requests_per_s | requests/s | per deployment | simulate | requests finished / makespan (first arrival to last finish)
served_output_tokens_per_s | tokens/s | per deployment | simulate | output tokens of the finished requests / makespan
served_input_tokens_per_s | tokens/s | per deployment | simulate | prompt tokens of the finished requests / makespan (shared prefix included)
goodput_requests_per_s | requests/s | per deployment | simulate | requests that met both SLOs / makespan (null without an SLO)
slo_attainment | fraction | per deployment | simulate | fraction of the requests that met both SLOs (null without an SLO)
queue_len_mean | count | per deployment | simulate | requests waiting for admission, time-averaged over the makespan (all sequence groups)
queue_len_max | count | per deployment | simulate | longest queue of waiting requests one sequence group (replica) had
kv_pool_occupancy_mean | fraction | per deployment | simulate | fraction of the KV pool's blocks held by running requests, time-averaged (mean over sequence groups)
preemptions | count | per deployment | simulate | running requests preempted (recompute) because the KV pool ran out of blocks
saturated | flag | per deployment | simulate | the rate is beyond what the deployment serves: the wait for admission grows with the arrival time without bound
saturation_reason | label | per deployment | simulate | one line: offered vs served rate and how the wait grew (empty when not saturated)
makespan_s | s | per deployment | simulate | first arrival to last finish
iterations | count | per deployment | simulate | scheduler iterations (forward passes) of all sequence groups
sequence_groups | count | setting | simulate | groups the requests are spread over round-robin (replicas × attention-DP ranks × pipeline micro-batches), each simulated on its own
kv_pool_blocks | blocks | per GPU | simulate | KV blocks of one sequence group's pool (the ledger's pool, / pp under pipeline parallelism; in full-attention blocks for windowed or SSM models)
max_rate_meeting_slo_per_s | requests/s | per deployment | simulate | highest rate of the sweep whose p99 TTFT and TPOT meet the SLOs and that is not saturated (null: none)
calibrated | flag | setting | latency roofline cost simulate plan score sweep | the hardware profile carries a --calibration file's figures (measured efficiency bands, or a step calibration fitted by kvcalc score)
runs[].source | label | label | score | the benchmark result file, with #N for the N-th run where it holds several
runs[].tool | label | label | score | what wrote the file: vllm bench serve, sglang bench_serving, guidellm, aiperf, genai-perf or trtllm-bench
runs[].model | label | label | score | model the run is scored on (kvcalc's name: the file's model id, or --model)
runs[].hardware | label | label | score | hardware profile the run is scored on
runs[].engine | label | setting | score | serving engine simulated (the file's tool or backend, --log or --engine)
runs[].engine_version | label | setting | score | engine release whose defaults and step rules the replay used (--engine-version or --log, else the newest modelled: a result file records none)
runs[].engine_version_asked | label | setting | score | engine release --engine-version or --log named where kvcalc models it as another (runs[].engine_version; its host costs are the named release's); null: not named, or modelled
runs[].weight_dtype | label | setting | score | weight format of the deployment scored
runs[].kv_dtype | label | setting | score | KV-cache format of the deployment scored
runs[].tp | count | setting | score | tensor-parallel GPUs of the deployment scored
runs[].pp | count | setting | score | pipeline-parallel stages of the deployment scored
runs[].dp | count | setting | score | data-parallel replicas of the deployment scored
runs[].max_num_seqs | sequences | setting | score | the engine's max running sequences, as resolved
runs[].max_batched_tokens | tokens | setting | score | the engine's tokens per iteration, as resolved
runs[].requests | count | per deployment | score | requests of the run replayed and served by the simulation
runs[].rate_per_s | requests/s | setting | score | the run's request rate as the file records it (null: all at once)
runs[].max_concurrency | count | setting | score | most requests the benchmark client kept open (null: no limit)
runs[].arrivals | label | label | score | how the send times were rebuilt: recorded per request, or drawn at the rate (Poisson, gamma, constant) with the seed, the client's concurrency limit
runs[].lengths | label | label | score | how the prompt and output lengths were rebuilt: recorded per request, the dataset's settings, or the totals' mean; the prefix-cached fraction
runs[].notes | label | label | score | what the replay left out or changed (failed requests, refused ones), one line
runs[].pool_from_file | flag | setting | score | the replay used the KV pool, running-request cap and chunk the file records the server ran with (--pool-from-file), where it records them, in place of kvcalc's
metrics[].source | label | label | score | the run the figure belongs to (runs[].source)
metrics[].metric | label | label | score | figure compared, as vLLM's benchmark defines it: ttft, tpot (per request), itl (per token, pooled), e2e, requests_per_s, output_tokens_per_s, input_tokens_per_s or goodput_requests_per_s (where the file states its SLOs); and the deployment as recorded vs modelled, where the file records what the server ran with (calc.reports.score_pool): kv_cache_tokens (its KV pool of one GPU, SGLang's max_total_num_tokens), max_num_seqs (its running-request cap, per data-parallel rank), max_batched_tokens (its tokens per iteration)
metrics[].stat | label | label | score | avg, p50, p90 or p99 (empty for a throughput)
metrics[].unit | label | label | score | unit of predicted and measured: s or 1/s; tokens or sequences for the deployment's rows
metrics[].predicted | label | per deployment | score | kvcalc's simulation of the figure on the run's replayed workload, in metrics[].unit; for the deployment's rows kvcalc's own: the engine wing's KV pool for the release and deployment scored, its cap and chunk with the file's figure for them left out (a command's option kept)
metrics[].measured | label | per deployment | score | the figure as the result file records it, in metrics[].unit (the deployment's rows: what the server reported it ran with)
metrics[].error | ratio | per deployment | score | (predicted − measured) / measured (null: no prediction)
fit | label | label | score | the calibration fit (with --fit or --save-calibration): what was fitted and each run's residuals
fit.parameters | label | label | score | parameters fitted (--fit): gemm, attention, moe, communication multipliers; host, host_seq, request times
fit.gemm_multiplier | ratio | per GPU | score | fitted factor on the GEMM op times (1: as modelled)
fit.attention_multiplier | ratio | per GPU | score | fitted factor on the attention op times
fit.moe_multiplier | ratio | per GPU | score | fitted factor on the MoE routed experts' op times
fit.communication_multiplier | ratio | per GPU | score | fitted factor on the collectives' times
fit.host_step_s | s | per GPU | score | fitted host time per forward pass (null: not fitted)
fit.host_per_seq_s | s | per GPU | score | fitted host time per sequence a forward pass samples, added to the engine's modelled one (null: not fitted: the modelled one kept, fit.kept)
fit.request_s | s | per sequence | score | fitted latency of each request outside the engine loop, added to TTFT and E2E (null: not fitted)
fit.kept | label | label | score | the host times not fitted and the values they keep: the engine's modelled host time per step (host) and per sequence (host_seq, per deployment), request 0; a fitted host time adds to the modelled one
fit.rms_residual | ratio | summary | score | root mean square of ln(predicted / measured) over the fitted figures after the fit
fit.band | label | summary | score | the residual band the calibration file stores per figure (TTFT, TPOT, output tok/s: signed error predicted / measured − 1, low…high) and its rule (fitted on one run: widened to the spread one-run fits leave on other loads, docs/validation.md); a calibrated row of plan and latency carries it
fit.iterations | count | summary | score | Levenberg–Marquardt iterations of the fit
fit.runs[].source | label | label | score | a run fitted to
fit.runs[].figure | label | label | score | the fitted figure: ttft_p50, tpot_avg (or its stand-in), output_tokens_per_s, or tpot_p99 where host_seq is fitted
fit.runs[].before | ratio | per deployment | score | (predicted − measured) / measured before the fit
fit.runs[].after | ratio | per deployment | score | (predicted − measured) / measured after the fit
per_request[].request | count | label | simulate score | index of the request in the workload (a trace's row, a benchmark file's request; refused requests keep their index) (--per-request JSON Lines)
per_request[].group | count | label | simulate score | sequence group (replica, attention-DP rank, pipeline micro-batch) the request ran on
per_request[].arrival_s | s | per sequence | simulate score | when the client sent the request, from the first request's arrival
per_request[].admitted_s | s | per sequence | simulate score | when the scheduler first admitted it
per_request[].first_token_s | s | per sequence | simulate score | when its first output token reached the client (produced, then handed out by the API front-end)
per_request[].finish_s | s | per sequence | simulate score | when its last output token was produced
per_request[].prompt_tokens | tokens | per sequence | simulate score | prompt tokens of the request
per_request[].output_tokens | tokens | per sequence | simulate score | output tokens of the request
per_request[].ttft_s | s | per sequence | simulate score | first_token_s − arrival_s
per_request[].tpot_s | s | per sequence | simulate score | (finish_s − first_token_s) / (output_tokens − 1); null for one output token
per_request[].e2e_s | s | per sequence | simulate score | finish_s − arrival_s
per_request[].itl_max_s | s | per sequence | simulate score | the request's longest gap between two consecutive output tokens (a preemption's stall included); null for one output token
per_request[].preemptions | count | per sequence | simulate score | times the request was preempted (its KV freed, recomputed later)
"""

# Renames made for scope (issue 10): old key -> new key, where (checked against main's output).
RENAMES = (
    ("tokens_per_s", "output_tokens_per_s", "latency (the deployment's decode throughput)"),
    ("tokens_speed_of_light_per_s", "output_tokens_speed_of_light_per_s", "latency"),
    ("tokens_low_per_s", "output_tokens_low_per_s", "latency"),
    ("tokens_high_per_s", "output_tokens_high_per_s", "latency"),
    ("(new)", "output_tokens_per_s_per_gpu", "latency (output_tokens_per_s / gpus)"),
    ("tokens_per_s", "output_tokens_per_s_per_gpu", "cost, sweep"),
    ("input_tokens_per_s", "input_tokens_per_s_per_gpu", "cost"),
    ("ttft_s", "ttft_one_prompt_s", "cost, sweep (one prompt alone; latency's ttft_s is the batch)"),
    ("max_batch_tokens_per_s", "max_batch_output_tokens_per_s_per_gpu", "cost"),
    ("target_tokens_per_s", "target_output_tokens_per_s_per_gpu", "cost"),
    ("kv_bytes_per_token", "kv_bytes_per_token_per_gpu", "capacity (memory's kv_bytes_per_token stays whole-model)"),
    ("kv_bytes_per_sequence", "kv_bytes_per_sequence_per_gpu", "capacity, sweep (memory's stays whole-model)"),
    ("kv_cache_bytes", "kv_cache_bytes_per_gpu", "sweep (memory's kv_cache_bytes stays whole-model)"),
    ("headroom_bytes", "headroom_bytes_per_gpu", "memory"),
    # issue 22: a price says what it is a price of (one GPU-hour), on which basis
    ("usd_per_hour", "usd_per_gpu_hour", "cost, sweep, plan rows (issue 22; the value is still per GPU)"),
    ("price_basis: rental", "price_basis: neocloud_on_demand", "train (issue 22: the basis of the price charged; owned stays owned)"),
)  # fmt: skip


@dataclass(frozen=True)
class Name:
    key: str
    unit: str
    scope: str
    commands: tuple[str, ...]
    meaning: str


def _parse(table: str) -> dict[str, Name]:
    out: dict[str, Name] = {}
    for line in table.strip().splitlines():
        key, unit, scope, commands, meaning = (p.strip() for p in line.split("|", 4))
        assert key not in out, f"{key} registered twice"
        out[key] = Name(key, unit, scope, tuple(commands.split()), meaning)
    return out


NAMES: dict[str, Name] = _parse(_TABLE)


def lookup(path: str) -> Name | None:
    """The entry of a key path: ``rows[].ctx`` itself, else the bare key ``ctx``."""
    if path in NAMES:
        return NAMES[path]
    if "[]." in path:
        return NAMES.get(path.rsplit("[].", 1)[1])
    return None


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown() -> str:
    """docs/names.md: every output key, then the renames."""
    lines = [
        "# Output names",
        "",
        "Every JSON/CSV key kvcalc emits, with its unit and scope. One name has one meaning in",
        "every command; where the scope differs the name says so (`..._per_gpu`). Keys inside a",
        "list of records are written `list[].key`; a column of sweep, plot or measure rows that",
        "means what the same top-level key means is listed once, under the top-level name.",
        "Generated by `python -m calc.output.names` from `calc/output/names.py`; tests/test_names.py checks",
        "that every key every command emits is here and that commands agree on shared keys.",
        "",
        "Scopes: *per sequence*: one sequence; *per GPU*: the busiest GPU of the deployment;",
        "*per deployment*: all its GPUs (tp × pp × replicas); *whole model*: the unsharded",
        "model; *per op*: one op row; *setting*: an input echoed back; *label*: a name.",
        "",
        "| key | unit | scope | commands | meaning |",
        "|---|---|---|---|---|",
    ]
    for n in NAMES.values():
        lines.append(
            f"| `{_cell(n.key)}` | {n.unit} | {n.scope} | {' '.join(n.commands)} | "
            f"{_cell(n.meaning)} |"
        )
    lines += [
        "",
        "## Renames (issue 10)",
        "",
        "| old key | new key | where |",
        "|---|---|---|",
    ]
    lines += [f"| `{old}` | `{new}` | {where} |" for old, new, where in RENAMES]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_markdown(), end="")
