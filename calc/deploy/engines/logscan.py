"""Reading an engine start-up log in one pass, in time and memory linear in its size: lines are
streamed from text or a binary file (never the whole log held), each line is cut at
``MAX_LINE_CHARS``, each engine's reader sees each record once (a line wrapped over any number
of lines joined back whole, ``with_continuations``), and every pattern is a regular expression
without nested quantifiers. Numbers are read as the engines print them: "1,044,688", "58.11",
GiB = 2^30 B.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from calc.errors import InvalidInputError

GIB = 2**30
MAX_LINE_CHARS = 65_536  # a vLLM config dump is ~10 KB; longer lines are cut
MAX_LOG_BYTES = 1 << 30  # 1 GiB: a start-up log is a few MB; streamed, so memory stays flat
READ_CHUNK_BYTES = 1 << 16
TAIL_CHARS = 240  # of the previous line, joined to a continuation line

NUM = r"(-?[0-9][0-9,]{0,30}(?:\.[0-9]{1,20})?)"  # bounded: no nested quantifier

# a line that starts a new record: the prefix an engine's logger writes (vLLM "INFO 01-02
# 12:00:00 [file.py:1]" behind an optional "(EngineCore pid=1)", SGLang "[2025-01-02 12:00:00
# TP0]", TensorRT-LLM "[TensorRT-LLM][INFO]" / "[01/02/2025-12:00:00]", uvicorn "INFO:", a
# date and time or a syslog date) at its first column; a wrapped piece of a long line starts
# with none of them (a bare time is not taken: a piece cut before one would start a record)
_RECORD_START = re.compile(
    r"(?:\([A-Za-z_][A-Za-z0-9_:-]{0,40} pid=[0-9]{1,9}\)"
    r"|\[[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}|\[[0-9]{2}/[0-9]{2}/[0-9]{4}-[0-9]{2}:"
    r"|\[(?:TensorRT-LLM|TRT-LLM)\]"
    r"|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)(?::| [0-9]{2}-[0-9]{2} )"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:|[A-Z][a-z]{2} {1,2}[0-9]{1,2} [0-9]{2}:)"
)
# a log collector's own prefix, stripped from every line: docker compose "vllm-1  | " (it
# repeats it on each piece of a line it splits at 16 KiB)
_COLLECTOR = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63} {1,40}\| ?")
# line widths a terminal, ``fold`` or a collector wraps at, taken as a wrap of a log without
# record prefixes even when only one of its lines is that long
WRAP_WIDTHS = frozenset({60, 64, 72, 76, 78, 79, 80, 100, 120, 128, 132, 160, 200, 16_384})
LOOKAHEAD_LINES = 400  # lines read ahead to find the wrap width of a log without prefixes
MIN_WRAP = 40


def number(text: str) -> float:
    return float(text.replace(",", ""))


def integer(text: str) -> int:
    return int(text.replace(",", "").split(".")[0])


@dataclass
class Line:
    """One record as the readers see it: its text (a wrapped line joined back whole) and, for a
    line with no record prefix that was not joined, the previous record's tail joined to it
    (``joined``; None otherwise); ``number``: its first line's number."""

    text: str
    joined: str | None = None
    number: int = 0


def iter_text_lines(text: str) -> Iterator[str]:
    """The lines of ``text``, each at most MAX_LINE_CHARS (memory: one line at a time)."""
    buf = io.StringIO(text)
    while True:
        line = buf.readline(MAX_LINE_CHARS)
        if not line:
            return
        if not line.endswith("\n") and len(line) == MAX_LINE_CHARS:
            while True:  # skip the rest of an overlong line
                rest = buf.readline(MAX_LINE_CHARS)
                if not rest or rest.endswith("\n"):
                    break
        yield line.rstrip("\r\n")


def iter_binary_lines(fh: BinaryIO, limit_bytes: int = MAX_LOG_BYTES) -> Iterator[str]:
    """The lines of a binary stream, decoded (undecodable bytes replaced), each at most
    MAX_LINE_CHARS; a NUL byte or more than ``limit_bytes`` is an InvalidInputError."""
    pending = bytearray()
    dropping = False  # inside an overlong line, waiting for its end
    total = 0
    while True:
        chunk = fh.read(READ_CHUNK_BYTES)
        if not chunk:
            break
        total += len(chunk)
        if total > limit_bytes:
            raise InvalidInputError(
                f"the log is over {limit_bytes:,} bytes; kvcalc reads start-up logs (cut it to "
                "the start-up lines)"
            )
        if b"\x00" in chunk:
            raise InvalidInputError("binary data (a NUL byte) in the log: expected a text log")
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not dropping:
                room = MAX_LINE_CHARS * 4 - len(pending)  # UTF-8: up to 4 bytes a character
                pending += piece[: max(room, 0)]
                if len(piece) > room:
                    dropping = True
            if end < 0:
                break
            yield _decode(pending)
            pending.clear()
            dropping = False
            start = end + 1
    if pending:
        yield _decode(pending)


def _decode(raw: bytes | bytearray) -> str:
    return bytes(raw).decode("utf-8", errors="replace")[:MAX_LINE_CHARS].rstrip("\r")


def with_continuations(lines: Iterable[str]) -> Iterator[Line]:
    """The log's records, a wrapped line joined back whole (pieces joined with nothing between
    them, as ``fold``, a terminal or a collector cut them), at most MAX_LINE_CHARS each. A piece
    continues the record before it when it starts with no record prefix (``_RECORD_START``)
    and the record started with one, or the record still has a bracket open (a settings dict,
    ``ServerArgs(...)``), or, in a log without prefixes, the piece before it is exactly as long
    as the log's wrap width (``wrap_width``). Any other line is a record of its own, with the
    previous record's tail joined to it (``Line.joined``) as a fallback for a wrap not seen."""
    it = iter(lines)
    head = []
    for text in it:
        head.append(_strip_collector(text))
        if len(head) >= LOOKAHEAD_LINES:
            break
    width = wrap_width(head)
    pieces: list[str] = []
    size = depth = first = 0
    prefixed = full = False
    prev = ""
    n = 0

    def stream():
        yield from head
        for text in it:
            yield _strip_collector(text)

    for text in stream():
        n += 1
        starts = _RECORD_START.match(text) is not None
        # a record without a prefix ends at MAX_LINE_CHARS (an unclosed bracket in an excerpt
        # does not swallow the rest of the log); a prefixed one is cut there, as a line is
        joins = prefixed or ((depth > 0 or full) and size < MAX_LINE_CHARS)
        if pieces and not starts and text and joins:
            if size < MAX_LINE_CHARS:
                piece = text[: MAX_LINE_CHARS - size]
                pieces.append(piece)
                size += len(piece)
                depth += _depth(piece)
            full = width is not None and _is_full(text, width)
            continue
        if pieces:
            record = "".join(pieces)
            yield Line(record, _joined(prev, pieces[0], len(pieces)), first)
            prev = record
        pieces, size, first = [text], len(text), n
        prefixed = starts
        depth = _depth(text)
        full = width is not None and _is_full(text, width)
    if pieces:
        yield Line("".join(pieces), _joined(prev, pieces[0], len(pieces)), first)


def _joined(prev: str, text: str, count: int) -> str | None:
    """The previous record's tail joined to a one-piece record that starts with no prefix."""
    if count > 1 or not prev or not text or _RECORD_START.match(text):
        return None
    return prev[-TAIL_CHARS:] + text


def _strip_collector(text: str) -> str:
    m = _COLLECTOR.match(text)
    return text[m.end():] if m else text


def _depth(text: str) -> int:
    """Brackets opened minus brackets closed in ``text``."""
    return sum(map(text.count, "([{")) - sum(map(text.count, ")]}"))


def _is_full(text: str, width: int) -> bool:
    """Whether a line is as long as the wrap width, in characters or in UTF-8 bytes (``fold``
    counts bytes)."""
    return len(text) == width or (not text.isascii() and len(text.encode()) == width)


def wrap_width(lines: list[str]) -> int | None:
    """The width a log without record prefixes was wrapped at: its longest line's length when
    at least two lines are that long or the length is a usual wrap width (``WRAP_WIDTHS``);
    None for a log with record prefixes (its prefixes mark its records) or no such line."""
    if any(_RECORD_START.match(t) for t in lines):
        return None
    longest = max((len(t) for t in lines), default=0)
    if longest < MIN_WRAP:
        return None
    if longest in WRAP_WIDTHS or sum(len(t) == longest for t in lines) >= 2:
        return longest
    return None


def search(pattern: re.Pattern, line: Line, anchor: str | None = None):
    """``pattern`` in the line, else in the line joined to its predecessor's tail; a cheap
    substring ``anchor`` test first (most lines have none of the engines' phrases)."""
    if anchor is None or anchor in line.text:
        m = pattern.search(line.text)
        if m:
            return m
    if line.joined is not None and (anchor is None or anchor in line.joined):
        return pattern.search(line.joined)
    return None


def read_printed(printed: dict, line: Line, table) -> bool:
    """Store every figure of ``table`` the line prints: rows of (anchor, pattern, key, unit),
    the pattern's first group × ``unit`` [bytes] (an integer count when ``unit`` is 1).
    Returns whether any was found."""
    hit = False
    for anchor, pattern, key, unit in table:
        if (m := search(pattern, line, anchor)) is not None:
            printed[key] = number(m.group(1)) * unit if unit != 1 else integer(m.group(1))
            hit = True
    return hit


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,60}")


def key_values(text: str, keys: Iterable[str]) -> dict:
    """``key=value`` pairs of a config dump (vLLM "with config: model='...', ...", SGLang
    "ServerArgs(model_path='...', tp_size=4, ...)") for the ``keys`` asked for, values as
    int, float or str; one scan of the text per key, each value read to its end (a quote, a
    comma or a parenthesis, at most 300 characters)."""
    out: dict = {}
    for key in keys:
        for m in re.finditer(r"(?<![A-Za-z0-9_])" + re.escape(key) + r"=", text):
            value = _value_at(text, m.end())
            if value is not None:
                out[key] = value
                break
    return out


def _value_at(text: str, i: int):
    if i >= len(text):
        return None
    if text[i] in "'\"":
        end = text.find(text[i], i + 1, i + 302)
        return None if end < 0 else text[i + 1 : end]
    j = i
    stop = min(len(text), i + 300)
    while j < stop and text[j] not in ",)} \t":
        j += 1
    raw = text[i:j]
    if not raw:
        return None
    if raw.isdigit():
        return int(raw)
    try:
        return float(raw)
    except ValueError:
        return raw


def literal_dict(text: str, limit: int = 20_000) -> dict:
    """A Python dict literal from a log line ({} if it is not one; never evaluates code; a
    longer text is not parsed: its keys are read with ``dict_items``)."""
    import ast

    text = text.strip()
    if len(text) > limit or not text.startswith("{"):
        return {}
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def dict_items(text: str, keys: Iterable[str]) -> dict:
    """``'key': value`` items of a dict printed in a log (a cut or overlong one too)."""
    out: dict = {}
    for key in keys:
        m = re.search(r"['\"]" + re.escape(key) + r"['\"]\s?:\s?", text)
        if m:
            value = _value_at(text, m.end())
            if value is not None:
                out[key] = {"True": True, "False": False, "None": None}.get(value, value) \
                    if isinstance(value, str) else value  # fmt: skip
    return out


def flags(words: list[str], names: dict[str, str]) -> dict:
    """Settings from a command line's words: ``--flag value`` or ``--flag=value`` for the
    flags in ``names`` (flag -> kvcalc name); a flag without a value (the next word is a
    flag) is True."""
    out: dict = {}
    for i, word in enumerate(words):
        flag, eq, inline = word.partition("=")
        name = names.get(flag)
        if name is None:
            continue
        if eq:
            out[name] = inline
        elif i + 1 < len(words) and not words[i + 1].startswith("-"):
            out[name] = words[i + 1]
        else:
            out[name] = True
    return out


INT_SETTINGS = {"tp", "pp", "dp", "attn_dp", "ep", "max_model_len", "max_batched_tokens",
                "max_num_seqs", "block_size", "max_tokens", "cuda_graph_max_bs",
                "recv_interval", "batch_wait_iters", "max_mamba_cache_size",
                "max_prefill_tokens"}  # fmt: skip
BOOL_SETTINGS = {"enforce_eager", "expert_parallel", "dp_attention", "prefix_caching"}
# shares in (0, 1]: a 0 batch-wait ratio is the engine's "off", stored as not stated
FRACTION_SETTINGS = {"memory_fraction", "batch_wait_ratio"}


def put_setting(settings: dict, key: str, value, *, override: bool = True) -> bool:
    """Store a setting if it has the right type (ints for counts, floats in (0, 1] for the
    fractions, booleans for switches, short strings otherwise); anything else in a hostile log
    is ignored. Returns whether it was stored."""
    if value is None or (not override and key in settings):
        return False
    if key in INT_SETTINGS:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 10**12:
            return False
    elif key in FRACTION_SETTINGS:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return False
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
            return False
        value = float(value)
    elif key in BOOL_SETTINGS:
        if isinstance(value, str):
            value = {"true": True, "false": False}.get(value.lower())
        if not isinstance(value, bool):
            return False
    elif not isinstance(value, str) or not 0 < len(value) <= 300 or value in ("None", "none"):
        return False
    settings[key] = value
    return True
