"""Float64 reference outputs computed independently of the kernels under test, and the
relative error [fraction of max |reference|] a kernel's output may show per dtype.

The references use explicit matmuls, an explicit max-subtracted softmax and explicit masks
(never scaled_dot_product_attention), loop over sequences and KV heads to bound memory, and
for MLA decompress the latent (the non-absorbed form) rather than reuse the absorbed one.
"""

from __future__ import annotations

# Allowed max |out - ref| / max |ref|. A wrong kernel (a missing mask, a wrong head mapping,
# a missing scale) is off by 10-100 %; rounding to the dtype costs well under these.
TOLERANCE = {"fp32": 1e-3, "fp16": 1e-2, "bf16": 4e-2}
_CHUNK_ELEMENTS = 2**24  # float64 scores per chunk: 128 MiB


def relative_error(torch, out, ref) -> float:
    """max |out - ref| / max |ref| (inf if ``out`` has NaN/inf or the wrong shape)."""
    if tuple(out.shape) != tuple(ref.shape):
        return float("inf")
    out64 = out.to(torch.float64)
    if not bool(torch.isfinite(out64).all()):
        return float("inf")
    scale = float(ref.abs().max())
    return float((out64 - ref).abs().max()) / max(scale, 1e-300)


def _softmax64(torch, s):
    s = s - s.max(dim=-1, keepdim=True).values
    e = torch.exp(s)
    return e / e.sum(dim=-1, keepdim=True)


def attention(torch, q, k, v, *, causal: bool, scale: float):
    """softmax(q kᵀ · scale [+ causal mask]) v in float64.

    q: [B, H, Sq, dk]; k: [B, Hkv, Sk, dk]; v: [B, Hkv, Sk, dv]; query head h reads KV head
    h // (H / Hkv). Causal: query i (aligned to the last Sq keys) sees keys <= its position.
    Returns [B, H, Sq, dv] float64.
    """
    b_, h_, sq, _ = q.shape
    hkv, sk, dv = k.shape[1], k.shape[2], v.shape[3]
    group = h_ // hkv
    out = torch.empty((b_, h_, sq, dv), dtype=torch.float64, device=q.device)
    rows = max(1, _CHUNK_ELEMENTS // (group * sk))
    for b in range(b_):
        for g in range(hkv):
            kg = k[b, g].to(torch.float64)  # [Sk, dk]
            vg = v[b, g].to(torch.float64)  # [Sk, dv]
            heads = slice(g * group, (g + 1) * group)
            for r0 in range(0, sq, rows):
                r1 = min(sq, r0 + rows)
                qc = q[b, heads, r0:r1].to(torch.float64)  # [G, rows, dk]
                s = torch.matmul(qc, kg.transpose(0, 1)) * scale  # [G, rows, Sk]
                if causal:
                    qpos = torch.arange(r0, r1, device=q.device) + (sk - sq)
                    kpos = torch.arange(sk, device=q.device)
                    s = s.masked_fill(kpos[None, :] > qpos[:, None], float("-inf"))
                out[b, heads, r0:r1] = torch.matmul(_softmax64(torch, s), vg)
    return out


def paged_decode(torch, q, k_pool, v_pool, block_table, ctx: int, scale: float):
    """Decode attention read through a block table, in float64.

    q: [B, H, dk]; k_pool/v_pool: [n_blocks, block, Hkv, d]; block_table: [B, n_used].
    Each sequence's cache is gathered with index_select, one sequence at a time.
    Returns [B, H, dv].
    """
    outs = []
    for b in range(q.shape[0]):
        idx = block_table[b]
        kb = k_pool.index_select(0, idx).flatten(0, 1)[:ctx]  # [ctx, Hkv, dk]
        vb = v_pool.index_select(0, idx).flatten(0, 1)[:ctx]
        o = attention(
            torch,
            q[b : b + 1, :, None, :],
            kb.permute(1, 0, 2)[None],
            vb.permute(1, 0, 2)[None],
            causal=False,
            scale=scale,
        )
        outs.append(o[0, :, 0, :])
    return torch.stack(outs)


def mla_decode(torch, q_nope, q_rope, kv_cache, w_uk, w_uv, kv_lora_rank: int, scale: float):
    """MLA decode in the NON-absorbed form, float64: decompress each head's key and value
    from the latent, then ordinary attention.

    q_nope: [B, H, nope]; q_rope: [B, H, rope]; kv_cache: [B, ctx, rank + rope] (latent c
    then the shared RoPE key); w_uk: [H, nope, rank]; w_uv: [H, v, rank]. Returns [B, H, v].
    """
    wk = w_uk.to(torch.float64)
    wv = w_uv.to(torch.float64)
    outs = []
    for b in range(q_nope.shape[0]):
        c = kv_cache[b, :, :kv_lora_rank].to(torch.float64)  # [ctx, rank]
        kr = kv_cache[b, :, kv_lora_rank:].to(torch.float64)  # [ctx, rope]
        k_nope = torch.einsum("tr,hnr->htn", c, wk)  # [H, ctx, nope]
        val = torch.einsum("tr,hvr->htv", c, wv)  # [H, ctx, v]
        h_ = k_nope.shape[0]
        k = torch.cat([k_nope, kr[None].expand(h_, -1, -1)], dim=-1)  # [H, ctx, nope+rope]
        q = torch.cat([q_nope[b], q_rope[b]], dim=-1).to(torch.float64)  # [H, nope+rope]
        o = attention(torch, q[None, :, None, :], k[None], val[None], causal=False, scale=scale)
        outs.append(o[0, :, 0, :])
    return torch.stack(outs)


def matmul(torch, a, b):
    """a @ b in float64."""
    return torch.matmul(a.to(torch.float64), b.to(torch.float64))
