/// Runs an entry point's body and turns a panic into `$fallback`, so that
/// no unwind ever crosses into C (undefined behaviour there). The core has
/// no panicking paths on any input; this is the belt to those braces.
///
/// It is the whole body of every function C can call, exported or a
/// callback of the table; `tests/guarded.rs` fails on one that is not. It
/// wraps the body rather than the function (hyper's `ffi_fn!`) because
/// cbindgen, which writes the header from these functions, does not see
/// functions made by a macro on a stable toolchain.
macro_rules! ffi_guard {
    ($fallback:expr, $body:block) => {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| $body)) {
            Ok(value) => value,
            Err(_) => $fallback,
        }
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_panic_inside_becomes_the_fallback() {
        let failed: i32 = ffi_guard!(-1, { panic!("an internal failure") });
        assert_eq!(failed, -1);
        let fine: i32 = ffi_guard!(-1, { 7 });
        assert_eq!(fine, 7);
    }
}
