"""The GPU every validation start-up log resolves to without --hardware (issue 21's logdevice
round): per record of bench/validation_capacity.py's files (engine_logs_train.yaml,
engine_logs_versions.yaml) with log lines, the profile the
validation states (bench/validation_capacity.py passes it as --hardware), the one the log's
memory total alone gives (the rule before the round; h100 with a warning where it gives none),
the one the log now resolves to (a device name > the memory total > h100) and the device names
its lines print.

Run: python bench/log_device.py      (prints a Markdown table and the counts)
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.validation_capacity import _ENGINES, DATA, STATED  # noqa: E402
from calc.data.gpu_names import hardware_for_gpu  # noqa: E402
from calc.deploy.engines.fromlog import hardware_of, read_log  # noqa: E402
from calc.deploy.engines.logdevice import gpu_of_log  # noqa: E402


def rows() -> list[dict]:
    out = []
    for path in DATA:
        for r in yaml.safe_load(path.read_text())["records"]:
            if not r.get("log_lines"):
                continue
            facts = read_log(list(r["log_lines"]), _ENGINES[r["engine"]])
            by_memory = hardware_of(facts)
            now, warnings = gpu_of_log(facts.devices, by_memory)
            out.append({
                "id": r["id"],
                "stated": r.get("hardware") or STATED.get(r["id"], {}).get("hardware") or "h100",
                "before": by_memory or "h100 (fallback)",
                "after": now if (facts.devices or by_memory) else "h100 (fallback)",
                "from": "name" if any(map(hardware_for_gpu, facts.devices)) else
                        "memory" if by_memory else "fallback",
                "names": ", ".join(facts.devices) or "-",
                "warnings": len(warnings),
            })  # fmt: skip
    return out


def main() -> None:
    rs = rows()
    print("| record | stated | before (memory total) | after | from | names in the log |")
    print("|---|---|---|---|---|---|")
    for r in rs:
        print(f"| {r['id']} | {r['stated']} | {r['before']} | {r['after']} | {r['from']} | "
              f"{r['names']} |")
    own = [r for r in rs if not r["after"].startswith("h100 (")]
    right = [r for r in own if r["after"] == r["stated"]]
    print(f"\n{len(rs)} records with log lines; {len(own)} resolve their GPU from the log "
          f"without --hardware ({sum(r['from'] == 'name' for r in rs)} by a device name), "
          f"{len(right)} of them to the stated profile; before: "
          f"{sum(not r['before'].startswith('h100 (') for r in rs)} from the memory total")


if __name__ == "__main__":
    main()
