//! Generates Rust types for `llama.h` of the llama.cpp this library is built
//! against, so `struct llama_sampler_i` and `llama_token_data_array` always
//! match that version, and links `libllama`.
//!
//! Where llama.cpp is found (first that is set):
//! - `LLAMA_CPP_INCLUDE_DIR`: folder(s) holding `llama.h` and the ggml
//!   headers, as a path list (an installed llama.cpp: `$prefix/include`);
//! - `LLAMA_CPP_SOURCE_DIR`: a llama.cpp checkout (`include/` and
//!   `ggml/include/` are used);
//! - `.deps/llama.cpp` beside this file (`scripts/fetch-llama-cpp.sh`).
//!
//! `LLAMA_CPP_LIB_DIR`, if set, is where `libllama` is linked from.

use std::env;
use std::path::PathBuf;

fn include_dirs() -> Vec<PathBuf> {
    if let Some(dirs) = env::var_os("LLAMA_CPP_INCLUDE_DIR") {
        return env::split_paths(&dirs).collect();
    }
    let source = env::var_os("LLAMA_CPP_SOURCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
                .join(".deps/llama.cpp")
        });
    vec![source.join("include"), source.join("ggml/include")]
}

/// The ggml functions scatter's backend graph calls (graph ops, input
/// tensors, the constants' buffer, the device support probe), all in
/// libggml-base.
const GGML_FUNCTIONS: &[&str] = &[
    "ggml_(add|sub|mul|div|log|step|hardsigmoid|scale|clamp|soft_max)",
    "ggml_(top_k|argsort|get_rows|set_rows|concat|mul_mat|cast)",
    "ggml_(new_tensor_1d|new_tensor_2d|reshape_1d|reshape_2d|view_1d|nelements|set_input|set_name)",
    "ggml_(init|free|tensor_overhead|graph_overhead_custom|new_graph_custom|build_forward_expand)",
    "ggml_(graph_n_nodes|graph_node|backend_buft_get_device|backend_dev_supports_op|backend_tensor_set)",
    "ggml_(op_desc|backend_dev_name|backend_alloc_ctx_tensors_from_buft|backend_buffer_free)",
];

fn main() {
    for var in [
        "LLAMA_CPP_INCLUDE_DIR",
        "LLAMA_CPP_SOURCE_DIR",
        "LLAMA_CPP_LIB_DIR",
        "LLAMA_SCATTER_SONAME",
        "LLAMA_SCATTER_BUILD_RPATH",
        "LLAMA_SCATTER_DEF",
        "LLAMA_SCATTER_UNLINKED",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let dirs = include_dirs();
    let Some(header) = dirs.iter().map(|d| d.join("llama.h")).find(|h| h.is_file()) else {
        panic!(
            "llama.h not found in {dirs:?}.\n\
             Set LLAMA_CPP_SOURCE_DIR to a llama.cpp checkout, or LLAMA_CPP_INCLUDE_DIR to the folder(s) \
             holding llama.h and ggml.h, or run scripts/fetch-llama-cpp.sh for the pinned tree."
        );
    };

    let bindings = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .clang_args(dirs.iter().map(|d| format!("-I{}", d.display())))
        .allowlist_type("llama_sampler_i|llama_sampler|llama_token_data|llama_token_data_array")
        .allowlist_function("llama_sampler_init")
        // Scatter's graph for backend sampling (src/ffi/backend/graph.rs);
        // not every tree has every one of them, and none is needed where
        // llama_sampler_i has no backend hooks.
        .allowlist_function(GGML_FUNCTIONS.join("|"))
        // Where a backend lacks an op: the warning goes where llama.cpp's do.
        .allowlist_function("llama_log_get")
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .generate()
        .expect("bindgen could not parse llama.h");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("llama.rs");
    bindings
        .write_to_file(&out)
        .expect("could not write the llama.h bindings");
    let generated = bindings.to_string();

    // llama.h without llama_sampler_init (the tree of llama-cpp-python 0.3.2): src/ffi/compat.rs.
    println!("cargo:rustc-check-cfg=cfg(llama_no_sampler_init)");
    println!("cargo:rerun-if-changed=src/ffi/compat/sampler_init.cpp");
    if !generated.contains("pub fn llama_sampler_init(") {
        println!("cargo:rustc-cfg=llama_no_sampler_init");
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .includes(&dirs)
            .file("src/ffi/compat/sampler_init.cpp")
            .compile("llama_scatter_compat");
    }

    // llama.h with backend-sampling hooks in llama_sampler_i:
    // src/ffi/backend/.
    println!("cargo:rustc-check-cfg=cfg(llama_backend_sampling)");
    if generated.contains("pub backend_init:") {
        println!("cargo:rustc-cfg=llama_backend_sampling");
    }

    // LLAMA_SCATTER_UNLINKED=1: no DT_NEEDED on libllama and libggml-base;
    // their symbols are bound when the library is loaded into a process
    // that has them global. The Python package (python/) ships this kind,
    // so that it uses llama-cpp-python's libllama whatever its soname.
    if env::var_os("LLAMA_SCATTER_UNLINKED").is_some() {
        return;
    }
    if generated.contains("pub backend_init:") {
        println!("cargo:rustc-link-lib=dylib=ggml-base");
    }

    if let Some(lib_dir) = env::var_os("LLAMA_CPP_LIB_DIR") {
        println!(
            "cargo:rustc-link-search=native={}",
            PathBuf::from(lib_dir).display()
        );
    }
    println!("cargo:rustc-link-lib=dylib=llama");

    // Windows (the MinGW-w64 cross build, cmake/RustLibrary.cmake) has no soname or run path: the
    // DLL is found beside the program. The linker writes the DLL's exports to LLAMA_SCATTER_DEF,
    // from which dlltool makes the import library for MSVC.
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("windows") {
        if let Some(def) = env::var_os("LLAMA_SCATTER_DEF") {
            let def = def.to_str().expect("LLAMA_SCATTER_DEF is UTF-8");
            println!("cargo:rustc-cdylib-link-arg=-Wl,--output-def,{def}");
        }
        return;
    }

    // The soname (README "Versioning") is decided in one place,
    // cmake/RustLibrary.cmake, which passes it here; a plain `cargo build`
    // without LLAMA_SCATTER_SONAME links a library without one.
    // $ORIGIN lets it find the libllama and libggml-base installed beside
    // it. LLAMA_SCATTER_BUILD_RPATH adds llama.cpp's folder for the build
    // tree, where they are elsewhere; cmake/Install.cmake takes it out again.
    if let Some(soname) = env::var_os("LLAMA_SCATTER_SONAME") {
        let soname = soname.to_str().expect("LLAMA_SCATTER_SONAME is UTF-8");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    }
    let mut rpath = String::from("$ORIGIN");
    if let Some(dir) = env::var_os("LLAMA_SCATTER_BUILD_RPATH") {
        rpath.push(':');
        rpath.push_str(dir.to_str().expect("LLAMA_SCATTER_BUILD_RPATH is UTF-8"));
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{rpath}");
}
