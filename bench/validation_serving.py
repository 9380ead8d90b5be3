"""The serving-runs section of docs/validation.md (written by bench/validation_doc.py): kvcalc's
TPOT and TTFT against measured serving runs at a fixed concurrency (aiconfigurator's silicon
sample), every row's signed error, grouped by vendor, dtype, dense/MoE and regime.

Run: python bench/validation_serving.py            (prints the section)
     python bench/validation_serving.py --fit      (the host-cost constants, training half)
     python bench/validation_serving.py --fit --write   (the same, stored beside the shipped
                                                    constants: docs/validation/host_fit.yaml)

The records: ``docs/validation/aiconfigurator_silicon_agg.csv``, the aggregated-serving rows of
ai-dynamo/aiconfigurator's ``aic-core/src/aiconfigurator_core/systems/silicon_sample.csv``
(Apache-2.0; commit 095f58a51) for the models and GPUs kvcalc ships: each a benchmark at a fixed
concurrency c (c requests in flight, a new one when one finishes), fixed input and output
lengths, mean TTFT and TPOT, under vLLM, SGLang or TensorRT-LLM. Rows are split in two by a
hash of their id: the host-cost constants (``calc.deploy.host_costs``) are fitted on the
*training* half only; the other half is held out.

Prediction (closed loop at concurrency c, each sequence group holding n = min(c / groups, the
KV pool's sequences, max_num_seqs)): one cycle serves every sequence once, its n prefills in
chunks of max_batched_tokens and its osl − 1 decode steps at batch n and the mean context
(``calc.reports.throughput``'s cycle, the engine's host time per step included); a request
lives one cycle, so TPOT = (cycle − its first step) / (osl − 1); TTFT = the front-end time +
the prefill of its prompt + one decode step of the running batch (the step it joins), plus the
wait for a free slot when c exceeds n.

Mapping: the engine's checkpoint formats (``gemm_quant_mode`` fp8 → fp8-tensor, fp8_block →
fp8-block128, nvfp4 → nvfp4; gpt-oss keeps its released mxfp4 experts); the KV cache fp8 under
TensorRT-LLM with an fp8/fp4 checkpoint and where the run's script set it (``KV_ROWS``: SGLang
DeepSeek-R1 on B200 and B300), else the model's 16-bit; tp = the attention TP, ep =
the MoE EP (attention data parallel when ep > tp).
"""

from __future__ import annotations

import csv
import hashlib
import math
import statistics
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "validation" / "aiconfigurator_silicon_agg.csv"
SOURCE = (
    "https://github.com/ai-dynamo/aiconfigurator/blob/095f58a51/"
    "aic-core/src/aiconfigurator_core/systems/silicon_sample.csv"
)
FORMATS = {"fp8": "fp8-tensor", "fp8_block": "fp8-block128", "nvfp4": "nvfp4", "int4_wo": None}
# The benchmark's waves: its c requests start together and, with fixed lengths, tend to finish
# and restart together, so a request waits for a share of the other requests' prefills. The
# share (0: arrivals spread evenly, 1/2: every wave one burst) depends on how the engine's
# scheduler takes a wave in (its ``SchedulerPolicy``): prefill batches first, whole prompts
# (SGLang) queues each prompt behind the wave's others; chunked prefill beside the running
# decodes (vLLM) spreads them; whole requests reserved (TensorRT-LLM) between. One share per
# policy, fitted on the training half (``--fit``: the median of (measured TTFT − the
# steady-state TTFT) / ((n − 1) × one prefill) over that policy's rows): a constant of this
# benchmark's method against a scheduler, not of kvcalc's step model.
# (Round 18: whole-request refitted 0.150 -> 0.143, the fit's value since the step model moved
# under it; TensorRT-LLM's held-out TTFT median |error| 46.3% -> 45.1%, signed +9.2% -> +6.1%.)
# (Issue 20, the vLLM silicon round: chunked refitted 0.099 -> 0.103 once the rows below their
# roofline floor are set aside (``floor_s``); rows whose prompts repeat into a prefix cache
# (``hit_share`` > 0) have almost no prefill wave to measure and are left out of the fit;
# docs/step-time.md.)
# (MTP round: whole-request 0.143 -> 0.141, the fit's value once the MTP runs are timed as MTP.)
# (MoE-backend round: whole-request 0.141 -> 0.143, the fit's value once the B200 NVFP4 runs
# with attention TP are timed at the trtllm-gen MoE their scripts set.)
# (mxfp4 round: chunked 0.103 -> 0.116, the fit's value once vLLM's MXFP4 MoE curves are fitted
# to gpt-oss's own kernel path, without the compressed-tensors Marlin rows; docs/step-time.md.)
# (Session 10, after the moettft round charged the InferenceX runs' admission waits to TTFT:
# prefill-first 0.379 -> 0.263, whole-request 0.143 -> 0.131, the fit's fixed point; the
# share had absorbed the SGLang receive wait now charged on its own.)
# (moehost round: prefill-first 0.263 -> 0.236 once SGLang 0.5.9's eager DeepSeek prompt
# passes take their measured host time.)
# (moefit round: prefill-first 0.236 -> 0.242, whole-request 0.131 -> 0.140 once the block-fp8
# engine MoE curves count every route the GPU holds: SGLang's DeepSeek prompt passes shorter.)
# (sgb200moe round: prefill-first 0.242 -> 0.260 once SGLang's B200 block-fp8 MoE is timed by
# its trtllm-gen rows and its NVFP4 MoE counts every route: the B200 DeepSeek prompt passes
# shorter.)
# (sggemm round: prefill-first 0.260 -> 0.268 once SGLang's GEMMs are timed by its own curves,
# the fit's value: its block-fp8 linears on Hopper faster, its prompt passes shorter.)
# (sgtrtgen round: prefill-first 0.268 -> 0.265, the fit's value once SGLang's B300 block-fp8
# MoE is timed by its trtllm-gen rows and its NVFP4 MoE counts every route: the B300
# DeepSeek-R1 prompt passes shorter.)
# (mxfp4big round: chunked 0.110 -> 0.122, the fit's value once InferenceX's gpt-oss B200 vLLM
# runs are timed at the MXFP8-activation MoE their scripts set: their prompt passes shorter.)
# (sgdsbw round: prefill-first 0.265 -> 0.272, the fit's value once InferenceX's B200/B300 SGLang
# DeepSeek-R1 runs hold the fp8 KV cache their scripts set (KV_ROWS): their pools twice as
# large, fewer of their requests queue for a slot, less of their TTFT left to the wave.)
# (marlinfp4 round: chunked 0.122 -> 0.089, the fit's value once InferenceX's gpt-oss H100/H200
# vLLM runs from InferenceX#327 on are timed at the Marlin MXFP4 MoE their scripts set: their
# prompt passes longer.)
# (bigbatch round: prefill-first 0.272 -> 0.271, the fit's value once SGLang's decode steps at
# large batch wait for its scheduler loop (calc.deploy.host_costs SGLANG_LOOP_SEQUENCE_S).)
# (trtbigmoe round: whole-request 0.140 -> 0.142, the fit's value once InferenceX's early B200
# NVFP4 DeepSeek runs are read at the layout their script ran, LAYOUT_ROWS, which moves their
# predicted TTFT before the wave.)
# (layoutrows round: prefill-first 0.271 -> 0.272, the fit's value once InferenceX's 2025-11-02
# B200 NVFP4 DeepSeek-R1 SGLang runs are read at the EP 8 their script's --enable-ep-moe set,
# LAYOUT_ROWS.)
# (adpbalance round: whole-request 0.142 -> 0.132, the fit's value once InferenceX's
# attention-DP TensorRT-LLM runs are charged the ADP balance their scripts set, ADP_ROWS: less of
# their TTFT left to the wave.)
# (moefloor round: prefill-first 0.272 -> 0.255, the fit's value once SGLang's eager DeepSeek
# prompt passes on Hopper issue at least 2.03 ms a layer, calc.deploy.host_costs
# EAGER_MLA_MOE_LAYER_SM90_S: more of those rows' TTFT is their own pass, less is left to the wave.)
# (trttrickle round: whole-request 0.132 -> 0.120, the fit's value once the attention-DP runs'
# balance wait counts the prompts a rank's max_num_tokens lets into one iteration: more of their
# TTFT is the wait, less is left to the wave.)
WAVE_SHARE = {"prefill-first": 0.255, "whole-request": 0.120, "chunked": 0.089}

# The CUDA graphs of the sample's TensorRT-LLM runs are not stated per record. Not
# TensorRT-LLM's default list (1-31, 32, 64, 128 unpadded, ``Engine.cuda_graph_batch_sizes``):
# its records at 256 sequences (gpt-oss-120b on B200 TP 2 / TP 4, 7.8-11.9 ms; DeepSeek-R1
# NVFP4 27.5 ms) would then run eagerly and come out 30-77% slow. aiconfigurator's generator
# writes padded graphs up to the run's batch (extra_engine_args.1.0.0rc3.yaml.j2 of 2025-08:
# padding on, 1, 2, 4 … 256; generator/rule_plugin/trtllm.rule since 2025-11: 1-16 … 256-512
# and max_batch_size ± 8, padding on), so every decode-only step of these runs is taken to
# replay a graph of its own batch (its concurrency per rank, aiconfigurator's bs), and a step
# holding a prompt to be eager (decode-only graphs; issue 20, round 17; ``predict``).


# The prompts of aiconfigurator's gap-analysis campaign (the rows whose id carries ``_epnone_``:
# exactly the upstream rows whose silicon_data_source is ``source_file=.../aic-auto-gap-analysis/
# ...``) repeat. That campaign measured with AIPerf (aiconfigurator docs/universe/index.html,
# "Auto Gap Analysis": "compares them with AIPerf ... silicon measurements"), whose synthetic
# prompts are 100 entries, one drawn for every request (``calc.serve.prompt_reuse``), here
# after c × 2 warm-up requests and before c × 20 timed ones (aiconfigurator's benchmark script,
# src/aiconfigurator/generator/config/backend_templates/benchmark/bench_run.sh.j2:
# --warmup-request-count $((c*2)), --num-requests $((c*20)), BENCH_MULTI_ROUND 20). Which of its
# servers reused prefixes: vLLM (prefix caching on by default in V1, 0.12.0 ``vllm/config/
# cache.py``; aiconfigurator's generator passes --no-enable-prefix-caching only where asked); not
# TensorRT-LLM (the generator's extra_engine_args templates default enable_block_reuse to false);
# and not the campaign's SGLang runs either, as their own throughput shows (issue 20, the vLLM
# silicon round, docs/step-time.md: Llama-3.1-8B at 4000 x 100 tokens, c 80, TP 4: 80 prompts
# per 3.0 s cycle, 106k prompt tokens/s, every prompt prefilled), though their source states no
# flag. The vLLM rows are physically impossible without reuse: Llama-3.1-8B-FP8 at 4000 x 100,
# c 64, TP 4 completes 64 requests per 0.87 s (TTFT 125 ms + 99 × 7.52 ms), 294k prompt tokens/s,
# 1.2 PFLOP/s a GPU of prompt work at 2 × 8.0 GFLOP a token: above the H200's dense fp8 peak.
# Which AIPerf: aiconfigurator's own benchmark flow installs 0.3.0 (src/aiconfigurator/generator/
# sflow.py, ``pip install aiperf==0.3.0``), whose default draw is a shuffle (every prompt once per
# pass of 100, ``DatasetSamplingStrategy.SHUFFLE``), not the random choice of 0.2.0 and before
# (issue 20, MoE prefill round; ``calc.serve.prompt_reuse``).
PROMPT_POOL = 100  # AIPerf --num-dataset-entries default
PROMPT_SAMPLING = "shuffle"  # AIPerf 0.3.0's default dataset sampling strategy
WARMUP_PER_CLIENT, TIMED_PER_CLIENT = 2, 20  # aiconfigurator bench_run.sh.j2, per concurrency
REUSE = {"vllm": True, "sglang": False, "trtllm": False}  # the campaign's servers (above)


def hit_share(row: Row, dep) -> float:
    """The share of ``row``'s timed requests whose prompt the engine's prefix cache holds
    (``calc.serve.prompt_reuse``): 0 outside the repeating campaign or where the server did
    not reuse prefixes."""
    from calc.serve.prompt_reuse import hit_share as share

    if "_epnone_" not in row.id or not REUSE.get(row.backend, False):
        return 0.0
    per_group = math.ceil(row.concurrency / dep.sequence_groups)
    held = (dep.per_gpu.kv_cache_tokens - per_group * row.osl) / row.isl
    c = row.concurrency
    return share(PROMPT_POOL, WARMUP_PER_CLIENT * c, TIMED_PER_CLIENT * c, held,
                 PROMPT_SAMPLING)


def _policy(dep) -> str:
    """The wave-share key of ``dep``'s engine scheduler (``WAVE_SHARE``)."""
    pol = dep.engine_model.scheduler(dep.engine_config.version)
    if pol.prefill_first:
        return "prefill-first"
    return "whole-request" if pol.reserve_whole_request else "chunked"


@dataclass(frozen=True)
class Row:
    id: str
    backend: str
    model: str
    hardware: str
    fmt: str | None  # kvcalc weight format (None: the checkpoint as released)
    kv: str | None
    isl: int
    osl: int
    concurrency: int
    tp: int
    ep: int
    ttft_s: float
    tpot_s: float
    label: str = ""  # the weights' dtype as grouped: fp8, fp4, mxfp4
    # TensorRT-LLM's release where the record states one (its fused MoE's speed); vLLM and
    # SGLang rows run at the newest modelled release, as their host times were fitted
    release: str | None = None
    # MTP draft tokens of a run that used MTP speculative decoding (MTP_ROWS), 0 for none
    mtp: int = 0
    # the MoE backend the run's script set (MOE_BACKEND_ROWS); None: the engine's default
    moe_backend: str | None = None
    # SGLang's --scheduler-recv-interval and TensorRT-LLM's batch_wait_timeout_iters the run's
    # script set (ADMISSION_ROWS); 1 and 0: the engines' defaults
    recv_interval: int = 1
    batch_wait_iters: int = 0
    # the engine release the record states ("" where none): for SGLang, whether the run's
    # passes with a prompt ran eagerly (``prefill_eager``)
    stated: str = ""
    # TensorRT-LLM's attention-DP balance the run's script set (ADP_ROWS): timeout_iters and
    # batching_wait_iters; 0: off (the engine's default)
    adp_timeout_iters: int = 0
    adp_batching_iters: int = 0
    # the --max_num_tokens the script of an ADP_ROWS run passed (0: the release's default)
    max_num_tokens: int = 0

    @property
    def training(self) -> bool:
        return int(hashlib.sha256(self.id.encode()).hexdigest(), 16) % 2 == 0

    @property
    def moe(self) -> bool:
        return self.model in MOE_MODELS

    @property
    def vendor(self) -> str:
        return "NVIDIA"

    @property
    def dtype(self) -> str:
        return self.label

    @property
    def regime(self) -> str:
        if self.concurrency <= 4:
            return "batch 1-4"
        return "batch 5-64" if self.concurrency <= 64 else "batch > 64"


MOE_MODELS = ("deepseek-r1", "deepseek-v3", "gpt-oss-120b", "qwen3-235b-a22b")


# checkpoints released already quantised: the run served them as released, whatever label the
# table gives the format (their config.json: DeepSeek-V3/R1 and Qwen3-235B-A22B-FP8 carry fp8
# weights in 128 × 128 blocks, weight_block_size [128, 128]; gpt-oss its MXFP4 experts)
RELEASED = {
    ("deepseek-ai/DeepSeek-R1", "fp8"): "fp8-block128",
    ("deepseek-ai/DeepSeek-V3", "fp8"): "fp8-block128",
    ("Qwen/Qwen3-235B-A22B-FP8", "fp8"): "fp8-block128",
}


# The runs that used MTP speculative decoding, which no record states: the sample's TensorRT-LLM
# DeepSeek-R1 runs are SemiAnalysisAI/InferenceX's sweeps, and three of its pull requests ran
# only MTP configurations (num_nextn_predict_layers 3, 1 under attention DP): their runs, by
# measured date, GPU and format, listed with the draft tokens by tools/silicon_mtp_rows.py
# (issue 20, TensorRT-LLM MTP round). Predicted as MTP steps (calc.reports.mtp_decode).
MTP_ROWS = DATA.with_name("aiconfigurator_silicon_mtp.csv")


# The MoE backend (TensorRT-LLM moe_config.backend) InferenceX's DeepSeek-R1 scripts set, by GPU,
# format, attention DP and (B200 fp8) InferenceX#594's date, for the runs of its exports alone:
# listed by tools/silicon_moe_backend_rows.py (issue 20, TensorRT-LLM MoE-backend round)
MOE_BACKEND_ROWS = DATA.with_name("aiconfigurator_silicon_moe_backend.csv")


# The layout InferenceX's scripts ran where the record states another: runs measured 2025-11-02
# state MoE EP 1 and no attention DP where the script of that date ran EP = TP (B200 NVFP4
# DeepSeek-R1 above 8-32 requests, with attention DP and the CUTLASS MoE at the highest: trtbigmoe
# round; TensorRT-LLM's fp8 DeepSeek-R1 on B200 and H200 and gpt-oss on H200 at every
# concurrency, SGLang's B200 NVFP4 DeepSeek-R1 by --enable-ep-moe: layoutrows round); listed with
# the backend the script set, or none where the engine picks, by tools/silicon_layout_rows.py.
# The record's concurrency is the whole benchmark's (its id's cN); a MoE backend listed here
# supersedes MOE_BACKEND_ROWS' for these runs (read there at the stated, not the run, attention
# DP).
LAYOUT_ROWS = DATA.with_name("aiconfigurator_silicon_layout.csv")


# The scheduler settings of InferenceX's scripts that hold new requests back (SGLang's
# --scheduler-recv-interval, TensorRT-LLM's batch_wait_timeout_iters), which no record states:
# listed by tools/silicon_admission_rows.py (issue 20, MoE TTFT round), stated on the row's
# Deployment (EngineSettings recv_interval, batch_wait_iters, batch_wait_ratio) and charged by
# calc.serve.admission_hold (``admission_s``)
ADMISSION_ROWS = DATA.with_name("aiconfigurator_silicon_admission.csv")


# TensorRT-LLM's attention-DP balance (attention_dp_config enable_balance, timeout_iters,
# batching_wait_iters) that InferenceX's DeepSeek-R1 and B200 gpt-oss scripts set under attention
# DP, which no record states: listed by tools/silicon_adp_rows.py (issue 20, adpbalance round) and
# charged by calc.serve.admission.adp_balance_wait_s (``adp_balance_s``). A validation mapping,
# not an EngineSettings field: the balance holds every rank's contexts on the others' (a shared
# counter over the all-gathered counts), and ``kvcalc simulate`` runs each attention-DP rank as
# its own sequence group (calc.serve.simulate), so it has no place to replay it.
ADP_ROWS = DATA.with_name("aiconfigurator_silicon_adp.csv")
# InferenceX's client for those runs (kimbochen/bench_serving benchmark_serving.py, the scripts'
# --num-prompts $(( CONC * 10 )) --max-concurrency $CONC, and --random-range-ratio 0.8 from
# .github/workflows full-sweep-tmpl.yml / benchmark-tmpl.yml): every client sends 10 prompts, and
# the random dataset draws each output length uniformly over [0.8 × osl, osl]
BENCH_ROUNDS = 10
BENCH_RANGE_RATIO = 0.8


# The KV-cache dtype InferenceX's SGLang DeepSeek-R1 scripts on B200 and B300 set
# (--kv-cache-dtype fp8_e4m3 at every revision; SGLang's default for the model is its 16-bit
# dtype), which no record states: listed by tools/silicon_kv_rows.py (issue 20/21, sgdsbw round)
KV_ROWS = DATA.with_name("aiconfigurator_silicon_kv.csv")
KV_DTYPES = {"fp8_e4m3": "fp8"}  # the engine's flag value -> kvcalc's KV dtype
# beside the batch waiting, InferenceX's Llama-3.1-70B TensorRT-LLM scripts set
# batch_wait_max_tokens_ratio 0.9 and --max_num_tokens 16384 (tools/silicon_admission_rows.py);
# the row's deployment keeps the release's default budget (its step model is fitted so), so the
# wait's threshold takes the scripts' budget here: 0.9 × 16,384 tokens
BATCH_WAIT_RATIO = 0.9
SCRIPT_MAX_NUM_TOKENS = 16384


@cache
def _moe_backends() -> dict[str, str]:
    with MOE_BACKEND_ROWS.open() as f:
        return {r["id"]: r["moe_backend"] for r in csv.DictReader(f)}


@cache
def _layouts() -> dict[str, tuple[int, bool, str]]:
    with LAYOUT_ROWS.open() as f:
        return {r["id"]: (int(r["ep"]), r["attention_dp"] == "1", r["moe_backend"])
                for r in csv.DictReader(f)}  # fmt: skip


def _run_layout(run_id: str, tp: int, ep: int, backend: str | None):
    """(attention TP, MoE EP, MoE backend) of a run: the record's, or where LAYOUT_ROWS lists
    the run the layout its script ran (attention DP: one attention GPU a rank, EP over them)."""
    got = _layouts().get(run_id)
    if got is None:
        return tp, ep, backend
    ep, dp, listed = got
    return (1 if dp else tp), ep, listed or backend  # none listed: the engine's own pick


@cache
def _admission() -> dict[str, tuple[int, int]]:
    with ADMISSION_ROWS.open() as f:
        return {r["id"]: (int(r["recv_interval"]), int(r["batch_wait_iters"]))
                for r in csv.DictReader(f)}  # fmt: skip


@cache
def _adp_balance() -> dict[str, tuple[int, int, int]]:
    with ADP_ROWS.open() as f:
        return {r["id"]: (int(r["timeout_iters"]), int(r["batching_wait_iters"]),
                          int(r["max_num_tokens"])) for r in csv.DictReader(f)}  # fmt: skip


@cache
def _kv_dtypes() -> dict[str, str]:
    with KV_ROWS.open() as f:
        return {r["id"]: KV_DTYPES[r["kv_cache_dtype"]] for r in csv.DictReader(f)}


@cache
def _mtp_drafts() -> dict[str, int]:
    with MTP_ROWS.open() as f:
        return {r["id"]: int(r["mtp_draft_tokens"]) for r in csv.DictReader(f)}


def _label(r) -> str:
    if r["model"] == "gpt-oss-120b":
        return "mxfp4"
    return "fp4" if r["gemm_quant_mode"] == "nvfp4" else "fp8"


def rows() -> list[Row]:
    out = []
    with DATA.open() as f:
        for r in csv.DictReader(f):
            fmt = FORMATS.get(r["gemm_quant_mode"])
            if r["model"] == "gpt-oss-120b":
                fmt = None  # the released mxfp4 experts
            elif (r["model_path"], r["gemm_quant_mode"]) in RELEASED:
                fmt = RELEASED[r["model_path"], r["gemm_quant_mode"]]
            elif fmt is None:
                continue
            tp, ep, dp = int(r["tp"]), int(r["moe_ep"]), int(r["attention_dp"])
            if int(r["pp"]) != 1:
                continue
            moe_tp = int(r["moe_tp"])
            if moe_tp > 1 and ep > 1 and tp == moe_tp * ep:
                # the DeepSeek "cfg" runs state tp 64 beside moe_tp 8 × moe_ep 8: their TPOT is
                # the same campaign's 8-GPU TP 8 / EP 8 runs' (8.12 against 8.05 ms at
                # concurrency 4 on B200): read as TP 8 and EP 8 on 8 GPUs
                tp //= moe_tp
            concurrency = int(r["concurrency"])
            if "_epnone_" in r["id"] and dp == 1 and int(r["tp"]) < moe_tp * ep:
                # the gap-analysis vLLM Qwen3-235B rows that state tp 1 or 2 beside moe_tp ×
                # moe_ep 2 or 4 and no attention_dp (19 rows): aiconfigurator's layout rule is
                # tp × attention_dp = moe_tp × moe_ep (aic-core sdk/config.py
                # ``resolve_moe_parallelism``; the 235 GB of weights cannot fit one H200), so they
                # ran vLLM's attention DP beside a tensor-parallel MoE over moe_tp × moe_ep GPUs,
                # a layout kvcalc does not model (its attention DP shards the experts by EP, and
                # these rows' steps, 41-58 ms, are 2-3 x its 12-24 ms): not read as TP tp alone
                # (6 rows were, at half their GPUs), not scored (issue 20, MoE prefill round)
                continue
            if dp > 1:  # attention data parallel: kvcalc's tp × (ep / tp) layout
                tp = max(1, tp)
                # the table's concurrency is per attention rank (the run id's cN is the
                # whole benchmark's: c256 beside concurrency 32 at dp 8)
                concurrency *= dp
                if tp == 1 and moe_tp > 1 and ep > 1 and dp == moe_tp * ep:
                    # the TensorRT-LLM runs stating attention_dp 64 beside moe_tp 8 × moe_ep
                    # 8 (16 beside 4 × 4) repeat the same campaign's 8-GPU (4-GPU) DP 8 /
                    # EP 8 runs' TTFT and TPOT to every digit (..._1538 and ..._1022: 3,116.185
                    # and 18.1819 ms): read as DP 8 and EP 8 on 8 GPUs (issue 20, round 15)
                    dp //= moe_tp
                ep = max(ep, tp * dp)
            tp, ep, moe_backend = _run_layout(r["id"], tp, ep, _moe_backends().get(r["id"]))
            quant = r["precision"] in ("fp8", "fp4")
            kv = "fp8" if r["backend"] == "trtllm" and quant else None
            kv = _kv_dtypes().get(r["id"], kv)  # a KV dtype the run's script set (KV_ROWS)
            out.append(Row(r["id"], r["backend"], r["model"], r["hardware"], fmt, kv,
                           int(r["isl"]), int(r["osl"]), concurrency, tp,
                           ep if ep > 1 else 1, float(r["ttft_ms"]) / 1e3,
                           float(r["tpot_ms"]) / 1e3, _label(r), _release(r),
                           _mtp_drafts().get(r["id"], 0), moe_backend,
                           *_admission().get(r["id"], (1, 0)),
                           r.get("backend_version") or "",
                           *_adp_balance().get(r["id"], (0, 0, 0))))  # fmt: skip
    return out


def _release(r: dict) -> str | None:
    """A TensorRT-LLM record's release when it states a version number, else None."""
    from calc.deploy.engines.versions import parse_version

    v = r.get("backend_version") or ""
    return v if r["backend"] == "trtllm" and parse_version(v) is not None else None


@cache
def _deployment(row: Row):
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings

    return Deployment.build(
        load_model(row.model),
        load_hardware(row.hardware),
        tp=row.tp,
        ep=row.ep,
        weight_dtype=row.fmt,
        kv_dtype=row.kv,
        engine=EngineSettings(name=row.backend, version=row.release,
                              moe_backend=row.moe_backend, **_admission_settings(row)),
    )


@cache
def prefill_eager(row: Row) -> bool:
    """Whether ``row``'s run issued its passes with a prompt eagerly, by the release it states,
    where kvcalc predicts it at another (SGLang rows run at the newest modelled release, whose
    prefill graphs are on): the engine wing's rule at the stated release (SGLang before 0.5.10
    captures decode graphs only). False where the record states none (not known)."""
    from dataclasses import replace

    from calc.errors import KvcalcError

    if not row.stated or row.release is not None:
        return False
    try:
        if _deployment(row).engine_model.cuda_graph_batch_sizes(_deployment(row)) is not None:
            return False  # a declared capture list: ``predict``'s own eager rule (TensorRT-LLM)
        dep = _deployment(replace(row, release=row.stated))
    except KvcalcError:
        return False
    return bool(dep.engine_config.cuda_graphs and dep.engine_model.graphs_decode_only(dep))


def eager_prefill_s(row: Row, dep, gpu_s: float, step) -> float:
    """A pass with a prompt of ``row``'s run [s]: its GPU time ``gpu_s``, or where the run's
    release issued it eagerly (``prefill_eager``) the larger of that and its host issue time:
    the layers × the engine's measured host time of such a layer where measured (SGLang's
    DeepSeek layer, ``calc.deploy.host_costs.EAGER_MLA_MOE_LAYER_S``), else its counted
    kernels × the launch time (``calc.serve.graphs``). Issue 20, moehost round."""
    from calc.deploy.host_costs import eager_prefill_host_s
    from calc.reports.throughput import eager_step_s, launch_s

    if not prefill_eager(row):
        return gpu_s
    layers = dep.model.n_layers / max(dep.pp, 1)
    host = eager_prefill_host_s(layers, dep.engine_model.eager_prefill_layer_s(dep), launch_s(step))
    return float(eager_step_s(gpu_s, host))


def _admission_settings(row: Row) -> dict:
    """The row's admission settings (ADMISSION_ROWS) as EngineSettings fields, the engines'
    defaults (1 and 0) left unstated."""
    out: dict = {}
    if row.recv_interval > 1:
        out["recv_interval"] = row.recv_interval
    if row.batch_wait_iters:
        out.update(batch_wait_iters=row.batch_wait_iters, batch_wait_ratio=BATCH_WAIT_RATIO)
    return out


@dataclass(frozen=True)
class Result:
    row: Row
    tpot_s: float
    ttft_s: float
    # the least time a decode step of the predicted batch can take (``floor_s``) [s]; a row
    # measured faster than that is set aside (``aside``)
    floor_s: float = 0.0

    @property
    def aside(self) -> bool:
        """Measured TPOT below the HBM roofline of the batch it states (``floor_s``): the
        row cannot have run that batch, so it cannot score the step model (see ``floor_s``)."""
        return self.row.tpot_s < self.floor_s

    @property
    def tpot_error(self) -> float:
        return self.tpot_s / self.row.tpot_s - 1

    @property
    def ttft_error(self) -> float:
        return self.ttft_s / self.row.ttft_s - 1


def floor_s(dep, batch: int, prompt: int) -> float:
    """The roofline floor of one decode step of ``batch`` sequences [s]: the HBM bytes kvcalc's
    decode step moves per GPU (the weights it reads, the expected experts of a MoE layer at
    that batch, the KV cache of every sequence) at the prompt's context, the least any decode
    step of the run attends to, over the GPU's peak HBM bandwidth (its datasheet figure).

    No step at that batch can be faster: a row whose measured TPOT is below it did not run the
    batch its settings give (or kvcalc reads its settings wrongly) and is set aside, not
    scored (``Result.aside``). Issue 20, the vLLM silicon round: of the nine rows it sets aside,
    five are gpt-oss-120b on H100 at concurrency 512 (TP 2, 4 and 8; 3.6-5.6 ms measured,
    3.7-13.4 ms floors), whose TTFT (20-118 s) shows the requests queued: by Little's law (c in
    flight, each living TTFT + (osl − 1) × TPOT) about 100 of the 512 were decoding in each,
    whatever the TP and lengths, a cap outside the GPUs; two Qwen3-32B vLLM rows on H100 whose
    id states no concurrency (``..._c_tp1_0_...``, 0.93-0.97 of the floor); two TensorRT-LLM
    attention-DP rows (GB200 "tp 64", B200 TP 8 / EP 8 at 8192 × 1024)."""
    from calc.deploy.steps import step_of

    step = step_of(dep, "expected", batch=batch * dep.sharding.dp_attn, ctx=prompt)
    return float(step.bytes) / float(dep.hardware.hbm_bandwidth_bytes_per_s)


def predict(row: Row, host=None, efficiency: str = "expected", dep=None) -> Result | None:
    """TPOT and TTFT at the row's concurrency (module docstring); None where kvcalc cannot
    build the deployment (a layout it refuses) or not one sequence fits. ``dep``: a deployment
    built elsewhere (another profile's figures) instead of the row's own."""
    import numpy as np

    from calc.deploy.engines import host_costs
    from calc.deploy.steps import step_of
    from calc.errors import KvcalcError
    from calc.reports.throughput import eager_step_s, launch_s, prompts_per_chunk
    from calc.serve.graphs import decode_only

    try:
        dep = _deployment(row) if dep is None else dep
        pool = int(dep.per_gpu.max_sequences_per_gpu(row.isl + row.osl))
    except KvcalcError:
        return None
    if host is None:
        host = host_costs(row.backend)
    host = host.for_host_cpu(dep.hardware.host_cpu)  # its overlapped loop on the row's host
    ec = dep.engine_config
    groups = dep.sequence_groups
    want = math.ceil(row.concurrency / groups)
    n = max(1, min(want, pool, ec.max_num_seqs))
    if pool < 1:
        return None
    dpa = dep.sharding.dp_attn
    ctx = row.isl + row.osl / 2
    dec = step_of(dep, efficiency, batch=n * dpa, ctx=ctx)
    k = int(prompts_per_chunk(row.isl, row.max_num_tokens or ec.max_batched_tokens, n))
    pre = step_of(dep, efficiency, batch=k * dpa, prompt=row.isl)
    own = step_of(dep, efficiency, batch=dpa, prompt=row.isl)
    gpu, chunk, one = float(dec.time_s), float(pre.time_s), float(own.time_s)
    if dep.engine_model.cuda_graph_batch_sizes(dep) is not None and decode_only(dep):
        # TensorRT-LLM: its decode steps replay the run's graphs (the comment above _policy); a
        # pass holding a prompt is launched kernel by kernel beside the running decodes
        chunk = float(eager_step_s(chunk, launch_s(pre) - gpu))
        one = float(eager_step_s(one, launch_s(own) - gpu))
    # a release that issues its prompt passes eagerly (SGLang before 0.5.10): the other prompts'
    # prefills in the wave below keep ``one_wave``, as they gather into batched passes, each of
    # which pays the host time once (``chunk``)
    one_wave = one
    chunk, one = eager_prefill_s(row, dep, chunk, pre), eager_prefill_s(row, dep, one, own)
    t_dec = host.step_s(gpu, n)  # max(GPU, each rank's overlapped loop) + the serial host
    per_token = t_dec  # a decode step's time per output token of a sequence
    if row.mtp:  # the run's MTP speculative decoding (MTP_ROWS): fewer, longer steps
        from calc.reports.mtp_decode import mtp_decode

        spec = mtp_decode(dep, efficiency, batch=n * dpa, ctx=ctx, draft_tokens=row.mtp)
        t_dec = host.step_s(spec.step_s, n)
        per_token = t_dec / spec.tokens_per_step
    chunk += host.step_host_s(k)
    chunks = max(1, math.ceil(row.isl / ec.max_batched_tokens))
    first = one + host.step_host_s(1) * chunks  # its own prefill steps
    # a repeated prompt (``hit_share``) computes its last block only, inside a decode step
    hit = hit_share(row, dep)
    tail = _tail_s(dep, efficiency, n * dpa, row.isl) if hit else 0.0
    cycle = n * ((1 - hit) * chunk / k + hit * tail) + (row.osl - 1) * per_token
    own = (1 - hit) * first + hit * tail
    tpot = max(cycle - own, per_token) / max(1, row.osl - 1)
    # the wave: the other requests' prefills, only the missed ones; a hit's first token comes
    # from the decode step after the one in flight
    wave = WAVE_SHARE[_policy(dep)] * (n - 1) * one_wave * (1 - hit)
    ttft = float(host.request_host_s(row.isl)) + own + hit * t_dec + t_dec + wave
    ttft += admission_s(row, dep, n, t_dec)
    ttft += adp_balance_s(row, dep, n, t_dec, cycle, per_token)
    if want > n:  # requests beyond the slots wait for one to finish
        ttft += (want - n) / n * cycle
    return Result(row, tpot, float(np.float64(ttft)), floor_s(dep, n, row.isl))


def admission_s(row: Row, dep, n: int, step_s: float) -> float:
    """The time ``row``'s stated scheduler settings hold a new request back beyond the decode
    step it arrives in [s] (``calc.serve.admission_hold``: the deployment's
    ``admission_hold``, SGLang's receive interval or TensorRT-LLM's batch waiting, which the
    engine wing turns off under attention DP), in the closed loop of n requests a group (the
    n − 1 others decoding, prompts arriving n a cycle of about osl steps); the batch wait's
    threshold at the scripts' max_num_tokens (SCRIPT_MAX_NUM_TOKENS). ``step_s``: the running
    decode step."""
    from calc.serve.admission_hold import busy_share, held_s

    hold = dep.engine_model.admission_hold(dep)
    if hold.batch_wait_iters:
        hold = hold._replace(
            batch_wait_tokens=dep.engine_config.batch_wait_ratio * SCRIPT_MAX_NUM_TOKENS)
    return held_s(hold, step_s, busy_share(n - 1, True), n / max(1, row.osl), row.isl)


def adp_balance_s(row: Row, dep, n: int, step_s: float, cycle_s: float,
                  per_token_s: float) -> float:  # fmt: skip
    """The time TensorRT-LLM's attention-DP balance holds a new request back beyond the decode
    step it arrives in [s] (``calc.serve.admission.adp_balance_rounds_wait_s``), for the runs
    whose scripts set it (ADP_ROWS): n requests a rank on every attention-DP rank are the
    benchmark's clients, each sending BENCH_ROUNDS prompts, their outputs spread over (1 −
    BENCH_RANGE_RATIO) × osl tokens (``per_token_s`` / ``step_s`` iterations a token: fewer
    under MTP), the loop's cycle ``cycle_s``; none while the rank runs no other request (the
    balance lets contexts go when a rank has no generation request). ``step_s``: the running
    decode step."""
    from calc.serve.admission import adp_balance_rounds_wait_s
    from calc.serve.admission_hold import busy_share

    ranks = dep.sharding.dp_attn
    if not row.adp_timeout_iters or ranks <= 1 or step_s <= 0:
        return 0.0
    spread = (1 - BENCH_RANGE_RATIO) * row.osl * per_token_s / step_s
    wait = adp_balance_rounds_wait_s(ranks, row.adp_timeout_iters, row.adp_batching_iters,
                                     step_s, n * ranks, BENCH_ROUNDS, spread,
                                     cycle_s / step_s)  # fmt: skip
    trickle = _trickle_factor(n * ranks, ranks, round(row.osl * per_token_s / step_s),
                              row.adp_timeout_iters, row.adp_batching_iters,
                              adp_prompts_per_iteration(row, dep, n))  # fmt: skip
    return busy_share(n - 1, True) * wait * trickle


def adp_prompts_per_iteration(row: Row, dep, n: int) -> int:
    """The prompts of ``row``'s length one attention-DP rank's scheduler takes in one iteration
    beside its other requests' generation tokens [prompts]: with chunked prefill off (trtllm-serve's
    default) TensorRT-LLM's micro-batch scheduler adds a context only while the iteration's
    tokens, a generation request's 1 + its draft tokens and each prompt whole, stay within
    ``max_num_tokens`` (NVIDIA/TensorRT-LLM ``microBatchScheduler.cpp``; each rank its own
    scheduler), so k prompts and n − k decodes fit where k × P + (n − k)(1 + d) ≤ M
    (``calc.reports.throughput.budget_prompts_per_chunk`` at M − n × d). M: the budget the
    run's script passed (ADP_ROWS), else the release's default. Issue 20, trttrickle round."""
    from calc.reports.throughput import budget_prompts_per_chunk

    budget = row.max_num_tokens or dep.engine_config.max_batched_tokens
    return int(budget_prompts_per_chunk(row.isl, budget - n * row.mtp, n))


@cache
def _trickle_factor(clients: int, ranks: int, osl_iters: int, timeout: int, batching: int,
                    cap: int) -> float:  # fmt: skip
    """How much longer TensorRT-LLM's attention-DP balance holds a prompt when each rank takes at
    most ``cap`` of its held prompts an iteration (``adp_prompts_per_iteration``) than when it
    takes all it holds: the ratio of the two mean waits bench/adp_balance_replay.py replays
    (the engine's rules iteration by iteration, the benchmark's clients and output spread, one
    seed), 1 where a rank never holds more than ``cap`` (n a rank in a closed loop). The
    balance counts the contexts the micro-batch scheduler picked, so the prompts left over at a
    release wait for the next one (every rank with a context again, or the timeout), not the
    next iteration. The round model (``adp_balance_rounds_wait_s``) times the uncapped wait;
    this factor carries the cap (trttrickle round, docs/step-time.md). At least 1: the two
    replays share a seed, so they match until the cap first binds; where it binds rarely (7 a
    rank at the 8,192 floor) their paths part by noise of a few percent either way."""
    if cap >= clients // ranks:
        return 1.0
    replay = _replay_module()
    args = (clients, ranks, osl_iters, timeout, batching, BENCH_ROUNDS, BENCH_RANGE_RATIO)
    free = replay.replay(*args)
    held = replay.replay(*args, cap=cap)
    return max(1.0, statistics.mean(held) / statistics.mean(free)) if sum(free) else 1.0


@cache
def _replay_module():
    """bench/adp_balance_replay.py, loaded beside this script."""
    import importlib.util

    path = ROOT / "bench" / "adp_balance_replay.py"
    spec = importlib.util.spec_from_file_location("adp_balance_replay", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tail_s(dep, efficiency: str, batch: int, prompt: int) -> float:
    """The time a repeated prompt of ``prompt`` tokens adds to the decode step of ``batch``
    sequences it joins [s]: its uncached tokens (``prompt_reuse.cached_tokens``) through the
    token ops (the step at ctx 1 with them, less without) and one read of its cached keys (one
    more decode sequence at ctx ``prompt``, less the step without it)."""
    from calc.deploy.steps import step_of
    from calc.serve.prompt_reuse import cached_tokens

    dpa = dep.sharding.dp_attn
    new = prompt - cached_tokens(prompt, dep.per_gpu.block_size)

    def t(b, ctx):
        return float(step_of(dep, efficiency, batch=b, ctx=ctx).time_s)

    tokens = t(batch + new * dpa, 1) - t(batch, 1)
    keys = t(batch + dpa, prompt) - t(batch, prompt)
    return tokens + keys


def results(which: str = "all", host_of=None, aside: bool = False) -> list[Result]:
    """The predicted rows of ``which`` half ("all", "training", "held-out"): those kvcalc scores,
    or (``aside``) those set aside below their roofline floor (``floor_s``)."""
    out = []
    for r in rows():
        if (which == "training" and not r.training) or (which == "held-out" and r.training):
            continue
        res = predict(r, host_of(r) if host_of else None)
        if res is not None and res.aside == aside:
            out.append(res)
    return out


def _summary(res: list[Result], attr: str) -> tuple[float, float, int]:
    errs = [getattr(r, attr) for r in res]
    if not errs:
        return math.nan, math.nan, 0
    return statistics.median(abs(e) for e in errs), statistics.median(errs), len(errs)


ENGINES = ("vllm", "sglang", "trtllm")


def _tpot_terms(host_step_s: float = 0.0, share: float = 0.0) -> dict:
    """{row id: (engine, predicted TPOT, measured TPOT)} of the training half at a fixed-cost
    share and one per-step host time for every engine (per sequence: none)."""
    import calc.deploy.rates as rates
    from calc.deploy.host_costs import HostCosts

    keep = rates.SERVING_FIXED_SHARE
    rates.SERVING_FIXED_SHARE = share
    _deployment.cache_clear()
    try:
        host = HostCosts(host_step_s, 0.0, 0.0, 0.0, "fit")
        res = results("training", host_of=lambda r: host)
    finally:
        rates.SERVING_FIXED_SHARE = keep
        _deployment.cache_clear()
    return {r.row.id: (r.row.backend, r.tpot_s, r.row.tpot_s) for r in res}


def fit() -> tuple[float, dict]:
    """The fixed-cost share (``calc.deploy.rates.SERVING_FIXED_SHARE``) and each engine's host
    time per step (``Engine.host_steps``), fitted together on the training half's TPOT.

    A row's predicted TPOT is linear in both (every step time is a sum of op times, the fixed
    costs among them, plus the host time, and TPOT a sum of steps): TPOT = a + share × b +
    host × c, with a, b, c from three evaluations. Models with different kernel counts per
    step (8 to 94 layers, dense and MoE) separate the share (∝ kernels) from the host time
    (per step). The pair minimising the summed soft-L1 of log(predicted / measured) (scale
    0.1: a row 10% off counts about as much as its square, one 100% off about linearly) is
    found on a grid: share 0.30-1.00 by 0.005, host 0-3 ms by 5 µs per engine, each engine's
    host minimised over its own rows."""
    import numpy as np

    base, full, hosted = _tpot_terms(), _tpot_terms(share=1.0), _tpot_terms(host_step_s=1e-3)
    ids = [i for i in base if i in full and i in hosted]
    eng = np.array([base[i][0] for i in ids])
    a = np.array([base[i][1] for i in ids])
    b = np.array([full[i][1] for i in ids]) - a
    c = (np.array([hosted[i][1] for i in ids]) - a) / 1e-3
    m = np.array([base[i][2] for i in ids])
    hosts = np.arange(0.0, 3e-3 + 1e-9, 5e-6)
    best = None
    for share in np.arange(0.30, 1.0 + 1e-9, 0.005):
        total, per = 0.0, {}
        for e in ENGINES:
            k = eng == e
            z = np.log((a[k, None] + share * b[k, None] + hosts[None, :] * c[k, None])
                       / m[k, None]) / 0.1  # fmt: skip
            cost = (2 * (np.sqrt(1 + z**2) - 1)).sum(axis=0)
            j = int(np.argmin(cost))
            per[e], total = float(hosts[j]), total + float(cost[j])
        if best is None or total < best[0]:
            best = (total, float(share), per)
    return best[1], best[2]


# The overlapped engine loop's fit (issue 20, bigbatch round): the loop per running sequence
# on an x86 host (``HostCosts.loop_sequence_s``) is found on a grid of LOOP_GRID_S from three
# evaluations of the engine's training rows (``fit_loop``); two loops long enough to bind every
# row (LOOP_PROBES_S) give each row's slope and GPU step
LOOP_GRID_S = tuple(i / 1e6 for i in range(201))  # 0-200 µs by 1 µs
LOOP_PROBES_S = (10e-3, 20e-3)
# the engines whose loop the fit reports: TensorRT-LLM's is measured (calc.deploy.host_costs
# LOOP_SEQUENCE_X86_S), not fitted
LOOP_FITTED = ("vllm", "sglang")


def _loop_tpots(engine: str, loop_s: float) -> dict:
    """{row id: (predicted TPOT, measured TPOT)} of ``engine``'s training rows with its shipped
    host costs and an overlapped loop of ``loop_s`` per sequence on x86 in place of its own."""
    from dataclasses import replace

    from calc.deploy.engines import host_costs

    host = replace(host_costs(engine), loop_sequence_s=loop_s, cpu_factor=1.0)
    out = {}
    for r in rows():
        if r.backend != engine or not r.training:
            continue
        res = predict(r, host)
        if res is not None and not res.aside:
            out[r.id] = (res.tpot_s, r.tpot_s)
    return out


def fit_loop(engine: str) -> float:
    """``engine``'s overlapped loop per running sequence on an x86 host [s]
    (``calc.deploy.host_costs.with_loop``), fitted on its training rows' TPOT with every other
    constant as shipped: the grid value of LOOP_GRID_S minimising the summed soft-L1 of
    log(predicted / measured) (``fit``'s cost).

    A decode step takes max(GPU, loop × the rank's sequences × the host CPU's factor) + the
    serial host time, so a row's TPOT is its TPOT without the loop plus max(0, loop × a − g),
    a and g per row (its sequences and host factor, its GPU step, each over its tokens a step);
    two loops that bind (LOOP_PROBES_S) give a and g, a row that does not bind at the first
    never binds on the grid."""
    import numpy as np

    base = _loop_tpots(engine, 0.0)
    lo, hi = (_loop_tpots(engine, p) for p in LOOP_PROBES_S)
    ids = [i for i in base if i in lo and i in hi]
    t0 = np.array([base[i][0] for i in ids])
    m = np.array([base[i][1] for i in ids])
    d1 = np.array([lo[i][0] for i in ids]) - t0
    slope = (np.array([hi[i][0] for i in ids]) - t0 - d1) / (LOOP_PROBES_S[1] - LOOP_PROBES_S[0])
    g = LOOP_PROBES_S[0] * slope - d1
    grid = np.array(LOOP_GRID_S)
    exposed = np.where(d1[:, None] > 0, np.maximum(0.0, grid[None, :] * slope[:, None]
                                                     - g[:, None]), 0.0)  # fmt: skip
    z = np.log((t0[:, None] + exposed) / m[:, None]) / 0.1
    cost = (2 * (np.sqrt(1 + z**2) - 1)).sum(axis=0)
    return float(grid[int(np.argmin(cost))])


def fit_wave_share() -> dict:
    """WAVE_SHARE per scheduler policy: the median over the training half's rows of that
    policy of (measured TTFT − the prediction with no wave) / ((n − 1) × one prefill), rows
    with n > 1 whose prompts do not repeat into a prefix cache (``hit_share`` 0: a wave of
    cached prompts holds almost no prefill to wait for)."""
    global WAVE_SHARE
    from calc.deploy.steps import step_of

    keep, WAVE_SHARE = WAVE_SHARE, dict.fromkeys(WAVE_SHARE, 0.0)
    shares: dict = {}
    try:
        for r in rows():
            if not r.training or r.concurrency < 2:
                continue
            res = predict(r)
            if res is None or res.aside:
                continue
            dep = _deployment(r)
            n = max(1, min(math.ceil(r.concurrency / dep.sequence_groups),
                           dep.engine_config.max_num_seqs))  # fmt: skip
            one = float(step_of(dep, batch=dep.sharding.dp_attn, prompt=r.isl).time_s)
            if n > 1 and hit_share(r, dep) == 0:
                shares.setdefault(_policy(dep), []).append((r.ttft_s - res.ttft_s)
                                                           / ((n - 1) * one))  # fmt: skip
    finally:
        WAVE_SHARE = keep
    return {k: statistics.median(v) for k, v in shares.items()}


def moe_implied(label: str = "fp4") -> list[tuple]:
    """Issue 20, fp4 MoE round (``--moe-implied``): each TensorRT-LLM MoE row of weight label
    ``label``: (row, tokens at its MoE layer, MoE TP, MoE EP, kvcalc's MoE time per layer,
    the time per layer the measured TPOT leaves it) [s]. The left time is kvcalc's less the
    TPOT error spread over the MoE layers, every other op taken as kvcalc times it: a row
    whose left time is below what any kernel table gives (or below 0) is off by more than
    its MoE kernel. Compare with ``tools/fit_kernels.py --fp4-backend-study``."""
    from calc.deploy.steps import step_of

    out = []
    for res in results():
        row = res.row
        if row.backend != "trtllm" or not row.moe or row.label != label:
            continue
        dep = _deployment(row)
        pool = int(dep.per_gpu.max_sequences_per_gpu(row.isl + row.osl))
        n = max(1, min(math.ceil(row.concurrency / dep.sequence_groups), pool,
                       dep.engine_config.max_num_seqs))  # fmt: skip
        dpa = dep.sharding.dp_attn
        step = step_of(dep, batch=n * dpa, ctx=row.isl + row.osl / 2)
        layers = dep.model.n_moe_layers
        moe = sum(float(o.time_s) for o in step.ops if o.name == "routed_experts") / layers
        left = moe - (res.tpot_s - row.tpot_s) / layers
        moe_tp, moe_ep = (row.tp, 1) if row.ep == 1 else (max(1, row.tp // row.ep), row.ep)
        out.append((row, n * dpa, moe_tp, moe_ep, moe, left))
    return out


HOST_FIT = ROOT / "docs" / "validation" / "host_fit.yaml"


def fit_record() -> dict:
    """What ``--fit --write`` stores in docs/validation/host_fit.yaml: the fit on today's step
    model (``fit`` and ``fit_wave_share``, rounded as the constants are: the share to 0.001, the
    host times to 1 µs, the wave shares to 0.001) beside the constants kvcalc ships and the
    provenance they state (``calc.deploy.host_costs.FIT_SOURCE``): where the two differ, the
    stated provenance must say so (tests/test_host_fit.py)."""
    import calc.deploy.rates as rates
    from calc.deploy.engines import host_costs
    from calc.deploy.host_costs import FIT_SOURCE

    share, hosts = fit()
    waves = fit_wave_share()
    return {
        "fit": {
            "serving_fixed_share": round(share, 3),
            "per_step_ms": {e: round(hosts[e] * 1e3, 3) for e in ENGINES},
            "wave_share": {k: round(waves[k], 3) for k in WAVE_SHARE},
            "loop_sequence_us": {e: round(fit_loop(e) * 1e6, 1) for e in LOOP_FITTED},
        },
        "shipped": {
            "serving_fixed_share": rates.SERVING_FIXED_SHARE,
            "per_step_ms": {e: round(host_costs(e).per_step_s * 1e3, 3) for e in ENGINES},
            "wave_share": dict(WAVE_SHARE),
            "loop_sequence_us": {
                e: round(host_costs(e).loop_sequence_s * 1e6, 1) for e in ENGINES
            },
            "provenance": FIT_SOURCE,
        },
    }


def host_fit_text(record: dict) -> str:
    """The text of docs/validation/host_fit.yaml for ``record`` (``fit_record``)."""
    import yaml

    head = ("# The host-time fit (python bench/validation_serving.py --fit --write) on the "
            "training half of\n# docs/validation/aiconfigurator_silicon_agg.csv, beside the "
            "shipped constants. Generated: do not edit.\n")  # fmt: skip
    return head + yaml.safe_dump(record, sort_keys=False, allow_unicode=True, width=100)


def render() -> str:
    res = results()
    lines = [
        "## Serving runs at a fixed concurrency (aiconfigurator's silicon sample)",
        "",
        "<!-- generated by bench/validation_serving.py -->",
        "",
        f"{len(res)} measured aggregated-serving runs ([silicon_sample.csv]({SOURCE})) of the",
        "models and GPUs kvcalc ships (NVIDIA H100 to GB300; vLLM, SGLang, TensorRT-LLM; dense",
        "and MoE; fp8, fp8-block, NVFP4 and MXFP4 checkpoints; concurrency 1 to 8,192): each",
        "row's TPOT and TTFT predicted from its settings alone (module docstring of",
        "`bench/validation_serving.py`). Error = (predicted − measured) / measured. The",
        "host-cost constants are fitted on the training half (a hash of the row id); the other",
        "half is held out and reported apart.",
        "",
        "| half | rows | TPOT median abs | TPOT signed median | TTFT median abs "
        "| TTFT signed median |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for half in ("training", "held-out"):
        sub = [r for r in res if (r.row.training if half == "training" else not r.row.training)]
        ta, ts, n = _summary(sub, "tpot_error")
        fa, fs, _ = _summary(sub, "ttft_error")
        lines.append(f"| {half} | {n} | {ta:.1%} | **{ts:+.1%}** | {fa:.1%} | {fs:+.1%} |")
    lines += [
        "",
        "By group (all rows): vendor, weight dtype, dense or MoE, engine, regime",
        "(concurrency).",
        "",
        "| group | rows | TPOT median abs | TPOT signed median | TTFT median abs "
        "| TTFT signed median |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    groups: dict[str, list[Result]] = {}
    for r in res:
        row = r.row
        key = (f"{row.vendor} {row.dtype} {'MoE' if row.moe else 'dense'} {row.backend} "
               f"{row.regime}")  # fmt: skip
        groups.setdefault(key, []).append(r)
    for key in sorted(groups):
        sub = groups[key]
        ta, ts, n = _summary(sub, "tpot_error")
        fa, fs, _ = _summary(sub, "ttft_error")
        lines.append(f"| {key} | {n} | {ta:.1%} | **{ts:+.1%}** | {fa:.1%} | {fs:+.1%} |")
    lines += ["", "Every row (predicted / measured, ms):", "",
              "| id | half | TPOT pred | TPOT meas | TPOT error | TTFT pred | TTFT meas "
              "| TTFT error |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in sorted(res, key=lambda r: r.row.id):
        row = r.row
        lines.append(
            f"| {row.id} | {'train' if row.training else 'held'} | {r.tpot_s * 1e3:.2f} | "
            f"{row.tpot_s * 1e3:.2f} | {r.tpot_error:+.1%} | {r.ttft_s * 1e3:.1f} | "
            f"{row.ttft_s * 1e3:.1f} | {r.ttft_error:+.1%} |"
        )
    return "\n".join(lines + _aside_lines()) + "\n"


def _aside_lines() -> list[str]:
    """The rows set aside below their roofline floor (``floor_s``), with the figures."""
    out = ["", "Set aside, not scored: measured TPOT below the roofline floor of the batch the",
           "row's settings give (the HBM bytes of one decode step at the prompt's context over",
           "the GPU's peak bandwidth, `floor_s` in `bench/validation_serving.py`): such a run did",
           "not hold that batch. Little's law (c requests in flight, each living TTFT +",
           "(osl − 1) × TPOT) gives the requests that were decoding, c × (osl − 1) × TPOT /",
           "(TTFT + (osl − 1) × TPOT).", "",
           "| id | c | floor ms | TPOT meas ms | TTFT meas ms | decoding (Little) |",
           "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in sorted(results(aside=True), key=lambda r: r.row.id):
        row = r.row
        life = row.ttft_s + (row.osl - 1) * row.tpot_s
        decoding = row.concurrency * (row.osl - 1) * row.tpot_s / life
        out.append(f"| {row.id} | {row.concurrency} | {r.floor_s * 1e3:.2f} | "
                   f"{row.tpot_s * 1e3:.2f} | {row.ttft_s * 1e3:.1f} | {decoding:.0f} |")
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if sys.argv[1:] == ["--fit", "--write"]:
        HOST_FIT.write_text(host_fit_text(fit_record()))
        print(f"wrote {HOST_FIT}")
    elif sys.argv[1:] == ["--fit"]:
        share, hosts = fit()
        print(f"serving fixed-cost share: {share:.3f}")
        for engine, step in hosts.items():
            print(f"{engine}: per_step_s {step * 1e3:.3f} ms")
        for policy, share in fit_wave_share().items():
            print(f"wave share ({policy}): {share:.3f}")
        for engine in LOOP_FITTED:
            print(f"{engine}: overlapped loop {fit_loop(engine) * 1e6:.1f} µs per sequence (x86)")
    elif sys.argv[1:] == ["--moe-implied"]:
        by: dict = {}
        for row, tokens, mtp, mep, moe, left in moe_implied():
            print(f"{row.id} {row.release} tokens {tokens} moe_tp {mtp} moe_ep {mep}: "
                  f"kvcalc {moe * 1e6:.1f} µs a layer, the TPOT leaves {left * 1e6:.1f} µs")
            by.setdefault(row.release, []).append(left / moe)
        for rel, v in by.items():
            print(f"{rel}: {len(v)} rows, median left / kvcalc {statistics.median(v):.2f}")
    else:
        sys.stdout.write(render())
