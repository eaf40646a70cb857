//! The C entry points and llama.cpp's own sampler API, driven with
//! arbitrary parameters and arbitrary sequences of apply (arbitrary arrays,
//! `sorted` true or false whatever the data, `selected` anything, NULL
//! arrays and NULL data), accept, reset, clone, `llama_sampler_copy` and
//! free. Checks on every apply: an untouched array is bit-for-bit
//! unchanged; a rewritten one never grows, is marked sorted with no
//! selection, and holds finite, sorted probabilities summing to 1.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use llama_scatter::llama_sampler_init_scatter_params;
use scatter_core::Params;
use std::ffi::{c_char, c_void, CStr};

/// `llama_token_data` and `llama_token_data_array` as llama.h declares them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
struct TokenData {
    id: i32,
    logit: f32,
    p: f32,
}

#[repr(C)]
struct TokenDataArray {
    data: *mut TokenData,
    size: usize,
    selected: i64,
    sorted: bool,
}

// The library's own constructors return llama.cpp's opaque sampler type;
// everything else goes through llama.cpp's public API.
type Sampler = c_void;
extern "C" {
    fn llama_sampler_apply(smpl: *mut Sampler, cur_p: *mut TokenDataArray);
    fn llama_sampler_accept(smpl: *mut Sampler, token: i32);
    fn llama_sampler_reset(smpl: *mut Sampler);
    fn llama_sampler_clone(smpl: *const Sampler) -> *mut Sampler;
    fn llama_sampler_copy(src: *const Sampler, dst: *mut Sampler);
    fn llama_sampler_free(smpl: *mut Sampler);
    fn llama_sampler_name(smpl: *const Sampler) -> *const c_char;
}

#[derive(Arbitrary, Debug)]
enum Op {
    Apply {
        logits: Vec<u32>,
        sorted: bool,
        selected: i64,
    },
    ApplyNullArray,
    ApplyNullData {
        size: u16,
    },
    Accept(i32),
    Reset,
    Clone,
    /// llama_sampler_copy from a new sampler with these parameters.
    CopyFrom(Params),
}

#[derive(Arbitrary, Debug)]
struct Input {
    params: Params,
    ops: Vec<Op>,
}

fn make(r: &Params) -> *mut Sampler {
    llama_sampler_init_scatter_params(r).cast()
}

fn apply(smpl: *mut Sampler, logits: &[u32], sorted: bool, selected: i64) {
    let input: Vec<TokenData> = logits
        .iter()
        .enumerate()
        .map(|(i, &b)| TokenData {
            id: i as i32,
            logit: f32::from_bits(b),
            p: 0.25,
        })
        .collect();
    let mut data = input.clone();
    let mut arr = TokenDataArray {
        data: data.as_mut_ptr(),
        size: data.len(),
        selected,
        sorted,
    };
    // SAFETY: smpl is a live scatter sampler; arr points to data.len() entries.
    unsafe { llama_sampler_apply(smpl, &mut arr) };
    assert_eq!(arr.data, data.as_mut_ptr(), "the data pointer was replaced");
    let bits = |v: &[TokenData]| {
        v.iter()
            .map(|c| (c.id, c.logit.to_bits(), c.p.to_bits()))
            .collect::<Vec<_>>()
    };
    if arr.size == input.len()
        && arr.sorted == sorted
        && arr.selected == selected
        && bits(&data) == bits(&input)
    {
        return; // untouched
    }
    assert!(
        arr.size <= input.len() && arr.size >= 2,
        "size {} from {}",
        arr.size,
        input.len()
    );
    assert!(
        arr.sorted && arr.selected == -1,
        "flags of a rewritten array"
    );
    let out = &data[..arr.size];
    let mut sum = 0.0f64;
    for (i, c) in out.iter().enumerate() {
        assert!(
            c.p.is_finite() && c.p >= 0.0 && c.logit.is_finite(),
            "{c:?}"
        );
        assert!(
            i == 0 || (c.p <= out[i - 1].p && c.logit <= out[i - 1].logit),
            "not sorted at {i}"
        );
        assert!(
            input[c.id as usize].logit.is_finite(),
            "a non-finite candidate got mass"
        );
        sum += f64::from(c.p);
    }
    assert!((sum - 1.0).abs() <= 1e-6, "p sums to {sum}");
}

fuzz_target!(|input: Input| {
    let mut smpl = make(&input.params);
    assert!(!smpl.is_null());
    for op in input.ops.iter().take(32) {
        // SAFETY: smpl is always a live sampler made by our constructors.
        unsafe {
            match op {
                Op::Apply {
                    logits,
                    sorted,
                    selected,
                } => apply(smpl, logits, *sorted, *selected),
                Op::ApplyNullArray => llama_sampler_apply(smpl, std::ptr::null_mut()),
                Op::ApplyNullData { size } => {
                    let mut arr = TokenDataArray {
                        data: std::ptr::null_mut(),
                        size: usize::from(*size),
                        selected: 3,
                        sorted: false,
                    };
                    llama_sampler_apply(smpl, &mut arr);
                    assert!(arr.size == usize::from(*size) && arr.selected == 3 && !arr.sorted);
                }
                Op::Accept(t) => llama_sampler_accept(smpl, *t),
                Op::Reset => llama_sampler_reset(smpl),
                Op::Clone => {
                    let clone = llama_sampler_clone(smpl);
                    assert_eq!(
                        CStr::from_ptr(llama_sampler_name(clone)),
                        CStr::from_ptr(llama_sampler_name(smpl))
                    );
                    llama_sampler_free(smpl);
                    smpl = clone;
                }
                Op::CopyFrom(r) => {
                    let src = make(r);
                    llama_sampler_copy(src, smpl);
                    assert_eq!(
                        CStr::from_ptr(llama_sampler_name(src)),
                        CStr::from_ptr(llama_sampler_name(smpl))
                    );
                    llama_sampler_free(src);
                }
            }
        }
    }
    // SAFETY: smpl is live and freed once.
    unsafe { llama_sampler_free(smpl) };
});
