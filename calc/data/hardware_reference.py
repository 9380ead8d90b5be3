"""The field reference of a hardware profile YAML [Markdown text], read off the schema
(``calc.data.hardware_schema``): every field of ``HardwareProfile`` and of its parts, its type,
its bounds, whether it is required, and one line of meaning with its unit.

docs/hardware.md keeps its conventions prose by hand; the part between the markers
``<!-- fields -->`` and ``<!-- /fields -->`` is this module's output. Run
``python -m calc.data.hardware_reference`` to rewrite it (``--check``: exit 1 when stale); a
test fails when the page is stale or a schema field has no line in ``FIELD_HELP``.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from pathlib import Path

START, END = "<!-- fields -->", "<!-- /fields -->"
DOC = Path(__file__).resolve().parents[2] / "docs" / "hardware.md"

# One line per field, "Class.field": what it means, its unit in brackets.
FIELD_HELP: dict[str, str] = {
    "HardwareProfile.name": "the name commands take (`--hardware h100`); unique among profiles",
    "HardwareProfile.display_name": "the name tables and charts print",
    "HardwareProfile.vendor": "NVIDIA, AMD, ...",
    "HardwareProfile.source": "the datasheet (URL) the figures are read from",
    "HardwareProfile.memory_bytes": "device memory per GPU as labelled, exact [bytes]",
    "HardwareProfile.memory_label": 'the vendor\'s label, e.g. "80 GB"',
    "HardwareProfile.memory_label_unit": 'what the label\'s "GB" counts: GB (10^9 B) or GiB '
    "(2^30 B); GiB on every shipped part",
    "HardwareProfile.hbm_bandwidth_bytes_per_s": "peak memory bandwidth per GPU [bytes/s, decimal]",
    "HardwareProfile.peak_flops_per_s": "dense tensor-core peak per dtype (fp32, tf32, bf16, "
    "fp16, fp8, int8, fp4, int4) [FLOP/s; OP/s for integers], never the with-sparsity figure",
    "HardwareProfile.peak_note": "which rule turned the datasheet figure into the dense peak",
    "HardwareProfile.interconnect": 'the scale-up link, e.g. "NVLink 4 (900 GB/s bidirectional)"',
    "HardwareProfile.interconnect_bandwidth_bytes_per_s": "scale-up bandwidth per GPU, one "
    "direction [bytes/s]",
    "HardwareProfile.interconnect_latency_s": "one ring step of a collective over the scale-up "
    "link, from the collective library's model [s]",
    "HardwareProfile.prices": "prices of one GPU-hour, at most one per basis, each with its "
    "kind, source and date (below); the first is the reference price commands show without "
    "`--price-basis` (written by tools/profile_prices.py from docs/validation/prices.yaml)",
    "HardwareProfile.provenance": "what each figure that moves a speed or a price is, by the "
    "figure's name (peak_flops_per_s, hbm_bandwidth_bytes_per_s, interconnect, "
    "usable_memory_bytes, scale_out, kernel_overhead_s, efficiency, efficiency.<band>): "
    "required for the figures the profile gives (below)",
    "HardwareProfile.board_power": "the board's rated power with its source (below): the "
    "owned-hardware TCO's and the energy per token's power per GPU unless stated",
    "Price.basis": "what it is a price of: neocloud_on_demand, hyperscaler_on_demand, "
    "marketplace_on_demand, spot, committed (term unstated), committed_1yr, committed_3yr, "
    "owned_tco; a ranking never mixes them",
    "Price.usd_per_gpu_hour": "price of one GPU-hour [USD]",
    "Price.kind": "list (one provider's published price), median (of several lists), estimate "
    "(a TCO model), approximate (marked so, or a range's midpoint), derived (computed from other "
    "figures), placeholder (another part's price); derived and placeholder prices are left out "
    "of a plan unless asked for",
    "Price.source": "who publishes it, for which instance, and where it was read",
    "Price.date": "when the source was read or dated: YYYY, YYYY-MM or YYYY-MM-DD",
    "Price.rule": "how a median, derived or placeholder figure follows",
    "FigureSource.kind": "published (a datasheet, a library's model constants), measured (on "
    "this GPU), fitted (to measurements), derived (by a stated rule), assumed, copied",
    "FigureSource.source": "where it comes from, or the rule",
    "FigureSource.copied_from": "the profile a copied figure is taken from",
    "BoardPower.watts": "the board's rated power: NVIDIA TGP/TDP, AMD TBP [W]",
    "BoardPower.kind": "published or measured",
    "BoardPower.source": "the datasheet or MLPerf system description it is read from",
    "HardwareProfile.efficiency": "achievable fractions of the peaks (below)",
    "HardwareProfile.usable_memory_bytes": "the device total torch reports "
    "(`torch.cuda.mem_get_info()[1]`), which engines budget from; below the label [bytes]",
    "HardwareProfile.usable_memory_source": "where `usable_memory_bytes` comes from, or DERIVED "
    "and how",
    "HardwareProfile.scale_up_domain_gpus": "GPUs that reach each other over the scale-up link: "
    "8 on HGX, 72 on NVL72, 1 for a PCIe card [GPUs]",
    "HardwareProfile.interconnect_source": "where the scale-up bandwidth and latency come from",
    "HardwareProfile.scale_out": "the network between scale-up domains (below)",
    "HardwareProfile.scale_up_multicast": "the scale-up switch reduces and multicasts (NVLS: "
    "NVSwitch gen 3 and later), so an all-reduce moves the ring's bytes once",
    "HardwareProfile.kernel_overhead_s": "fixed cost of one GPU kernel in a serving step "
    "(graph replay, ramp-up, tail), added per kernel [s]; absent: 0",
    "HardwareProfile.kernel_overhead_source": "where `kernel_overhead_s` comes from (fitted, "
    "measured or assumed)",
    "HardwareProfile.host_cpu": "the family of the CPU that runs the serving engine's Python "
    "beside the GPU: `x86` (the default) or `grace` (GB200 / GB300), which scales the engine "
    "loop's overlapped host time (TensorRT-LLM's, 2.75× on Grace)",
    "HardwareProfile.host_cpu_source": "where `host_cpu` comes from (the system's datasheet)",
    "HardwareProfile.gemm_tile_m": "rows of the smallest tensor-core GEMM tile: a GEMM of M rows "
    "computes ceil(M / tile) × tile (Hopper 64) [rows]; absent: no padding",
    "HardwareProfile.gemm_m_curve": "measured small-M GEMM slowdown against the roofline "
    "(`kvcalc measure --save-calibration`), replacing the tile padding (below)",
    "HardwareProfile.notes": "anything else a reader should know",
    "Efficiency.matmul": "large-GEMM FLOP/s as a fraction of the dense peak",
    "Efficiency.memory": "large-copy bytes/s as a fraction of the HBM peak",
    "Efficiency.source": "where the bands come from (measurements, or ASSUMED)",
    "Efficiency.matmul_fp8": "fp8 GEMMs where measured apart from bf16 (of the fp8 peak); "
    "absent: the matmul band",
    "Efficiency.weight_only": "weight-only int8/int4 GEMMs: the fraction of the memory band "
    "their weight streaming reaches, by format family; absent: 1",
    "Efficiency.grouped_gemm": "MoE grouped GEMMs: the fraction of a dense GEMM's rates they "
    "reach; absent: 1",
    "Efficiency.weight_only_source": "where `weight_only` comes from",
    "Efficiency.weight_only_fp4": "weight-only 4-bit float GEMMs (mxfp4, nvfp4 on a GPU without "
    "fp4 units) where stated apart from int4: the fraction of the memory band their weight "
    "streaming reaches, low / expected / high; absent: `weight_only` int4",
    "Efficiency.weight_only_fp4_source": "where `weight_only_fp4` comes from",
    "Efficiency.grouped_gemm_source": "where `grouped_gemm` comes from",
    "Band.low": "the low end of what is achieved [fraction of peak]",
    "Band.expected": "what the predictions use by default [fraction of peak]",
    "Band.high": "the best measured [fraction of peak]",
    "ScaleOut.fabric": 'the network, e.g. "InfiniBand NDR 400 Gb/s, one ConnectX-7 per GPU"',
    "ScaleOut.bandwidth_bytes_per_s": "scale-out bandwidth per GPU, one direction [bytes/s]",
    "ScaleOut.latency_s": "one ring step between nodes [s]",
    "ScaleOut.source": "where the scale-out figures come from",
    "GemmPoint.m": "rows of the GEMM [rows]",
    "GemmPoint.slowdown": "time over the roofline time at the profile's bands (1: on the roofline)",
    "HardwareProfile.kernels": (
        "kernel curves fitted to measured kernel times (tools/fit_kernels.py); where a curve is "
        "given it times its kernels in place of the efficiency bands (below)"
    ),
    "Efficiency.matmul_fp4": (
        "tensor-core fp4 GEMMs (NVFP4, MXFP4) where the GPU runs them natively [fractions of the "
        "fp4 peak]"
    ),
    "Efficiency.provenance": "what the bands are: measured, fitted, derived, assumed or copied",
    "KernelCurves.provenance": "what the curve is: measured, fitted, derived, assumed or copied",
    "KernelCurves.source": (
        "the kernel tables the curves were fitted to (repository, file, version)"
    ),
    "KernelCurves.sms": (
        "streaming multiprocessors (compute units) a GEMM's tiles fill in waves [SMs]"
    ),
    "KernelCurves.script": "the script that fitted the curves",
    "KernelCurves.copied_from": (
        "the profile whose curves these are, where none were measured on this GPU"
    ),
    "KernelCurves.elementwise": (
        "every other kernel: norms, activations, rotary, quantisation (below)"
    ),
    "KernelCurves.gemm": (
        "GEMM curves by tensor-core dtype: bf16, fp8, fp8_block, fp4, int8, int4 (below)"
    ),
    "KernelCurves.decode_attention": "decode attention curves by KV-cache dtype (below)",
    "KernelCurves.prefill_attention": "prefill (context) attention curves (below)",
    "KernelCurves.moe": "fused MoE layer curves by the experts' weight format (below)",
    "KernelCurves.mla_decode_attention": (
        "DeepSeek latent attention (MLA) at decode, absorbed form, by KV-cache dtype (the "
        "decode attention fields below)"
    ),
    "KernelCurves.mla_prefill_attention": (
        "MLA prefill (context) attention curves (the prefill attention fields below)"
    ),
    "KernelCurves.moe_engine": (
        "per engine, fused MoE layer curves fitted to that engine's own kernels alone, by the "
        "experts' weight format; `fp8_cutlass`: vLLM's FlashInfer CUTLASS rows alone, for the "
        "per-tensor fp8 experts it cannot run on trtllm-gen (non-gated); an engine or format "
        "absent: the pooled `moe` curve"
    ),
    "KernelCurves.moe_runner": (
        "per engine and runner (the engine's name for its fused-MoE kernels: SGLang's "
        "`triton`), fused MoE layer curves fitted to that runner's rows alone, by the experts' "
        "weight format; used where the engine wing says the deployment runs that runner"
    ),
    "KernelCurves.allreduce": (
        "all-reduce curves by implementation: nccl or the engines' custom kernels (below)"
    ),
    "KernelCurves.allreduce_engine": (
        "per engine, its own all-reduce kernels fitted to its own measured table alone "
        "(TensorRT-LLM's AUTO one-shot/two-shot kernels), segments by GPU count as `allreduce`; "
        "they time the stage of the engine's declared all-reduce choice its rules name "
        "(calc/deploy/parallel.py ArStage.curve); an engine or a GPU count absent: "
        "`allreduce.custom`"
    ),
    "KernelCurves.gather": (
        "NCCL all-gather and reduce-scatter curves by GPU count: segments of [latency_s, bus "
        "bytes/s], a call taking latency + (n − 1) / n × its buffer / bus bytes/s"
    ),
    "KernelCurves.all_to_all": (
        "per engine, the expert-parallel dispatch and combine by kernel family: DeepEP's normal "
        "(prefill) and low_latency (decode) kernels, TensorRT-LLM's NVLink all-to-all over a "
        "multi-node NVLink domain (mnnvl) (below)"
    ),
    "KernelCurves.gemm_engine": (
        "per engine, its own GEMM curves by dtype where the pooled curve leaves its rows out "
        "(vLLM's block-fp8 linears, timed in CUDA graphs in its 0.12.0 and 0.14.0 tables) or "
        "the engine's own rows are fitted alone (SGLang's, each dtype whose table times the "
        "kernel SGLang runs); absent: the pooled `gemm` curve"
    ),
    "KernelCurves.engine_scale": (
        "per engine, time multipliers of its own attention kernels against the pooled curves, by "
        "curve name (`decode_attention.fp8`) [×]; absent: 1"
    ),
    "KernelCurves.notes": "what the fit found or left out",
    "ElementwiseCurve.fixed_s": (
        "what one kernel costs at no size (launch in a CUDA graph, ramp-up, tail) [s]"
    ),
    "ElementwiseCurve.memory": (
        "fraction of the HBM bandwidth the kernel streams at when memory-bound [fraction]"
    ),
    "ElementwiseCurve.band": (
        "the curve's band: [lower, upper] measured / fitted time ratios at the 25th and 75th "
        "percentile of the kernels it was fitted to (`--efficiency high` / `low` scale its times "
        "by them) [×]"
    ),
    "ElementwiseCurve.provenance": (
        "what the curve is: measured, fitted, derived, assumed or copied"
    ),
    "ElementwiseCurve.source": (
        "the measurements it was fitted to (repository, file, version) or the profile it is "
        "copied from"
    ),
    "GemmCurve.k_half": (
        "the main loop's prologue and epilogue as extra inputs: FLOPs × (1 + k_half / k) [elements]"
    ),
    "GemmCurve.tile_m": "rows of the GEMM's output tile: rows padded to whole tiles [rows]",
    "GemmCurve.tile_n": (
        "columns of the output tile: tiles padded to whole waves of `sms` [columns]"
    ),
    "DecodeAttentionCurve.per_sequence_s": (
        "time per sequence of the batch beyond its bytes and FLOPs [s]"
    ),
    "PrefillAttentionCurve.prompt_half": (
        "prompt length at which attention reaches half its compute fraction (short prompts fill "
        "few query tiles) [tokens]"
    ),
    "MoeCurve.per_route_element_s": (
        "time per routed element (token × top-k × hidden) of the permute and combine [s]"
    ),
    "MoeCurve.per_expert_s": (
        "fixed cost per active local expert (its launch and tile set-up), least squares on "
        "the MoE table, 0 where it does not help [s]"
    ),
    "MoeCurve.routes": (
        "the routes the per-route term counts under expert parallelism: local (this GPU's "
        "experts') or batch (every route of the tokens the GPU holds); absent: local"
    ),
    "MoeCurve.tile_m": (
        "rows of each expert's GEMM tile: each touched expert's rows padded to whole tiles [rows]"
    ),
    "MoeCurve.peak": (
        "the peak `compute` is a fraction of where it is not the format's own (MXFP4 experts with "
        "MXFP8 activations: fp8); absent: the format's"
    ),
    "AllReduceCurve.segments": (
        "per GPU count, segments of [latency_s, bus bytes/s] (nccl-tests' bus bandwidth); the "
        "least time of them is taken"
    ),
    "AllReduceCurve.provenance": "what the curve is: measured, fitted, derived, assumed or copied",
    "AllReduceCurve.source": (
        "the measurements it was fitted to (repository, file, version) or the profile it is "
        "copied from"
    ),
    "AllToAllCurve.dispatch": (
        "[fixed_s, bytes/s]: one dispatch takes fixed_s + the bytes the busiest GPU sends "
        "(tokens × copies × hidden × bytes per element) / bytes/s [s, B/s]"
    ),
    "AllToAllCurve.combine": "[fixed_s, bytes/s] of one combine, as `dispatch` [s, B/s]",
    "AllToAllCurve.band": (
        "the curve's band: [lower, upper] measured / fitted time ratios at the 25th and 75th "
        "percentile of the calls it was fitted to (`--efficiency high` / `low` scale its times "
        "by them) [×]"
    ),
    "AllToAllCurve.error": "the fit's median |error| over the calls it was fitted to [fraction]",
    "AllToAllCurve.provenance": "what the curve is: measured, fitted, derived, assumed or copied",
    "AllToAllCurve.source": "the measurements it was fitted to (repository, file, version)",
}
_CURVE_HELP = {
    "band": (
        "the curve's band: [lower, upper] measured / fitted time ratios at the 25th and 75th "
        "percentile of the kernels it was fitted to (`--efficiency high` / `low` scale its times "
        "by them) [×]"
    ),
    "provenance": "what the curve is: measured, fitted, derived, assumed or copied",
    "source": (
        "the measurements it was fitted to (repository, file, version) or the profile it is "
        "copied from"
    ),
    "error": "the fit's median |error| over the kernels it was fitted to [fraction]",
    "sharpness": (
        "s of soft(a, b) = (a^s + b^s)^(1/s): how sharply the kernel turns from memory- to "
        "compute-bound [×]"
    ),
    "compute": (
        "fraction of the dtype's dense peak the kernel reaches when compute-bound [fraction]"
    ),
    "memory": "fraction of the HBM bandwidth the kernel streams at when memory-bound [fraction]",
    "fixed_s": "what one kernel costs at no size (launch in a CUDA graph, ramp-up, tail) [s]",
}
# a calibration fitted to the user's benchmark runs (kvcalc score --save-calibration)
FIELD_HELP |= {
    "HardwareProfile.step_calibration": (
        "op-class multipliers and host times fitted to benchmark runs (below); set by "
        "`--calibration FILE`, not written in a profile by hand"
    ),
    "StepCalibration.gemm": "multiplier on the time of GEMMs over weights [×]",
    "StepCalibration.attention": "multiplier on the time of attention kernels [×]",
    "StepCalibration.moe": "multiplier on the time of MoE routed-expert kernels [×]",
    "StepCalibration.communication": "multiplier on the time of collectives [×]",
    "StepCalibration.host_step_s": "host time added to every forward pass [s]",
    "StepCalibration.host_per_seq_s": "host time per sequence a forward pass samples [s]",
    "StepCalibration.request_s": (
        "latency of each request outside the engine's loop, between the client's send and the "
        "engine [s]"
    ),
    "StepCalibration.source": "the calibration file it came from",
    "StepCalibration.band": (
        "the fit's residual band per figure (ttft, tpot, output_tokens_per_s), read from the "
        "calibration file's `fit.band`: the band a calibrated row carries in `plan` and `latency`"
    ),
    "ResidualBand.low": "low end of the signed error predicted / measured − 1 [fraction]",
    "ResidualBand.high": "high end of the signed error predicted / measured − 1 [fraction]",
    "ResidualBand.runs": "benchmark runs the calibration was fitted on",
    "ResidualBand.rule": "how the band was set from the fit's residuals (the one-run widening)",
}
# the fields every fitted kernel curve has, one meaning each
FIELD_HELP |= {
    f"{curve}.{name}": text
    for curve in ("GemmCurve", "DecodeAttentionCurve", "PrefillAttentionCurve", "MoeCurve")
    for name, text in _CURVE_HELP.items()
}


def _schemas() -> list[type]:
    """HardwareProfile and every schema class inside it, in first-use order."""
    from calc.data.hardware_schema import HardwareProfile
    from calc.output.schema_tree import nested_classes

    def inner(cls: type) -> list[type]:  # the dataclasses its fields' annotations name
        hints = typing.get_type_hints(cls, include_extras=True).values()
        return [t for hint in hints for t in _leaves(hint) if dataclasses.is_dataclass(t)]

    return nested_classes(HardwareProfile, inner)


def _leaves(hint) -> list:
    """Every type inside ``hint`` (unions, lists, dicts, Annotated unwrapped)."""
    if typing.get_origin(hint) is typing.Annotated:
        return _leaves(typing.get_args(hint)[0])
    args = typing.get_args(hint)
    if not args or typing.get_origin(hint) is typing.Literal:
        return [hint]
    return [leaf for a in args for leaf in _leaves(a)]


def _optional(hint) -> bool:
    return type(None) in typing.get_args(hint) or hint is type(None)


def _bounds(hint) -> list[str]:
    """'> 0', '≤ 1', ... of the Bounds in ``hint`` (any level)."""
    from calc.data.schema_base import Bounds

    marks = {"gt": "> {}", "ge": "≥ {}", "le": "≤ {}", "min_length": "at least {} characters",
             "max_length": "at most {} characters", "pattern": "matches `{}`"}  # fmt: skip
    out: list[str] = []
    if typing.get_origin(hint) is typing.Annotated:
        base, *meta = typing.get_args(hint)
        for m in meta:
            if isinstance(m, Bounds):
                for k, v in m.constraints.items():
                    if k == "min_length" and v == 1:
                        out.append("not empty")
                    else:
                        out.append(marks[k].format(_number(v)))
        return out + _bounds(base)
    for a in typing.get_args(hint):
        if typing.get_origin(hint) is not typing.Literal:
            out += _bounds(a)
    return out


def _number(v) -> str:
    """A bound as people write it: 1,024, 0.5, 1e15."""
    if isinstance(v, float) and v >= 1e6:
        return f"{v:.0e}".replace("e+", "e")
    return f"{v:,}" if isinstance(v, int) else f"{v:g}" if isinstance(v, float) else str(v)


def _type_name(hint) -> str:
    """The YAML shape of ``hint``: number, integer, text, one of ..., a list/map of ..."""
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _type_name(typing.get_args(hint)[0])
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{v}`" for v in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(hint) if a is not type(None)]
        return " or ".join(_type_name(a) for a in parts)
    if origin is list:
        return f"list of {_type_name(typing.get_args(hint)[0])}"
    if origin is dict:
        key, value = typing.get_args(hint)
        return f"map {_type_name(key)} → {_type_name(value)}"
    if dataclasses.is_dataclass(hint):
        return f"`{hint.__name__}`"
    return {float: "number", int: "integer", str: "text", bool: "true/false"}.get(
        hint, getattr(hint, "__name__", str(hint))
    )


def missing_help() -> list[str]:
    """Schema fields without a line in ``FIELD_HELP`` (a new field needs one)."""
    return [
        f"{cls.__name__}.{f.name}"
        for cls in _schemas()
        for f in dataclasses.fields(cls)
        if f"{cls.__name__}.{f.name}" not in FIELD_HELP
    ]


def fields_markdown() -> str:
    """The generated part of docs/hardware.md: one table per schema class."""
    lines = [
        "## Fields",
        "",
        "Generated from `calc/data/hardware_schema.py` by `python -m calc.data.hardware_reference`"
        " (a test keeps it current). Unknown keys, NaN and values outside the bounds are refused "
        "with one line naming the file and the field.",
    ]
    for cls in _schemas():
        hints = typing.get_type_hints(cls, include_extras=True)
        lines += ["", f"### `{cls.__name__}`", ""]
        doc = " ".join((cls.__doc__ or "").split())
        if doc:
            lines += [doc, ""]
        lines += ["| field | type | bounds | required | meaning |", "|---|---|---|---|---|"]
        for f in dataclasses.fields(cls):
            hint = hints[f.name]
            needed = "no" if _optional(hint) or f.default is not dataclasses.MISSING else "yes"
            bounds = ", ".join(dict.fromkeys(_bounds(hint))) or "—"
            meaning = FIELD_HELP.get(f"{cls.__name__}.{f.name}", "")
            cells = [f"`{f.name}`", _type_name(hint), bounds, needed, meaning]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def render(page: str) -> str:
    """``page`` with the part between the markers replaced by ``fields_markdown()``."""
    head, sep, rest = page.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{DOC}: the markers {START} and {END} are missing")
    return f"{head}{START}\n{fields_markdown()}{END}{tail}"


def main(argv: list[str]) -> int:
    page = DOC.read_text()
    new = render(page)
    if "--check" in argv:
        if new != page:
            print(f"{DOC} is stale: run python -m calc.data.hardware_reference", file=sys.stderr)
            return 1
        return 0
    if new != page:
        DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
