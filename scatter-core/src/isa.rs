//! The instruction sets apply is compiled for (DESIGN.md, "Kernels chosen
//! at run time").
//!
//! Apply's code is generic over an [`Isa`] and compiled twice on x86-64:
//! for what the crate is built for ([`Baseline`]: plain x86-64 in a
//! portable build, the CPU's own set in a native one) and, inside
//! `Scatter::apply_x86_64_v3`, for x86-64-v3 ([`X86V3`]). The vector
//! width comes from the function the code is compiled into; what the
//! generic parameter carries is the one operation whose instruction LLVM
//! may not choose by itself: a fused multiply-add.
//!
//! Every function generic over [`Isa`] is `#[inline(always)]`: compiled
//! out of line, its [`X86V3`] copy would run without the features of its
//! caller, and call libm for each multiply-add.

/// An instruction set apply's arithmetic is compiled for.
pub(crate) trait Isa {
    /// `a·b + c`.
    fn mul_add(a: f64, b: f64, c: f64) -> f64;
}

/// What the crate is compiled for.
pub(crate) struct Baseline;

impl Isa for Baseline {
    /// One fused multiply-add (a single rounding) where the target has the
    /// instruction (faster: BENCHMARKS.md), else a multiply and an add,
    /// because `f64::mul_add` without the instruction is a call into libm.
    /// A build with FMA and one without can therefore differ in the last
    /// bit of an f64 here.
    #[inline(always)]
    fn mul_add(a: f64, b: f64, c: f64) -> f64 {
        #[cfg(target_feature = "fma")]
        {
            a.mul_add(b, c)
        }
        #[cfg(not(target_feature = "fma"))]
        {
            a * b + c
        }
    }
}

/// x86-64-v3 (AVX2 and FMA among others): only ever compiled into
/// functions that enable it, where `f64::mul_add` is the instruction.
#[cfg(target_arch = "x86_64")]
pub(crate) struct X86V3;

#[cfg(target_arch = "x86_64")]
impl Isa for X86V3 {
    #[inline(always)]
    fn mul_add(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
}
