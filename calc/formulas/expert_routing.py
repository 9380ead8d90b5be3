"""Distinct routed experts the busiest expert-parallel GPU touches in one MoE layer [experts],
under plain or group-limited top-k routing.

Routing model (kvcalc's "uniform routing", now with the model's group structure): each token
picks ``g`` of the ``G`` expert groups at random (DeepSeek-V2/V3's ``topk_group`` of
``n_group``; G = g = 1 is plain top-k), then ``k`` distinct experts at random among the g · E/G
experts of those groups. Groups are contiguous blocks of E/G experts (DeepSeek's
``grouped_topk`` views the scores as [tokens, G, E/G]). Placement: rank r of ``ep`` holds the
contiguous block [r · E/ep, (r + 1) · E/ep) (vLLM's ``determine_expert_map`` "linear", its
default; SGLang's ``init_expert_location`` "trivial"; both without redundant experts or EPLB by
default), so at E/ep = E/G one group is one GPU.

The mean over GPUs needs no new formula: by symmetry every expert is picked by a token with
probability k/E whatever the groups, so the batch touches E · (1 − (1 − k/E)^t) experts
(``calc.formulas.flops.expected_active_experts``) under either routing.

The busiest GPU (the expected maximum over the ``ep`` GPUs of each one's distinct touched
experts) is approximated in three steps: (1) one GPU's count X has an exact mean and variance
from the probabilities that one token avoids one expert, two experts of one group, or two
experts of two groups (``_avoid``); (2) X is taken as beta-binomial with that mean and variance
(binomial where the variance is at most the binomial's: plain routing, whose distinct picks make
X slightly under-dispersed); (3) the GPUs are taken as independent: E[max] = Σ_x (1 − Π_r F_r(x)).
Step (3) ignores that a token picks exactly k experts in exactly g groups (the counts are
negatively dependent), so it reads low; with one expert a GPU (E = ep) the maximum is exactly 1
for any batch of a token or more, which is used as is. Against seeded simulations of the routing
(tests/test_expert_routing.py; 1,500 draws, E 256, k 8, ep 2-32, 1-64 tokens): plain top-k
within 2.2%; DeepSeek-V3's 8 groups, 4 a token, low by 4-8.5% at one token, up to 6% at two,
4.3% at four and under 3% from eight tokens on (2% or less at ep 8 and above).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["busiest_active_experts", "gpu_group_blocks"]

SATURATED = 1e-12  # [experts] what the busiest GPU may miss of its n where it is taken as n


def _avoid(n_experts, experts_per_token, n_groups, groups_per_token):
    """(one expert, two of one group, two of two groups): the probabilities that one token
    picks none of them [1].

    A group is picked with g/G; within the K = g · E/G experts of the picked groups the token
    takes k, so it misses one of them with (K − k)/K and two with (K − k)(K − k − 1)/(K(K − 1)).
    Two groups: neither picked (G − g)(G − g − 1)/(G(G − 1)), exactly one 2g(G − g)/(G(G − 1)),
    both g(g − 1)/(G(G − 1)). With G = g = 1: C(E − 2, k)/C(E, k) for any pair.
    """
    E, k, G, g = n_experts, experts_per_token, n_groups, groups_per_token
    K = g * (E // G)
    miss1 = (K - k) / K
    miss2 = (K - k) * (K - k - 1) / (K * (K - 1)) if K > 1 else 0.0
    same = (1 - g / G) + g / G * miss2
    if G == 1:
        return 1 - k / E, same, same
    none = (G - g) * (G - g - 1) / (G * (G - 1))
    one = 2 * g * (G - g) / (G * (G - 1))
    both = g * (g - 1) / (G * (G - 1))
    return 1 - k / E, same, none + one * miss1 + both * miss2


@lru_cache(maxsize=256)
def gpu_group_blocks(n_experts, n_groups, ep):
    """For each kind of GPU, (how many GPUs, the sizes of the group pieces it holds): rank r
    holds experts [r · n, (r + 1) · n), n = E/ep, and group i is [i · m, (i + 1) · m), m = E/G.
    DeepSeek-V3 (E 256, G 8) at ep 4: ((4, (32, 32)),); at ep 16: ((16, (16,)),)."""
    n, m = n_experts // ep, n_experts // n_groups
    kinds: dict[tuple[int, ...], int] = {}
    for r in range(ep):
        lo, hi = r * n, (r + 1) * n
        sizes = tuple(
            min(hi, (i + 1) * m) - max(lo, i * m)
            for i in range(n_groups)
            if min(hi, (i + 1) * m) > max(lo, i * m)
        )
        kinds[sizes] = kinds.get(sizes, 0) + 1
    return tuple((count, sizes) for sizes, count in kinds.items())


def _count_cdf(n, p, var, x):
    """CDF at ``x`` [0..n−1] of one GPU's touched experts, beta-binomial with mean n·p and
    variance ``var`` (binomial where var ≤ n·p·(1 − p)) [1]; arrays broadcast over tokens."""
    q = 1 - p
    binvar = n * p * q
    with np.errstate(divide="ignore", invalid="ignore"):
        # Var = n p q (1 + (n − 1) ρ), ρ = 1/(α + β + 1): the intra-GPU correlation
        rho = np.where(binvar > 0, (var / np.where(binvar > 0, binvar, 1) - 1) / max(n - 1, 1), 0)
    over = rho > 1e-9
    s = np.where(over, 1 / np.where(over, np.minimum(rho, 1 - 1e-12), 1) - 1, 1.0)  # α + β
    j = np.arange(n).reshape((-1,) + (1,) * np.ndim(p))
    steps = np.log((n - np.arange(n)) / np.arange(1, n + 1)).reshape(j.shape)
    log_choose = np.concatenate((np.zeros((1, *j.shape[1:])), np.cumsum(steps, axis=0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        # beta-binomial: C(n, x) Π_{j<x}(α + j) Π_{j<n−x}(β + j) / Π_{j<n}(α + β + j)
        zero = np.zeros((1, *np.shape(p)))
        up = np.concatenate((zero, np.cumsum(np.log(p * s + j), axis=0)))
        down = np.concatenate((zero, np.cumsum(np.log(q * s + j), axis=0)))
        log_bb = log_choose + up + down[::-1] - np.sum(np.log(s + j), axis=0)
        # binomial: C(n, x) p^x q^(n − x)
        xs = np.arange(n + 1).reshape(log_choose.shape)
        log_bin = log_choose + np.where(xs > 0, xs * np.log(p), 0) + np.where(
            xs < n, (n - xs) * np.log(q), 0)  # fmt: skip
    pmf = np.exp(np.where(over, log_bb, log_bin))
    return np.minimum(np.cumsum(pmf, axis=0)[x], 1.0)


def busiest_active_experts(n_experts, experts_per_token, tokens, ep, n_groups=1,
                           groups_per_token=1):  # fmt: skip
    """Distinct experts the busiest of ``ep`` GPUs touches in one MoE layer, expected
    [experts] (the module's routing model and approximation).

    ``tokens`` [tokens] may be an array. One GPU holds n = E/ep experts; an expert is missed
    by t tokens with a^t and a pair with b^t (``_avoid``), so the GPU's count has mean n(1 − a^t)
    and variance n a^t (1 − a^t) + Σ_pairs (b^t − a^2t) over its same-group and cross-group
    pairs. At E 256, k 8, 4 tokens, ep 8: 3.82 experts a GPU on average, 6.56 on the busiest
    under plain top-k, 7.61 under DeepSeek-V3's 4 of 8 groups (its simulation: 7.74).
    """
    E, k = n_experts, experts_per_token
    n = E // ep
    if ep <= 1 or n < 1:  # one GPU: the batch's distinct experts (flops.expected_active_experts)
        return E * (1 - (1 - k / E) ** tokens)
    t = np.asarray(tokens, dtype=float)
    if not t.ndim:
        return _busiest_scalar(E, k, float(t), ep, n_groups, groups_per_token)
    # where every GPU's experts are all touched but for n · a^t < SATURATED of an expert, the
    # busiest holds n to that much (it lies between the mean n (1 − a^t) and n): the long
    # batches of a plan's sweep need no distribution
    out = np.full(t.shape, float(n))
    open_ = n * (1 - k / E) ** t >= SATURATED
    if open_.any():
        out[open_] = _busiest_array(E, k, t[open_], ep, n_groups, groups_per_token)
    return out


# _busiest's answers by its exact arguments (the token counts' bytes): a plan times the same
# deployment's step table over the same token grid again and again
_ARRAYS: dict[tuple, np.ndarray] = {}
_ARRAYS_MAX = 128  # answers kept before the memo starts afresh


def _busiest_array(E, k, t, ep, n_groups, groups_per_token):
    """``_busiest`` at the token counts ``t`` (a float64 array), computed once per argument
    set (the caller copies the answer out; it is never handed on)."""
    args = (E, k, ep, n_groups, groups_per_token)
    key = (args, tuple(type(a) for a in args), t.shape, t.tobytes())
    hit = _ARRAYS.get(key)
    if hit is None:
        if len(_ARRAYS) >= _ARRAYS_MAX:
            _ARRAYS.clear()
        hit = _ARRAYS[key] = _busiest(E, k, t, ep, n_groups, groups_per_token)
        hit.flags.writeable = False  # shared: read only
    return hit


@lru_cache(maxsize=4096)
def _busiest_scalar(E, k, t, ep, n_groups, groups_per_token):
    """``busiest_active_experts`` at one token count (the step model's repeated scalars)."""
    if E // ep * (1 - k / E) ** t < SATURATED:
        return float(E // ep)
    return float(_busiest(E, k, np.asarray(t), ep, n_groups, groups_per_token))


def _busiest(E, k, t, ep, n_groups, groups_per_token):
    """The module's approximation at the token counts ``t`` (an array) [experts]."""
    n = E // ep
    a1, a_same, a_cross = _avoid(E, k, n_groups, groups_per_token)
    q = a1**t  # one expert untouched
    x = np.arange(n)
    all_below = np.ones((n, *t.shape))  # P(every GPU touches at most x)
    for count, sizes in gpu_group_blocks(E, n_groups, ep):
        same = sum(s * (s - 1) for s in sizes)  # ordered pairs within one group
        var = n * q * (1 - q) + same * (a_same**t - q * q) + (n * (n - 1) - same) * (
            a_cross**t - q * q)  # fmt: skip
        all_below = all_below * _count_cdf(n, 1 - q, var, x) ** count
    busiest = np.sum(1.0 - all_below, axis=0)
    if n == 1:  # one expert a GPU: some GPU is touched whenever a token is routed
        busiest = np.where(t >= 1, 1.0, busiest)
    return busiest
