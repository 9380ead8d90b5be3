"""Strict schema of a hardware profile YAML (bytes, bytes/s, FLOP/s, USD per GPU-hour).

Plain frozen dataclasses (see calc.data.schema_base): pydantic validates a user's file against
them strictly; a shipped profile is built directly and checked against that by the tests.
"""

from typing import Annotated, Literal

from calc.data.schema_base import Bounds, Schema, schema

PeakDtype = Literal["fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4", "int4"]

Fraction = Annotated[float, Bounds(gt=0, le=1)]
Text = Annotated[str, Bounds(min_length=1)]
# What a figure is (issue 22): measured (a source), fitted (to what, by which script), derived
# (by which rule), assumed, or copied (from which profile)
Provenance = Literal["measured", "fitted", "derived", "assumed", "copied"]


@schema
class Band(Schema):
    """An achievable fraction of a peak: low, expected, high (each in (0, 1])."""

    low: Fraction
    expected: Fraction
    high: Fraction

    def __post_init__(self) -> None:
        if not self.low <= self.expected <= self.high:
            raise ValueError("need low <= expected <= high")


@schema
class Efficiency(Schema):
    """Achievable fractions of peak, with where they were measured."""

    matmul: Band  # achieved / peak dense tensor FLOP/s on large GEMMs
    memory: Band  # achieved / peak HBM bandwidth on large copies
    source: Text
    # fp8 GEMMs where measured apart from bf16 (of the fp8 peak); None: the matmul band
    matmul_fp8: Band | None = None
    # weight-only quantised GEMMs (int8, int4 dequantised to bf16 inside the kernel): the
    # fraction of the memory band their weight streaming reaches, by format family
    # ("int8", "int4"); None or a missing key: 1 (the memory band itself)
    weight_only: dict[Literal["int8", "int4"], Fraction] | None = None
    # MoE routed experts' grouped GEMMs: the fraction of a dense GEMM's rates (both the matmul
    # and the memory band) they reach; None: 1
    grouped_gemm: Fraction | None = None
    weight_only_source: Text | None = None
    grouped_gemm_source: Text | None = None
    # fp4 GEMMs where measured (or bounded) apart from fp8, of the fp4 peak; None: matmul_fp8
    matmul_fp4: Band | None = None
    # weight-only 4-bit float experts and GEMMs (mxfp4, nvfp4 upcast to bf16 inside the kernel
    # on a GPU without fp4 units) where their figure is stated apart from int4's: the fraction
    # of the memory band their weight streaming reaches, one per efficiency; None: int4's
    weight_only_fp4: Band | None = None
    weight_only_fp4_source: Text | None = None
    # what the bands are (issue 22): measured, fitted, derived, assumed or copied; their
    # ``source`` says from what
    provenance: Provenance | None = None


Seconds = Annotated[float, Bounds(ge=0, le=1e-2)]
Sharpness = Annotated[float, Bounds(ge=1, le=64)]
Reach = Annotated[float, Bounds(gt=0, le=3)]  # a fitted fraction or time ratio (may pass 1)


@schema
class _Curve(Schema):
    """Fields every kernel curve has: its band (measured / fitted time at the 25th and 75th
    percentiles of the kernels it was fitted to: ``low`` efficiency scales its times by the
    upper, ``high`` by the lower), what it is and where it comes from."""

    band: list[float]
    provenance: Provenance
    source: Text

    def __post_init__(self) -> None:
        band = self.band
        if len(band) != 2 or not 0 < band[0] <= 1 <= band[1]:
            raise ValueError("band must be [lower, upper] time ratios with lower <= 1 <= upper")


@schema
class _RooflineCurve(_Curve):
    """Fields of a curve between the memory and the compute roof: the fraction of each it
    reaches, a fixed cost [s], how sharply it turns from one to the other and the fit's
    median |error|."""

    compute: Reach
    memory: Reach
    fixed_s: Seconds
    sharpness: Sharpness
    error: Annotated[float, Bounds(ge=0, le=10)] | None = None


@schema
class GemmCurve(_RooflineCurve):
    """A GEMM's time (``calc.formulas.kernel_curves.gemm_time_s``) for one tensor-core dtype."""

    k_half: Annotated[float, Bounds(ge=0, le=1e5)]
    tile_m: Annotated[int, Bounds(gt=0, le=1024)]
    tile_n: Annotated[int, Bounds(gt=0, le=1024)]


@schema
class DecodeAttentionCurve(_RooflineCurve):
    """Decode attention (``decode_attention_time_s``) for one KV-cache dtype."""

    per_sequence_s: Seconds


@schema
class PrefillAttentionCurve(_RooflineCurve):
    """Prefill attention (``prefill_attention_time_s``)."""

    prompt_half: Annotated[float, Bounds(ge=0, le=1e7)]


@schema
class MoeCurve(_RooflineCurve):
    """A fused MoE layer (``moe_time_s``) for one expert weight format."""

    per_route_element_s: Annotated[float, Bounds(ge=0, le=1e-6)]
    tile_m: Annotated[int, Bounds(gt=0, le=1024)]
    # a fixed cost per active local expert [s] (each touched expert's launch and tile set-up:
    # TensorRT-LLM's CUTLASS MoE 0.1-0.5 µs, vLLM/SGLang ~0), least squares, 0-10 µs
    per_expert_s: Annotated[float, Bounds(ge=0, le=1e-5)] = 0.0
    # the peak ``compute`` is a fraction of where it is not the format's own (MXFP4 experts
    # with MXFP8 activations: fp8); None: the format's (calc.deploy.rates.MOE_PEAK)
    peak: Literal["bf16", "fp8", "fp4"] | None = None
    # the routes the per-route term counts under expert parallelism: "local", this GPU's own
    # experts' routes; "batch", every route of the tokens the GPU holds (the moefit round: the
    # top-k sort and the combine run over all of them, the other GPUs' masked)
    routes: Literal["local", "batch"] = "local"


@schema
class ElementwiseCurve(_Curve):
    """Every other kernel (norms, activations, rotary, quantisation): a fixed cost [s] and the
    fraction of the HBM bandwidth it streams at."""

    fixed_s: Seconds
    memory: Reach


@schema
class AllReduceCurve(Schema):
    """All-reduce time by GPU count: segments of [latency_s, bus_bytes_per_s], the least time of
    them taken (``allreduce_segment_time_s``)."""

    segments: dict[int, list[list[float]]]
    provenance: Provenance
    source: Text

    def __post_init__(self) -> None:
        for n, segs in self.segments.items():
            if n < 2 or not segs or any(len(s) != 2 or s[0] < 0 or s[1] <= 0 for s in segs):
                raise ValueError(f"allreduce segments of {n} GPUs must be [latency_s, bytes/s]")


@schema
class AllToAllCurve(_Curve):
    """One engine's expert-parallel all-to-all in one kernel family (DeepEP's normal or
    low-latency kernels): per phase (dispatch, combine) [fixed_s, bytes/s], a call taking
    fixed_s + the bytes the busiest GPU sends / bytes/s (``all_to_all_call_time_s``)."""

    dispatch: list[float]
    combine: list[float]
    error: Reach

    def __post_init__(self) -> None:
        super().__post_init__()
        for phase in (self.dispatch, self.combine):
            if len(phase) != 2 or phase[0] < 0 or phase[1] <= 0:
                raise ValueError("all_to_all phases must be [fixed_s, bytes/s]")


GemmKey = Literal["bf16", "fp8", "fp8_block", "fp4", "int8", "int4"]
MoeKey = Literal["bf16", "fp8", "fp8_block", "fp4", "mxfp4", "int4"]
# an engine's own MoE curves add one backend's rows where the engine picks that backend by the
# layer (``Engine.moe_runner``; calc.deploy.engines.vllm.moe_backend): vLLM's per-tensor fp8
# experts on FlashInfer's CUTLASS MoE where trtllm-gen cannot run them (non-gated experts)
MoeEngineKey = Literal["bf16", "fp8", "fp8_block", "fp4", "mxfp4", "int4", "fp8_cutlass"]


@schema
class KernelCurves(Schema):
    """Kernel curves of one GPU (``calc.formulas.kernel_curves``): how long a GEMM, an attention
    kernel, a fused MoE layer, an all-reduce and any other kernel take, each curve a handful of
    numbers with its provenance and source. Keys: the GEMM's tensor-core dtype, the KV-cache
    dtype of decode attention, the experts' weight format."""

    provenance: Provenance
    source: Text
    sms: Annotated[int, Bounds(gt=0, le=4096)]  # streaming multiprocessors (compute units)
    script: Text | None = None
    copied_from: Text | None = None
    elementwise: ElementwiseCurve | None = None
    gemm: dict[GemmKey, GemmCurve] | None = None
    decode_attention: dict[Literal["bf16", "fp8"], DecodeAttentionCurve] | None = None
    prefill_attention: dict[Literal["bf16"], PrefillAttentionCurve] | None = None
    moe: dict[MoeKey, MoeCurve] | None = None
    # DeepSeek's latent attention (MLA): decode in the absorbed form by KV dtype, prefill
    mla_decode_attention: dict[Literal["bf16", "fp8"], DecodeAttentionCurve] | None = None
    mla_prefill_attention: dict[Literal["bf16"], PrefillAttentionCurve] | None = None
    # each engine's own fused-MoE kernels, fitted to its own rows (the pooled ``moe`` curve
    # for an engine or a format absent here)
    moe_engine: (
        dict[Literal["vllm", "sglang", "trtllm"], dict[MoeEngineKey, MoeCurve]] | None
    ) = None
    # an engine's fused-MoE curves for a runner other than the one its ``moe_engine`` curve is
    # fitted to, by the engine's name for the runner (SGLang's --moe-runner-backend: "triton"),
    # each fitted to that runner's rows alone; the engine wing says which runner a deployment
    # runs (``Engine.moe_runner``)
    moe_runner: (
        dict[Literal["vllm", "sglang", "trtllm"], dict[str, dict[MoeKey, MoeCurve]]] | None
    ) = None  # fmt: skip
    # each engine's own GEMMs where the pooled ``gemm`` curve leaves its rows out (vLLM's
    # block-fp8 linears, timed in CUDA graphs only in its older tables)
    gemm_engine: dict[Literal["vllm", "sglang", "trtllm"], dict[GemmKey, GemmCurve]] | None = None
    allreduce: dict[Literal["nccl", "custom"], AllReduceCurve] | None = None
    # an engine's own all-reduce kernels fitted to its own measured table, by engine: the
    # stages of its declared choice that run them (``ArStage.curve``); an engine or a GPU
    # count absent: ``allreduce.custom``
    allreduce_engine: dict[Literal["vllm", "sglang", "trtllm"], AllReduceCurve] | None = None
    # NCCL's all-gather and reduce-scatter (the MoE traffic of attention data parallel)
    gather: dict[Literal["all_gather", "reduce_scatter"], AllReduceCurve] | None = None
    # each engine's expert-parallel dispatch and combine, by DeepEP kernel family
    all_to_all: (
        dict[Literal["vllm", "sglang", "trtllm"],
             dict[Literal["normal", "low_latency", "mnnvl"], AllToAllCurve]] | None
    ) = None  # fmt: skip
    # each engine's own attention kernels against the pooled curves: time multipliers by curve
    # name ("decode_attention.fp8" …), the median of measured / fitted time over that engine's
    # rows, fitted with the curves; an engine or a curve absent: 1
    engine_scale: dict[Literal["vllm", "sglang", "trtllm"], dict[str, Reach]] | None = None
    notes: Text | None = None


@schema
class GemmPoint(Schema):
    """One point of a measured small-M GEMM curve: at ``m`` rows a GEMM takes ``slowdown`` ×
    its roofline time at the profile's bands (1: on the roofline)."""

    m: Annotated[int, Bounds(gt=0, le=10**7)]
    slowdown: Annotated[float, Bounds(ge=0.5, le=100)]


@schema
class ScaleOut(Schema):
    """The network between nodes (scale-out: InfiniBand, RoCE or Ethernet), per GPU."""

    fabric: Text  # e.g. "InfiniBand NDR 400 Gb/s, one ConnectX-7 NIC per GPU"
    bandwidth_bytes_per_s: Annotated[float, Bounds(gt=0, le=1e13)]  # per GPU, per direction
    latency_s: Annotated[float, Bounds(gt=0, le=1)]  # one ring step between nodes [s]
    source: Text


@schema
class ResidualBand(Schema):
    """Where the measured figure lies against the calibrated prediction: the signed error
    predicted / measured − 1 at its low and high end [fraction], over the runs a step
    calibration was fitted on and widened by the rule stated (calc/reports/calibration_band.py)."""

    low: Annotated[float, Bounds(gt=-1, le=10)]
    high: Annotated[float, Bounds(gt=-1, le=10)]
    runs: Annotated[int, Bounds(ge=1)]
    rule: Text

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise ValueError("need low <= high")


@schema
class StepCalibration(Schema):
    """Multipliers on the op times of a forward pass by op class (GEMMs over weights, attention,
    MoE routed experts, collectives), a fixed host time per forward pass and one per sequence
    it samples [s] (scheduling, sampling, detokenising: what no kernel accounts for), fitted
    to benchmark runs by
    ``kvcalc score --save-calibration`` (``calc.deploy.step_calibration`` applies them)."""

    gemm: Annotated[float, Bounds(gt=0, le=100)] = 1.0
    attention: Annotated[float, Bounds(gt=0, le=100)] = 1.0
    moe: Annotated[float, Bounds(gt=0, le=100)] = 1.0
    communication: Annotated[float, Bounds(gt=0, le=100)] = 1.0
    host_step_s: Annotated[float, Bounds(ge=0, le=1)] = 0.0
    # host time per sequence sampled in a forward pass [s]: the scheduler, sampler and
    # detokeniser's work per running request
    host_per_seq_s: Annotated[float, Bounds(ge=0, le=0.1)] = 0.0
    # latency of each request outside the engine's loop [s] (the API server's tokenising and
    # streaming, the network): added between a client's send and the engine's arrival by the
    # serving simulation
    request_s: Annotated[float, Bounds(ge=0, le=10)] = 0.0
    source: Text = "calibration"
    # the fit's own residual per figure (ttft, tpot, output_tokens_per_s): the band a
    # calibrated row carries in plan and latency; None where the file has none (older files)
    band: dict[Literal["ttft", "tpot", "output_tokens_per_s"], ResidualBand] | None = None


# What a price is a price of (issue 22: a ranking never mixes them)
PriceBasis = Literal[
    "neocloud_on_demand",  # GPU-specialist clouds' self-serve on-demand lists
    "hyperscaler_on_demand",  # AWS, Azure, Google Cloud, Oracle pay-as-you-go lists
    "marketplace_on_demand",  # third-party hosts on a marketplace (no datacentre SLA)
    "spot",  # interruptible capacity
    "committed",  # a reserved or contract rate whose term the source does not state
    "committed_1yr",
    "committed_3yr",
    "owned_tco",  # the cost per GPU-hour of owning it (capex over its life, power, facility)
]
# How a price follows from its source: ``list`` one provider's published price; ``median`` the
# median of several providers' lists (``rule`` names them); ``estimate`` a modelled cost (a TCO
# model); ``approximate`` a figure its source marks approximate or a range's midpoint;
# ``derived`` computed from other figures (``rule``); ``placeholder`` the price of another part
PriceKind = Literal["list", "median", "estimate", "approximate", "derived", "placeholder"]
# the kinds a ranking leaves out unless asked for (and flags when used)
UNLISTED_PRICE_KINDS = ("derived", "placeholder")
DateText = Annotated[str, Bounds(pattern=r"^\d{4}(-\d{2}(-\d{2})?)?$")]


@schema
class Price(Schema):
    """One price of a GPU-hour [USD per GPU-hour] on one basis, with its source and date."""

    basis: PriceBasis
    usd_per_gpu_hour: Annotated[float, Bounds(gt=0, le=10_000)]
    kind: PriceKind
    source: Text
    date: DateText  # when the source was read or dated: YYYY-MM or YYYY-MM-DD
    rule: Text | None = None  # median, derived, placeholder: how the figure follows

    def __post_init__(self) -> None:
        if self.kind in ("median", "derived", "placeholder") and not self.rule:
            raise ValueError(f"a {self.kind} price needs its rule (how it follows)")


# What a figure of a profile is (issue 22, deliver 1): ``published`` printed by the vendor or a
# standard source (a datasheet, NCCL's latency model), ``measured`` measured on this GPU,
# ``fitted`` fitted to measurements, ``derived`` computed from other figures by a stated rule,
# ``assumed`` chosen without a source for this GPU, ``copied`` taken from another profile
FigureKind = Literal["published", "measured", "fitted", "derived", "assumed", "copied"]


@schema
class FigureSource(Schema):
    """What one figure of a profile is and where it comes from."""

    kind: FigureKind
    source: Text
    copied_from: Annotated[str, Bounds(min_length=1, max_length=100)] | None = None

    def __post_init__(self) -> None:
        if self.kind == "copied" and not self.copied_from:
            raise ValueError("a copied figure names the profile it is copied from (copied_from)")


@schema
class BoardPower(Schema):
    """The board's rated power (NVIDIA TGP/TDP, AMD TBP) [W]: the most it draws."""

    watts: Annotated[float, Bounds(gt=0, le=10_000)]
    kind: FigureKind
    source: Text


# The figures of a profile that move a speed or a price and must say what they are (the
# efficiency bands and the kernel curves carry their own ``provenance``; prices their ``kind``)
PROVENANCE_REQUIRED = (
    "peak_flops_per_s",
    "hbm_bandwidth_bytes_per_s",
    "interconnect",
)
# required where the profile gives the figure
PROVENANCE_WHERE_GIVEN = (
    "usable_memory_bytes",
    "scale_out",
    "kernel_overhead_s",
)
# may also be stated: ``efficiency`` (required where the efficiency block states no provenance
# of its own) and, to refine it band by band, the bands' own keys
PROVENANCE_OPTIONAL = (
    "efficiency",
    "efficiency.matmul",
    "efficiency.matmul_fp8",
    "efficiency.matmul_fp4",
    "efficiency.memory",
    "efficiency.weight_only",
    "efficiency.weight_only_fp4",
)
ProvenanceKey = Literal[
    "efficiency",
    "peak_flops_per_s",
    "hbm_bandwidth_bytes_per_s",
    "interconnect",
    "usable_memory_bytes",
    "scale_out",
    "kernel_overhead_s",
    "efficiency.matmul",
    "efficiency.matmul_fp8",
    "efficiency.matmul_fp4",
    "efficiency.memory",
    "efficiency.weight_only",
    "efficiency.weight_only_fp4",
]


@schema
class HardwareProfile(Schema):
    """One accelerator (per GPU): memory (label and usable), bandwidth, dense peaks,
    interconnect (scale-up domain and scale-out network), price."""

    name: Annotated[str, Bounds(min_length=1, max_length=100)]
    display_name: Text
    vendor: Text
    source: Text  # datasheet URL
    memory_bytes: Annotated[int, Bounds(gt=0, le=10**14)]  # HBM capacity per GPU [bytes]
    memory_label: Text  # the vendor's label, e.g. "80 GB"
    # what the vendor's 'GB' label really counts: 10^9 (GB) or 2^30 (GiB) bytes
    memory_label_unit: Literal["GB", "GiB"]
    hbm_bandwidth_bytes_per_s: Annotated[float, Bounds(gt=0, le=1e15)]
    # dense (no structured sparsity) tensor-core peak per dtype [FLOP/s]
    peak_flops_per_s: dict[PeakDtype, float]
    peak_note: Text  # states the peaks are dense
    interconnect: Text
    # per GPU, per direction [bytes/s]
    interconnect_bandwidth_bytes_per_s: Annotated[float, Bounds(gt=0, le=1e14)]
    interconnect_latency_s: Annotated[float, Bounds(gt=0, le=1)]  # per collective hop [s]
    # prices of one GPU-hour [USD], at most one per basis; the first is the profile's reference
    # price (``usd_per_hour``): its default basis where it has one (tools/profile_prices.py)
    prices: Annotated[list[Price], Bounds(min_length=1)]
    efficiency: Efficiency
    # what each figure that moves a speed or a price is (issue 22): ``PROVENANCE_REQUIRED``
    # always, ``PROVENANCE_WHERE_GIVEN`` where the profile gives the figure
    provenance: dict[ProvenanceKey, FigureSource]
    # What the driver hands a process: torch.cuda.mem_get_info()[1] (cudaMemGetInfo or
    # hipMemGetInfo total) on an idle headless server, which engines budget from (vLLM's
    # total_gpu_memory) [bytes].
    # Below the label: the driver reserves memory (and ECC on GDDR parts). Optional so that older
    # user profiles still load; every shipped profile has it (tests/test_hardware_data.py).
    usable_memory_bytes: Annotated[int, Bounds(gt=0, le=10**14)] | None = None
    usable_memory_source: Text | None = None
    # GPUs that reach each other over the scale-up link of ``interconnect`` (NVLink/NVSwitch,
    # xGMI): HGX 8, NVL72 72, a PCIe card 1 (2 with an NVLink bridge) [GPUs]
    scale_up_domain_gpus: Annotated[int, Bounds(gt=0, le=100_000)] | None = None
    interconnect_source: Text | None = None  # where the scale-up bandwidth and latency come from
    scale_out: ScaleOut | None = None  # between scale-up domains (nodes / racks)
    # the scale-up switch reduces and multicasts (NVLink SHARP, "NVLS": NVSwitch gen 3 on HGX
    # Hopper, Blackwell HGX and NVL72), so an all-reduce can move (n−1)/n of the message
    # instead of a ring's 2(n−1)/n; None: no
    scale_up_multicast: bool | None = None
    # Fixed cost of one GPU kernel in a serving step (CUDA-graph replay of the launch, the
    # kernel's ramp-up and tail), added to each op's roofline time per kernel [s]; None: 0
    kernel_overhead_s: Annotated[float, Bounds(ge=0, le=1e-3)] | None = None
    kernel_overhead_source: Text | None = None
    # the family of the host CPU that runs the serving engine's Python beside the GPU: "x86"
    # (HGX boards, PCIe servers; the default) or "grace" (GB200 / GB300 superchips), which
    # scales the engine loop's overlapped host time (calc.deploy.host_costs.CPU_FACTOR)
    host_cpu: Literal["x86", "grace"] = "x86"
    host_cpu_source: Text | None = None
    # Tensor-core tile rows of the smallest GEMM tile: a GEMM of M rows computes
    # ceil(M / gemm_tile_m) × gemm_tile_m of them (Hopper wgmma: 64) [rows]; None: no padding
    gemm_tile_m: Annotated[int, Bounds(gt=0, le=1024)] | None = None
    # measured small-M curve (``kvcalc measure --save-calibration``): slowdown vs M, sorted by
    # m, interpolated linearly in log M; it replaces the tile padding where given
    gemm_m_curve: list[GemmPoint] | None = None
    # kernel curves fitted to measured kernel times (tools/fit_kernels.py); where a curve is
    # given it times its kernels in place of the efficiency bands (calc.deploy.rates)
    kernels: KernelCurves | None = None
    notes: str | None = None
    # op-class multipliers and a per-step host time fitted to benchmark runs (``--calibration
    # FILE`` from ``kvcalc score --save-calibration``); None: none
    step_calibration: StepCalibration | None = None
    # the board's rated power (NVIDIA TGP, AMD TBP) with its source: the owned-hardware TCO's
    # and the energy per token's default power per GPU; None: not published
    board_power: BoardPower | None = None

    @property
    def board_power_w(self) -> float | None:
        """The board's rated power [W], None where not published."""
        return None if self.board_power is None else self.board_power.watts

    @property
    def usd_per_hour(self) -> float:
        """The reference price of one GPU-hour [USD]: the first of ``prices``."""
        return self.prices[0].usd_per_gpu_hour

    @property
    def price_date(self) -> str:
        """When the reference price was read."""
        return self.prices[0].date

    @property
    def price_source(self) -> str:
        """Where the reference price comes from, with its basis and kind."""
        p = self.prices[0]
        return f"{p.basis} ({p.kind}): {p.source}"

    def price(self, basis: str) -> "Price | None":
        """The price on ``basis``, None where the profile has none."""
        return next((p for p in self.prices if p.basis == basis), None)

    @property
    def budget_memory_bytes(self) -> int:
        """The device total a memory budget starts from: ``usable_memory_bytes`` where the
        profile gives it, else the label ``memory_bytes`` [bytes]."""
        if self.usable_memory_bytes is not None:
            return self.usable_memory_bytes
        return self.memory_bytes

    def __post_init__(self) -> None:
        for dtype, value in self.peak_flops_per_s.items():
            if not 0 < value <= 1e18:
                raise ValueError(f"peak_flops_per_s.{dtype} must be in (0, 1e18], got {value}")
        if "bf16" not in self.peak_flops_per_s:
            raise ValueError("peak_flops_per_s must include bf16")
        bases = [p.basis for p in self.prices]
        if len(set(bases)) != len(bases):
            raise ValueError("prices: at most one price per basis")
        missing = [k for k in PROVENANCE_REQUIRED if k not in self.provenance]
        missing += [
            k
            for k in PROVENANCE_WHERE_GIVEN
            if getattr(self, k) is not None and k not in self.provenance
        ]
        if self.efficiency.provenance is None and "efficiency" not in self.provenance:
            missing.append("efficiency")  # the bands: in the efficiency block or here
        if missing:
            raise ValueError(
                f"provenance: say what {', '.join(missing)} "
                f"{'is' if len(missing) == 1 else 'are'} ({{kind: published|measured|fitted|"
                "derived|assumed|copied, source: ...}})"
            )
        if self.usable_memory_bytes is not None and self.usable_memory_bytes > self.memory_bytes:
            raise ValueError(
                f"usable_memory_bytes ({self.usable_memory_bytes}) exceeds memory_bytes "
                f"({self.memory_bytes}): the driver never reports more than the label"
            )
