//! The library's version, one number from Cargo.toml. cbindgen needs
//! literals for the header macros (cbindgen.toml builds the header's
//! `LLAMA_SCATTER_VERSION_STRING` from them); a test keeps them equal to Cargo's, and
//! `llama_scatter_version()` returns Cargo's string itself, so a program can
//! compare the header it was compiled with to the library it runs with.

use std::ffi::c_char;

/// Major version of llama-scatter (the header this program was compiled with).
pub const LLAMA_SCATTER_VERSION_MAJOR: i32 = 0;

/// Minor version of llama-scatter.
pub const LLAMA_SCATTER_VERSION_MINOR: i32 = 1;

/// Patch version of llama-scatter.
pub const LLAMA_SCATTER_VERSION_PATCH: i32 = 0;

const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// Version of the llama-scatter library loaded at run time, as
/// "MAJOR.MINOR.PATCH" (a static string; never NULL). Compare it with
/// `LLAMA_SCATTER_VERSION_STRING` to detect a header/library mismatch.
#[no_mangle]
pub extern "C" fn llama_scatter_version() -> *const c_char {
    ffi_guard!(VERSION.as_ptr().cast(), { VERSION.as_ptr().cast() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn header_version_is_cargo_version() {
        let part = |name| {
            env!("CARGO_PKG_VERSION")
                .split('.')
                .nth(name)
                .unwrap()
                .parse::<i32>()
                .unwrap()
        };
        assert_eq!(LLAMA_SCATTER_VERSION_MAJOR, part(0));
        assert_eq!(LLAMA_SCATTER_VERSION_MINOR, part(1));
        assert_eq!(LLAMA_SCATTER_VERSION_PATCH, part(2));
        // SAFETY: the function returns a static NUL-terminated string.
        let runtime = unsafe { CStr::from_ptr(llama_scatter_version()) };
        assert_eq!(runtime.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}
