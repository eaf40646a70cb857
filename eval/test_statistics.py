"""Tests of the evaluation's statistics (CTest eval_statistics): the curve
distance, the paired bootstrap, Holm's procedure and the decision rule, on
synthetic records whose answers are known."""

import random
import unittest

from analysis import CHAINS, Analysis, fmt, holm, interp, p_value, verdicts


def record(setting, prompt, h, q):
    return {"setting": setting, "prompt": prompt, "sample": 0, "tokens": [1, 2, 3, 4], "H": [h, h], "KL": [0.0, 0.0],
            "TKL": [None, None], "score_ll": q * 100, "score_bytes": 100}


def synthetic(offsets, noise=0.0, seed=1, n_prompts=48):
    """Curves Q = -1 - 0.2 H with H = T in every chain; each setting of
    offsets sits at H = base + 0.05, offset above the curve; per-prompt
    noise, shared by a prompt's settings (as real prompts are)."""
    rng = random.Random(seed)
    recs = []
    for p in range(n_prompts):
        shift = rng.gauss(0, noise)
        for chain, (base, temps) in CHAINS.items():
            for t in temps:
                recs.append(record(f"{chain}:temp@{fmt(t)}", p, t, -1 - 0.2 * t + shift))
        for s, off in offsets.items():
            h = CHAINS[s.split(":")[0]][0] + 0.05
            recs.append(record(s, p, h, -1 - 0.2 * h + off + shift + rng.gauss(0, noise / 4)))
    return recs


SETTINGS = ["D:creative", "D:adaptive", "D:collision", "D:fixed@0.075", "K:creative", "N:creative", "M:creative"]


class Statistics(unittest.TestCase):
    def test_interp_and_extension(self):
        self.assertAlmostEqual(interp(1.5, [1, 2], [10, 20]), 15)
        self.assertAlmostEqual(interp(3.0, [1, 2], [10, 20]), 30)  # end segment extended
        self.assertAlmostEqual(interp(0.0, [1, 2], [10, 20]), 0)

    def test_distance_recovers_offsets(self):
        offsets = {s: 0.01 * (i - 3) for i, s in enumerate(SETTINGS)}
        a = Analysis(synthetic(offsets))
        est = a.estimates(a.prompts)
        for s, off in offsets.items():
            self.assertAlmostEqual(est[s], off, places=9)
        self.assertAlmostEqual(a.delta_min("D"), 0.2 * 0.05, places=9)  # Q = -1 - 0.2 T

    def test_holm(self):
        reject, adjusted = holm([0.01, 0.04, 0.03, 0.005])
        self.assertEqual(reject, [True, False, False, True])  # 0.005 <= .0125, 0.01 <= .0167, 0.03 > .025
        self.assertEqual([round(x, 3) for x in adjusted], [0.03, 0.06, 0.06, 0.02])

    def test_p_value(self):
        self.assertEqual(p_value([1.0] * 100), 0.01)
        self.assertEqual(p_value([-1.0, 1.0] * 50), 1.0)

    def test_rule_knob_when_effects_vanish(self):
        a = Analysis(synthetic({s: 0.0 for s in SETTINGS}, noise=0.02))
        fa, ba = a.bootstrap()
        fb, bb = Analysis(synthetic({s: 0.0 for s in SETTINGS}, noise=0.02, seed=2)).bootstrap()
        _, chains, claim = verdicts(a, fa, ba, fb, bb)
        self.assertEqual(set(chains.values()), {"a temperature knob"})
        self.assertEqual(claim, "not shown")

    def test_rule_worth_using_and_harmful(self):
        offsets = {s: 0.0 for s in SETTINGS}
        offsets.update({"D:creative": 0.05, "N:creative": -0.05, "D:collision": 0.05})
        a = Analysis(synthetic(offsets, noise=0.01))
        fa, ba = a.bootstrap()
        fb, bb = Analysis(synthetic(offsets, noise=0.01, seed=3)).bootstrap()
        rows, chains, claim = verdicts(a, fa, ba, fb, bb)
        self.assertEqual(chains["D"], "worth using")
        self.assertEqual(chains["N"], "harmful")
        self.assertEqual(chains["K"], "a temperature knob")
        self.assertEqual(claim, "supported")  # collision 0.05 above fixed's 0.0
        # without seed set B, nothing is decided
        _, pending, _ = verdicts(a, fa, ba, None, None)
        self.assertEqual(pending["D"], "pending seed set B")
        self.assertTrue(all(r["holm_p"] >= r["p"] for r in rows))


if __name__ == "__main__":
    unittest.main()
