"""The busiest expert-parallel GPU's distinct experts under plain and group-limited top-k
routing (calc.formulas.expert_routing), against hand arithmetic and seeded simulations."""

import numpy as np
import pytest

from calc.data.registry import load_model
from calc.deploy.steps import decode_step
from calc.formulas import expert_routing as R
from calc.formulas import flops as F


def _simulate(E, k, tokens, ep, G=1, g=1, draws=2000, seed=0):
    """(mean over GPUs, busiest GPU) distinct experts of one layer, by drawing the routing:
    each token takes g random groups of the G contiguous ones, then k random experts of them."""
    rng = np.random.default_rng(seed)
    m = E // G
    group_score = rng.random((draws, tokens, G))
    chosen = np.argsort(group_score, axis=-1)[..., :g]  # [draws, tokens, g]
    allowed = np.zeros((draws, tokens, G), dtype=bool)
    np.put_along_axis(allowed, chosen, True, axis=-1)
    score = np.where(np.repeat(allowed, m, axis=-1), rng.random((draws, tokens, E)), -1.0)
    picks = np.argsort(-score, axis=-1)[..., :k]  # [draws, tokens, k]
    touched = np.zeros((draws, tokens, E), dtype=bool)
    np.put_along_axis(touched, picks, True, axis=-1)
    per_gpu = touched.any(axis=1).reshape(draws, ep, E // ep).sum(axis=-1)  # [draws, ep]
    return per_gpu.mean(), per_gpu.max(axis=1).mean()


def test_one_tokens_avoid_probabilities_and_the_tiny_case_by_hand():
    # E 8, k 2, G 2 groups of 4, g 1: a token picks one group, then 2 of its 4 experts.
    # one expert: 1 − 2/8 = 3/4; two of one group: 1/2 + 1/2 × (2·1)/(4·3) = 7/12; two of two
    # groups: exactly one group picked (2·1·1/(2·1) = 1), the other's expert missed with 2/4
    assert R._avoid(8, 2, 2, 1) == pytest.approx((3 / 4, 7 / 12, 1 / 2))
    # plain top-k: C(E − 2, k)/C(E, k) = (6·5)/(8·7) = 30/56 for any pair
    assert R._avoid(8, 2, 1, 1) == pytest.approx((3 / 4, 30 / 56, 30 / 56))
    # ep 2: each GPU is one group (n 4). One token: mean n p = 4 × 1/4 = 1; variance
    # 4 × 3/16 + 12 pairs × (7/12 − 9/16) = 3/4 + 1/4 = 1 (exact: X is 0 or 2, each 1/2);
    # binomial variance 3/4, so ρ = (1/(3/4) − 1)/3 = 1/9, α + β = 8, α = 2, β = 6.
    # Beta-binomial(4, 2, 6) pmf × 7,920 (= 8·9·10·11): C(4,x)·Π(2+j)·Π(6+j) = 3,024, 2,688,
    # 1,512, 576, 120; CDF 3,024, 5,712, 7,224, 7,800. E[max of 2] = 4 − Σ F² =
    # 4 − (3,024² + 5,712² + 7,224² + 7,800²)/7,920² = 4 − 154,797,696/62,726,400 = 1.532.
    # The truth is 2 (the one picked GPU gets both): independence reads low at one token.
    assert R.busiest_active_experts(8, 2, 1, 2, 2, 1) == pytest.approx(
        4 - 154_797_696 / 62_726_400
    )
    assert _simulate(8, 2, 1, 2, 2, 1, draws=200)[1] == 2


def test_one_expert_a_gpu_is_exactly_one():
    # Mixtral's E 8 on ep 8: any routed token touches some GPU's only expert (was 0.90)
    assert F.busiest_active_experts(8, 2, np.array([1, 2, 64]), 8) == pytest.approx([1, 1, 1])
    assert F.busiest_active_experts(8, 2, 0, 8) == 0
    assert _simulate(8, 2, 1, 8, draws=200)[1] == 1


def test_placement_contiguous_blocks_and_groups():
    # DeepSeek-V3, 256 experts in 8 groups of 32: ep 4 → each GPU 2 whole groups; ep 16 →
    # half a group each; DeepSeek-V2's 160 in 8 groups of 20 on ep 5 (32 a GPU): 20 + 12,
    # 8 + 20 + 4, 16 + 16, 4 + 20 + 8, 12 + 20
    assert R.gpu_group_blocks(256, 8, 4) == ((4, (32, 32)),)
    assert R.gpu_group_blocks(256, 8, 16) == ((16, (16,)),)
    assert R.gpu_group_blocks(160, 8, 5)[1] == (1, (8, 20, 4))


@pytest.mark.parametrize(
    ("G", "g", "ep", "tokens", "rel"),
    [
        (1, 1, 8, 1, 0.03),  # plain top-k (MiniMax-M2.5 shape): within 2.2% of simulation
        (1, 1, 8, 4, 0.03),
        (1, 1, 4, 16, 0.03),
        (8, 4, 8, 2, 0.05),  # DeepSeek-V3: 4 of 8 groups a token; within 4.5% from 2 tokens
        (8, 4, 8, 4, 0.05),
        (8, 4, 4, 4, 0.06),
        (8, 4, 4, 16, 0.05),
        (8, 4, 16, 4, 0.05),
    ],
)
def test_busiest_gpu_against_a_seeded_simulation(G, g, ep, tokens, rel):
    mean, busiest = _simulate(256, 8, tokens, ep, G, g)
    # the mean GPU needs no groups: each expert is picked with k/E whatever the groups
    assert mean == pytest.approx(F.expected_active_experts(256, 8, tokens) / ep, rel=0.02)
    assert F.busiest_active_experts(256, 8, tokens, ep, G, g) == pytest.approx(busiest, rel=rel)


def test_group_limited_routing_loads_the_busiest_gpu_more():
    tokens = np.array([1, 4, 16, 64])
    plain = F.busiest_active_experts(256, 8, tokens, 8)
    grouped = F.busiest_active_experts(256, 8, tokens, 8, 8, 4)
    # a token's 8 experts on at most 4 of the 8 GPUs: more of them on the busiest
    assert np.all(grouped > plain) and np.all(grouped <= 32)
    # 4 tokens: 6.56 plain (simulated 6.54), 7.61 grouped (simulated 7.74)
    assert grouped[1] == pytest.approx(7.61, abs=0.01) and plain[1] == pytest.approx(6.56, abs=0.01)
    assert F.busiest_active_experts(256, 8, 100_000, 8, 8, 4) == pytest.approx(32)  # all
    assert F.busiest_active_experts(256, 8, 4, 1, 8, 4) == F.expected_active_experts(256, 8, 4)


def test_deepseek_decode_step_uses_its_groups():
    cfg = load_model("deepseek-v3")
    assert (cfg.moe.n_expert_groups, cfg.moe.expert_groups_per_token) == (8, 4)  # config.json
    step = decode_step(cfg, None, batch=4, ctx=1024, tp=8, ep=8)
    op = next(o for o in step.raw if o.name == "routed_experts")
    # 58 MoE layers (61 − 3 dense), each waiting for the busiest of 8 GPUs under 4-of-8 groups
    assert op.active_experts == pytest.approx(58 * F.busiest_active_experts(256, 8, 4, 8, 8, 4))


def test_groups_must_divide_the_experts():
    from calc.data.model_schema import MoEConfig

    with pytest.raises(ValueError, match="n_expert_groups \\(3\\) must divide"):
        MoEConfig(n_routed_experts=256, experts_per_token=8, d_expert_ffn=2048, n_expert_groups=3)
    with pytest.raises(ValueError, match="exceeds the experts of 1 of 64 groups"):
        MoEConfig(n_routed_experts=256, experts_per_token=8, d_expert_ffn=2048,
                  n_expert_groups=64, expert_groups_per_token=1)  # fmt: skip
