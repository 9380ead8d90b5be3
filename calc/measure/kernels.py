"""The kernels `kvcalc measure` runs, each with its FLOPs [FLOP], bytes moved [bytes],
predicted memory [bytes], an input factory, the kernel itself and its float64 reference.

Shapes are written beside the tensors. Every kernel runs on ``env.device`` unchanged: the
CPU and CUDA paths are the same code.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from calc.data.dtypes import bytes_per_element
from calc.formulas.attention_layout import AttentionLayout
from calc.formulas.kv_cache import kv_bytes_per_token_per_layer
from calc.measure import counts, reference

BLOCK_TOKENS = 16  # tokens per block of the paged cache
_TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
_SDPA_BACKENDS = {0: "math", 1: "flash", 2: "memory-efficient", 3: "cudnn", 4: "overrideable"}


class Env:
    """torch, the device, the dtype and one seeded generator (successive inputs differ)."""

    def __init__(self, torch, device, dtype: str, seed: int = 0) -> None:
        self.torch = torch
        self.device = torch.device(device)
        self.dtype_name = dtype
        self.dtype = getattr(torch, _TORCH_DTYPES[dtype])
        self.bpe = bytes_per_element(dtype)
        self.gen = torch.Generator(device=self.device)
        self.gen.manual_seed(seed)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def randn(self, *shape: int, scale: float = 1.0):
        """Standard normal data (never zeros) of ``shape`` in the run dtype, times ``scale``."""
        t = self.torch.randn(shape, generator=self.gen, device=self.device, dtype=self.dtype)
        return t.mul_(scale) if scale != 1.0 else t


@dataclass
class Kernel:
    """One measured kernel at one shape."""

    kernel: str  # kernel class: gemm, decode_attention, paged_decode, mla_decode, ...
    variant: str  # gqa | mha | mqa | mla | qkv | o | ffn_up | ...
    shape: str
    batch: int
    ctx: int
    flops: float
    bytes_moved: float
    kv_bytes: float  # KV / latent cache held by one input set
    activation_bytes: float  # queries, inputs and outputs
    weight_bytes: float
    make_inputs: Callable[[], dict]
    run: Callable[[dict], Any]
    reference: Callable[[dict], Any]
    backend: Callable[[dict], str]
    n_kernels: int = 1  # kernels one run launches; timings are reported per kernel
    queued: bool = False  # CUDA: timed with the launches queued ahead (device time alone)


def sdpa_backend(torch, q, k, v, **kw) -> str:
    """Which scaled_dot_product_attention backend torch picks for these inputs."""
    try:
        choice = int(torch._fused_sdp_choice(q, k, v, **kw))
    except Exception:  # private API: absent or changed in this torch
        return "math/cpu" if q.device.type == "cpu" else "unknown"
    name = _SDPA_BACKENDS.get(choice, f"backend {choice}")
    return f"{name} (cpu)" if q.device.type == "cpu" else name


def nbytes(*tensors) -> int:
    """Bytes of the tensors among ``tensors`` (anything else, e.g. a captured graph, is 0)."""
    return sum(t.numel() * t.element_size() for t in tensors if hasattr(t, "element_size"))


# ----------------------------------------------------------------------------------------
# Probes: a large square GEMM and a large copy (what a hardware profile's peaks mean).


def probe_gemm(env: Env, n: int) -> Kernel:
    """[n, n] @ [n, n]: the matmul-rate probe."""
    torch = env.torch

    def make():
        return {"a": env.randn(n, n), "b": env.randn(n, n, scale=1 / math.sqrt(n))}

    return Kernel(
        "probe_gemm", "square", f"[{n},{n}]@[{n},{n}]", 1, 0,
        counts.gemm_flops(n, n, n), counts.gemm_bytes(n, n, n, env.bpe),
        0, 2 * n * n * env.bpe, n * n * env.bpe, make,
        lambda x: torch.matmul(x["a"], x["b"]),
        lambda x: reference.matmul(torch, x["a"], x["b"]),
        lambda x: "torch.matmul",
    )  # fmt: skip


def probe_copy(env: Env, n_elements: int) -> Kernel:
    """dst.copy_(src) of ``n_elements``: the memory-bandwidth probe."""
    torch = env.torch

    def make():
        return {"src": env.randn(n_elements), "dst": env.randn(n_elements)}

    def run(x):
        return x["dst"].copy_(x["src"])

    return Kernel(
        "probe_copy", "copy", f"[{n_elements}]", 1, 0,
        0, counts.copy_bytes(n_elements, env.bpe),
        0, 2 * n_elements * env.bpe, 0, make, run,
        lambda x: x["src"].to(torch.float64), lambda x: "Tensor.copy_",
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# Attention.


def prefill_attention(
    env: Env, batch: int, seq: int, n_heads: int, n_kv_heads: int, k_head_dim: int, v_head_dim: int
) -> Kernel:
    """Causal self-attention over ``seq`` tokens through scaled_dot_product_attention."""
    torch = env.torch
    sdpa = torch.nn.functional.scaled_dot_product_attention
    gqa = n_heads != n_kv_heads
    scale = 1 / math.sqrt(k_head_dim)

    def make():
        return {
            "q": env.randn(batch, n_heads, seq, k_head_dim),  # [B, H, S, dk]
            "k": env.randn(batch, n_kv_heads, seq, k_head_dim),  # [B, Hkv, S, dk]
            "v": env.randn(batch, n_kv_heads, seq, v_head_dim),  # [B, Hkv, S, dv]
        }

    def run(x):
        return sdpa(x["q"], x["k"], x["v"], is_causal=True, scale=scale, enable_gqa=gqa)

    kv = batch * seq * kv_bytes_per_token_per_layer(n_kv_heads, k_head_dim, v_head_dim, env.bpe)
    return Kernel(
        "prefill_attention", f"H{n_heads}/Hkv{n_kv_heads}",
        f"q[{batch},{n_heads},{seq},{k_head_dim}] kv[{n_kv_heads},{k_head_dim}+{v_head_dim}]",
        batch, seq,
        counts.prefill_attention_flops(batch, n_heads, seq, k_head_dim, v_head_dim),
        counts.prefill_attention_bytes(batch, seq, n_heads, n_kv_heads, k_head_dim, v_head_dim,
                                       env.bpe),
        kv, batch * seq * n_heads * (k_head_dim + v_head_dim) * env.bpe, 0, make, run,
        lambda x: reference.attention(torch, x["q"], x["k"], x["v"], causal=True, scale=scale),
        lambda x: sdpa_backend(torch, x["q"], x["k"], x["v"], is_causal=True, enable_gqa=gqa),
    )  # fmt: skip


def decode_attention(env: Env, layout: AttentionLayout, batch: int, ctx: int) -> Kernel:
    """One query token per sequence over a contiguous cache of ``ctx`` tokens (MHA, GQA or
    MQA) through scaled_dot_product_attention with enable_gqa: the KV heads are not
    repeated in memory by the caller."""
    torch = env.torch
    sdpa = torch.nn.functional.scaled_dot_product_attention
    h, hkv, dk, dv = layout.n_heads, layout.n_kv_heads, layout.k_head_dim, layout.v_head_dim
    gqa = h != hkv
    scale = 1 / math.sqrt(dk)

    def make():
        return {
            "q": env.randn(batch, h, 1, dk),  # [B, H, 1, dk]
            "k": env.randn(batch, hkv, ctx, dk),  # [B, Hkv, ctx, dk]
            "v": env.randn(batch, hkv, ctx, dv),  # [B, Hkv, ctx, dv]
        }

    def run(x):
        return sdpa(x["q"], x["k"], x["v"], scale=scale, enable_gqa=gqa)

    per_token = layout.kv_bytes_per_token_per_layer(env.bpe)
    return Kernel(
        "decode_attention", layout.kind, f"q[{batch},{h},1,{dk}] kv[{batch},{hkv},{ctx},{dk}]",
        batch, ctx,
        counts.decode_attention_flops(batch, h, ctx, dk, dv),
        counts.decode_attention_bytes(batch, h, ctx, per_token, dk, dv, env.bpe),
        batch * ctx * per_token, batch * h * (dk + dv) * env.bpe, 0, make, run,
        lambda x: reference.attention(torch, x["q"], x["k"], x["v"], causal=False, scale=scale),
        lambda x: sdpa_backend(torch, x["q"], x["k"], x["v"], enable_gqa=gqa),
    )  # fmt: skip


def paged_decode(env: Env, layout: AttentionLayout, batch: int, ctx: int) -> Kernel:
    """Decode attention read through a block table: each sequence's cache lives in
    16-token blocks scattered at random over a shared pool. The kernel gathers its blocks
    (a copy: what a pure-PyTorch paged cache costs) into a [B, Hkv, ctx, d] view and runs
    scaled_dot_product_attention with enable_gqa, never repeating KV heads."""
    torch = env.torch
    sdpa = torch.nn.functional.scaled_dot_product_attention
    h, hkv, dk, dv = layout.n_heads, layout.n_kv_heads, layout.k_head_dim, layout.v_head_dim
    gqa = h != hkv
    scale = 1 / math.sqrt(dk)
    n_used = -(-ctx // BLOCK_TOKENS)  # blocks per sequence
    n_pool = batch * n_used + 1  # one spare block: the pool is never exactly the table

    def make():
        perm = torch.randperm(n_pool, generator=env.gen, device=env.device)
        return {
            "q": env.randn(batch, h, dk),  # [B, H, dk]
            "k_pool": env.randn(n_pool, BLOCK_TOKENS, hkv, dk),  # [blocks, 16, Hkv, dk]
            "v_pool": env.randn(n_pool, BLOCK_TOKENS, hkv, dv),  # [blocks, 16, Hkv, dv]
            "table": perm[: batch * n_used].view(batch, n_used),  # [B, blocks per sequence]
        }

    def gathered(x):
        k = x["k_pool"][x["table"]].flatten(1, 2)[:, :ctx].transpose(1, 2)  # [B, Hkv, ctx, dk]
        v = x["v_pool"][x["table"]].flatten(1, 2)[:, :ctx].transpose(1, 2)  # [B, Hkv, ctx, dv]
        return x["q"][:, :, None], k, v  # q: [B, H, 1, dk]

    def run(x):
        return sdpa(*gathered(x), scale=scale, enable_gqa=gqa)[:, :, 0]  # [B, H, dv]

    def backend(x):
        return "gather + " + sdpa_backend(torch, *gathered(x), enable_gqa=gqa)

    per_token = layout.kv_bytes_per_token_per_layer(env.bpe)
    pool_bytes = n_pool * BLOCK_TOKENS * per_token
    return Kernel(
        "paged_decode", layout.kind,
        f"q[{batch},{h},{dk}] pool[{n_pool},{BLOCK_TOKENS},{hkv},{dk}] table[{batch},{n_used}]",
        batch, ctx,
        counts.decode_attention_flops(batch, h, ctx, dk, dv),
        counts.decode_attention_bytes(batch, h, ctx, per_token, dk, dv, env.bpe)
        + counts.block_table_bytes(batch, ctx, BLOCK_TOKENS),
        pool_bytes, batch * h * (dk + dv) * env.bpe + counts.block_table_bytes(batch, ctx),
        0, make, run,
        lambda x: reference.paged_decode(torch, x["q"], x["k_pool"], x["v_pool"], x["table"],
                                         ctx, scale),
        backend,
    )  # fmt: skip


def mla_decode(
    env: Env, layout: AttentionLayout, batch: int, ctx: int, qk_nope_head_dim: int, v_head_dim: int
) -> Kernel:
    """MLA decode in the absorbed form: W_UK folded into the query, attention over the
    latent cache [c_KV | k_rope] shared by all heads (an MQA with 576-wide keys and
    512-wide values for DeepSeek-V3), W_UV applied to the attended latent."""
    torch = env.torch
    h, rank, rope = layout.n_heads, layout.kv_lora_rank, layout.qk_rope_head_dim
    nope = qk_nope_head_dim
    scale = 1 / math.sqrt(nope + rope)

    def make():
        return {
            "q_nope": env.randn(batch, h, nope),  # [B, H, nope]
            "q_rope": env.randn(batch, h, rope),  # [B, H, rope]
            "kv": env.randn(batch, ctx, rank + rope),  # [B, ctx, rank + rope] latent cache
            "w_uk": env.randn(h, nope, rank, scale=1 / math.sqrt(rank)),  # [H, nope, rank]
            "w_uv": env.randn(h, v_head_dim, rank, scale=1 / math.sqrt(rank)),  # [H, v, rank]
        }

    def run(x):
        q_lat = torch.einsum("bhn,hnr->bhr", x["q_nope"], x["w_uk"])  # [B, H, rank]
        q = torch.cat([q_lat, x["q_rope"]], dim=-1)  # [B, H, rank + rope]
        s = torch.matmul(q, x["kv"].transpose(1, 2)) * scale  # [B, H, ctx]
        p = torch.softmax(s.float(), dim=-1).to(env.dtype)
        o_lat = torch.matmul(p, x["kv"][..., :rank])  # [B, H, rank]
        return torch.einsum("bhr,hvr->bhv", o_lat, x["w_uv"])  # [B, H, v]

    per_token = layout.kv_bytes_per_token_per_layer(env.bpe)
    return Kernel(
        "mla_decode", "mla",
        f"q[{batch},{h},{nope}+{rope}] latent[{batch},{ctx},{rank}+{rope}] v{v_head_dim}",
        batch, ctx,
        counts.mla_decode_flops(batch, h, ctx, rank, rope, nope, v_head_dim),
        counts.mla_decode_bytes(batch, h, ctx, per_token, rank, rope, nope, v_head_dim, env.bpe),
        batch * ctx * per_token, batch * h * (nope + rope + v_head_dim) * env.bpe,
        h * rank * (nope + v_head_dim) * env.bpe, make, run,
        lambda x: reference.mla_decode(torch, x["q_nope"], x["q_rope"], x["kv"], x["w_uk"],
                                       x["w_uv"], rank, scale),
        lambda x: "torch matmul (absorbed)",
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# Decode GEMMs.


def gemm(env: Env, name: str, batch: int, k: int, n: int, kernel: str = "gemm") -> Kernel:
    """x[batch, k] @ W[k, n]: one projection of one layer for one decode step (``kernel``
    'gemm_m': the same GEMM as a point of the small-M curve, M = ``batch`` rows, timed on
    CUDA with its launches queued ahead: the GEMM's own device time, as a graph replays it;
    the launch is the fixed kernel cost, measured apart)."""
    torch = env.torch

    def make():
        return {"x": env.randn(batch, k), "w": env.randn(k, n, scale=1 / math.sqrt(k))}

    return Kernel(
        kernel, name, f"[{batch},{k}]@[{k},{n}]", batch, 0,
        counts.gemm_flops(batch, k, n), counts.gemm_bytes(batch, k, n, env.bpe),
        0, batch * (k + n) * env.bpe, k * n * env.bpe, make,
        lambda x: torch.matmul(x["x"], x["w"]),
        lambda x: reference.matmul(torch, x["x"], x["w"]),
        lambda x: "torch.matmul", queued=kernel == "gemm_m",
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# The fixed cost of one kernel.

KERNEL_CHAIN = 200  # tiny kernels per timed run of kernel_chain


def kernel_chain(env: Env, n_kernels: int = KERNEL_CHAIN, graph: bool = False) -> Kernel:
    """``n_kernels`` tiny kernels in a row on a 1-element tensor: one copy_ then in-place
    add_ of +1 and -1 in turn. Their work is nil, so the time per kernel is the fixed cost
    of one kernel: eagerly, the launch from Python (dispatch, the driver call); with
    ``graph`` (CUDA only), the replay of a captured torch.cuda.CUDAGraph, as engines replay
    their decode step. The inputs are small integers, so every dtype adds them exactly."""
    torch = env.torch
    if graph and not env.is_cuda:
        raise ValueError("a CUDA graph needs --device cuda")

    def chain(x):
        acc = x["acc"]
        acc.copy_(x["x"])  # [1]
        for i in range(n_kernels - 1):
            acc.add_(1.0 if i % 2 == 0 else -1.0)
        return acc

    def make():
        x = {
            "x": torch.randint(1, 9, (1,), generator=env.gen, device=env.device).to(env.dtype),
            "acc": torch.zeros(1, device=env.device, dtype=env.dtype),
        }
        if graph:  # capture once per input set (warm-up on a side stream first, as torch asks)
            side = torch.cuda.Stream(env.device)
            side.wait_stream(torch.cuda.current_stream(env.device))
            with torch.cuda.stream(side):
                chain(x)
            torch.cuda.current_stream(env.device).wait_stream(side)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                chain(x)
            x["graph"] = g
        return x

    def run(x):
        if graph:
            x["graph"].replay()
            return x["acc"]
        return chain(x)

    odd = (n_kernels - 1) % 2  # the adds leave x + 1 after an odd count, x after an even one
    return Kernel(
        "kernel_overhead", "cuda_graph" if graph else "eager",
        f"{n_kernels} × add_ [1]", 1, 0,
        1.0, counts.copy_bytes(1, env.bpe),  # per kernel: one add, read + write one element
        0, 2 * env.bpe, 0, make, run,
        lambda x: x["x"].to(torch.float64) + odd,
        lambda x: "CUDA graph replay" if graph else "eager launches",
        n_kernels,
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# Optional third-party kernels (CUDA only, rows appear only where the package imports).


def optional_packages() -> list[str]:
    return [p for p in ("flash_attn", "flashinfer") if importlib.util.find_spec(p) is not None]


def flash_attn_decode(env: Env, layout: AttentionLayout, batch: int, ctx: int) -> Kernel:
    """flash_attn_with_kvcache: one query token over a [B, ctx, Hkv, d] cache."""
    import flash_attn  # optional; only called when importable

    torch = env.torch
    h, hkv, dk, dv = layout.n_heads, layout.n_kv_heads, layout.k_head_dim, layout.v_head_dim
    scale = 1 / math.sqrt(dk)

    def make():
        return {
            "q": env.randn(batch, 1, h, dk),  # [B, 1, H, dk]
            "k": env.randn(batch, ctx, hkv, dk),  # [B, ctx, Hkv, dk]
            "v": env.randn(batch, ctx, hkv, dv),  # [B, ctx, Hkv, dv]
        }

    def run(x):
        return flash_attn.flash_attn_with_kvcache(x["q"], x["k"], x["v"], softmax_scale=scale)

    def ref(x):
        t = lambda a: a.transpose(1, 2)  # noqa: E731  [B, S, H, d] -> [B, H, S, d]
        return t(
            reference.attention(torch, t(x["q"]), t(x["k"]), t(x["v"]), causal=False, scale=scale)
        )

    per_token = layout.kv_bytes_per_token_per_layer(env.bpe)
    return Kernel(
        "decode_attention", f"{layout.kind} flash_attn",
        f"q[{batch},1,{h},{dk}] kv[{batch},{ctx},{hkv},{dk}]", batch, ctx,
        counts.decode_attention_flops(batch, h, ctx, dk, dv),
        counts.decode_attention_bytes(batch, h, ctx, per_token, dk, dv, env.bpe),
        batch * ctx * per_token, batch * h * (dk + dv) * env.bpe, 0, make, run, ref,
        lambda x: f"flash-attn {getattr(flash_attn, '__version__', '?')}",
    )  # fmt: skip


def flashinfer_decode(env: Env, layout: AttentionLayout, ctx: int) -> Kernel:
    """flashinfer.single_decode_with_kv_cache: batch 1, one query over [ctx, Hkv, d]."""
    import flashinfer  # optional; only called when importable

    torch = env.torch
    h, hkv, dk, dv = layout.n_heads, layout.n_kv_heads, layout.k_head_dim, layout.v_head_dim
    scale = 1 / math.sqrt(dk)

    def make():
        return {
            "q": env.randn(h, dk),  # [H, dk]
            "k": env.randn(ctx, hkv, dk),  # [ctx, Hkv, dk]
            "v": env.randn(ctx, hkv, dv),  # [ctx, Hkv, dv]
        }

    def run(x):
        return flashinfer.single_decode_with_kv_cache(x["q"], x["k"], x["v"], sm_scale=scale)

    def ref(x):
        o = reference.attention(
            torch,
            x["q"][None, :, None],
            x["k"].transpose(0, 1)[None],
            x["v"].transpose(0, 1)[None],
            causal=False,
            scale=scale,
        )
        return o[0, :, 0]

    per_token = layout.kv_bytes_per_token_per_layer(env.bpe)
    return Kernel(
        "decode_attention", f"{layout.kind} flashinfer", f"q[{h},{dk}] kv[{ctx},{hkv},{dk}]",
        1, ctx,
        counts.decode_attention_flops(1, h, ctx, dk, dv),
        counts.decode_attention_bytes(1, h, ctx, per_token, dk, dv, env.bpe),
        ctx * per_token, h * (dk + dv) * env.bpe, 0, make, run, ref,
        lambda x: f"flashinfer {getattr(flashinfer, '__version__', '?')}",
    )  # fmt: skip
