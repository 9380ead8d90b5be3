"""Time [s] of one GPU kernel from a curve fitted to measured kernel times: a GEMM, decode and
prefill attention, a fused MoE layer, an all-reduce and an expert-parallel all-to-all, each a
roofline bent by a few measured numbers (fractions of peak, a fixed cost, tile sizes).

Pure functions of numbers; each accepts numpy arrays and broadcasts. The curves' numbers are
fitted by ``tools/fit_kernels.py`` to public kernel tables (aiconfigurator's) and shipped in the
hardware profiles (``calc.data.hardware_schema.KernelCurves``); the same functions are the
model the fit minimises, so a profile's numbers mean exactly what they do here.

The shared shape: a kernel takes

    t = fixed + soft(t_compute, t_memory) (+ terms of its own)

where t_compute = FLOPs / (peak × ``compute``), t_memory = bytes / (bandwidth × ``memory``)
and soft(a, b) = (a^s + b^s)^(1/s) (``sharpness`` s): the roofline's max(a, b) for large s,
and slower than it near the ridge, where a real kernel neither streams nor computes at full
rate. ``fixed`` is what the kernel costs at no size: its launch in a CUDA graph, ramp-up and
tail. soft is homogeneous of degree one (soft(λa, λb) = λ soft(a, b)), so a kernel repeated
over L layers takes L × fixed + soft(L a, L b): op totals summed over layers may be timed at
once.
"""

from __future__ import annotations

import math


def _is_array(*xs) -> bool:
    for x in xs:  # (a loop, not any() over a generator: called per op of every step)
        if hasattr(x, "shape"):
            return True
    return False


def soft_max(a, b, sharpness):
    """(a^s + b^s)^(1/s) [same unit as a, b]: max(a, b) as s grows, a + b at s = 1."""
    if _is_array(a, b):
        import numpy as np

        hi = np.maximum(a, b)
        safe = np.where(hi > 0, hi, 1.0)
        return np.where(hi > 0, safe * ((a / safe) ** sharpness + (b / safe) ** sharpness)
                        ** (1.0 / sharpness), 0.0)  # fmt: skip
    hi = max(a, b)
    if hi <= 0:
        return 0.0 * hi
    return hi * ((a / hi) ** sharpness + (b / hi) ** sharpness) ** (1.0 / sharpness)


def _ceil(x):
    if hasattr(x, "shape"):
        import numpy as np

        return np.ceil(x)
    return float(math.ceil(x))


def wave_factor(m, n, tile_m: float, tile_n: float, sms: int):
    """Computed output area over the useful m × n [×, ≥ 1]: rows and columns padded to whole
    tiles (tile_m × tile_n), and tiles padded to whole waves of ``sms`` (one tile per SM at a
    time): ceil(ceil(m / tile_m) ceil(n / tile_n) / sms) × sms × tile_m tile_n / (m n)."""
    tiles = _ceil(m / tile_m) * _ceil(n / tile_n)
    return _ceil(tiles / sms) * sms * tile_m * tile_n / (m * n)


def gemm_time_s(
    m,
    n,
    k,
    *,
    flops_per_s: float,
    bytes_per_s: float,
    weight_bytes_per_element: float,
    act_bytes_per_element: float,
    quantize_bytes_per_element: float,
    compute: float,
    memory: float,
    fixed_s: float,
    tile_m: float,
    tile_n: float,
    k_half: float,
    sharpness: float,
    sms: int,
):
    """One GEMM of m rows (tokens), n outputs and k inputs [s]:

    fixed + soft(2 m n k × wave × (1 + k_half / k) / (P × compute),
                 (n k w + m k a + 2 m n) / (W × memory)) + m k q / (W × memory)

    with P, W the peak FLOP/s of the GEMM's dtype and the HBM bandwidth, w the weights' bytes
    per element (scales included), a the input activations' (the GEMM's dtype), 2 the 16-bit
    output; wave = ``wave_factor`` (tiles and waves of SMs); (1 + k_half / k): the main loop's
    fill and drain, a fixed share of the tile's time whatever its k; the last term is the
    activation quantisation pass of a low-precision GEMM (read 16-bit, write the format: q = 2
    + a bytes per element; 0 for 16-bit GEMMs)."""
    flops = 2.0 * m * n * k * wave_factor(m, n, tile_m, tile_n, sms) * (1.0 + k_half / k)
    moved = n * k * weight_bytes_per_element + m * k * act_bytes_per_element + 2.0 * m * n
    t = soft_max(flops / (flops_per_s * compute), moved / (bytes_per_s * memory), sharpness)
    quant = m * k * quantize_bytes_per_element / (bytes_per_s * memory)
    return fixed_s + t + quant


def decode_attention_time_s(
    flops,
    kv_bytes,
    batch,
    *,
    flops_per_s: float,
    bytes_per_s: float,
    compute: float,
    memory: float,
    fixed_s: float,
    per_sequence_s: float,
    sharpness: float,
):
    """One decode-attention kernel over ``batch`` sequences (the KV-cache write included) [s]:
    fixed + per_sequence × batch + soft(FLOPs / (P × compute), bytes / (W × memory)); bytes
    are the KV read and write and the queries in and outputs out."""
    t = soft_max(flops / (flops_per_s * compute), kv_bytes / (bytes_per_s * memory), sharpness)
    return fixed_s + per_sequence_s * batch + t


def prefill_attention_time_s(
    flops,
    bytes_moved,
    prompt,
    *,
    flops_per_s: float,
    bytes_per_s: float,
    compute: float,
    memory: float,
    fixed_s: float,
    prompt_half: float,
    sharpness: float,
):
    """One prefill (context) attention kernel over prompts of ``prompt`` tokens [s]:
    fixed + soft(FLOPs / (P × compute × prompt / (prompt + prompt_half)), bytes / (W × memory));
    short prompts fill few query tiles, so their attention reaches less of the peak."""
    reach = compute * prompt / (prompt + prompt_half)
    t = soft_max(flops / (flops_per_s * reach), bytes_moved / (bytes_per_s * memory), sharpness)
    return fixed_s + t


def padded_rows(m, tile: float):
    """Rows of a GEMM of ``m`` rows padded to whole tiles: ceil(m / tile) × tile [rows]."""
    return _ceil(m / tile) * tile


def moe_time_s(
    flops,
    bytes_moved,
    rows_per_expert,
    route_elements,
    active_experts=0,
    *,
    flops_per_s: float,
    bytes_per_s: float,
    compute: float,
    memory: float,
    fixed_s: float,
    per_route_element_s: float,
    tile_m: float,
    sharpness: float,
    per_expert_s: float = 0.0,
):
    """One fused-MoE layer (routing, permutation, the two grouped GEMMs, the activation and
    its quantisation, the weighted combine) [s]:

    fixed + per_route_element × routes × d_model + per_expert × active experts
          + soft(FLOPs × padded / rows / (P × compute), bytes / (W × memory))

    each touched expert's rows padded to whole tiles of ``tile_m``; bytes are the touched
    experts' weights and the routed activations in and out. ``fixed`` is the whole pipeline's
    cost at one token (its 6-8 kernels); the per-route term is the work of the kernels
    around the GEMMs (top-k, sorting the routes by expert, gathering and scattering each
    route's hidden vector, the combine), which grows with the routes and runs apart from the
    GEMMs; the per-expert term is each active local expert's own launch and tile set-up
    (``active_experts``: the distinct experts of this GPU that get a token)."""
    rows = rows_per_expert
    pad = padded_rows(rows, tile_m) / rows
    t = soft_max(flops * pad / (flops_per_s * compute), bytes_moved / (bytes_per_s * memory),
                 sharpness)  # fmt: skip
    return fixed_s + per_route_element_s * route_elements + per_expert_s * active_experts + t


def allreduce_segment_time_s(message_bytes, n: int, latency_s: float, bus_bytes_per_s: float):
    """One all-reduce of ``message_bytes`` over ``n`` GPUs in one fitted segment [s]:
    latency + 2 (n − 1) / n × M / bus bandwidth (the bus bandwidth as nccl-tests defines it)."""
    return latency_s + 2.0 * (n - 1) / n * message_bytes / bus_bytes_per_s


def all_to_all_call_time_s(sent_bytes, fixed_s: float, bytes_per_s: float):
    """One expert-parallel dispatch or combine [s]: fixed + the bytes the busiest GPU sends /
    the rate fitted to the engine's measured all-to-all kernels (DeepEP's normal or
    low-latency kernels: the rate folds in the share that stays on the GPU and the links'
    achieved bandwidth)."""
    return fixed_s + sent_bytes / bytes_per_s


def gather_segment_time_s(message_bytes, n: int, latency_s: float, bus_bytes_per_s: float):
    """One all-gather or reduce-scatter of a ``message_bytes`` buffer (all GPUs' parts) over
    ``n`` GPUs in one fitted segment [s]: latency + (n − 1) / n × M / bus bandwidth
    (nccl-tests' bus bandwidth of these collectives)."""
    return latency_s + (n - 1) / n * message_bytes / bus_bytes_per_s
