/// Runs an entry point's body and turns a panic into `$fallback`, so that
/// no unwind ever crosses into C (undefined behaviour there). The core has
/// no panicking paths on any input; this is the belt to those braces.
macro_rules! ffi_guard {
    ($fallback:expr, $body:block) => {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| $body)) {
            Ok(value) => value,
            Err(_) => $fallback,
        }
    };
}
