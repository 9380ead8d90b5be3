"""The held-out section of docs/validation.md (written by bench/validation_doc.py): kvcalc's
steady-state throughput against the rows of TensorRT-LLM v1.0's throughput table that are NOT in
the training set (other GPUs, sizes, TP degrees and FP4), with every row's signed error.

Run: python bench/validation_heldout.py   (prints the section)

Nothing is fitted to these rows. They were looked at once, after the step-time model was
fitted to the training rows; two corrections followed, each from its own source and not tuned
to these rows (NVLS all-reduce moves the ring's bytes, nccl-tests' bus bandwidth; fp4/int8
tensor-core GEMMs take the measured low-precision band). The rows are kept here as what they
are: the model's error on data it was not fitted to.

Each prediction uses only what the table states (model, GPU, TP, the ModelOpt checkpoint:
per-tensor fp8 or nvfp4 weights, fp8 KV cache) and TensorRT-LLM 1.0's defaults, exactly as the
training rows (``validation_throughput.predict``).
"""

from __future__ import annotations

import statistics
import sys

from validation_throughput import SOURCE, Row, bench_settings, predict

# (input, output) → published total output tokens/s; the table's columns
LENGTHS = (
    (128, 128), (128, 2048), (128, 4096), (500, 2000), (1000, 1000), (1000, 2000),
    (2048, 128), (2048, 2048), (5000, 500), (20000, 2000),
)  # fmt: skip
# kvcalc model, hardware, tp, weight format, published figures in LENGTHS order (None: no entry);
# the MoE and pipeline columns below them (MOE_COLUMNS: also pp and ep)
COLUMNS = (
    ("llama3.1-8b", "h200", 1, "fp8-tensor",
     (27911, 26221, 18027, 20770, 17744, 16828, 3538, 12194, 3902, 1804)),
    ("llama3.1-8b", "h100", 1, "fp8-tensor",  # the training rows (128/128, 1000/1000, …) left out
     (None, 22714, 14325, 17660, None, 13899, None, 9305, 3459, None)),
    ("llama3.3-70b", "h100", 2, "fp8-tensor",
     (6378, 6651, 4199, 5222, 4205, 4146, 762, 3082, 898, 437)),
    ("llama3.3-70b", "h200", 1, "fp8-tensor",
     (3803, 4336, 2872, 3666, 2909, 2994, 442, 2003, 566, 283)),
    ("llama3.3-70b", "b200", 1, "nvfp4",
     (11147, 9922, 6831, 7762, 7007, 6271, 1339, 4783, 1459, 665)),
    ("llama3.1-405b", "h100", 8, "fp8-tensor",
     (3627, 4340, 3116, 3994, 2919, 2895, 453, 2296, 610, 345)),
    ("llama3.1-405b", "h200", 8, "fp8-tensor",
     (3814, 5348, 4741, 4724, 3330, 3722, 456, 2948, 650, 505)),
)  # fmt: skip


# The same table's other columns (added for issue 20: MoE, GB200, RTX PRO 6000 with pipeline
# parallelism): (model, hardware, tp, pp, ep, format, figures in LENGTHS order). MoE columns ran
# with --ep = the GPUs and enable_attention_dp (the table's llm_options for MoE models): kvcalc's
# tp 1 × ep N (attention data parallel over the N GPUs).
MOE_COLUMNS = (
    ("llama4-scout", "b200", 1, 1, 1, "nvfp4",
     (25342, 14699, 8932, 11977, 10591, 9356, 3137, 7152, 2937, 1644)),
    ("llama4-scout", "gb200", 1, 1, 1, "nvfp4",
     (19954, 15238, 9556, 11795, 7738, 8581, 3295, 7464, 3107, 1767)),
    ("llama4-scout", "h200", 1, 1, 4, "fp8-tensor",
     (30354, 34316, 21332, 24630, 21636, 18499, 3699, 14949, 4605, 2105)),
    ("llama4-scout", "h100", 1, 1, 4, "fp8-tensor",
     (None, 15130, 8603, 12399, 12129, 9838, 3253, 7972, 3342, None)),
    ("llama3.3-70b", "gb200", 1, 1, 1, "nvfp4",
     (12189, 11309, 7849, 9028, 7326, 6513, 1450, 5646, 1602, 755)),
    ("llama3.3-70b", "rtx-pro-6000", 1, 1, 1, "nvfp4",
     (3264, 2422, 1349, 1856, 1787, 1594, 393, 1074, 401, 142)),
    ("llama3.3-70b", "rtx-pro-6000", 1, 2, 1, "nvfp4",
     (6172, 4993, 2893, 4114, 3707, 2993, 813, 2336, 812, 319)),
    ("qwen3-235b-a22b", "b200", 1, 1, 8, "nvfp4",
     (63362, 66057, 39496, 57117, 42391, 34105, 7329, 26854, 8190, 4453)),
    ("qwen3-235b-a22b", "h200", 1, 1, 8, "fp8-tensor",
     (30429, 42821, 26852, 28026, 23789, 22061, 3331, 16672, 3623, 1876)),
    ("qwen3-235b-a22b", "h100", 1, 1, 8, "fp8-tensor",
     (None, 19658, 12447, 18351, 14898, 15136, None, 9924, 3225, None)),
    ("qwen3-30b-a3b", "b200", 1, 1, 1, "nvfp4",
     (39827, 37844, 24953, 27817, 25828, 22051, 6251, 17554, 6142, 2944)),
    ("qwen3-30b-a3b", "gb200", 1, 1, 1, "nvfp4",
     (24107, 31311, 26337, 20604, 17481, 17177, 6595, 14719, 5908, 3203)),
    ("llama4-maverick", "b200", 1, 1, 8, "nvfp4",
     (124323, 112676, 68170, None, 79617, 63766, 18088, 52195, None, 12678)),
    ("llama4-maverick", "h200", 1, 1, 8, "fp8-tensor",
     (63994, 40572, 24616, 37835, 31782, 34734, 7307, 20957, 8456, 4106)),
    ("llama3.1-405b", "b200", 4, 1, 1, "nvfp4",
     (6281, 8020, 6345, 6244, 5209, 4933, 749, 4212, 1048, 672)),
    ("llama3.1-405b", "gb200", 4, 1, 1, "nvfp4",
     (6740, 8151, 6608, 6540, 5389, 5135, 797, 4407, 1112, 739)),
)  # fmt: skip


def rows() -> list[Row]:
    out = []
    for model, hw, tp, fmt, figures in COLUMNS:
        for (p, g), pub in zip(LENGTHS, figures, strict=True):
            if pub is not None:
                out.append(Row(f"{model} {hw} TP{tp} {fmt} {p}/{g}", model, hw, tp, fmt, "fp8",
                               p, g, pub))  # fmt: skip
    for model, hw, tp, pp, ep, fmt, figures in MOE_COLUMNS:
        par = f"TP{tp}" + (f" PP{pp}" if pp > 1 else "") + (f" EP{ep}" if ep > 1 else "")
        for (p, g), pub in zip(LENGTHS, figures, strict=True):
            if pub is not None:
                out.append(Row(f"{model} {hw} {par} {fmt} {p}/{g}", model, hw, tp, fmt, "fp8",
                               p, g, pub, pp=pp, ep=ep))  # fmt: skip
    return out


def gap_split(results) -> dict[str, tuple[int, float, float, float, float] | None]:
    """Per group of ``results`` (the row id less its lengths): where the gap to the page sits.

    kvcalc's time per output token of a row is its prefill part P = share / predicted and its
    decode part D = (1 - share) / predicted [s per token]; the page's is 1 / published. The two
    factors (p, d) that scale P and D to the page best, least squares on the relative error
    over the group's rows, sum of (published x (p P + d D) - 1)^2, are a diagnostic: fitted to
    nothing the model uses. Writing r = published / predicted and s the prefill share, a row
    is x = r s, z = r (1 - s), and the normal equations give
    p = (Sz2 Sx - Sxz Sz) / det, d = (Sx2 Sz - Sxz Sx) / det, det = Sx2 Sz2 - Sxz^2.
    Returns (rows, least share, largest share, p, d), or None where the group's shares do not
    separate the two parts (every row the same share)."""
    groups: dict[str, list] = {}
    for r in results:
        groups.setdefault(r.row.id.rsplit(" ", 1)[0], []).append(r)
    out: dict[str, tuple[int, float, float, float, float] | None] = {}
    for name, rs in groups.items():
        xs = [r.row.published_output_tokens_per_s / r.predicted * r.prefill_share for r in rs]
        zs = [r.row.published_output_tokens_per_s / r.predicted * (1 - r.prefill_share)
              for r in rs]  # fmt: skip
        sx2 = sum(x * x for x in xs)
        sz2 = sum(z * z for z in zs)
        sxz = sum(x * z for x, z in zip(xs, zs, strict=True))
        det = sx2 * sz2 - sxz * sxz
        if det <= 1e-9 * sx2 * sz2:
            out[name] = None
            continue
        p = (sz2 * sum(xs) - sxz * sum(zs)) / det
        d = (sx2 * sum(zs) - sxz * sum(xs)) / det
        shares = [r.prefill_share for r in rs]
        out[name] = (len(rs), min(shares), max(shares), p, d)
    return out


def render() -> str:
    res = [predict(r) for r in rows()]
    ran = [predict(r, bench=True) for r in rows()]  # at trtllm-bench's own settings
    lines = [
        "## Held out: the rest of TensorRT-LLM's throughput table",
        "",
        "<!-- generated by bench/validation_heldout.py -->",
        "",
        "The same prediction as the training rows above (steady state, prefill charged,",
        "TensorRT-LLM 1.0's defaults, the ModelOpt checkpoint's formats) for the rows of",
        f"[perf-overview.md]({SOURCE}) that the fit did not see: other GPUs, sizes, TP",
        "degrees and FP4. Nothing is fitted to them; they show where the model is still off.",
        "",
        "The last columns are the same prediction at the max_batch_size and max_num_tokens",
        "trtllm-bench gives each run when neither is stated (its heuristic from the",
        "checkpoint's size, the GPUs' memory and the lengths, chunked prefill off:",
        "`bench_settings` in bench/validation_throughput.py).",
        "",
        "| group | rows | signed median | median abs | min | max "
        "| trtllm-bench settings: signed median | median abs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    groups: dict[str, list[tuple[float, float]]] = {}
    for r, b in zip(res, ran, strict=True):
        groups.setdefault(r.row.id.rsplit(" ", 1)[0], []).append((r.error, b.error))
    for name, pairs in groups.items():
        errs = [e for e, _ in pairs]
        bench = [e for _, e in pairs]
        lines.append(
            f"| {name} | {len(errs)} | **{statistics.median(errs):+.1%}** | "
            f"{statistics.median(abs(e) for e in errs):.1%} | {min(errs):+.1%} | "
            f"{max(errs):+.1%} | {statistics.median(bench):+.1%} | "
            f"{statistics.median(abs(e) for e in bench):.1%} |"
        )
    errors = [r.error for r in res]
    bench = [b.error for b in ran]
    lines += [
        "",
        f"All {len(res)} rows: signed median **{statistics.median(errors):+.1%}**, median "
        f"|error| {statistics.median(abs(e) for e in errors):.1%} (at trtllm-bench's settings: "
        f"signed {statistics.median(bench):+.1%}, median |error| "
        f"{statistics.median(abs(e) for e in bench):.1%}).",
        "",
        "Where each group's gap sits: the factors by which kvcalc's prefill time and decode time",
        "per output token would have to be scaled for the group's rows to match the page (least",
        "squares over the group's rows, whose prefill shares differ; `gap_split`, a diagnostic",
        "fitted to nothing the model uses; 1.00 / 1.00 is a group kvcalc times right).",
        "",
        "| group | rows | prefill share of the cycle | prefill x | decode x |",
        "|---|---:|---|---:|---:|",
    ]
    for name, split in gap_split(res).items():
        if split is None:
            lines.append(f"| {name} | | one share | | |")
            continue
        n, lo, hi, p, d = split
        lines.append(f"| {name} | {n} | {lo:.0%} to {hi:.0%} | {p:.2f} | {d:.2f} |")
    lines += [
        "",
        "| record | concurrency | dominant term | predicted tokens/s | published tokens/s "
        "| signed error | trtllm-bench settings (batch / tokens) | concurrency | signed error |",
        "|---|---:|---|---:|---:|---:|---|---:|---:|",
    ]
    for r, b in zip(res, ran, strict=True):
        batch, tokens = bench_settings(r.row)
        lines.append(
            f"| {r.row.id} | {r.concurrency:,} | {r.dominant} | {r.predicted:,.0f} | "
            f"{r.row.published_output_tokens_per_s:,.0f} | **{r.error:+.1%}** | "
            f"{batch:,} / {tokens:,} | {b.concurrency:,} | {b.error:+.1%} |"
        )
    lines += [
        "",
        "Since issue 20 the GPUs with kernel curves (H100, H200, B200, GB200, RTX PRO 6000) time",
        "these rows by them: NVFP4 GEMMs at their own measured rate with the activation",
        "quantisation, wave quantisation of narrow per-GPU GEMMs over the SMs, the fused MoE",
        "layer as measured. The MoE and pipeline-parallel columns (the rows with EP or PP, and",
        "Qwen3-30B-A3B) were added to this held-out set with issue 20 and were never fitted to.",
        "Since its third round the EP columns' traffic is what TensorRT-LLM runs on an HGX board",
        "under attention data parallel: an all-gather of the quantised activations and a",
        "reduce-scatter of the outputs per MoE layer, timed by NCCL's measured segments (before:",
        "a DeepEP-style exchange at the link's face value). It is 4-16 ms of a 35-90 ms decode",
        "step; what keeps these rows 30-65% fast is not the communication.",
        "",
        "Since its fourth round each attention-DP rank is its own engine under load: its own",
        "KV pool (the MoE workspace of the profiling pass sized for the tokens gathered from",
        "every rank, NCCL's reserve as on any multi-GPU deployment) and its own prefill",
        "budget (TensorRT-LLM schedules max_num_tokens per rank; before, a replica of 8 ranks",
        "prefilled one rank's budget per step, which made the 5000/500 and 20000/2000 EP rows",
        "35-67% slow). With both, every EP row is fast, prefill-bound or decode-bound alike, by",
        "about as much as the MoE rows without EP or DP (Qwen3-30B-A3B and Scout on one",
        "B200/GB200): the common term is the MoE models' step itself, not the concurrency,",
        "the pool or the traffic of expert parallelism. trtllm-bench's own settings (last",
        "columns) move the EP rows by a few points only. (The page's MoE options file nests",
        "enable_attention_dp under cuda_graph_config, which TensorRT-LLM's CudaGraphConfig, a",
        "StrictBaseModel forbidding unknown fields, would reject: the runs are taken to have",
        "set it at the top level, attention data parallel as modelled.)",
        "",
        "Since its fifth round the fused-MoE curves are fitted to TensorRT-LLM's default",
        "CUTLASS kernels only, not its min-latency NVFP4 kernels (run only with",
        "enable_min_latency, Llama 4, off by default), which had made the B200/GB200 NVFP4",
        "MoE layer fast: Scout on one B200 +28.4% to +12.0% signed median, Qwen3-30B-A3B",
        "+48.7% to +43.9%, Maverick EP8 +52.6% to +43.2%. docs/step-time.md compares the",
        "Qwen3-30B-A3B row op by op with the measured tables: attention as measured, the",
        "MoE layer 25-30% fast at its shape, about 13 ms of a 47 ms step in no kernel.",
        "Its sixth round found no step of these rows beyond the captured CUDA graphs (the",
        "page captures up to 8,192 sequences, padded; kvcalc's largest per-rank decode batch",
        "is 4,096): unchanged. Its leads: padding to the next captured size, and TensorRT-LLM",
        "launching eagerly every step that holds a prompt (docs/step-time.md).",
        "",
        "Since its seventh round each decode-only step replays the page's padded CUDA graph",
        "(its llm_options.yml: enable_padding, batch_sizes 1 ... 8,192; TensorRT-LLM's",
        "cuda_graph_runner.py pads with dummy generation requests up to the next captured",
        "size, not beyond max_batch_size, each attention-DP rank to the largest rank's",
        "batch first): the GEMMs, MoE layer and collectives at the padded batch, attention",
        "at the real one; the (n / k) / (gen - 1) share of decode steps that hold a prefill",
        "chunk runs unpadded; sizes beyond min(max_batch_size, max_num_tokens) give way to",
        "that bound (model_engine.py _filter_cuda_graph_batch_sizes). All rows +16.5% ->",
        "+10.8% signed, 17.6% -> 13.9% median |error| (at trtllm-bench's settings +11.9% ->",
        "+10.1%, 13.7% -> 10.6%); every MoE group still 10-74% fast. Eager steps holding",
        "a prompt cost nothing here: their kernels' launch is at most 30% of their GPU time,",
        "and the overlap scheduler launches a step while the previous one runs",
        "(docs/step-time.md).",
        "",
        "Since its eighth round a step's running decodes count against max_num_tokens before",
        "the prompts, as TensorRT-LLM's microBatchScheduler.cpp charges them: k = floor((M -",
        "n) / (P - 1)) prompts a step, at most M - P + 1 sequences where P <= M. All rows at",
        "the page's defaults unchanged (+10.8% signed, 13.9% median |error|); at trtllm-bench's",
        "settings +10.1% -> +9.4%, 10.6% -> 10.2%. The MoE table was checked to hold every",
        "kernel of the engine's MoE layer but its router GEMM, charged apart: nothing added.",
        "",
        "Since its twelfth round the rows are timed as the page's release, TensorRT-LLM 1.0",
        "(`PAGE_RELEASE`), and that release's fused MoE takes 1.19x the 1.3.0rc20 tables the",
        "MoE curves are fitted to: the median over 12 GPU-format pairs of the same collector's",
        "1.0.0rc3 / 1.0.0rc6 tables (aiconfigurator 0.7.0 wheel) over its 1.3.0rc20 ones, same",
        "shapes (tools/moe_release_ratio.py). Dense rows unchanged; every MoE group 5-14",
        "points less fast; all rows +10.8% -> +9.4% signed, 13.9% -> 11.2% median |error| (at",
        "trtllm-bench's settings +9.4% -> +8.3%, 10.2% -> 9.7%). The MoE groups stay 18-63%",
        "fast but Scout on one B200: docs/step-time.md (round 12) sets one decode step op by op",
        "beside aiconfigurator's own per-op estimate, which is as fast on three of four rows.",
        "",
        "Since its fourteenth round the EP columns' all-gather moves what TensorRT-LLM's CUTLASS",
        "MoE gathers (fused_moe_cutlass.py forward_chunk): the page's per-tensor fp8 quantised",
        "first at 1 B an element with no per-token scale (before: 1 + 4/128), NVFP4 with its",
        "scales, and beside each token its top-k expert ids and weights (8 B a route). Every EP",
        "group moves 0.1-0.2 points; all rows unchanged (+8.7% signed, 10.7% median |error|).",
        "The fp8 EP rows stay 38-42% fast: TensorRT-LLM does gather them quantised, as kvcalc",
        "had it (docs/step-time.md, round 14).",
        "",
        "Its sixteenth round checked the MoE rows at their large batches and changed nothing:",
        "at each decode-bound row's token count (512-16,384 tokens a MoE layer) the fused-MoE",
        "curve is -7% to +7% of the measured 1.3 tables on the fp8 EP groups (-12% to -21% on",
        "Maverick B200 and Qwen3-30B-A3B NVFP4), and beyond the tables (prefill steps, up to",
        "65,536 tokens) it continues their last segment; the 1.0 / 1.3 ratio at those counts is",
        "1.15-1.21 (1.19 applied). The busiest rank's load at 2.5x the mean instead of 1.18x",
        "would bring Qwen3-235B H200 to +6.5% but leave three top-1 Llama 4 groups at +23-30%",
        "and slow the silicon sample's EP records further; the page's routing on random-token",
        "prompts is measured nowhere (tools/moe_large_batch.py, tools/moe_aic_release.py;",
        "docs/step-time.md, round 16).",
        "",
        "Its nineteenth round checked the page's nested enable_attention_dp against TensorRT-LLM's",
        "source and kept attention data parallel: trtllm-bench hands the file's",
        "cuda_graph_config on whole, and CudaGraphConfig forbade unknown fields from before 1.0",
        "(the plain BaseModel that would have dropped the key is in the July 2025 revision read,",
        "which predates the file's own enable_padding), so the file as printed cannot have run",
        "under 1.0; a later revision of the page prints the key at the top level and labels",
        "these layouts DEP.",
        "Read as attention tensor parallel (tp N, ep N) the EP rows would go from +37.6% to",
        "-13.8% signed, split from -36% (NVFP4 EP8) to +49% (Scout H100); not adopted",
        "(tools/moe_attention_dp_reading.py; docs/step-time.md, round 19).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(render())
