"""The engines' scheduling policies [tokens, blocks], each one step of a sequence group's
schedule written to be read beside the engine's own scheduler; the engine wing selects one per
engine release (``calc.deploy.engines``' ``SchedulerPolicy``, carried by ``Limits``).

- ``MixedBatches``: vLLM V1 (``vllm/v1/core/sched/scheduler.py`` ``Scheduler.schedule``):
  running requests first within the token budget (chunked prefill), then waiting ones; blocks
  allocated as tokens come; when the pool is out, the newest running request is preempted and
  recomputed later. With ``reserve_whole_request`` it is TensorRT-LLM's
  (``cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp`` GUARANTEED_NO_EVICT: a request is
  admitted only with the blocks of its prompt + output, so nothing is preempted;
  ``microBatchScheduler.cpp``: without chunked prefill, trtllm-serve's default, a prompt runs
  whole in one iteration or waits).
- ``PrefillFirst``: SGLang (``srt/managers/scheduler.py`` ``get_next_batch_to_run``,
  ``schedule_policy.py`` ``PrefillAdder``): a prefill batch whenever one forms, the decoders
  waiting; a prompt is admitted only while the pool, less the running requests' future tokens
  (remaining outputs × ``new_token_ratio``, each clipped), holds it and its own, and while the
  batch's new prompt tokens stay within ``--max-prefill-tokens`` (``rem_input_tokens``,
  ``Limits.prefill_input``); after a failed
  admission nothing is admitted until a request leaves (``batch_is_full``); a decode batch that
  runs out of pages retracts the requests with the fewest outputs. Without a prefix cache
  (``--disable-radix-cache``) and with every request running to its output length
  (``ignore_eos``), a prompt is admitted only if every running request can still finish as the
  shorter ones free their tokens (``add_one_req_ignore_eos``, ``Limits.fixed_lengths``). Its
  overlap scheduler (``event_loop_overlap``) forms each batch while the GPU runs the one
  before, so a request arriving during batch k first joins batch k + 2
  (``Limits.schedule_ahead``: the group state takes in only the arrivals up to the start of
  the last batch, ``GroupState.seen``).
"""

from __future__ import annotations

from calc.serve.group_state import GroupState, cdiv
from calc.serve.iteration import (
    chunk_iteration,
    decode_stretch,
    exact_iteration,
    exact_schedule,
)


class MixedBatches:
    """vLLM V1's scheduler (TensorRT-LLM's with whole-request reservation)."""

    def __init__(self, limits) -> None:
        self.reserve = limits.reserve_whole_request
        self.chunked = limits.chunked_prefill

    def prepare(self, s: GroupState) -> None:
        """Nothing to set: preempted requests go back to the head of the queue."""

    def on_idle(self, s: GroupState) -> None:
        """Nothing is kept between busy periods."""

    def admit(self, s: GroupState, budget: int, n_running: int) -> list[tuple[int, int]]:
        """Waiting requests, first come first served, while the token budget, max_num_seqs and
        the pool allow (the first that cannot get its blocks stops admission): (request, first
        chunk) each, its blocks taken from the pool (vLLM's waiting loop; TensorRT-LLM's
        capacity scheduler, then its micro-batch scheduler's context requests)."""
        out: list[tuple[int, int]] = []
        ntok, computed, shared, B = s.ntok, s.computed, s.shared, s.B
        waiting, max_seqs, chunked, reserve = s.waiting, s.max_seqs, self.chunked, self.reserve
        while waiting and budget > 0 and n_running + len(out) < max_seqs:
            w = waiting[0]
            left = ntok[w] - computed[w]
            if chunked:
                k = charge = left if left < budget else budget
            else:  # the whole prompt in one iteration, charged at its full length
                k, charge = left, ntok[w]
                if charge > budget:
                    break
            if reserve:
                need = -(-(s.prompt[w] + s.gen[w] - shared[w]) // B)
            else:
                need = -(-(computed[w] + k - shared[w]) // B)
            if need > s.free:
                break
            s.admit(w, need)
            out.append((w, k))
            budget -= charge
        return out

    def step(self, s: GroupState, step) -> None:
        """One iteration: all aggregate decoders and the request in prefill within the budget,
        then admission (``Scheduler.schedule``); else the exact rules."""
        b, M, pf, B, g = s.n_dec, s.M, s.pf, s.B, s.g
        k_p = need_p = 0
        if pf >= 0:
            h = s.computed[pf]
            k_p = min(s.ntok[pf] - h, M - b)
            need_p = max(0, -(-(h + k_p - s.shared[pf]) // B) - s.blocks[pf])
        if b > M or s.force_slow or (pf >= 0 and k_p <= 0):
            self.exact(s, step)
            return
        need_dec = s.cnt[(-g) % B] if b else 0
        preempted = need_dec + need_p > s.free
        if preempted:
            need_dec, need_p = self.preempt_tail(s, need_dec, need_p)
            b = s.n_dec
            if s.pf < 0:
                k_p = 0
        waiting = s.waiting
        if s.bw_iters and self.reserve and b and not preempted and (s.pf >= 0 or waiting):
            held = self.batch_wait(s, b, s.ntok[pf] if pf >= 0 else 0, M - b - k_p,
                                   len(s.running))  # fmt: skip
            if held:  # the contexts wait beside the decoders (their blocks untouched)
                s.take(need_dec)
                s.bw_count += decode_stretch(s, step, b, s.sum_off + b * (g + 1), False, held)
                if s.heap and s.heap[0][0] <= s.g:
                    s.finish_decoders()
                return
        need = need_dec + need_p
        s.free -= need
        s.used += need
        if s.pf < 0 and (preempted or not waiting):  # decode only, nothing to admit
            if b:
                decode_stretch(s, step, b, s.sum_off + b * (g + 1), preempted)
                heap = s.heap
                if heap and heap[0][0] <= s.g:
                    s.finish_decoders()
            return  # (no decoder left: a preemption emptied the batch, schedule again)
        chunks: list[tuple[int, int]] = []
        sched: list[tuple[int, int]] = []
        computed = s.computed
        if s.pf >= 0:
            s.blocks[pf] += need_p
            chunks.append((computed[pf], k_p))
            sched.append((pf, k_p))
        if waiting and not preempted:
            running = s.running
            for w, k in self.admit(s, M - b - k_p, len(running)):
                running[w] = None
                chunks.append((computed[w], k))
                sched.append((w, k))
        ctx_sum = s.sum_off + b * (g + 1) if b else 0
        if not sched and not b:
            return  # a preemption emptied the batch: schedule again
        if sched:
            chunk_iteration(s, step, b, ctx_sum, chunks, sched)
        else:
            decode_stretch(s, step, b, ctx_sum, preempted)
        heap = s.heap
        if heap and heap[0][0] <= s.g:
            s.finish_decoders()

    def batch_wait(self, s: GroupState, gens: int, ctx_tokens: int, budget: int,
                   n_running: int) -> int:  # fmt: skip
        """TensorRT-LLM's batch waiting (``_apply_batch_waiting``, checked with context and
        generation requests both scheduled; GUARANTEED_NO_EVICT only, where holding a context
        moves no block): the contexts this iteration schedules (those running, of
        ``ctx_tokens`` tokens, then the waiting ones admission would take within ``budget``,
        without taking them) are held while the iterations held stay below T and their tokens
        (each its whole sequence) + one a decoder (``gens``) stay below the threshold. Returns
        the iterations they may still be held (0: they go now, and the count restarts)."""
        tokens, n_ctx, free = gens + ctx_tokens, 0, s.free
        ntok, computed, B = s.ntok, s.computed, s.B
        for w in s.waiting:  # ``admit``'s loop, nothing taken
            if budget <= 0 or n_running + n_ctx >= s.max_seqs:
                break
            charge = min(ntok[w] - computed[w], budget) if self.chunked else ntok[w]
            need = cdiv(s.prompt[w] + s.gen[w] - s.shared[w], B)
            if charge > budget or need > free:
                break
            free -= need
            budget -= charge
            tokens += ntok[w]
            n_ctx += 1
        if not (n_ctx or ctx_tokens):
            return 0  # no context scheduled: nothing checked
        if s.bw_count < s.bw_iters and tokens < s.bw_tokens:
            return s.bw_iters - s.bw_count
        s.bw_count = 0
        return 0

    def preempt_tail(self, s: GroupState, need_dec: int, need_p: int) -> tuple[int, int]:
        """Preempt from the tail of the running requests (the one in prefill, then the latest
        decoders) until the rest get their blocks: what the one-by-one rule ends with.
        Returns the blocks the decoders and the request in prefill still need."""
        total = need_dec + need_p
        while total > s.free:
            v, _ = s.running.popitem()
            if v == s.pf:
                total -= need_p
                s.pf = -1
            else:
                total -= s.decoder_needs_block(v)
                s.drop_decoder(v)
            s.preempt(v)
        need_dec = s.cnt[(-s.g) % s.B] if s.n_dec else 0
        return need_dec, (need_p if s.pf >= 0 else 0)

    def exact(self, s: GroupState, step) -> None:
        """The exact rules for one iteration (the budget short of the decoders, or several
        requests in prefill): every running request one at a time, then admission."""
        s.materialise()
        rl, sched, budget, preempted = exact_schedule(s, s.M)
        if s.bw_iters and self.reserve and not preempted:
            ctx = [rk for rk in sched if not (rk[1] == 1 and s.is_decoding(rk[0]))]
            gens = len(sched) - len(ctx)
            if gens and (ctx or s.waiting) and self.batch_wait(
                    s, gens, sum(s.ntok[r] for r, _ in ctx), budget, len(rl)):  # fmt: skip
                s.bw_count += 1  # held: the decoders alone, one iteration
                exact_iteration(s, step, rl, [rk for rk in sched if rk not in ctx])
                return
        if not preempted:
            for w, k in self.admit(s, budget, len(rl)):
                rl.append(w)
                sched.append((w, k))
        exact_iteration(s, step, rl, sched)


class PrefillFirst:
    """SGLang's scheduler: prefill batches apart and first, admission with room for the running
    requests' future tokens, retraction of the fewest-output requests when decode runs out."""

    def __init__(self, limits) -> None:
        f = limits.future_tokens
        self.init = f.init_ratio
        self.min = f.init_ratio * f.min_ratio_factor
        self.decay = (self.init - self.min) / f.decay_steps
        self.clip = f.clip
        self.retract_steps = f.retract_steps
        self.page = limits.block_size if f.page_reserve else 0
        self.fixed = limits.fixed_lengths
        self.own_steps, self.reserve, self.gate = f.own_steps, f.exact_reserve, f.input_gate
        self.headroom = f.retract_headroom
        # --max-prefill-tokens (PrefillAdder rem_input_tokens): the batch's prompt tokens,
        # counted in pages or not, and the test before a request (None: a bound never met)
        cap = limits.prefill_input
        self.input_cap = cap.tokens if cap is not None else None
        self.input_page = limits.block_size if cap is not None and cap.paged else 1
        self.input_test = cap is not None and (cap.check != "unchunked" or
                                               not limits.chunked_prefill)  # fmt: skip
        self.input_ge = cap is not None and cap.check != "gt"
        # chunked prefill off (--chunked-prefill-size -1: rem_chunk_tokens None): each prompt
        # whole, the batch bounded by the prompt tokens alone
        self.chunked = limits.chunked_prefill

    def prepare(self, s: GroupState) -> None:
        s.clip = self.clip
        s.requeue_front = False  # a retracted request rejoins the queue at its end
        self.on_idle(s)

    def on_idle(self, s: GroupState) -> None:
        """Idle: the ratio returns to its initial value (``NewTokenRatioTracker.reset``)."""
        s.ratio_base = self.init
        s.ratio_steps = 0

    def ratio(self, s: GroupState) -> float:
        """``new_token_ratio``: decays by ``decay`` per decode batch to its floor."""
        return max(self.min, s.ratio_base - s.ratio_steps * self.decay)

    def step(self, s: GroupState, step) -> None:
        """``get_next_batch_to_run``: a prefill batch if one forms, else a decode batch."""
        if s.n_dec == 0:
            s.full = False  # an empty running batch cannot stay full
        if (s.pf >= 0 or (s.waiting and not s.full)) and self.prefill_batch(s, step):
            return
        self.decode_batch(s, step)

    def prefill_batch(self, s: GroupState, step) -> bool:
        """``get_new_batch_prefill``: the request in chunked prefill continues, then waiting
        requests are admitted (``PrefillAdder``); the decoders wait. False: none formed."""
        page, clip = self.page, self.clip
        room = s.free * s.B - self.ratio(s) * s.future_tokens()  # rem_total_tokens
        budget = s.M if self.chunked else 1 << 62
        rem_in = self.input_cap if self.input_cap is not None else 1 << 62  # rem_input_tokens
        chunks: list[tuple[int, int]] = []
        sched: list[tuple[int, int]] = []
        pf = s.pf
        if pf >= 0:
            k, left = self.continue_chunk(s, pf, room)
            if k <= 0:
                del s.running[pf]
                s.pf = -1
                s.preempt(pf)
            else:
                chunks.append((s.computed[pf], k))
                sched.append((pf, k))
                room -= cdiv(k, s.B) * s.B + page + (min(s.gen[pf], clip) if k == left else 0)
                budget = budget - k if k == left else 0
                rem_in -= cdiv(k, self.input_page) * self.input_page
        if not s.full:
            for w, k in self.admit(s, budget, len(s.running), room, rem_in, bool(sched)):
                s.running[w] = None
                chunks.append((s.computed[w], k))
                sched.append((w, k))
        if not sched:
            return False
        chunk_iteration(s, step, 0, 0, chunks, sched)
        return True

    def continue_chunk(self, s: GroupState, r: int, room: float) -> tuple[int, int]:
        """``add_chunked_req``: the next chunk of request r in prefill, at most the chunk size
        and the memory left (``available_chunk_tokens``), its blocks taken. (chunk, tokens
        left before it)."""
        left = s.ntok[r] - s.computed[r]
        room_int = int(room)
        k = min(left, min(s.M, room_int) if room_int > 0 else s.M)
        held = s.computed[r] - s.shared[r]
        k = min(k, (s.blocks[r] + s.free) * s.B - held)  # what its blocks and the pool hold
        if k > 0:
            need = max(0, cdiv(held + k, s.B) - s.blocks[r])
            s.take(need)
            s.blocks[r] += need
        return k, left

    def admit(self, s: GroupState, budget: int, n_running: int, room: float, rem_in: int,
              started: bool):  # fmt: skip
        """``PrefillAdder.add_one_req`` for each waiting request in turn: admitted while its
        tokens left + its remaining outputs (clipped) + one page stay under ``room``; a failure
        marks the batch full. ``rem_in``: the batch's prompt tokens left (``rem_input_tokens``,
        after the chunk of the request in prefill, ``started``): the batch ends once it is
        spent, and a request whose tokens left exceed (or reach) it waits, the batch not empty,
        where the release tests it first (``input_test``; not ``add_one_req_ignore_eos``).
        (request, chunk) each, its chunk's blocks taken."""
        out: list[tuple[int, int]] = []
        ntok, computed, shared, prompt, gen, B = s.ntok, s.computed, s.shared, s.prompt, \
            s.gen, s.B  # fmt: skip
        states = self.finish_states(s) if self.fixed and s.waiting else None
        while s.waiting and budget > 0:
            if n_running + len(out) >= s.max_seqs:
                s.full = True
                break
            w = s.waiting[0]
            left = ntok[w] - computed[w]
            total = left + min(gen[w] - (ntok[w] - prompt[w]), self.clip) + self.page
            k = min(left, budget)
            need = cdiv(computed[w] + k - shared[w], B)
            if states is not None:  # add_one_req_ignore_eos: no test of room before
                fits = need <= s.free and (not self.gate or left + self.page <= room)
                fits = fits and self.fits_to_finish(s, states, w)
            else:
                fits = total < room and need <= s.free
            if not fits:
                s.full = bool(out) or n_running > 0
                break
            if self.input_test and states is None and (out or started):
                want = cdiv(left, self.input_page) * self.input_page
                if want > rem_in or (self.input_ge and want == rem_in):
                    break  # AddReqResult.OTHER: the batch is not full
            s.admit(w, need)
            out.append((w, k))
            room -= cdiv(k, B) * B + self.page + (min(gen[w], self.clip) if k == left else 0)
            budget -= k
            if k < left:
                break  # a chunked request ends the batch
            if states is not None and (room <= 0 or s.free <= 0):
                s.full = True  # budget_state: NO_TOKEN once the request is in
                break
            rem_in -= cdiv(k, self.input_page) * self.input_page
            if rem_in <= 0:
                break  # budget_state: OTHER once the batch's prompt tokens are spent
        return out

    def finish_states(self, s: GroupState) -> list:
        """The running requests' tokens left and tokens held [tokens] (those with tokens left),
        sorted by tokens left as ``add_one_req_ignore_eos`` first lists them, and whether a
        candidate was inserted yet."""
        g, fin, off, is_dec, gen, ntok, prompt = s.g, s.fin, s.off, s.is_dec, s.gen, s.ntok, \
            s.prompt  # fmt: skip
        pairs = []
        for r in s.running:
            if is_dec[r]:
                pairs.append((fin[r] - g, off[r] + g + 1))
            else:  # the request in chunked prefill
                pairs.append((gen[r] - (ntok[r] - prompt[r]), ntok[r]))
        pairs = sorted((p for p in pairs if p[0] > 0), key=lambda p: p[0])  # stable
        return [[p[0] for p in pairs], [p[1] for p in pairs], False]

    def fits_to_finish(self, s: GroupState, states: list, w: int) -> bool:
        """``add_one_req_ignore_eos``'s test for waiting request w: with w among the running
        requests sorted by tokens left, the i-th shortest and every longer one each decode a
        horizon's tokens in the pool less w's prompt plus what the shorter ones free [tokens],
        above ``exact_reserve`` a request; the horizon is the request's own tokens left, or
        in 0.4.0 the next-longer one's (the last its own). w stays listed (it is admitted or
        admission stops)."""
        import bisect

        import numpy as np

        left, held, inserted = states
        left_w = s.gen[w] - (s.ntok[w] - s.prompt[w])
        if left_w > 0:
            i = bisect.bisect_left(left, left_w)
            if inserted and left and i == len(left):
                i = len(left) - 1  # insert_sort's loop ends without a break: before the last
            left.insert(i, left_w)
            held.insert(i, s.ntok[w])
        states[2] = True
        if not left:
            return True
        L = np.asarray(left, dtype=np.int64)
        H = np.asarray(held, dtype=np.int64)
        bs = len(L) - np.arange(len(L))
        steps = L if self.own_steps else np.append(L[1:], L[-1])
        freed = np.cumsum(H) - H
        cur = s.free * s.B - s.prompt[w] - (self.page if self.gate else 0)
        return bool(np.all(cur + freed - steps * bs > self.reserve * bs))

    def decode_batch(self, s: GroupState, step) -> None:
        """``update_running_batch``: every decoder decodes; when the pool cannot hold the
        step's new pages, requests are retracted (``retract_decode``) and the ratio is
        re-estimated, else it decays; a stretch of decode batches in closed form."""
        if s.n_dec == 0:
            return
        need = s.cnt[(-s.g) % s.B]
        retracted = need > s.free
        if retracted:
            need = self.retract(s, need)
        s.take(need)
        b = s.n_dec
        k = decode_stretch(s, step, b, s.sum_off + b * (s.g + 1), retracted)
        if not retracted:
            s.ratio_steps += k
        s.finish_decoders()

    def retract(self, s: GroupState, need: int) -> int:
        """``retract_decode``: decoders ordered by (outputs, −prompt), the last retracted first,
        until the rest's new pages fit (0.4.0: and ``retract_steps`` free tokens are left for
        each; one always stays); the ratio becomes (outputs + steps ×
        requests) / (their max outputs + 1) over those left. Returns their pages needed."""
        g, prompt, off = s.g, s.prompt, s.off
        order = sorted((r for r in s.running if s.is_dec[r]),
                       key=lambda r: (off[r] + g + 1 - prompt[r], -prompt[r]),
                       reverse=True)  # fmt: skip
        while len(order) > 1:
            v = order.pop()
            need -= s.decoder_needs_block(v)
            s.drop_decoder(v)
            del s.running[v]
            s.preempt(v)
            if need <= s.free and (
                not self.headroom or s.free * s.B >= len(order) * self.retract_steps
            ):
                break
        outputs = sum(off[r] + g + 1 - prompt[r] for r in order)
        max_new = sum(s.gen[r] for r in order)
        s.ratio_base = min(1.0, (outputs + self.retract_steps * len(order)) / (max_new + 1))
        s.ratio_steps = 0
        return need


def policy_for(limits):
    """The policy the limits name (the engine wing's choice for the release)."""
    return PrefillFirst(limits) if limits.prefill_first else MixedBatches(limits)
