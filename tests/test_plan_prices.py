"""Issue 22, delivers 2 and 6: one price basis per ranking, stated and derived prices, and one
owned-hardware TCO for plan, cost and train, with energy per million tokens beside dollars."""

from __future__ import annotations

import pytest

from calc.data.registry import hardware_names, load_hardware
from calc.deploy.pricing import Owned, Pricing
from calc.formulas.tco import kwh_per_million_tokens, owned_usd_per_gpu_hour
from calc.reports.plan import PlanQuery, Slo, plan
from calc.reports.plan_eval import Load, LoadEval

LOAD = Load(10, 2048, 256)
SLO = Slo(ttft_p99_s=2.0, tpot_p99_s=0.050)


def _fake(dep, load, replicas):
    p = {q: 0.1 for q in ("p50", "p90", "p99")}
    t = {q: 0.01 for q in ("p50", "p90", "p99")}
    return LoadEval(p, t, False, None, "fake")


def _plan(**kw):
    base = dict(models=("llama3-8b",), load=LOAD, slo=SLO, margin=0.0, top=1000,
                disaggregation=False, weight_dtypes=("released",),
                kv_dtypes=("released",))  # fmt: skip
    base.update(kw)
    return plan(PlanQuery(**base), _fake)


def test_a_ranking_never_mixes_bases():
    r = _plan()
    rows = r.fields["rows"]
    assert rows and {x["price_basis"] for x in rows} == {"neocloud_on_demand"}
    assert r.fields["price_basis"] == "neocloud_on_demand"
    # the profiles with no list or median on the basis are left out and said so: a10g (AWS
    # only), gb300 and h20 (placeholders), mi355x (derived)
    assert r.fields["unpriced"] == ["a10g", "gb300", "h20", "mi355x"]
    assert not {x["hardware"] for x in rows} & set(r.fields["unpriced"])
    assert any("mi355x's neocloud_on_demand price is derived" in w for w in r.warnings)
    for x in rows:  # each row's price is its profile's on that basis
        p = load_hardware(x["hardware"]).price("neocloud_on_demand")
        assert x["usd_per_gpu_hour"] == p.usd_per_gpu_hour and not x["price_flagged"]


def test_another_basis_prices_every_row_on_it():
    # owned_tco: SemiAnalysis's TCO model covers nine GPUs; B300 and GB300 are its 1.2 x
    # B200 / GB200 derivations, left out unless --derived-prices asks for them (then flagged)
    r = _plan(pricing=Pricing(basis="owned_tco"))
    rows = r.fields["rows"]
    assert {x["price_basis"] for x in rows} == {"owned_tco"}
    priced = {x["hardware"] for x in rows}
    assert priced <= {"h100", "h200", "b200", "gb200", "mi300x", "mi325x", "mi355x"}
    assert "b300" in r.fields["unpriced"] and "gb300" in r.fields["unpriced"]
    r = _plan(pricing=Pricing(basis="owned_tco", derived=True), hardware=("b300", "h100"))
    flagged = {x["hardware"]: x["price_flagged"] for x in r.fields["rows"]}
    assert flagged == {"b300": True, "h100": False}
    b300 = next(x for x in r.fields["rows"] if x["hardware"] == "b300")
    assert b300["usd_per_gpu_hour"] == pytest.approx(1.2 * 1.95)  # 1.2 × B200 costh 1.95
    assert "(flagged" in r.fields["pricing"] or "included (flagged)" in r.fields["pricing"]


def test_stated_prices():
    r = _plan(hardware=("h100", "h200"), pricing=Pricing(overrides={"h100": 2.99}))
    by = {x["hardware"]: x for x in r.fields["rows"]}
    assert by["h100"]["usd_per_gpu_hour"] == 2.99 and by["h100"]["price_kind"] == "stated"
    assert by["h100"]["price_basis"] == "neocloud_on_demand"  # on the ranking's basis
    assert by["h200"]["usd_per_gpu_hour"] == 4.50  # its own neocloud median
    r = _plan(hardware=("h100", "a10g"), pricing=Pricing(usd_per_gpu_hour=1.5))
    assert {x["usd_per_gpu_hour"] for x in r.fields["rows"]} == {1.5}


def test_no_priced_profile_is_one_error():
    from calc.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="a10g has no neocloud_on_demand price"):
        _plan(hardware=("a10g",))


def test_one_tco_for_plan_cost_and_train(cli):
    # $30,000 over 4 years of 8,766 h + the H100's 700 W board power × PUE 1.3 × $0.10/kWh
    # = 0.855578 + 0.091 = 0.946578 USD per GPU-hour, the same in all three commands
    want = owned_usd_per_gpu_hour(30_000, 4, 0.7, 1.3, 0.10)
    assert want == pytest.approx(30_000 / (4 * 8766) + 0.7 * 1.3 * 0.10, rel=1e-12)
    owned = ("--capex-usd-per-gpu", "30000")
    cost = cli("cost", "-m", "llama3-8b", "-H", "h100", "--ctx", "2048", *owned, "-f", "json")
    assert cost.code == 0, cost.err
    assert cost.json()["usd_per_gpu_hour"] == pytest.approx(want, rel=1e-12)
    assert cost.json()["price_basis"] == "owned"
    train = cli("train", "-m", "llama3-8b", "-H", "h100", "--tp", "2", "--tokens", "1e9",
                *owned, "-f", "json")  # fmt: skip
    assert train.json()["usd_per_gpu_hour"] == pytest.approx(want, rel=1e-12)
    p = cli("plan", "-m", "llama3-8b", "-H", "h100", "--rate", "1", "--prompt", "512", "--gen",
            "64", "--ttft-p99", "2s", "--tpot-p99", "100ms", "--method", "analytic", *owned,
            "-f", "json")  # fmt: skip
    assert p.code == 0, p.err
    assert p.json()["rows"][0]["usd_per_gpu_hour"] == pytest.approx(want, rel=1e-12)
    # a profile with no board power needs the power stated
    r = cli("cost", "-m", "llama3-8b", "-H", "a10g", "--ctx", "2048", *owned)
    assert r.code == 2 and "a10g states no board power: give --power-kw-per-gpu" in r.err
    # per-profile capex for a ranking of owned hardware
    p = cli("plan", "-m", "llama3-8b", "-H", "h100,b200", "--rate", "1", "--prompt", "512",
            "--gen", "64", "--ttft-p99", "2s", "--tpot-p99", "100ms", "--method", "analytic",
            "--capex-usd-per-gpu", "h100=30000,b200=40000", "--top", "50",
            "-f", "json")  # fmt: skip
    by = {x["hardware"]: x["usd_per_gpu_hour"] for x in p.json()["rows"]}
    # B200: 40,000 / 35,064 + 1.0 kW (its 1,000 W TGP) × 1.3 × 0.10 = 1.140771 + 0.13
    assert by["b200"] == pytest.approx(40_000 / 35_064 + 0.13, rel=1e-12)
    assert by["h100"] == pytest.approx(want, rel=1e-12)


def test_cost_falls_back_to_the_reference_price_and_says_so(cli):
    r = cli("cost", "-m", "llama3-8b", "-H", "a10g", "--ctx", "2048", "-f", "json")
    assert r.code == 0, r.err
    out = r.json()
    assert (out["price_basis"], out["price_kind"], out["usd_per_gpu_hour"]) == (
        "hyperscaler_on_demand", "list", 1.006)  # AWS g5.xlarge
    assert "a10g has no usable neocloud_on_demand price" in r.err
    r = cli("cost", "-m", "llama3-8b", "-H", "a10g", "--ctx", "2048", "--price-basis",
            "hyperscaler_on_demand", "-f", "json")  # fmt: skip
    assert r.code == 0 and "warning" not in r.err


def test_energy_per_million_tokens(cli):
    # cost: board power × PUE / 3,600 / serving output tokens/s per GPU × 10^6
    out = cli("cost", "-m", "llama3-8b", "-H", "h100", "--ctx", "2048", "--prompt", "1024",
              "-f", "json").json()  # fmt: skip
    tps = out["serving_output_tokens_per_s_per_gpu"]
    assert out["kwh_per_million_output_tokens_serving"] == pytest.approx(
        kwh_per_million_tokens(1, 0.7, 1.3, tps), rel=1e-12
    )
    assert kwh_per_million_tokens(8, 1.0, 1.3, 3600) == pytest.approx(8 * 1.3 / 3600 / 3600 * 1e6)
    # plan rows: the deployment's GPUs at board power × PUE, split between prompt and output
    # tokens as the dollars are
    r = _plan(hardware=("h100",))
    row = r.fields["rows"][0]
    share_in = row["usd_per_million_input_tokens_at_load"] * 3600 * (10 * 2048) / 1e6
    share_in /= row["usd_per_hour_per_deployment"]
    kwh_in = row["gpus"] * 0.7 * 1.3 * share_in / 3600 / (10 * 2048) * 1e6
    assert row["kwh_per_million_input_tokens_at_load"] == pytest.approx(kwh_in, rel=1e-9)
    r = _plan(hardware=("a10g",), pricing=Pricing(usd_per_gpu_hour=1.0))
    assert r.fields["rows"][0]["kwh_per_million_output_tokens_at_load"] is None  # no power


def test_owned_needs_a_capex():
    from calc.cli.price_options import pricing_of
    from calc.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="--pue prices owned hardware"):
        pricing_of({"pue": 1.5})
    p = pricing_of({"capex_usd_per_gpu": "h100=30000", "years": 5})
    assert isinstance(p.owned, Owned) and p.owned.capex_usd_per_gpu == {"h100": 30000.0}
    assert p.price_of(load_hardware("b200")) is None  # no capex stated for it
    assert "no --capex-usd-per-gpu for b200" in p.missing(load_hardware("b200"))


def test_every_profile_has_a_reference_price():
    for name in hardware_names():
        hw = load_hardware(name)
        assert hw.usd_per_hour == hw.prices[0].usd_per_gpu_hour > 0


def test_an_old_profile_gets_a_clear_error(cli, tmp_path):
    import yaml

    from calc.data.registry import data_dir

    data = yaml.safe_load((data_dir("hardware_profiles") / "h100.yaml").read_text())
    del data["prices"]
    data.update(usd_per_hour=6.155, price_date="2026-02", price_source="CoreWeave")
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(data))
    r = cli("memory", "-m", "llama3-8b", "--ctx", "128", "-H", str(path))
    assert r.code == 2 and "are now 'prices:'" in r.err and r.err.count("\n") == 1
