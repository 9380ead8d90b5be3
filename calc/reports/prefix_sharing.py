"""KV bytes saved [bytes] and concurrency bought [sequences] when U sequences share a P-token
prompt prefix, as prefix caches (vLLM automatic prefix caching, SGLang's radix cache) do.

The shared prefix is stored once; each sequence holds only its own suffix. A paged cache shares
whole blocks only (vLLM hashes full blocks), so ``floor(P / block_size) × block_size`` tokens
are shared and a partly filled last prefix block is private to each sequence; with
``block_size`` 1 (SGLang's default page) the whole prefix is shared.
"""

from __future__ import annotations

from calc.data.limits import MAX_BATCH, MAX_CTX, check_positive_int
from calc.errors import InvalidInputError
from calc.formulas.elementwise import maximum
from calc.output.derivation import figure, whole


def shared_tokens(prefix, block_size):
    """Prefix tokens a paged cache can share: whole blocks, floor(P / block) × block."""
    return prefix // block_size * block_size


def kv_saved_bytes(users, shared_prefix_bytes):
    """KV not stored thanks to sharing: (U − 1) copies of the shared prefix."""
    return (users - 1) * shared_prefix_bytes


def kv_with_sharing_bytes(users, sequence_bytes, shared_prefix_bytes):
    """KV of U sequences that share a prefix: one prefix + U private suffixes."""
    return shared_prefix_bytes + users * (sequence_bytes - shared_prefix_bytes)


def max_concurrency_shared(budget_bytes, sequence_bytes, shared_prefix_bytes):
    """Sequences that fit when they share a prefix: floor((budget − prefix) / (seq − prefix))."""
    room = maximum(budget_bytes - shared_prefix_bytes, 0)
    return room // (sequence_bytes - shared_prefix_bytes)


def prefix_sharing_fields(gpu, *, ctx, prefix, users):
    """Fields and figures for ``capacity_report`` (``gpu``: the per-GPU ledger,
    ``calc.deploy.ledger.PerGpu``). A sequence's SSM state is its own; only KV blocks are shared."""
    from calc.deploy.ledger import pool_units

    if prefix is None or users is None:
        raise InvalidInputError("--shared-prefix and --users go together: give both")
    check_positive_int("shared-prefix", prefix, MAX_CTX)
    check_positive_int("users", users, MAX_BATCH)
    if prefix >= ctx:
        raise InvalidInputError(
            f"--shared-prefix {prefix:,} must be shorter than --ctx {ctx:,} (prompt + output)"
        )
    block_size, budget = gpu.block_size, gpu.kv_budget_bytes
    shared = shared_tokens(prefix, block_size)
    seq_bytes = whole(gpu.sequence_bytes(ctx))
    prefix_bytes = whole(gpu.kv_bytes_per_sequence(shared)) if shared else 0
    without = users * seq_bytes
    with_sharing = whole(kv_with_sharing_bytes(users, seq_bytes, prefix_bytes))
    saved = whole(kv_saved_bytes(users, prefix_bytes))
    concurrency = int(max_concurrency_shared(budget, seq_bytes, prefix_bytes))
    plain = int(pool_units(budget, seq_bytes))
    fields = {
        "shared_prefix": prefix,
        "users": users,
        "shared_prefix_tokens": shared,
        "shared_prefix_bytes": prefix_bytes,
        "kv_without_sharing_bytes": without,
        "kv_with_sharing_bytes": with_sharing,
        "kv_saved_bytes": saved,
        "users_fit_with_sharing": users <= concurrency,
        "max_concurrency_shared": concurrency,
        "concurrency_gain": concurrency - plain,
    }
    figs = [
        figure(
            "shared_prefix_tokens",
            shared,
            "tokens",
            "floor({prefix} / {block_size}) × {block_size}",
            prefix=prefix,
            block_size=block_size,
        ),
        figure(
            "kv_saved_bytes",
            saved,
            "bytes",
            "({users} − 1) × {prefix_bytes}",
            users=users,
            prefix_bytes=prefix_bytes,
        ),
        figure(
            "max_concurrency_shared",
            concurrency,
            "sequences",
            "floor(({budget} − {prefix_bytes}) / ({seq_bytes} − {prefix_bytes}))",
            budget=budget,
            prefix_bytes=prefix_bytes,
            seq_bytes=seq_bytes,
        ),
    ]
    return fields, figs
