"""`plan`'s growth and bisection over replica counts with an evaluator that may stop a run at a
sure miss (``unless_missed``): the same choice, rejection and figures as without it; a count
whose run stopped is never the answer and its figures are never read."""

from __future__ import annotations

from calc.reports.plan import Choice, Rejection, grow
from calc.reports.plan_eval import LoadEval
from tests.test_plan import _screened, fake, query


def stopping(passes_from: int):
    """``fake(passes_from)`` with an ``unless_missed`` that answers None below it (a stopped
    run); records which counts each path was asked."""
    ev = fake(passes_from=passes_from)
    stopped: list[int] = []

    def unless_missed(dep, load, replicas, ttft_s, tpot_s) -> LoadEval | None:
        if replicas < passes_from:
            stopped.append(replicas)
            return None
        return ev(dep, load, replicas)

    ev.unless_missed = unless_missed
    ev.stopped = stopped
    return ev


def test_same_choice_with_runs_stopped_at_a_sure_miss():
    q = query()
    s = _screened(q)
    r0 = s.replicas_min
    for guide_from in (None, r0 + 2, r0 + 9):
        guide = None if guide_from is None else fake(passes_from=guide_from)
        plain = grow(q, s, fake(passes_from=r0 + 5), guide)
        ev = stopping(r0 + 5)
        c = grow(q, s, ev, guide)
        assert isinstance(c, Choice) and c.replicas == plain.replicas == r0 + 5
        assert c.evaluation == plain.evaluation  # the answer's figures from a whole run
        assert r0 + 5 not in ev.stopped
    # the growth from r0 (no guide): misses at r0 and r0 + 1 … stop; the bisection's too
    ev = stopping(r0 + 5)
    grow(q, s, ev)
    assert ev.stopped and all(r < r0 + 5 for r in ev.stopped)


def test_same_rejection_detail_at_the_cap():
    # nothing passes: the count at the cap runs whole, so the detail quotes its figures
    q = query()
    s = _screened(q)
    plain = grow(q, s, fake(passes_from=10**6))
    out = grow(q, s, stopping(10**6))
    assert isinstance(out, Rejection) and (out.reason, out.detail) == (plain.reason, plain.detail)
