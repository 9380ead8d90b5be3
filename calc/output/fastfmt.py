"""Numbers as text [ASCII bytes], a whole numpy array at a time: integers as ``str(int)``
writes them and floats as ``repr(float)`` does (the shortest digits that read back to the same
float), for the sweep writers, where per-value Python formatting would cost more than the
arithmetic.

Each function returns a uint8 matrix, one row per value (possibly a view whose rows are wider
than its columns), the text padded with NUL bytes (0) before, inside or after it, which
``join_rows`` (and the sweep writers' ``translate``) delete when the cells of a row are joined;
an optional ``prefix`` (a separator) comes first on every row. The text is built four
characters at a time: base-10,000 words of the number looked up in tables of uint32 words,
one table blanking leading zeros and one trailing zeros.

Floats: ``x`` = 0.D × 10^(e+1) for the shortest digit string D that reads back to ``x``; e
comes from the binary exponent. The exact product x × 10^(16−e) comes from Dekker's
two-product (no rounding: 10^j, j ≤ 22, is a double), so its nearest integer N17 is x
correctly rounded to 17 significant digits, which always reads back (17 digits identify every
double). N17 rounded to 16 and to 15 digits replaces it when it lies within half the gap to
the nearer neighbour of ``x`` (it then reads back), a shorter form being a 15-digit one ending
in zeros, which the fraction's table leaves blank. Values outside 1e-4 ≤ |x| < 1e16 (where
repr switches to exponent notation) and ±inf take Python's repr; NaN is the text given.
"""

from __future__ import annotations

import numpy as np

_POW10 = np.array([10**k for k in range(19)], dtype=np.int64)
_POW10_F = np.array([10.0**k for k in range(23)])  # exact doubles up to 10^22
_SPLIT = 134217729.0  # 2^27 + 1 (Dekker)
_POW10_HI = _SPLIT * _POW10_F - (_SPLIT * _POW10_F - _POW10_F)  # Dekker halves of 10^j
_POW10_LO = _POW10_F - _POW10_HI
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
    """Non-negative int64 ``v`` < 10^(4 × n_words) as ``n_words`` base-10,000 digits, the most
    significant first, int32 (twice as fast as int64 in numpy's vector loops): eight digits
    at a time split off in int64, each eight split in int32, by constants (numpy's fast path;
    np.divmod is ~10× slower)."""
    if n_words <= 2:
        v = v.astype(np.int32)
        if n_words == 1:
            return [v]
        q = v // 10_000
        return [q, v - q * 10_000]
    top = v // 100_000_000
    return _words(top, n_words - 2) + _words(v - top * 100_000_000, 2)


def _table(strip, plain: str = "{:04d}", n: int = 10_000) -> np.ndarray:
    """Four characters in one uint32 per value 0..n−1 as ``plain`` writes it with ``strip``
    applied (the zeros it removes become NULs, keeping each character in its place), then the
    n unstripped."""
    rows = [strip(plain.format(i)) for i in range(n)] + [plain.format(i) for i in range(n)]
    text = "".join(rows).replace(" ", "\0").encode()
    return np.frombuffer(text, dtype=np.uint8).view(np.uint32).copy()


# leading zeros blank (an integer's first word), trailing zeros blank (a fraction's last word)
_LEAD = _table(lambda t: t.lstrip("0").rjust(4))
_TRAIL = _table(lambda t: t.rstrip("0").ljust(4))
# a fraction's first word: all blank only where the fraction is 0, which is written "0"
_TRAIL_FIRST = _TRAIL.copy()
_TRAIL_FIRST[0] = np.frombuffer(b"0\0\0\0", dtype=np.uint32)[0]
# an integer's last three digits and the decimal point, "ddd.", leading zeros blank (0: "0.")
_LAST3 = _table(lambda t: (t[:3].lstrip("0") or "0").rjust(3) + ".", "{:03d}.", 1_000)
_MINUS = np.frombuffer(b"\0\0\0-", dtype=np.uint32)[0]


def _spell(
    words: list[np.ndarray],
    table: np.ndarray,
    reverse: bool,
    out: np.ndarray | None = None,
    first: np.ndarray | None = None,
) -> np.ndarray:
    """uint32 [n, len(words)] (into ``out`` when given): each word through ``table``'s blanking
    half until a nonzero word has been met, walking from the left (``reverse`` False: leading
    zeros) or from the right (True: trailing zeros), its plain half after; ``first`` (a
    table) for the last word walked."""
    if out is None:
        out = np.empty((words[0].size, len(words)), dtype=np.uint32)
    seen = np.zeros(words[0].size, dtype=np.int32)  # 10,000 once a nonzero word is met
    order = list(range(len(words) - 1, -1, -1) if reverse else range(len(words)))
    for k in order:
        w = words[k]
        last = k == order[-1]
        out[:, k] = np.take(table if first is None or not last else first, w + seen)
        if not last:
            seen |= (w != 0) * np.int32(10_000)  # (10,000 | 10,000 = 10,000)
    return out


def n_digits(v: np.ndarray) -> np.ndarray:
    """Decimal digits of non-negative int64 ``v`` (0 has one)."""
    return np.maximum(np.searchsorted(_POW10, v, side="right"), 1)


def _prefix_words(prefix: bytes) -> np.ndarray:
    """``prefix`` in whole uint32 words, NUL-padded on the left (just before what follows)."""
    n = -(-len(prefix) // 4)
    return np.frombuffer(prefix.rjust(4 * n, b"\0"), dtype=np.uint32)


# an integer's last word: 0 when every word is blank (the integer 0) is written "0"
_LEAD_LAST = _LEAD.copy()
_LEAD_LAST[0] = np.frombuffer(b"\x00\x00\x000", dtype=np.uint32)[0]


def int_matrix(v: np.ndarray, prefix: bytes = b"") -> np.ndarray:
    """``prefix`` then ``str(v)`` for every int64 ``v``: NUL-padded uint8 rows (a view whose
    rows may be wider than its columns)."""
    v = np.asarray(v, dtype=np.int64).reshape(-1)
    neg = v < 0
    a = np.abs(v)  # int64 min has no absolute value; sweep values never reach it
    width = int(n_digits(np.array([a.max(initial=0)]))[0])
    n_words = -(-width // 4)
    pre = _prefix_words(prefix)
    # the sign goes just before the first digit: a word at the left is enough, the NULs
    # between vanish when the row is joined
    sign = int(neg.any())
    out = np.empty((v.size, pre.size + sign + n_words), dtype=np.uint32)
    if pre.size:
        out[:, : pre.size] = pre
    if sign:
        out[:, pre.size] = np.where(neg, _MINUS, 0)
    _spell(_words(a, n_words), _LEAD, False, out[:, pre.size + sign :], _LEAD_LAST)
    text = out.view(np.uint8)
    return text if pre.size or sign else text[:, 4 * n_words - width :]


def _two_product(a: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(p, err, 10^j) with p + err == a × 10^j exactly (Dekker; no FMA needed; 10^j, j ≤ 22, is an
    exact double whose halves are tabulated)."""
    b, bh, bl = _POW10_F[j], _POW10_HI[j], _POW10_LO[j]
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    err = ah * bh
    err -= p
    err += ah * bl
    err += al * bh
    err += al * bl
    return p, err, b


# 10^k as the double nearest to it, k = −5..17 (index k + 5); for k < 0 each lies above 10^k,
# so for a double x, x ≥ _EXP_T[k + 5] exactly when x ≥ 10^k
_EXP_T = np.array([float(f"1e{k}") for k in range(-5, 18)])
_MANTISSA_I = np.int64((1 << 52) - 1)


def _round_to(n17: np.ndarray, r17: np.ndarray, half: np.ndarray, unit: int):
    """(n17 + r17 rounded to a multiple of ``unit`` (10 or 100), to nearest, ties to even;
    whether that multiple reads back: it lies within ``half`` of n17 + r17)."""
    q = n17 // unit
    t = (n17 - q * unit) + r17  # the part dropped, in [−0.5, unit − 0.5]
    up = t > unit // 2
    tie = t == unit // 2
    if tie.any():  # a tie: to even, as repr does
        up |= tie & ((q & 1) == 1)
    q += up
    t -= up * unit
    return q * unit, np.abs(t, out=t) < half


def _digits17(ax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, e) for ``ax`` with 1e-4 ≤ ax < 1e16: the shortest digits that read back to ``ax``
    followed by zeros to 17 digits (10^16 ≤ N < 10^17), and the decimal exponent of the first
    digit.

    e comes from the binary exponent e2 (floor(e2 × log10 2) is e or e − 1; one comparison
    with 10^(e+1) settles it). N17, x × 10^(16−e) correctly rounded, comes from the exact
    product; its rounding to 16 and then to 15 digits replaces it where that reads back (lies
    within half the gap to the nearer neighbour of x, in the same units). A shorter form is
    a 15-digit one with trailing zeros, which the digit table of the fraction blanks."""
    bits = ax.view(np.int64)
    exp2 = bits >> 52  # biased binary exponent (ax is positive and normal)
    e = ((exp2 - 1023) * 78913) >> 18  # floor(e2 × log10 2) for |e2| < 1,000 (78913 / 2^18)
    e += ax >= _EXP_T[e + 6]
    j = 16 - e
    ph, r17, scale = _two_product(ax, j)
    rl = np.rint(r17)
    n17 = ph.astype(np.int64)
    n17 += rl.astype(np.int64)
    r17 -= rl  # n17 + r17 is x × 10^j exactly, |r17| ≤ 0.5
    # half the gap to the nearer neighbour, scaled: ulp/2, or ulp/4 at a power of two (the
    # gap below it is half as wide), built from the exponent; less a margin far above the
    # rounding of the differences compared with it
    exp2 -= 53
    exp2 -= (bits & _MANTISSA_I) == 0
    exp2 <<= 52
    half = exp2.view(np.float64) * scale
    half -= 1e-9
    n16, ok16 = _round_to(n17, r17, half, 10)
    n15, ok15 = _round_to(n17, r17, half, 100)
    np.copyto(n17, n16, where=ok16)
    np.copyto(n17, n15, where=ok15)
    carry = n17 >= _POW10[17]  # 99..9 rounded up: one digit more, exponent one up
    if carry.any():
        n17[carry] = _POW10[16]
        e += carry
    return n17, e


def float_matrix(x: np.ndarray, nan: bytes = b"", prefix: bytes = b"") -> np.ndarray:
    """``prefix`` then ``repr(x)`` for every float64 ``x`` (NaN as ``nan``): NUL-padded uint8
    rows (a view whose rows may be wider than its columns)."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    with np.errstate(invalid="ignore"):  # a signalling NaN is just NaN here
        ax = np.abs(x)
        fast = (ax >= 1e-4) & (ax < 1e16)  # positional in repr; NaN, inf and 0 are not
    if fast.all():
        return _positional(x, prefix)
    isnan = np.isnan(x)
    if len(nan) <= 4 and (fast | isnan).all():
        # NaN rows written as 1.0, then blanked to ``nan``
        return _positional(np.where(isnan, 1.0, x), prefix, isnan, nan)
    idx = np.flatnonzero(fast)
    body = np.ascontiguousarray(_positional(x[idx]))
    out = np.zeros((x.size, max(body.shape[1], len(nan))), dtype=np.uint8)
    out[idx, : body.shape[1]] = body
    if nan and isnan.any():
        out[np.flatnonzero(isnan), : len(nan)] = np.frombuffer(nan, dtype=np.uint8)
    slow = np.flatnonzero(~fast & ~isnan)  # 0, ±inf, tiny and huge values: Python's repr
    if slow.size:
        out = _overlay(out, slow, [repr(v).encode() for v in x[slow].tolist()])
    return _prefixed(out, prefix)


def _prefixed(out: np.ndarray, prefix: bytes) -> np.ndarray:
    if not prefix:
        return out
    pre = np.broadcast_to(np.frombuffer(prefix, dtype=np.uint8), (out.shape[0], len(prefix)))
    return np.concatenate([pre, out], axis=1)


def _positional(
    x: np.ndarray, prefix: bytes = b"", blank: np.ndarray | None = None, nan: bytes = b""
) -> np.ndarray:
    """repr of floats with 1e-4 ≤ |x| < 1e16 (positional notation) as uint32 words of four
    characters, [prefix] [sign] [integer part, ...] ["ddd."] [fraction, ...], viewed as
    uint8 rows without the columns that are NUL on every row at either end; the rows where
    ``blank`` is True hold ``nan`` (at most 4 bytes) instead.

    The integer part is int(|x|): the shortest digits never carry past it (an integer between
    them and x would round to x, which would then be that integer). The fraction is the
    digits of N after the first e + 1, left-aligned in a field of 20 digits (e = −4: three
    zeros and 17 digits) as G = F × 10^(e+4), split into its first 8 and last 12 digits; its
    trailing zeros are blank, a fraction 0 is one "0"."""
    ax = np.abs(x)
    n, e = _digits17(ax)
    whole = ax.astype(np.int64)
    f = n - whole * _POW10[np.minimum(16 - e, 18)]  # 16 − e fraction digits (e < 0: whole 0)
    # G = F × 10^(e + 4): hi = F // 10^(8 − e), lo = (F mod 10^(8 − e)) × 10^(e + 4)
    # (−4 ≤ e ≤ 15; e > 8: at most 7 fraction digits, all in hi, 10^(8 − e) read as 1)
    p_k = _POW10[np.maximum(8 - e, 0)]
    hi = f // p_k
    f -= hi * p_k
    f *= _POW10[np.minimum(e + 4, 18)]
    if e.max(initial=0) > 8:
        hi *= _POW10[np.maximum(e - 8, 0)]
    top = int(whole.max(initial=0))
    n_high = -(-int(n_digits(np.array([top // 1000]))[0]) // 4) if top >= 1000 else 0
    negative = x < 0
    pre = _prefix_words(prefix)
    sign = int(negative.any())
    frac = _words(hi, 2) + _words(f, 3)
    while len(frac) > 1 and not frac[-1].any():  # no row has digits there
        frac.pop()
    out = np.empty((x.size, pre.size + sign + n_high + 1 + len(frac)), dtype=np.uint32)
    if pre.size:
        out[:, : pre.size] = pre
    if sign:
        out[:, pre.size] = np.where(negative, _MINUS, 0)
    point = pre.size + sign + n_high  # the column of "ddd."
    if n_high:
        high = whole // 1000
        _spell(_words(high, n_high), _LEAD, False, out[:, pre.size + sign : point])
        out[:, point] = _LAST3[(whole - high * 1000) + (high != 0) * 1000]
    else:
        out[:, point] = _LAST3[whole]
    _spell(frac, _TRAIL, True, out[:, point + 1 :], _TRAIL_FIRST)
    # bytes of the last word that some row uses (a NUL is 0, a character is not)
    used = int(np.bitwise_or.reduce(out[:, -1]))
    cut = 4 - next(i for i in range(4, 0, -1) if used.to_bytes(4, "little")[i - 1]) if used else 0
    lead = 0
    if blank is not None and blank.any():
        rows = np.flatnonzero(blank)
        out[rows, pre.size :] = 0
        if nan:
            out[rows, pre.size] = np.frombuffer(nan.ljust(4, b"\0"), dtype=np.uint32)[0]
    elif not pre.size and not sign and not n_high:  # "ddd." begins with NULs on every row
        lead = 3 - len(str(top))
    text = out.view(np.uint8)
    return text[:, lead : text.shape[1] - cut]


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


def number_matrix(a: np.ndarray, nan: bytes = b"", prefix: bytes = b"") -> np.ndarray:
    """``prefix`` then the text of a numeric array: integers (and integer-valued floats below
    2^53) as ints, other floats as repr, booleans as true/false, NaN as ``nan``."""
    a = np.asarray(a).reshape(-1)
    if a.dtype.kind == "b":
        t, f = prefix + b"true", prefix + b"false"
        if len(f) > 8:
            return _prefixed(text_matrix([b"true", b"false"])[np.where(a, 0, 1)], prefix)
        words = np.frombuffer(t.ljust(8, b"\0") + f.ljust(8, b"\0"), dtype=np.uint64)
        return np.where(a, words[0], words[1]).view(np.uint8).reshape(-1, 8)[:, : len(f)]
    if a.dtype.kind in "iu":
        return int_matrix(a, prefix)
    with np.errstate(invalid="ignore"):  # a signalling NaN is just NaN here
        whole = (np.abs(a) < 2**53) & (a == np.floor(a))  # NaN and ±inf are not
    if whole.all():
        return int_matrix(a.astype(np.int64), prefix)
    if not whole.any():
        return float_matrix(a, nan, prefix)
    out = np.ascontiguousarray(float_matrix(a, nan))
    idx = np.flatnonzero(whole)
    ints = int_matrix(a[idx].astype(np.int64))
    if ints.shape[1] > out.shape[1]:
        out = np.concatenate(
            [out, np.zeros((out.shape[0], ints.shape[1] - out.shape[1]), np.uint8)], axis=1
        )
    out[idx] = NUL
    out[idx, : ints.shape[1]] = ints
    return _prefixed(out, prefix)


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
