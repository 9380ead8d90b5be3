"""Fetches a Hugging Face model's config.json [a local file path] for ``hf:org/name``: from the
local cache when the Hub cannot be reached (or ``HF_HUB_OFFLINE`` is set), else after one
HEAD request that checks the file's size [bytes] before anything is downloaded.

huggingface_hub retries a connection that fails five times with back-off (23.5 s and 11
warning lines before its error, offline); the single HEAD here, with a short timeout, makes
that one line at once. The download itself is huggingface_hub's (its cache, its token).
"""

from __future__ import annotations

import os
from pathlib import Path

from calc.errors import ConfigError, MissingDependencyError

DEFAULT_ENDPOINT = "https://huggingface.co"
PROBE_TIMEOUT_S = 10.0  # one HEAD request; the Hub answers in well under a second
FILENAME = "config.json"


def endpoint() -> str:
    """The Hub's address: ``HF_ENDPOINT`` (a mirror, a test server) or huggingface.co."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


class Unreachable(Exception):
    """The Hub could not be asked (no network, no name resolution, refused, timed out)."""


def remote_size(
    url: str, token: str | None = None, timeout_s: float = PROBE_TIMEOUT_S
) -> int | None:
    """The size [bytes] the server states for ``url`` (HEAD, redirects followed; None when it
    states none). Raises Unreachable, or ConfigError for an answer that is a refusal."""
    import urllib.error
    import urllib.request

    headers = {"User-Agent": "kvcalc"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, method="HEAD", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            sizes = [response.headers.get(h) for h in ("X-Linked-Size", "Content-Length")]
    except urllib.error.HTTPError as exc:
        raise ConfigError(_refusal(exc.code)) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:  # ValueError: a bad URL
        reason = getattr(exc, "reason", None) or exc
        raise Unreachable(str(getattr(reason, "strerror", None) or reason)) from None
    stated = [int(s) for s in sizes if s is not None and s.strip().isdigit()]
    return max(stated) if stated else None


def _refusal(code: int) -> str:
    if code == 404:
        return "the Hub has no such model or file (HTTP 404); check the name"
    if code in (401, 403):
        return (
            f"the Hub refused access (HTTP {code}): a gated or private model needs a token "
            "(huggingface-cli login or HF_TOKEN)"
        )
    return f"the Hub answered HTTP {code}"


def fetch_config(repo_id: str, max_bytes: int) -> Path:
    """Local path of ``repo_id``'s config.json (see the module docstring); ConfigError in
    one line for every failure, MissingDependencyError without huggingface_hub."""
    try:
        import huggingface_hub as hub
    except ImportError:
        raise MissingDependencyError("huggingface_hub", "hf") from None
    where = f"hf:{repo_id}"
    cached = _cached(hub, repo_id)
    if _offline():
        if cached is not None:
            return cached
        raise ConfigError(
            f"{where}: config.json is not in the local cache and HF_HUB_OFFLINE is set; "
            "unset it, or pass a local config.json path"
        )
    base = endpoint()
    token = _token(hub)
    try:
        size = remote_size(f"{base}/{repo_id}/resolve/main/{FILENAME}", token)
    except Unreachable as exc:
        if cached is not None:
            return cached
        raise ConfigError(
            f"{where}: cannot reach {base} ({exc}) and config.json is not in the local cache; "
            "check the network, or pass a local config.json path"
        ) from None
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if size is not None and size > max_bytes:
        raise ConfigError(
            f"{where}: config.json is {size:,} bytes, more than a config file may be "
            f"({max_bytes:,}); not downloaded"
        )
    return _download(hub, repo_id, base, where)


def fetch_extras(repo_id: str, names: tuple[str, ...], max_bytes: int) -> None:
    """Download ``names`` of ``repo_id`` into the cache beside its config.json where the Hub
    has them (most repositories have neither of the files asked for); quietly nothing when
    offline, unreachable, refused or over ``max_bytes``: they only refine an estimate."""
    if _offline():
        return
    try:
        import huggingface_hub as hub
    except ImportError:
        return
    base = endpoint()
    token = _token(hub)
    for name in names:
        try:
            size = remote_size(f"{base}/{repo_id}/resolve/main/{name}", token)
        except Unreachable:
            return
        except ConfigError:  # 404 for most repositories: the file is not there
            continue
        if size is not None and size > max_bytes:
            continue
        try:
            _download(hub, repo_id, base, f"hf:{repo_id}", name)
        except ConfigError:
            continue


def _cached(hub, repo_id: str) -> Path | None:
    find = getattr(hub, "try_to_load_from_cache", None)
    if find is None:
        return None
    try:
        found = find(repo_id, FILENAME)
    except Exception:  # a damaged cache: as if nothing were cached
        return None
    return Path(found) if isinstance(found, str) else None


def _token(hub) -> str | None:
    get = getattr(hub, "get_token", None)
    try:
        return get() if get is not None else None
    except Exception:
        return None


def _download(hub, repo_id: str, base: str, where: str, name: str = FILENAME) -> Path:
    import logging

    log = logging.getLogger("huggingface_hub")
    level = log.level
    log.setLevel(logging.ERROR)  # its retry warnings would add lines to the one error line
    quiet = getattr(getattr(hub, "utils", None), "disable_progress_bars", None)
    if quiet is not None:
        quiet()  # no progress bar on stderr either
    try:
        kwargs = {"endpoint": base} if base != DEFAULT_ENDPOINT else {}
        return Path(hub.hf_hub_download(repo_id, name, **kwargs))
    except Exception as exc:  # hub errors: gated, not found, a dropped connection
        raise ConfigError(
            f"{where}: cannot fetch config.json ({type(exc).__name__}): not in the local "
            "cache and the Hub is unreachable or refused; check the name and network, or pass "
            "a local config.json path"
        ) from exc
    finally:
        log.setLevel(level)
