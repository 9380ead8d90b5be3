"""Imports every config.json of a folder of vendored Hugging Face configs and reports which
import, which are refused (and why), and what was assumed: the check of issue 24 ("of 86
configs vendored in a peer's repository, kvcalc refuses 62").

Run: python bench/hf_import_sweep.py FOLDER

FOLDER holds ``<org>--<model>_config.json`` files and optional ``..._hf_quant_config.json``
beside them, as aiconfigurator-core vendors them (``pip download --no-deps
aiconfigurator-core==0.12.0``, then unzip ``aiconfigurator_core/model_configs``). Each pair
is copied into a snapshot folder and read as a user's ``-m`` would read it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path


def sweep(folder: Path) -> list[tuple[str, str, str]]:
    """(model, 'ok' or 'refused', figures or the error line) for every config in ``folder``."""
    from calc.data.hf_import import load_hf_config
    from calc.deploy.checkpoint import model_weight_bytes
    from calc.errors import ConfigError
    from calc.formulas.params import model_params

    out = []
    for path in sorted(folder.glob("*_config.json")):
        if path.name.endswith("_hf_quant_config.json"):
            continue
        name = path.name.removesuffix("_config.json")
        with tempfile.TemporaryDirectory() as tmp:
            snap = Path(tmp) / name
            snap.mkdir()
            shutil.copy(path, snap / "config.json")
            quant = folder / f"{name}_hf_quant_config.json"
            if quant.exists():
                shutil.copy(quant, snap / "hf_quant_config.json")
            try:
                cfg = load_hf_config(snap, name=name.lower()[:90])
            except ConfigError as exc:
                out.append((name, "refused", str(exc).split(": ", 1)[-1]))
                continue
        p = model_params(cfg)
        weights = sum(model_weight_bytes(cfg).values())
        note = f"{p.total / 1e9:,.2f}B params, {weights / 1e9:,.2f} GB weights"
        if cfg.assumed:
            note += f"; assumed: {' | '.join(cfg.assumed)}"
        out.append((name, "ok", note))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    rows = sweep(Path(argv[0]))
    for name, status, note in rows:
        print(f"{status:8s} {name}: {note}")
    ok = sum(1 for _, s, _ in rows if s == "ok")
    print(f"\n{ok} of {len(rows)} configs import; {len(rows) - ok} refused")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
