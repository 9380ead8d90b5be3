"""Writes the ``prices`` and ``board_power`` of every hardware profile [USD per GPU-hour, W] from
the sourced research data: docs/validation/prices.yaml and docs/validation/board_power.yaml.

Run: python tools/profile_prices.py          (rewrites the blocks between the markers)
     python tools/profile_prices.py --check  (exit 1 when a profile's block is stale)

One price per basis, by one rule for every basis (the rule of prices.yaml's ``default_basis``,
applied to each basis):

- the ``list`` entries of that basis dated 2026-03 or later, one per provider: one entry is
  that list (kind ``list``); several give their median (kind ``median``, the providers and
  figures in ``rule``);
- a basis with no such list takes its best other entry, in the order ``estimate`` (owned TCO:
  SemiAnalysis's "Owning - Hyperscaler" figure, the one its published cost rankings use),
  ``approximate``, ``derived``, ``placeholder``, keeping its kind; marketplace ``approximate``
  "starting at" figures and entries that are not per GPU-hour are left out.

The first price is the profile's reference price (``HardwareProfile.usd_per_hour``, what a
command without ``--price-basis`` shows): the default basis (neocloud on-demand) where its figure
is a list or a median, else the first of hyperscaler on-demand, neocloud on-demand, committed,
owned TCO whose kind is list, median or estimate, else the best of the rest by kind (estimate,
approximate, derived, placeholder), the same bases first.

Board power: prices.yaml's companion board_power.yaml ``board_power_w`` and its first source
(vendor datasheet, MLPerf submitter's system description, a secondary table quoting it), or no
board power where it is null (a10g, b300).
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PRICES = ROOT / "docs" / "validation" / "prices.yaml"
POWER = ROOT / "docs" / "validation" / "board_power.yaml"
PROFILES = ROOT / "hardware_profiles"
BEGIN = "# BEGIN prices (written by tools/profile_prices.py from docs/validation/prices.yaml"
BEGIN_LINE = BEGIN + " and board_power.yaml; do not edit by hand)"
END = "# END prices"
BASES = {  # prices.yaml's names -> the schema's
    "neocloud_on_demand": "neocloud_on_demand",
    "hyperscaler_on_demand": "hyperscaler_on_demand",
    "marketplace_on_demand": "marketplace_on_demand",
    "spot": "spot",
    "committed_unspecified_term": "committed",
    "committed_3yr": "committed_3yr",
    "owned_tco": "owned_tco",
}
ORDER = list(BASES)  # the order prices are written in (after the reference price)
FALLBACK_KINDS = ("estimate", "approximate", "derived", "placeholder")
REFERENCE_BASES = ("hyperscaler_on_demand", "neocloud_on_demand", "committed", "owned_tco")
EARLIEST = "2026-03"
# SemiAnalysis's InferenceX TCO table: costh (Owning - Hyperscaler) is what its cost pages use
PREFERRED_SKU = re.compile(r"costh\b")


def _figure(x: float) -> str:
    return f"{x:.6g}"


def _date(e: dict) -> str:
    d = str(e.get("source_date", ""))
    m = re.match(r"^\d{4}(-\d{2}(-\d{2})?)?", d)
    return m.group(0) if m else ""


def _source(e: dict, semianalysis: dict) -> str:
    parts = [str(e.get("provider", "")).strip()]
    if e.get("sku"):
        parts.append(str(e["sku"]))
    rule = e.get("per_gpu_rule")
    if rule and rule not in ("as listed", "as given"):
        parts.append(f"({rule})")
    url = e.get("source_url")
    if url == "see semianalysis_tco":
        url = semianalysis["source_url"]
    text = " ".join(p for p in parts if p)
    if url:
        text += f", {url}"
    if e.get("via"):
        text += f", via {e['via']}"
    return text


def _one_per_provider(entries: list[dict]) -> list[dict]:
    latest: dict[str, dict] = {}
    for e in entries:
        k = str(e.get("provider"))
        if k not in latest or _date(e) > _date(latest[k]):
            latest[k] = e
    return list(latest.values())


def basis_price(entries: list[dict], basis: str, semianalysis: dict) -> dict | None:
    """The one price of ``basis`` (module docstring), as the profile's YAML mapping."""
    mine = [e for e in entries if e["basis"] == basis and "usd_per_gpu_hour" in e]
    lists = _one_per_provider([e for e in mine if e["kind"] == "list" and _date(e) >= EARLIEST])
    name = BASES[basis]
    if len(lists) == 1:
        e = lists[0]
        return {"basis": name, "usd_per_gpu_hour": e["usd_per_gpu_hour"], "kind": "list",
                "date": _date(e), "source": _source(e, semianalysis)}  # fmt: skip
    if lists:
        values = [e["usd_per_gpu_hour"] for e in lists]
        figures = ", ".join(
            f"{_figure(e['usd_per_gpu_hour'])} {e['provider']}"
            for e in sorted(lists, key=lambda e: e["usd_per_gpu_hour"])
        )
        return {
            "basis": name,
            "usd_per_gpu_hour": round(statistics.median(values), 6),
            "kind": "median",
            "date": max(_date(e) for e in lists),
            "source": f"the median of {len(lists)} providers' {basis.replace('_', ' ')} lists "
            "(docs/validation/prices.yaml: each with its page, date and transcription)",
            "rule": f"median of [{figures}]",
        }
    for kind in FALLBACK_KINDS:
        pool = [e for e in mine if e["kind"] == kind]
        if basis == "marketplace_on_demand" and kind == "approximate":
            pool = []  # "starting at" figures of a marketplace: no price anyone is quoted
        if not pool:
            continue
        pool.sort(key=lambda e: (not PREFERRED_SKU.search(str(e.get("sku", ""))), _date(e)))
        e = pool[0]
        out = {"basis": name, "usd_per_gpu_hour": e["usd_per_gpu_hour"], "kind": kind,
               "date": _date(e), "source": _source(e, semianalysis)}  # fmt: skip
        rule = e.get("rule") or e.get("note")
        if kind in ("derived", "placeholder") or rule:
            out["rule"] = str(rule or e.get("per_gpu_rule") or "see the source")
        return out
    return None


def profile_prices(name: str, data: dict) -> list[dict]:
    """Every basis's price of one profile, the reference price first (module docstring)."""
    entries = data["profiles"][name]["entries"]
    sa = data["semianalysis_tco"]
    prices = [p for b in ORDER if (p := basis_price(entries, b, sa)) is not None]
    trusted = ("list", "median")

    def rank(p: dict) -> tuple:
        if p["basis"] == "neocloud_on_demand" and p["kind"] in trusted:
            return (0, 0)
        if p["basis"] in REFERENCE_BASES and p["kind"] in (*trusted, "estimate"):
            return (1, REFERENCE_BASES.index(p["basis"]))
        where = REFERENCE_BASES.index(p["basis"]) if p["basis"] in REFERENCE_BASES else 9
        return (2, FALLBACK_KINDS.index(p["kind"]) if p["kind"] in FALLBACK_KINDS else 0, where)

    ref = min(prices, key=rank)
    return [ref, *(p for p in prices if p is not ref)]


KIND_OF_POWER = {"datasheet": "published", "submitter": "published", "secondary": "published",
                 "copied": "published", "measured": "measured"}  # fmt: skip


def board_power(name: str, power: dict) -> dict | None:
    """The profile's board power with its first source, None where board_power.yaml has none."""
    p = power["profiles"][name]
    watts = p.get("board_power_w")
    if watts is None:
        return None
    e = p["board_power"][0]
    src = e.get("source")
    if src in power["meta"]["sources"]:
        s = power["meta"]["sources"][src]
        src = f"{s['what']}, {s['url']}"
    text = f"{e['kind']}: {src or e.get('source_url', '')}"
    if e.get("file"):
        text += f" ({e['file']})"
    if e.get("note"):
        text += f"; {e['note']}"
    return {"watts": watts, "kind": KIND_OF_POWER[e["kind"]], "source": text}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def block(name: str, data: dict, power: dict) -> str:
    """The YAML text between (and with) the markers."""
    lines = [BEGIN_LINE, "prices:"]
    for p in profile_prices(name, data):
        lines.append(f"  - basis: {p['basis']}")
        lines.append(f"    usd_per_gpu_hour: {_figure(p['usd_per_gpu_hour'])}")
        lines.append(f"    kind: {p['kind']}")
        lines.append(f"    date: {_quote(p['date'])}")
        lines.append(f"    source: {_quote(p['source'])}")
        if p.get("rule"):
            lines.append(f"    rule: {_quote(p['rule'])}")
    bp = board_power(name, power)
    if bp is not None:
        lines.append("board_power:")
        lines.append(f"  watts: {_figure(bp['watts'])}")
        lines.append(f"  kind: {bp['kind']}")
        lines.append(f"  source: {_quote(bp['source'])}")
    lines.append(END)
    return "\n".join(lines) + "\n"


_OLD = re.compile(r"^usd_per_hour:.*?\n(?=efficiency:)", re.S | re.M)
_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n", re.S)


def rewrite(text: str, new_block: str) -> str:
    """The profile's text with its price block replaced (or its old price lines)."""
    if _BLOCK.search(text):
        return _BLOCK.sub(lambda _m: new_block, text, count=1)
    if _OLD.search(text):
        return _OLD.sub(lambda _m: new_block, text, count=1)
    raise SystemExit("no price block or price lines found")


def main(argv: list[str]) -> int:
    data = yaml.safe_load(PRICES.read_text())
    power = yaml.safe_load(POWER.read_text())
    stale = []
    for path in sorted(PROFILES.glob("*.yaml")):
        text = path.read_text()
        new = rewrite(text, block(path.stem, data, power))
        if new != text:
            stale.append(path.name)
            if "--check" not in argv:
                path.write_text(new)
    if "--check" in argv:
        if stale:
            print(f"stale price blocks: {', '.join(stale)}", file=sys.stderr)
            return 1
        return 0
    print(f"wrote {len(stale)} profile(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
