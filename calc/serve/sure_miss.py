"""Whether a simulation's p99 TTFT or TPOT is already sure to exceed its limit before every
sequence group has run [requests]: enough requests past it that no later group can bring the p99
back under, so a search that needs only pass or fail (``kvcalc plan``'s bisection over replica
counts) can stop a run early. The figures of a run that completes are untouched."""

from __future__ import annotations

# a value counts as past a limit only above limit × (1 + this): the TPOT the tally reports
# later is (finish + hold) − (first token + hold), which may round a few ulp from finish − first
ROUNDING = 1e-9


def past_p99(n: int) -> int:
    """How many of n values above a limit make their p99 exceed it whatever the others are:
    numpy's (linear) p99 lies between the sorted values f and f + 1 (0-based), f = ⌊0.99 (n −
    1)⌋; with n − f + 1 values above the limit, the sorted values f − 1, f and f + 1 all are
    (one to spare for the rounding of 0.99 (n − 1)). Example: n = 1,000: f = 989, 12 values."""
    return n - (n - 1) * 99 // 100 + 1


class MissCount:
    """Requests past the TTFT and TPOT limits [s] so far, against the counts that settle each
    p99 (``past_p99`` of the requests with a TTFT, and of those with a TPOT: two or more output
    tokens)."""

    def __init__(self, ttft_s: float, tpot_s: float, gen) -> None:
        self.ttft_s = ttft_s * (1 + ROUNDING)
        self.tpot_s = tpot_s * (1 + ROUNDING)
        self.need_ttft = past_p99(len(gen))
        self.need_tpot = past_p99(int((gen > 1).sum()))
        self.ttft = self.tpot = 0

    def sure(self, first, finish, sent, gen) -> bool:
        """Add one group's requests (numpy arrays: first token, finish, sent [s], output
        tokens); whether a p99 is now sure to miss. A TTFT only grows later (the front-end's
        hand-out adds to it), a TPOT stays."""
        self.ttft += int((first - sent > self.ttft_s).sum())
        many = gen > 1
        self.tpot += int(((finish[many] - first[many]) / (gen[many] - 1) > self.tpot_s).sum())
        return self.ttft >= self.need_ttft or self.tpot >= self.need_tpot
