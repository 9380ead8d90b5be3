"""The token times of one sequence group's requests [s]: every inter-token gap (ITL), kept as
(gap, count) pairs and decode stretches, and each request's longest gap, with no per-request
work for the decoders the scheduler keeps in aggregate (``calc.serve.scheduler``).

Every aggregate decoder produces a token in each decode iteration, so a decoder whose previous
token came at the end of the previous decode iteration (a *generic* decoder) has the gap
G_e = T_e − T_(e−1) of decode iteration e; one that joined since with an older token (its first
token in a prefill-only batch, a recompute, a request back from the exact rules) is kept in a
small *cohort* keyed by that token's time until the next decode iteration. A stretch of k
iterations gives the gaps d + γ (C + b j), j = 0 … k − 1, in closed form. Each request's longest
gap comes from a stack of suffix maxima of G (a stretch's gaps rise, so its last stands for it)
queried once when the request leaves the aggregate form.
"""

from __future__ import annotations

import math
from bisect import bisect_left


class TokenClock:
    """The gaps recorded so far and the state that times the aggregate decoders' tokens."""

    __slots__ = (
        "cohort",
        "cohort_n",
        "counts",
        "epoch",
        "flush_t",
        "gaps",
        "in_cohort",
        "itl_max",
        "join_e",
        "last_dec_t",
        "last_tok",
        "mono_e",
        "mono_v",
        "on",
        "prev_t",
        "runs",
    )  # fmt: skip

    def __init__(self, n: int, on: bool) -> None:
        self.on = on  # keep the gaps (off: a plan's or a check's run, no ITL asked)
        self.epoch = 0  # decode iterations so far
        self.last_dec_t = -math.inf  # end of the last decode iteration
        self.cohort: dict[float, int] = {}  # previous token time -> decoders
        self.cohort_n = 0
        self.join_e = [0] * n  # the epoch at which each decoder joined
        self.prev_t = [0.0] * n  # its previous token then
        self.in_cohort = [False] * n
        self.last_tok = [0.0] * n  # exact for requests outside the aggregate form
        self.flush_t: dict[int, float] = {}  # epoch -> its end, where cohorts decoded
        self.mono_e: list[int] = []  # suffix maxima of G: epochs (rising), gaps (falling)
        self.mono_v: list[float] = []
        self.gaps: list[float] = []
        self.counts: list[int] = []
        self.runs: list[tuple] = []  # stretches (d, γ, C, b, k)
        self.itl_max = [0.0] * n

    def decode_epoch(self, t_end: float, n_dec: int, stretch=None) -> None:
        """Every aggregate decoder (``n_dec``) produced a token at ``t_end``: one decode
        iteration; with ``stretch`` (d, γ, C, b, k), k − 1 more after it (their gaps rise)."""
        epoch = self.epoch = self.epoch + 1
        mono_v, mono_e = self.mono_v, self.mono_e
        if self.last_dec_t > -math.inf:
            gap = t_end - self.last_dec_t
            while mono_v and mono_v[-1] <= gap:  # suffix maxima of G
                mono_v.pop()
                mono_e.pop()
            mono_e.append(epoch)
            mono_v.append(gap)
            if n_dec > self.cohort_n:
                self.gaps.append(gap)
                self.counts.append(n_dec - self.cohort_n)
        if self.cohort_n:
            self.flush_t[epoch] = t_end
            for tau, c in self.cohort.items():
                self.gaps.append(t_end - tau)
                self.counts.append(c)
            self.cohort.clear()
            self.cohort_n = 0
        self.last_dec_t = t_end
        if stretch is not None:
            d, slope, ctx_sum, b, k = stretch
            self.runs.append(stretch)
            epoch = self.epoch = epoch + k - 1
            gap = d + slope * (ctx_sum + b * (k - 1))  # the stretch's largest
            while mono_v and mono_v[-1] <= gap:
                mono_v.pop()
                mono_e.pop()
            mono_e.append(epoch)
            mono_v.append(gap)

    def token(self, r: int, t: float, first_token: list) -> None:
        """Request r produced a token at t, one request at a time (outside the aggregate)."""
        if first_token[r] < 0:
            first_token[r] = t
        elif self.on:
            gap = t - self.last_tok[r]
            self.gaps.append(gap)
            self.counts.append(1)
            if gap > self.itl_max[r]:
                self.itl_max[r] = gap
        self.last_tok[r] = t

    def join(self, r: int) -> None:
        """Request r joins the aggregate decoders: generic if its previous token is the last
        decode iteration's, else in the cohort of that token's time."""
        self.join_e[r] = self.epoch
        pt = self.last_tok[r]
        self.prev_t[r] = pt
        if pt != self.last_dec_t:
            self.in_cohort[r] = True
            self.cohort[pt] = self.cohort.get(pt, 0) + 1
            self.cohort_n += 1
        else:
            self.in_cohort[r] = False

    def leave(self, r: int) -> None:
        """Request r leaves the aggregate decoders: its longest gap since it joined (from the
        suffix maxima) and its last token's time become exact again."""
        if self.epoch > self.join_e[r]:  # it decoded since it joined
            lo = self.join_e[r] + 1
            m = 0.0
            if self.in_cohort[r]:
                m = self.flush_t[lo] - self.prev_t[r]
                lo += 1
            i = bisect_left(self.mono_e, lo)
            if i < len(self.mono_e) and self.mono_v[i] > m:
                m = self.mono_v[i]
            if m > self.itl_max[r]:
                self.itl_max[r] = m
            self.last_tok[r] = self.last_dec_t
        elif self.in_cohort[r]:
            pt = self.prev_t[r]
            c = self.cohort[pt] - 1
            if c:
                self.cohort[pt] = c
            else:
                del self.cohort[pt]
            self.cohort_n -= 1
