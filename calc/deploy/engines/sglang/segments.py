"""The GPU memory SGLang's weight load takes beyond the tensors' own bytes [bytes]: PyTorch's
CUDA caching allocator rounds the segments it reserves for the parameters, which SGLang
builds one at a time on the GPU, and SGLang's 'Load weight end ... mem usage' is the fall in
free memory (``torch.cuda.mem_get_info`` after ``empty_cache``), so a segment's unused tail is
in it.

The allocator (c10/cuda/CUDACachingAllocator.cpp; the sizes in c10/core/AllocatorConfig.h of
the torch 2.13.0 wheel, kLargeBuffer 20 MiB in the .cpp, unchanged since torch 1.x): a request
is rounded up to 512 B; requests up to 1 MiB come from a pool of 2 MiB segments, larger ones
from the large pool, whose new segments are 20 MiB for requests under 10 MiB and the request
rounded up to 2 MiB from 10 MiB (``get_allocation_size``); a request takes the smallest free
block that holds it (best fit), split when more than 1 MiB is left (512 B in the small pool,
``should_split``); freed blocks merge with free neighbours, and ``empty_cache`` returns only
segments with nothing in them.

SGLang's model loader builds the model under ``with torch.device(...)`` (model_loader/loader.py
DefaultModelLoader.load_model: 0.4.x, 0.5.4, 0.5.13.post1, 0.5.19), so each parameter is its own
request, in construction order: the embedding, then per layer the attention's q/k norms,
merged QKV, output projection (layer 0: the RoPE table and its temporaries), the FFN (merged
gate/up, down; an MoE layer's router, fused w13 and w2 per local expert, shared experts), the
two norms; the final norm and the lm_head. Weights are then copied into those tensors from
host memory. vLLM counts ``torch.cuda.max_memory_allocated`` instead (the tensors' bytes), so
this is SGLang's alone.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

KIB, MIB = 2**10, 2**20
MIN_BLOCK = 512  # kMinBlockSize: every request is a multiple of it
SMALL_SIZE = 1 * MIB  # kSmallSize: the largest request of the small pool
SMALL_BUFFER = 2 * MIB  # kSmallBuffer: a small-pool segment
LARGE_BUFFER = 20 * MIB  # kLargeBuffer: a segment for a request of 1-10 MiB
MIN_LARGE_ALLOC = 10 * MIB  # kMinLargeAlloc: from here a segment is the request, 2 MiB steps
ROUND_LARGE = 2 * MIB  # kRoundLarge


def round_size(request: int) -> int:
    """The block a request takes [bytes]: a multiple of 512 B (``round_size``)."""
    return max(MIN_BLOCK, math.ceil(request / MIN_BLOCK) * MIN_BLOCK)


def allocation_size(size: int) -> int:
    """The segment reserved for a request no free block holds [bytes]
    (``get_allocation_size``)."""
    if size <= SMALL_SIZE:
        return SMALL_BUFFER
    if size < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return math.ceil(size / ROUND_LARGE) * ROUND_LARGE


@dataclass
class _Segment:
    small: bool
    size: int
    blocks: dict = field(default_factory=dict)  # offset -> [size, tag or None (free)]


class CachingAllocator:
    """The caching allocator's segments and blocks for one stream, enough to replay a model's
    construction: ``malloc``/``free`` by tag, ``reserved_bytes`` after ``empty_cache``. The
    free blocks of each pool are kept sorted by (size, segment, offset), so a best-fit search
    is a bisection (ties go to the older segment and the lower address, as the allocator's
    block set orders them by size, then address)."""

    def __init__(self):
        self.segments: list[_Segment] = []
        self.free_blocks = {True: [], False: []}  # small pool?: sorted (size, segment, offset)
        self.where: dict = {}  # tag -> (segment, offset)

    def malloc(self, tag, request: int) -> None:
        size = round_size(request)
        small = size <= SMALL_SIZE
        pool = self.free_blocks[small]
        i = bisect.bisect_left(pool, (size, -1, -1))
        if i < len(pool):
            bsize, s, off = pool.pop(i)
        else:
            bsize, s, off = allocation_size(size), len(self.segments), 0
            self.segments.append(_Segment(small, bsize, {0: [bsize, None]}))
        blocks = self.segments[s].blocks
        rest = bsize - size
        if rest >= MIN_BLOCK if small else rest > SMALL_SIZE:  # should_split
            blocks[off] = [size, tag]
            blocks[off + size] = [rest, None]
            bisect.insort(pool, (rest, s, off + size))
        else:
            blocks[off][1] = tag
        self.where[tag] = (s, off)

    def free(self, tag) -> None:
        s, off = self.where.pop(tag)
        seg = self.segments[s]
        pool = self.free_blocks[seg.small]
        size = seg.blocks[off][0]
        nxt = seg.blocks.get(off + size)
        if nxt is not None and nxt[1] is None:  # coalesce with the free block after
            pool.remove((nxt[0], s, off + size))
            del seg.blocks[off + size]
            size += nxt[0]
        prev = max((o for o in seg.blocks if o < off), default=None)
        if prev is not None and seg.blocks[prev][1] is None:  # and the one before
            pool.remove((seg.blocks[prev][0], s, prev))
            del seg.blocks[off]
            off, size = prev, seg.blocks[prev][0] + size
        seg.blocks[off] = [size, None]
        bisect.insort(pool, (size, s, off))

    def reserved_bytes(self) -> int:
        """Bytes held after ``empty_cache``: every segment with a live block [bytes]."""
        return sum(seg.size for seg in self.segments
                   if any(tag is not None for _, tag in seg.blocks.values()))  # fmt: skip


def replay(events) -> tuple[int, int]:
    """(reserved, live) bytes after a sequence of ``(tag, bytes)`` requests and ``(tag, None)``
    frees [bytes]: the segments left after ``empty_cache`` and the live tensors' own bytes."""
    alloc = CachingAllocator()
    live: dict = {}
    for tag, request in events:
        if request is None:
            alloc.free(tag)
            live.pop(tag)
        else:
            alloc.malloc(tag, request)
            live[tag] = request
    return alloc.reserved_bytes(), sum(live.values())
