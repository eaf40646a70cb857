//! The one dispatch point of apply (DESIGN.md, "Kernels chosen at run
//! time"): which build of the core's apply runs on this CPU, chosen once
//! per process, as ggml chooses its CPU variant when it loads. The portable
//! library is compiled for plain x86-64; on a CPU of x86-64-v3 (AVX2, FMA
//! and the rest of that level) it runs [`Scatter::apply_x86_64_v3`], the
//! same code compiled for those, as a native build would.
//!
//! `LLAMA_SCATTER_KERNELS=baseline` runs what the library was compiled for
//! on any CPU (to compare the two, or to rule the fast one out); unset or
//! any other value, the fastest this CPU has. `llama_scatter_kernels()`
//! names the choice.

use scatter_core::{Outcome, Scatter, TokenData};
use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

/// A build of apply's arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernels {
    /// What the library was compiled for.
    Baseline,
    /// x86-64-v3, on a CPU that has it.
    #[cfg(target_arch = "x86_64")]
    X86V3,
}

impl Kernels {
    /// The choice of this process, made on first use.
    fn chosen() -> Self {
        static CHOSEN: OnceLock<Kernels> = OnceLock::new();
        *CHOSEN.get_or_init(|| Self::choose(std::env::var("LLAMA_SCATTER_KERNELS").ok().as_deref()))
    }

    /// The fastest build this CPU runs, unless `setting` is `baseline`.
    fn choose(setting: Option<&str>) -> Self {
        if setting == Some("baseline") {
            return Self::Baseline;
        }
        #[cfg(target_arch = "x86_64")]
        if Scatter::runs_x86_64_v3() {
            return Self::X86V3;
        }
        Self::Baseline
    }

    fn name(self) -> &'static CStr {
        match self {
            Self::Baseline => c"baseline",
            #[cfg(target_arch = "x86_64")]
            Self::X86V3 => c"x86-64-v3",
        }
    }
}

/// [`Scatter::apply`] in the chosen build. A noop sampler takes the
/// inlined path whatever the choice (it computes nothing).
#[inline(always)]
pub(crate) fn apply(scatter: &mut Scatter, candidates: &mut [TokenData]) -> Outcome {
    #[cfg(target_arch = "x86_64")]
    if scatter.is_active() && Kernels::chosen() == Kernels::X86V3 {
        // SAFETY: `choose` returns X86V3 only where the CPU has what the
        // function is compiled for (`Scatter::runs_x86_64_v3`).
        return unsafe { scatter.apply_x86_64_v3(candidates) };
    }
    scatter.apply(candidates)
}

/// The build of apply's arithmetic this process runs: `"x86-64-v3"` (on an
/// x86-64 CPU with AVX2, FMA and the rest of that level, unless
/// `LLAMA_SCATTER_KERNELS=baseline`) or `"baseline"` (what the library was
/// compiled for). A static string; never NULL.
#[no_mangle]
pub extern "C" fn llama_scatter_kernels() -> *const c_char {
    ffi_guard!(c"baseline".as_ptr(), { Kernels::chosen().name().as_ptr() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_is_chosen_when_asked() {
        assert_eq!(Kernels::choose(Some("baseline")), Kernels::Baseline);
        assert_eq!(Kernels::choose(Some("fast")), Kernels::choose(None));
    }

    #[test]
    fn the_name_is_the_choice() {
        // SAFETY: the function returns a static NUL-terminated string.
        let name = unsafe { CStr::from_ptr(llama_scatter_kernels()) };
        assert_eq!(name, Kernels::chosen().name());
    }

    /// The two builds on the same inputs, from cloned samplers: the same
    /// outcome and ids in the same order, p and logit within one f32 ulp.
    /// This crate's tests build the core with `check-reference`, so each
    /// apply of either is also recomputed by the plain reference. Presets,
    /// media short and long, sorted or not, with ties, absorption with a
    /// history, and a long unsorted row.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_x86_64_v3_build_writes_what_the_baseline_writes() {
        use scatter_core::Params;

        if Kernels::choose(None) != Kernels::X86V3 {
            eprintln!("SKIP: this CPU is not x86-64-v3");
            return;
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut compared = 0;
        let extra = [
            Params {
                steps: 4,
                ..Params::preset("creative").expect("a preset")
            },
            Params {
                k: 256,
                radius: 16.0,
                ..Params::preset("adaptive-absorb").expect("a preset")
            },
        ];
        let all = scatter_core::params::PRESETS.iter().map(|p| p.params);
        for params in all.chain(extra) {
            let mut fast = Scatter::new(&params);
            if !fast.is_active() {
                continue;
            }
            for (round, m) in [2, 3, 7, 8, 9, 16, 40, 64, 200, 1000, 262_144]
                .into_iter()
                .enumerate()
            {
                let mut row: Vec<TokenData> = (0..m)
                    .map(|i| TokenData {
                        id: i as i32,
                        // Repeated values every eleventh rank: ties.
                        logit: if i % 11 == 5 {
                            1.0
                        } else {
                            (8.0 * next() - 4.0) as f32
                        },
                        p: 0.0,
                    })
                    .collect();
                if round % 2 == 0 {
                    row.sort_by(|a, b| b.logit.total_cmp(&a.logit));
                }
                let mut plain = fast.clone();
                let (mut a, mut b) = (row.clone(), row);
                // SAFETY: choose() found x86-64-v3 on this CPU.
                let outcome = unsafe { fast.apply_x86_64_v3(&mut a) };
                assert_eq!(outcome, plain.apply(&mut b), "{params:?} m {m}");
                let size = match outcome {
                    Outcome::Rewritten { size } => size,
                    Outcome::Untouched => m,
                };
                for (x, y) in a[..size].iter().zip(&b[..size]) {
                    assert_eq!(x.id, y.id, "{params:?} m {m}");
                    for (u, v) in [(x.p, y.p), (x.logit, y.logit)] {
                        assert!(
                            u.to_bits().abs_diff(v.to_bits()) <= 1,
                            "{params:?} m {m}: {u} vs {v}"
                        );
                    }
                }
                compared += 1;
                // A history for absorption: the first ids.
                for id in 0..4 {
                    fast.accept(id);
                }
            }
        }
        assert!(compared > 0);
    }
}
