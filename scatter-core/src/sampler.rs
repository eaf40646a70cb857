//! The sampler: state kept between applies and the apply pipeline of SPEC §4.

use crate::candidate::PROBABILITY_FLOOR;
use crate::expln::{exp_nonpositive, ln_nonnegative, ln_normal, EXP_FLOOR};
use crate::gate::CollisionGate;
use crate::history::History;
#[cfg(target_arch = "x86_64")]
use crate::isa::X86V3;
use crate::isa::{Baseline, Isa};
use crate::kernel::{RankKernel, Smoothing, MAX_SHORT_MEDIUM};
use crate::lanes::{map_lanes, VECTOR_LANES};
use crate::medium::Medium;
use crate::params::{Config, Params};
use crate::plan::Plan;
use crate::strength::{adaptive_strength, normalized_entropy};
use crate::{Outcome, TokenData};
use std::ffi::CStr;

/// The sampler's name in llama.cpp chains.
pub const NAME: &CStr = c"scatter";

/// The name of a disabled (noop) scatter sampler, following llama.cpp's
/// convention for disabled samplers (`?xtc`).
pub const NOOP_NAME: &CStr = c"?scatter";

/// A scatter sampler: parameters, collision-gate RNG, absorption history
/// and scratch buffers. `Clone` gives an independent sampler that continues
/// from the same state (same history, same RNG position).
///
/// ```
/// use scatter_core::{Outcome, Params, Scatter, TokenData};
///
/// // The collision preset: the gate fires on about a quarter of the
/// // applies, drawn from the seed's stream.
/// let mut scatter = Scatter::new(&Params { seed: 7, ..Params::preset("collision").unwrap() });
/// let row = [3.0f32, 2.0, 1.5, 1.0].map(|logit| TokenData { id: 0, logit, p: 0.0 });
/// let mut fired = Vec::new();
/// for token in 0..40 {
///     let mut candidates = row;
///     fired.push(scatter.apply(&mut candidates) != Outcome::Untouched);
///     scatter.accept(token);
/// }
/// let stats = scatter.stats();
/// assert_eq!(stats.applies, 40);
/// assert_eq!(stats.fired as usize, fired.iter().filter(|&&f| f).count());
/// assert!(stats.fired > 0 && stats.fired < 40);
/// // Reset restarts the gate from the seed: the same decisions again.
/// scatter.reset();
/// let again: Vec<bool> = (0..40)
///     .map(|_| scatter.apply(&mut row.clone()) != Outcome::Untouched)
///     .collect();
/// assert_eq!(again, fired);
/// ```
#[derive(Clone, Debug)]
pub struct Scatter {
    /// `None`: a noop sampler (SPEC §4.1).
    active: Option<Active>,
}

#[derive(Clone, Debug)]
struct Active {
    config: Config,
    kernel: RankKernel,
    gate: CollisionGate,
    history: History,
    scratch: Scratch,
    stats: Stats,
}

/// What an active sampler did since it was made or last reset. Kept so that
/// users and the evaluation tool can see the adaptive strength and the
/// collision gate at work without re-deriving them; a noop sampler's stay 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Calls of `apply`.
    pub applies: u64,
    /// Applies on which the collision gate fired (all of them at collision 1).
    pub fired: u64,
    /// Applies that rewrote the candidates (fired, and two or more finite
    /// candidates, no forced token).
    pub scattered: u64,
    /// Sum of the strength used by those rewrites (the adaptive strength
    /// in adaptive mode); divide by `scattered` for the mean.
    pub strength_sum: f64,
}

/// Buffers reused across applies, so that apply allocates only while the
/// medium is larger than any seen before.
#[derive(Clone, Debug, Default)]
struct Scratch {
    medium: Medium,
    ids: Vec<i32>,
    p: Vec<f64>,
    smoothing: Smoothing,
    logits: Vec<f64>,
    counts: Vec<u32>,
    repeated: Vec<usize>,
    order: Vec<usize>,
}

impl Scatter {
    /// Builds a sampler from raw parameters, applying the SPEC §4.1 clamps;
    /// parameters that ask for no effect give a noop sampler.
    pub fn new(params: &Params) -> Self {
        let active = params.config().map(|config| Active {
            kernel: RankKernel::new(config.radius),
            gate: CollisionGate::new(config.collision, config.seed),
            history: History::new(config.absorption.map_or(0, |a| a.window)),
            scratch: Scratch::default(),
            stats: Stats::default(),
            config,
        });
        Self { active }
    }

    /// False for the noop sampler, whose `apply` never touches its input.
    pub fn is_active(&self) -> bool {
        self.active.is_some()
    }

    /// [`NAME`], or [`NOOP_NAME`] for the noop sampler. A C string,
    /// because llama.cpp reads it through the sampler vtable.
    pub fn name(&self) -> &'static CStr {
        if self.is_active() {
            NAME
        } else {
            NOOP_NAME
        }
    }

    /// Records an accepted token in the absorption history, whether or not
    /// the gate fired on the step that produced it.
    pub fn accept(&mut self, token: i32) {
        if let Some(a) = &mut self.active {
            a.history.accept(token);
        }
    }

    /// Clears the history and the stats and restarts the gate's RNG from
    /// the seed.
    pub fn reset(&mut self) {
        if let Some(a) = &mut self.active {
            a.history.clear();
            a.gate.reset();
            a.stats = Stats::default();
        }
    }

    /// What this sampler did since it was made or last reset.
    pub fn stats(&self) -> Stats {
        self.active
            .as_ref()
            .map_or_else(Stats::default, |a| a.stats)
    }

    /// What an apply computes, for running it elsewhere (llama.cpp's
    /// backend sampling); `None` for the noop sampler and with absorption,
    /// whose history lives here.
    ///
    /// ```
    /// use scatter_core::{Params, Scatter};
    ///
    /// let plan = Scatter::new(&Params::preset("creative").unwrap()).plan().unwrap();
    /// assert_eq!((plan.k, plan.steps, plan.gated), (64, 1, false));
    /// assert!(Scatter::new(&Params::preset("adaptive-absorb").unwrap()).plan().is_none());
    /// ```
    pub fn plan(&self) -> Option<Plan> {
        self.active.as_ref().and_then(|a| Plan::of(&a.config))
    }

    /// The collision gate of one apply: counts the apply, draws from the
    /// sampler's stream (nothing at collision 1) and says whether the gate
    /// fires; false for the noop sampler. [`Self::apply`] starts with it,
    /// and an apply run elsewhere from [`Self::plan`] calls it alone, so
    /// both see the same decisions. The stats' `scattered` and
    /// `strength_sum` are left to the scattering: of an apply run
    /// elsewhere they are not known here.
    #[inline(always)]
    pub fn draw_gate(&mut self) -> bool {
        let Some(a) = &mut self.active else {
            return false;
        };
        a.stats.applies += 1;
        let fires = a.gate.fires();
        a.stats.fired += u64::from(fires);
        fires
    }

    /// Scatters `candidates` in place (SPEC §4.2–4.6). See [`Outcome`] for
    /// what the caller must do with the array afterwards.
    ///
    /// Inlined into the caller (the C library's entry point), the
    /// scattering itself out of line: this keeps a noop sampler — what
    /// llama.cpp's tools put in the default chain when no `--scatter-*`
    /// flag is given — on one code page (BENCHMARKS.md, "End to end").
    #[inline(always)]
    pub fn apply(&mut self, candidates: &mut [TokenData]) -> Outcome {
        self.apply_with(candidates, Active::scatter)
    }

    /// [`Self::apply`] compiled for x86-64-v3 (AVX2, FMA, BMI1/2, F16C,
    /// LZCNT, MOVBE), for a build that targets less (the portable one):
    /// what the C library runs where [`Self::runs_x86_64_v3`] (DESIGN.md,
    /// "Kernels chosen at run time"). Its results are apply's but for the
    /// rounding of its fused multiply-adds (the last bit of an f64, at most
    /// one f32 ulp as written); the order written is exact in both.
    ///
    /// # Safety
    /// Outside code compiled for these features, call it only where
    /// [`Self::runs_x86_64_v3`]: on another CPU it may stop at an illegal
    /// instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,avx2,bmi1,bmi2,f16c,fma,lzcnt,movbe,popcnt")]
    pub fn apply_x86_64_v3(&mut self, candidates: &mut [TokenData]) -> Outcome {
        self.apply_with(candidates, |active, candidates| {
            active.scatter_with::<X86V3>(candidates)
        })
    }

    /// Whether this CPU has every feature [`Self::apply_x86_64_v3`] is
    /// compiled for (CPUID, read once by the standard library).
    #[cfg(target_arch = "x86_64")]
    pub fn runs_x86_64_v3() -> bool {
        is_x86_feature_detected!("avx")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("f16c")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("lzcnt")
            && is_x86_feature_detected!("movbe")
            && is_x86_feature_detected!("popcnt")
    }

    /// The collision gate, then `scatter` on an active sampler.
    #[inline(always)]
    fn apply_with(
        &mut self,
        candidates: &mut [TokenData],
        scatter: impl FnOnce(&mut Active, &mut [TokenData]) -> Outcome,
    ) -> Outcome {
        if !self.draw_gate() {
            return Outcome::Untouched;
        }
        match &mut self.active {
            Some(a) => scatter(a, candidates),
            None => Outcome::Untouched,
        }
    }
}

/// The code paths of an apply of an active sampler (DESIGN.md has the
/// table; the noop sampler has no [`Active`] and no path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// What SPEC leaves untouched: fewer than two finite candidates, a
    /// forced (`+inf`) token, or an array too long to index.
    Untouched,
    /// 2 to [`MAX_SHORT_MEDIUM`] candidates without absorption, on the
    /// stack ([`Active::scatter_short`]).
    Short,
    /// Anything else, in buffers reused across applies
    /// ([`Active::scatter_general`]).
    General,
}

/// The one place a path is chosen: from the parameters and the medium
/// size alone (`None`: no usable medium), never from earlier applies, so
/// that a result does not depend on the sampler's past.
fn choose_path(config: &Config, medium: Option<usize>) -> Path {
    match medium {
        Some(m) if m < 2 => Path::Untouched,
        Some(m) if m <= MAX_SHORT_MEDIUM && config.absorption.is_none() => Path::Short,
        Some(_) => Path::General,
        None => Path::Untouched,
    }
}

impl Active {
    /// Out of line, so that [`Scatter::apply`], inlined into its caller,
    /// stays small.
    #[inline(never)]
    fn scatter(&mut self, candidates: &mut [TokenData]) -> Outcome {
        self.scatter_with::<Baseline>(candidates)
    }

    /// The scattering, compiled into its caller for the caller's
    /// instruction set `I`: every step below it that computes is
    /// `#[inline(always)]` (see [`crate::isa`]).
    #[inline(always)]
    fn scatter_with<I: Isa>(&mut self, candidates: &mut [TokenData]) -> Outcome {
        #[cfg(feature = "check-reference")]
        let check = crate::check::Check::before(&self.config, candidates, &self.history);
        let medium = &mut self.scratch.medium;
        let selected = medium.select(candidates, self.config.k).is_ok();
        let m = medium.len();
        let strength = match choose_path(&self.config, selected.then_some(m)) {
            Path::Untouched => None,
            Path::Short => Some(self.scatter_short::<I>(candidates)),
            Path::General => Some(self.scatter_general::<I>(candidates)),
        };
        let outcome = match strength {
            Some(strength) => {
                self.stats.scattered += 1;
                self.stats.strength_sum += strength;
                Outcome::Rewritten { size: m }
            }
            None => Outcome::Untouched,
        };
        #[cfg(feature = "check-reference")]
        check.after(candidates, outcome);
        outcome
    }

    /// The short path: the same steps as [`Self::scatter_general`] on
    /// [`MAX_SHORT_MEDIUM`] lanes on the stack, touching no scratch buffer.
    /// Every loop has a fixed length, so the path compiles to straight-line
    /// vector code; it serves what `top_p` and `min_p` usually leave, right
    /// after a model evaluation has evicted the caches, where each code
    /// line and each buffer is a miss (BENCHMARKS.md, "The first apply, alone").
    #[inline(always)]
    fn scatter_short<I: Isa>(&mut self, candidates: &mut [TokenData]) -> f64 {
        let medium = &self.scratch.medium;
        let m = medium.len();
        // An unsorted input's ids, gathered before the write-back moves
        // them (a prefix has no entries: nothing is gathered).
        let in_place = medium.prefix.is_some();
        let mut ids = [0; MAX_SHORT_MEDIUM];
        for (id, moved) in ids.iter_mut().zip(medium.entry_ids(candidates)) {
            *id = moved;
        }
        let mut p = [0.0; MAX_SHORT_MEDIUM];
        let strength = softmax_and_strength::<I>(&self.config, medium, candidates, &mut p);
        if strength > 0.0 {
            let q = self.kernel.smooth_short(&p, m, self.config.steps);
            blend(&mut p, &q, strength);
        }
        settle(&mut p);
        let mut logits = p;
        log_probabilities::<I>(&mut logits);
        let moved = (!in_place).then_some(&ids[..m]);
        write_back(&mut candidates[..m], moved, &p, &logits);
        strength
    }

    /// Any medium, in buffers kept across applies and padded to whole
    /// vectors.
    #[inline(always)]
    fn scatter_general<I: Isa>(&mut self, candidates: &mut [TokenData]) -> f64 {
        let s = &mut self.scratch;
        let m = s.medium.len();
        let in_place = s.medium.prefix.is_some();
        s.ids.clear();
        if !in_place || self.config.absorption.is_some() {
            s.medium.ids(candidates, &mut s.ids);
        }
        let padded = m.next_multiple_of(VECTOR_LANES);
        s.p.clear();
        s.p.resize(padded, 0.0);
        let strength = softmax_and_strength::<I>(&self.config, &s.medium, candidates, &mut s.p);
        if strength > 0.0 {
            let q = self
                .kernel
                .smooth(&s.p[..m], self.config.steps, &mut s.smoothing);
            blend(&mut s.p, q, strength);
        }
        settle(&mut s.p);

        let reordered = self.config.absorption.as_ref().is_some_and(|a| {
            absorb::<I>(&mut s.p[..m], &s.ids, &self.history, a.rate, &mut s.counts)
        });
        s.logits.clear();
        if reordered {
            order_after_absorption(&s.p[..m], &s.counts, &mut s.order, &mut s.repeated);
            s.logits.extend(s.order.iter().map(|&rank| s.p[rank]));
            s.logits.resize(padded, 0.0);
            log_probabilities::<I>(&mut s.logits);
            for ((slot, &rank), &logit) in candidates.iter_mut().zip(&s.order).zip(&s.logits) {
                *slot = TokenData {
                    id: s.ids[rank],
                    logit: logit as f32,
                    p: s.p[rank] as f32,
                };
            }
        } else {
            s.logits.extend_from_slice(&s.p);
            log_probabilities::<I>(&mut s.logits);
            let moved = (!in_place).then_some(&s.ids[..]);
            write_back(&mut candidates[..m], moved, &s.p, &s.logits);
        }
        strength
    }
}

// The steps both paths share are `#[inline(always)]`, and so is
// `Medium::logits_minus_max`: out of line, the short path's code spreads
// over more pages and its first apply after a model evaluation costs more
// (BENCHMARKS.md, "The first apply, alone"; measured with and without).

/// SPEC §4.3 step 2 and §4.4: `p` ← the medium's softmax numerators
/// (zeros in the padding to a multiple of [`VECTOR_LANES`]), and the strength to
/// use (adaptive or fixed).
#[inline(always)]
fn softmax_and_strength<I: Isa>(
    config: &Config,
    medium: &Medium,
    cands: &[TokenData],
    p: &mut [f64],
) -> f64 {
    let (total, tilted) = softmax_numerators::<I>(medium, cands, p);
    match &config.adaptive {
        Some(curve) => {
            let h = normalized_entropy::<I>(total, tilted, medium.len());
            adaptive_strength(h, config.strength, curve)
        }
        None => config.strength,
    }
}

/// After the blend (SPEC §4.3 step 5): the exact order clamp and the
/// normalisation. The zeros of the padding are below any probability, so
/// both leave them 0.
#[inline(always)]
fn settle(p: &mut [f64]) {
    enforce_non_increasing(p);
    normalize(p);
}

/// `p ← (1 − strength)·p + strength·q` (SPEC §4.3 step 4), over the length
/// of `q`.
#[inline(always)]
fn blend(p: &mut [f64], q: &[f64], strength: f64) {
    for (p, q) in p.iter_mut().zip(q) {
        *p = (1.0 - strength) * *p + strength * q;
    }
}

/// `x ← ln max(x, ε)` over the probabilities in the order written (zeros
/// after them fill the padding), in a pass of its own over contiguous
/// values so that it vectorises. The probabilities are non-increasing in
/// that order, and so is the exact logarithm; the same clamp as for `p`
/// makes the written logits so to the last bit, whatever the last-ulp
/// behaviour of `ln_normal` (rounding to f32 afterwards is monotone). The
/// padding's `ln ε` is below every written logit.
#[inline(always)]
fn log_probabilities<I: Isa>(logits: &mut [f64]) {
    map_lanes(logits, |x| ln_normal::<I>(x.max(PROBABILITY_FLOOR)));
    enforce_non_increasing(logits);
}

/// Writes the medium over `slots` in rank order. `ids`: the medium's ids
/// when they move (unsorted input); `None` when the input was sorted and
/// its ids are already in place. Whole records are stored, the id copied
/// onto itself in place, so that the compiler interleaves the three
/// fields in vector registers (field by field the loop is slower:
/// BENCHMARKS.md).
#[inline(always)]
fn write_back(slots: &mut [TokenData], ids: Option<&[i32]>, p: &[f64], logits: &[f64]) {
    let values = p.iter().zip(logits);
    match ids {
        Some(ids) => {
            for ((slot, &id), (&p, &logit)) in slots.iter_mut().zip(ids).zip(values) {
                *slot = TokenData {
                    id,
                    logit: logit as f32,
                    p: p as f32,
                };
            }
        }
        None => {
            for (slot, (&p, &logit)) in slots.iter_mut().zip(values) {
                *slot = TokenData {
                    id: slot.id,
                    logit: logit as f32,
                    p: p as f32,
                };
            }
        }
    }
}

/// The softmax of the medium without its division, in f64:
/// `p_i = exp(logit_i − max)` (the medium is sorted, so its first logit is
/// the maximum). Every later step is linear in `p` or indifferent to its
/// scale (kernel, blend, order clamp, absorption's log domain) up to the
/// final normalisation, so dividing here would be done twice. `p` is
/// padded to a multiple of [`VECTOR_LANES`]; the padding gets 0. Returns the sum
/// and `Σ p_i·(logit_i − max)`, the two sums the entropy needs
/// ([`normalized_entropy`]); the second costs one multiply-add per vector.
#[inline(always)]
fn softmax_numerators<I: Isa>(medium: &Medium, cands: &[TokenData], p: &mut [f64]) -> (f64, f64) {
    let (values, padding) = p.split_at_mut(medium.len());
    medium.logits_minus_max(cands, values);
    // The padding goes through `exp` as 0, and is set to 0 afterwards: at
    // EXP_FLOOR the result underflows, and an underflowing lane costs a
    // microcode assist on Intel cores, a large part of a warm apply on a
    // short medium (BENCHMARKS.md).
    padding.fill(0.0);
    let mut tilted = [0.0; VECTOR_LANES];
    for chunk in p.chunks_exact_mut(VECTOR_LANES) {
        for (x, t) in chunk.iter_mut().zip(&mut tilted) {
            // The argument `exp` uses: a logit more than 746 below the
            // maximum weighs exactly 0 here too.
            let arg = x.max(EXP_FLOOR);
            *x = exp_nonpositive::<I>(arg);
            *t += *x * arg;
        }
    }
    p[medium.len()..].fill(0.0);
    (sum(p), sum(&tilted))
}

#[inline(always)]
fn normalize(p: &mut [f64]) {
    let sum = sum(p);
    p.iter_mut().for_each(|x| *x /= sum);
}

/// Σ x over eight interleaved partial sums: the additions pipeline (and
/// vectorise) instead of each waiting on the last, and the rounding error
/// grows more slowly than along one chain.
#[inline(always)]
fn sum(x: &[f64]) -> f64 {
    let mut lanes = [0.0f64; 8];
    let mut chunks = x.chunks_exact(8);
    for chunk in chunks.by_ref() {
        for (lane, v) in lanes.iter_mut().zip(chunk) {
            *lane += v;
        }
    }
    for (lane, v) in lanes.iter_mut().zip(chunks.remainder()) {
        *lane += v;
    }
    let [a, b, c, d, e, f, g, h] = lanes;
    ((a + b) + (c + d)) + ((e + f) + (g + h))
}

/// In exact arithmetic a row-normalised Gaussian kernel maps a
/// non-increasing sequence to a non-increasing one (the kernel is totally
/// positive, truncated or not). Rounding can break that by an ulp; this
/// restores it, so order stability holds exactly. Division by a positive
/// sum and rounding to f32 are monotone; `ln_normal` may not be to the last
/// ulp, so apply runs this again on the logarithms it writes.
#[inline(always)]
fn enforce_non_increasing(p: &mut [f64]) {
    // The repair is a serial chain; the check vectorises (a fold, not
    // `all`: no early exit), and almost always finds nothing to repair.
    let sorted = p
        .iter()
        .zip(p.iter().skip(1))
        .fold(true, |sorted, (a, b)| sorted & (a >= b));
    if !sorted {
        clamp_to_running_min(p.iter_mut());
    }
}

/// Lowers each value to at most the one before it.
fn clamp_to_running_min<'a>(values: impl Iterator<Item = &'a mut f64>) {
    let mut previous = f64::INFINITY;
    for x in values {
        *x = x.min(previous);
        previous = *x;
    }
}

/// `p_i ← p_i·exp(−rate·c_i)`, renormalised; computed in the log domain so
/// that no rate or count can turn the whole medium into 0/0. Returns
/// whether any token of the medium was repeated.
/// `counts` is scratch, so that each id is looked up once; afterwards it
/// holds each rank's count. Inlined, as every step generic over the
/// instruction set.
#[inline(always)]
fn absorb<I: Isa>(
    p: &mut [f64],
    ids: &[i32],
    history: &History,
    rate: f64,
    counts: &mut Vec<u32>,
) -> bool {
    if history.is_empty() {
        return false;
    }
    counts.clear();
    counts.extend(ids.iter().map(|&id| history.count(id)));
    if counts.iter().all(|&c| c == 0) {
        return false;
    }
    for (x, &c) in p.iter_mut().zip(counts.iter()) {
        // ln 0 = -inf: a token whose p underflowed keeps no mass.
        *x = ln_nonnegative::<I>(*x) - rate * f64::from(c);
    }
    let max = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    p.iter_mut()
        .for_each(|x| *x = exp_nonpositive::<I>(*x - max));
    // Unrepeated tokens were non-increasing and were all scaled by the
    // same factor; the running minimum keeps them so to the last bit.
    clamp_to_running_min(
        p.iter_mut()
            .zip(counts.iter())
            .filter(|(_, &c)| c == 0)
            .map(|(x, _)| x),
    );
    normalize(p);
    true
}

/// The ranks ordered by (p desc, rank asc), after absorption lowered some
/// of them. The unrepeated ranks are already in that order (see `absorb`),
/// so only the repeated ones are sorted, then the two lists are merged:
/// O(m + r log r) for r repeated tokens, and unrepeated tokens keep their
/// relative order by construction.
#[inline(never)]
fn order_after_absorption(
    p: &[f64],
    counts: &[u32],
    order: &mut Vec<usize>,
    repeated: &mut Vec<usize>,
) {
    repeated.clear();
    repeated.extend((0..p.len()).filter(|&i| counts[i] > 0));
    repeated.sort_unstable_by(|&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b)));
    order.clear();
    let mut lowered = repeated.iter().copied().peekable();
    for kept in (0..p.len()).filter(|&i| counts[i] == 0) {
        while let Some(r) = lowered.next_if(|&r| p[r] > p[kept] || (p[r] == p[kept] && r < kept)) {
            order.push(r);
        }
        order.push(kept);
    }
    order.extend(lowered);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inversion_is_clamped_and_sorted_values_keep_their_bits() {
        let mut p = vec![0.5, 0.2, 0.2000000001, 0.1, 0.1];
        enforce_non_increasing(&mut p);
        assert_eq!(p, [0.5, 0.2, 0.2, 0.1, 0.1]);
        let sorted = vec![0.4, 0.3, 0.3, 1e-300, 0.0];
        let mut same = sorted.clone();
        enforce_non_increasing(&mut same);
        assert_eq!(same, sorted);
    }

    #[test]
    fn the_merge_after_absorption_equals_a_full_sort() {
        // Ranks 1, 3 and 4 were repeated; ties between a lowered and a kept
        // token go to the lower rank.
        let p = [0.30, 0.05, 0.20, 0.20, 0.01, 0.10, 0.10];
        let counts = [0, 2, 0, 1, 3, 0, 0];
        let (mut order, mut repeated) = (Vec::new(), Vec::new());
        order_after_absorption(&p, &counts, &mut order, &mut repeated);
        let mut expected: Vec<usize> = (0..p.len()).collect();
        expected.sort_by(|&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b)));
        assert_eq!(order, expected);
    }

    /// The short path (media up to [`MAX_SHORT_MEDIUM`] without absorption)
    /// computes what the general one does: the same strength,
    /// ids and order, and values that differ at most by the last bit of the
    /// f32 written.
    #[test]
    fn the_short_path_equals_the_general_one() {
        let adaptive = Params {
            adaptive: true,
            strength: 0.14,
            k: 64,
            ..Params::default()
        };
        for params in [
            Params::fixed(64, 0.18, 2.5, 1),
            Params::fixed(64, 0.9, 0.4, 3),
            Params::fixed(64, 0.5, 16.0, 8),
            adaptive,
        ] {
            let mut scatter = Scatter::new(&params);
            let a = scatter.active.as_mut().expect("an active sampler");
            for m in 2..=MAX_SHORT_MEDIUM {
                for sorted in [true, false] {
                    let mut input: Vec<TokenData> = (0..m)
                        .map(|i| TokenData {
                            id: 100 + i as i32,
                            logit: 3.0 - 0.7 * i as f32 - 0.05 * (i * i) as f32,
                            p: 0.0,
                        })
                        .collect();
                    if !sorted {
                        input.rotate_left(m / 2);
                    }
                    let (mut short, mut long) = (input.clone(), input.clone());
                    a.scratch.medium.select(&short, a.config.k).unwrap();
                    let strength_short = a.scatter_short::<Baseline>(&mut short);
                    a.scratch.medium.select(&long, a.config.k).unwrap();
                    let strength_long = a.scatter_general::<Baseline>(&mut long);
                    assert_eq!(strength_short, strength_long);
                    for (x, y) in short.iter().zip(&long) {
                        assert_eq!(x.id, y.id, "m {m} sorted {sorted}");
                        for (u, v) in [(x.p, y.p), (x.logit, y.logit)] {
                            assert!(
                                (u - v).abs() <= f32::EPSILON * v.abs(),
                                "{params:?} m {m} sorted {sorted}: {u} vs {v}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_path_depends_on_the_medium_size_and_absorption_alone() {
        let plain = Params::fixed(64, 0.18, 2.5, 1).config().unwrap();
        let absorbing = Params {
            absorption: 0.06,
            ..Params::fixed(64, 0.18, 2.5, 1)
        }
        .config()
        .unwrap();
        for config in [&plain, &absorbing] {
            assert_eq!(choose_path(config, None), Path::Untouched);
            assert_eq!(choose_path(config, Some(0)), Path::Untouched);
            assert_eq!(choose_path(config, Some(1)), Path::Untouched);
            assert_eq!(
                choose_path(config, Some(MAX_SHORT_MEDIUM + 1)),
                Path::General
            );
        }
        assert_eq!(choose_path(&plain, Some(2)), Path::Short);
        assert_eq!(choose_path(&plain, Some(MAX_SHORT_MEDIUM)), Path::Short);
        assert_eq!(choose_path(&absorbing, Some(2)), Path::General);
    }

    #[test]
    fn the_pairwise_sum_adds_every_element_once() {
        for n in [0, 1, 7, 8, 9, 40, 263] {
            let x: Vec<f64> = (0..n).map(|i| f64::from(i) + 0.5).collect();
            let exact = (0..n).map(|i| f64::from(i) + 0.5).sum::<f64>();
            assert_eq!(sum(&x), exact, "n = {n}");
        }
    }
}
