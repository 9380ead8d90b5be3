"""Numbers as text [ASCII bytes], a whole numpy array at a time: integers as ``str(int)``
writes them and floats as ``repr(float)`` does (the shortest digits that read back to the same
float), for the sweep writers, where per-value Python formatting would cost more than the
arithmetic.

Each function returns a uint8 matrix, one row per value, the text left- or right-aligned and
padded with NUL bytes (0), which ``join_rows`` deletes when it joins the cells of a row.

Floats: ``x`` = 0.D × 10^(e+1) for the shortest digit string D that reads back to ``x``. The
exact product x × 10^(16−e) comes from Dekker's two-product (no rounding: 10^j, j ≤ 22, is a
double), so its nearest integer N17 is x correctly rounded to 17 significant digits, which
always reads back (17 digits identify every double). N17 rounded to 16 and to 15 digits is kept
when it lies within half an ulp of ``x`` (it then reads back); trailing zeros are then dropped,
so a value whose shortest form has fewer digits gets exactly that form. Values outside
1e-4 ≤ |x| < 1e16 (where repr switches to exponent notation), NaN and ±inf take Python's repr.
"""

from __future__ import annotations

import numpy as np

_DIGITS4 = np.array([list(f"{i:04d}".encode()) for i in range(10_000)], dtype=np.uint8)
_DIGITS4_U32 = _DIGITS4.view(np.uint32).reshape(-1)  # four characters in one gather
_POW10 = np.array([10**k for k in range(19)], dtype=np.int64)
_POW10_F = np.array([10.0**k for k in range(23)])  # exact doubles up to 10^22
_SPLIT = 134217729.0  # 2^27 + 1 (Dekker)
_POW10_HI = _SPLIT * _POW10_F - (_SPLIT * _POW10_F - _POW10_F)  # Dekker halves of 10^j
_POW10_LO = _POW10_F - _POW10_HI
_MANTISSA = np.uint64((1 << 52) - 1)
NUL = 0


def keep_heap() -> None:
    """Ask glibc's malloc to keep freed memory for reuse (no trimming of the heap, no mmap per
    large block). Formatting a chunk makes dozens of temporary arrays of a few hundred KiB;
    by default each is mapped afresh and its pages faulted in and zeroed by the kernel, which
    costs as much as the arithmetic. The heap then stays at its peak, one chunk's worth,
    which does not grow with the row count. Elsewhere than glibc this does nothing."""
    global _HEAP_KEPT
    if _HEAP_KEPT:
        return
    _HEAP_KEPT = True
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):  # no C library to load, or no mallopt
        return
    # mallopt(param, value): M_TRIM_THRESHOLD -1, M_TOP_PAD -2, M_MMAP_THRESHOLD -3
    mallopt(-3, 1 << 30)
    mallopt(-1, 1 << 31)
    mallopt(-2, 64 << 20)


_HEAP_KEPT = False


def _words(v: np.ndarray, n_words: int) -> list[np.ndarray]:
    """Non-negative int64 ``v`` as ``n_words`` base-10,000 digits, the most significant first."""
    out = []
    for _ in range(n_words):
        q = v // 10_000  # by a constant: numpy's fast path (np.divmod is ~10× slower)
        out.append(v - q * 10_000)
        v = q
    return out[::-1]


def _table(strip) -> np.ndarray:
    """Four characters in one uint32 per value 0..9,999 with ``strip`` applied (the zeros it
    removes become NULs, keeping each character in its place), then the 10,000 unstripped."""
    rows = [strip(f"{i:04d}") for i in range(10_000)] + [f"{i:04d}" for i in range(10_000)]
    text = "".join(rows).replace(" ", "\0").encode()
    return np.frombuffer(text, dtype=np.uint8).view(np.uint32).copy()


# leading zeros blank (an integer's first word), trailing zeros blank (a fraction's last word)
_LEAD = _table(lambda t: t.lstrip("0").rjust(4))
_TRAIL = _table(lambda t: t.rstrip("0").ljust(4))


def _spell(words: list[np.ndarray], table: np.ndarray, reverse: bool) -> np.ndarray:
    """uint8 [n, 4 × len(words)]: each word through ``table``'s blanking half until a nonzero
    word has been met, walking from the left (``reverse`` False: leading zeros) or from the
    right (True: trailing zeros), its plain half after."""
    out = np.empty((words[0].size, len(words)), dtype=np.uint32)
    seen = np.zeros(words[0].size, dtype=np.int64)  # 10,000 once a nonzero word is met
    order = list(range(len(words) - 1, -1, -1) if reverse else range(len(words)))
    for k in order:
        w = words[k]
        out[:, k] = table[w + seen]
        if k != order[-1]:
            seen |= (w != 0) * 10_000  # (10,000 | 10,000 = 10,000)
    return out.view(np.uint8)


def n_digits(v: np.ndarray) -> np.ndarray:
    """Decimal digits of non-negative int64 ``v`` (0 has one)."""
    return np.maximum(np.searchsorted(_POW10, v, side="right"), 1)


def int_matrix(v: np.ndarray) -> np.ndarray:
    """``str(v)`` for every int64 ``v``: right-aligned, NUL-padded on the left."""
    v = np.asarray(v, dtype=np.int64).reshape(-1)
    neg = v < 0
    a = np.abs(v)  # int64 min has no absolute value; sweep values never reach it
    width = int(n_digits(np.array([a.max(initial=0)]))[0])
    out = _spell(_words(a, -(-width // 4)), _LEAD, reverse=False)[:, -width:]
    last = out[:, -1]
    last[last == NUL] = ord("0")  # 0: every word blank
    if neg.any():
        sign = np.where(neg, ord("-"), NUL).astype(np.uint8)
        # the sign goes just before the first digit: a column at the left is enough, the
        # NULs between vanish when the row is joined
        out = np.concatenate([sign[:, None], out], axis=1)
    return out


def _two_product(a: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, err) with p + err == a × 10^j exactly (Dekker; no FMA needed; 10^j, j ≤ 22, is an
    exact double whose halves are tabulated)."""
    b, bh, bl = _POW10_F[j], _POW10_HI[j], _POW10_LO[j]
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, err


def _shortest(ax: np.ndarray):
    """(N, e, ok) for positive finite ``ax``: N the shortest digits (no trailing zeros), e the
    decimal exponent of the first digit; ok False where the fast path does not apply."""
    # log10 in single precision (several times faster): one off at worst, which the loop
    # below corrects
    e = np.floor(np.log10(ax.astype(np.float32))).astype(np.int64)
    ok = (e >= -4) & (e <= 15)
    e = np.clip(e, -4, 15)
    j = 16 - e
    ph, pl = _two_product(ax, j)
    # log10 may be one off near a power of ten: bring N17 into [10^16, 10^17)
    for _ in range(2):
        low = ph < 1e16
        high = ph >= 1e17
        fix = (low | high) & ok
        if not fix.any():
            break
        e = np.where(fix & low, e - 1, np.where(fix & high, e + 1, e))
        ok &= (e >= -4) & (e <= 15)
        e = np.clip(e, -4, 15)
        j = 16 - e
        ph, pl = _two_product(ax, j)
    if not ok.all():
        ph = np.where(ok, ph, 1e16)
        pl = np.where(ok, pl, 0.0)
    rl = np.rint(pl)
    n17 = ph.astype(np.int64) + rl.astype(np.int64)
    r17 = pl - rl  # p = n17 + r17 exactly, |r17| <= 0.5
    # half the gap to the nearer neighbour, in the same scaled units (exact: a power of two
    # times 10^j)
    gap = np.spacing(ax)  # the gap above; below a power of two the gap is half as wide
    pow2 = (ax.view(np.uint64) & _MANTISSA) == 0
    if pow2.any():
        gap = np.where(pow2, gap * 0.5, gap)
    half = gap * (0.5 * _POW10_F[j]) - 1e-9  # a margin far above the rounding of t below
    q16 = n17 // 10
    t16 = (n17 - q16 * 10) + r17
    up16 = t16 > 5
    tie = t16 == 5
    if tie.any():  # a tie: to even, as repr does
        up16 |= tie & ((q16 & 1) == 1)
    ok16 = np.abs(t16 - 10 * up16) < half
    q15 = n17 // 100
    t15 = (n17 - q15 * 100) + r17
    up15 = t15 > 50
    tie = t15 == 50
    if tie.any():
        up15 |= tie & ((q15 & 1) == 1)
    ok15 = np.abs(t15 - 100 * up15) < half
    n = np.where(ok15, q15 + up15, np.where(ok16, q16 + up16, n17))
    d = np.where(ok15, 15, np.where(ok16, 16, 17))
    carry = n == _POW10[d]  # 99..9 rounded up: one digit fewer, exponent one up
    if carry.any():
        n = np.where(carry, n // 10, n)
        e = np.where(carry, e + 1, e)
        ok &= e <= 15
    if not ok.all():
        n = np.where(ok, n, 1)
    # drop trailing zeros: d = digits left
    idx = np.flatnonzero(n == (n // 10) * 10)
    while idx.size:
        n[idx] //= 10
        d[idx] -= 1
        m = n[idx]
        idx = idx[m == (m // 10) * 10]
    return n, d, e, ok


def float_matrix(x: np.ndarray, nan: bytes = b"") -> np.ndarray:
    """``repr(x)`` for every float64 ``x`` (NaN as ``nan``): NUL-padded uint8 rows."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    ax = np.abs(x)
    fast = (ax >= 1e-4) & (ax < 1e16)  # positional in repr; NaN, inf and 0 are not
    idx = None if fast.all() else np.flatnonzero(fast)
    body = _positional(x if idx is None else x[idx])
    if idx is None:
        return body
    out = np.zeros((x.size, max(body.shape[1], len(nan))), dtype=np.uint8)
    out[idx, : body.shape[1]] = body
    isnan = np.isnan(x)
    if nan and isnan.any():
        out[np.flatnonzero(isnan), : len(nan)] = np.frombuffer(nan, dtype=np.uint8)
    slow = np.flatnonzero(~fast & ~isnan)  # 0, ±inf, tiny and huge values: Python's repr
    if slow.size:
        out = _overlay(out, slow, [repr(v).encode() for v in x[slow].tolist()])
    return out


def _positional(x: np.ndarray) -> np.ndarray:
    """repr of floats with 1e-4 <= |x| < 1e16 (positional notation), rows that the fast
    path cannot take (rare: near 1e16) by Python's repr."""
    n, d, e, ok = _shortest(np.abs(x))
    # positional: L fraction digits; I the integer part, F the fraction as an integer
    frac_len = d - 1 - e
    small = np.maximum(frac_len, 0)
    big = np.maximum(-frac_len, 0)  # integer-valued: N × 10^big, fraction "0"
    p_small = _POW10[np.minimum(small, 18)]
    whole = np.where(e < 0, 0, n // p_small) * _POW10[np.minimum(big, 18)]
    frac = np.where(e < 0, n, n % p_small)
    if not ok.all():
        whole[~ok] = 0
        frac[~ok] = 0
        small[~ok] = 0
    if (whole == 0).all():  # every value below 1 (a time in seconds): one "0" column
        int_part = np.full((x.size, 1), ord("0"), dtype=np.uint8)
    else:
        int_part = int_matrix(whole)
    # the fraction, left-aligned in 20 columns: F × 10^(20 − L) split into 8 + 12 digits (two
    # and three words), its trailing zeros blank; a fraction 0 is one "0"
    width = max(int(small.max(initial=0)), 1)
    s = 20 - small
    shift_hi = _POW10[np.clip(s - 12, 0, 18)]
    div = _POW10[np.clip(12 - s, 0, 18)]
    wide = s >= 12
    hi = np.where(wide, frac * shift_hi, frac // div)
    words = _words(hi, 2)
    if width > 8:
        words += _words(np.where(wide, 0, (frac % div) * _POW10[np.clip(s, 0, 18)]), 3)
    frac_part = _spell(words, _TRAIL, reverse=True)[:, :width]
    first = frac_part[:, 0]
    first[first == NUL] = ord("0")
    rows = x.size
    dot = np.full((rows, 1), ord("."), dtype=np.uint8)
    parts = [int_part, dot, frac_part]
    negative = x < 0
    if negative.any():
        parts.insert(0, negative.astype(np.uint8)[:, None] * np.uint8(ord("-")))
    out = np.concatenate(parts, axis=1)
    bad = np.flatnonzero(~ok)
    if bad.size:
        out = _overlay(out, bad, [repr(v).encode() for v in x[bad].tolist()])
    return out


def _overlay(out: np.ndarray, idx: np.ndarray, texts: list[bytes]) -> np.ndarray:
    """``out`` with rows ``idx`` replaced by ``texts`` (widened if needed)."""
    width = max([out.shape[1]] + [len(t) for t in texts])
    if width > out.shape[1]:
        out = np.concatenate(
            [out, np.zeros((out.shape[0], width - out.shape[1]), dtype=np.uint8)], axis=1
        )
    out[idx] = NUL
    for i, t in zip(idx.tolist(), texts, strict=True):
        out[i, : len(t)] = np.frombuffer(t, dtype=np.uint8)
    return out


def number_matrix(a: np.ndarray, nan: bytes = b"") -> np.ndarray:
    """Text of a numeric array: integers (and integer-valued floats below 2^53) as ints,
    other floats as repr, booleans as true/false, NaN as ``nan``."""
    a = np.asarray(a).reshape(-1)
    if a.dtype.kind == "b":
        return text_matrix([b"true", b"false"])[np.where(a, 0, 1)]
    if a.dtype.kind in "iu":
        return int_matrix(a)
    whole = np.isfinite(a) & (np.abs(a) < 2**53) & (a == np.floor(a))
    if whole.all():
        return int_matrix(a.astype(np.int64))
    out = float_matrix(a, nan)
    if whole.any():
        idx = np.flatnonzero(whole)
        ints = int_matrix(a[idx].astype(np.int64))
        if ints.shape[1] > out.shape[1]:
            out = np.concatenate(
                [out, np.zeros((out.shape[0], ints.shape[1] - out.shape[1]), np.uint8)], axis=1
            )
        out[idx] = NUL
        out[idx, : ints.shape[1]] = ints
    return out


def text_matrix(texts: list[bytes]) -> np.ndarray:
    """A few byte strings as NUL-padded rows (for per-group and per-ctx cells)."""
    width = max([len(t) for t in texts] + [0])
    out = np.zeros((len(texts), width), dtype=np.uint8)
    for i, t in enumerate(texts):
        out[i, : len(t)] = np.frombuffer(t, dtype=np.uint8)
    return out


def join_rows(matrix: np.ndarray) -> bytes:
    """The bytes of a uint8 [rows, width] matrix with every NUL deleted."""
    return np.ascontiguousarray(matrix).tobytes().translate(None, b"\0")
