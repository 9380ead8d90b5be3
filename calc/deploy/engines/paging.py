"""How a paged KV pool serves requests [blocks]: the blocks one request of ctx tokens holds in
each kind of KV-cache group (full attention, sliding window, Mamba state), the accounting
vLLM's block pool and kvcalc's ledger share (``Paging``)."""

from __future__ import annotations

from dataclasses import dataclass

from calc.formulas.elementwise import cdiv, minimum

MAMBA_BLOCKS_PER_REQUEST = 1  # a Mamba group keeps one state page per request


def full_attention_blocks_per_request(max_model_len, block_size):
    """Blocks a full-attention group needs for one request of max_model_len tokens."""
    return cdiv(max_model_len, block_size)


def sliding_window_blocks_per_request(window, in_flight_tokens, max_model_len, block_size):
    """Blocks a sliding-window group needs per request: the window plus the tokens in flight,
    capped at max_model_len, plus one block a window can straddle."""
    tokens = minimum(window - 1 + in_flight_tokens, max_model_len)
    return cdiv(tokens, block_size) + 1


@dataclass(frozen=True)
class Paging:
    """How a block pool serves requests: ``num_blocks`` blocks, each ``block_bytes`` (one page
    per layer slot of a KV cache group); a request of ctx tokens takes, per full-attention
    group, ceil(ctx / block_size) blocks, per sliding-window group its window plus the tokens
    in flight, per Mamba group one block."""

    num_blocks: int
    block_bytes: float
    block_size: int
    full_groups: int
    sliding_groups: int
    mamba_groups: int
    window: int | None
    in_flight_tokens: int  # tokens scheduled but not yet settled (sliding-window reserve)

    def blocks_per_request(self, ctx):
        """Blocks one request of ``ctx`` tokens holds (ctx may be a numpy array)."""
        blocks = self.full_groups * full_attention_blocks_per_request(ctx, self.block_size)
        if self.sliding_groups:
            blocks = blocks + self.sliding_groups * sliding_window_blocks_per_request(
                self.window, self.in_flight_tokens, ctx, self.block_size
            )
        return blocks + self.mamba_groups * MAMBA_BLOCKS_PER_REQUEST
