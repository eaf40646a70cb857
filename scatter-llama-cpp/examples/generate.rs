//! Generates text with a GGUF model through
//! `top_k 40 -> top_p 0.95 -> min_p 0.05 -> scatter creative -> temp 0.8 -> dist`
//! and prints it with scatter's stats: the loop to copy into a program.
//!
//! ```sh
//! cargo run --release --example generate -- MODEL.gguf [-p PROMPT] [-n TOKENS] [-s SEED] [-t THREADS] [--preset NAME] [--ids]
//! ```
//!
//! `-t`: llama.cpp's threads, by default one per core (without OpenMP,
//! which this workspace leaves off, llama.cpp's own thread pool spins: with
//! more threads than cores a token takes many times as long).
//!
//! `--ids` prints the token ids instead of the text, one a line: what the
//! check against the C library compares (`scripts/check-rust-crate.sh`,
//! with `scatter-demo --ids`, which runs the same chain in C).

use std::error::Error;
use std::io::Write;
use std::num::NonZeroU32;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use scatter_llama_cpp::ScatterSampler;

struct Options {
    model: String,
    prompt: String,
    tokens: usize,
    seed: u32,
    threads: i32,
    preset: String,
    ids: bool,
}

fn options() -> Result<Options, String> {
    let usage =
        "usage: generate MODEL.gguf [-p PROMPT] [-n TOKENS] [-s SEED] [-t THREADS] [--preset NAME] [--ids]";
    let mut args = std::env::args().skip(1);
    let mut o = Options {
        model: String::new(),
        prompt: "Once upon a time, in a village by the sea,".into(),
        tokens: 64,
        seed: 42,
        threads: std::thread::available_parallelism()
            .map_or(4, |n| i32::try_from(n.get()).unwrap_or(4)),
        preset: "creative".into(),
        ids: false,
    };
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{usage}"))
        };
        match arg.as_str() {
            "-p" => o.prompt = value()?,
            "-n" => o.tokens = value()?.parse().map_err(|e| format!("-n: {e}"))?,
            "-s" => o.seed = value()?.parse().map_err(|e| format!("-s: {e}"))?,
            "-t" => o.threads = value()?.parse().map_err(|e| format!("-t: {e}"))?,
            "--preset" => o.preset = value()?,
            "--ids" => o.ids = true,
            _ if o.model.is_empty() && !arg.starts_with('-') => o.model = arg,
            _ => return Err(format!("unknown argument {arg}\n{usage}")),
        }
    }
    if o.model.is_empty() || o.tokens == 0 {
        return Err(usage.into());
    }
    Ok(o)
}

fn main() -> Result<(), Box<dyn Error>> {
    let o = options()?;
    let mut backend = LlamaBackend::init()?;
    backend.void_logs();
    let model = LlamaModel::load_from_file(&backend, &o.model, &LlamaModelParams::default())?;
    let vocab = model.vocab();
    let prompt = vocab.tokenize(o.prompt.as_bytes(), true, true);
    let n_prompt = u32::try_from(prompt.len())?;
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(n_prompt + u32::try_from(o.tokens)? + 8))
        .with_n_batch(n_prompt)
        .with_n_threads(o.threads)
        .with_n_threads_batch(o.threads);
    let mut ctx = model.new_context(&backend, params)?;

    // Truncation, then scatter, then temperature and the draw: scatter
    // between two llama-cpp-2 chains.
    let mut truncate = LlamaSampler::chain_simple([
        LlamaSampler::top_k(40),
        LlamaSampler::top_p(0.95, 1),
        LlamaSampler::min_p(0.05, 1),
    ]);
    let mut scatter = ScatterSampler::preset(&o.preset, o.seed)
        .ok_or_else(|| format!("no preset named {}", o.preset))?;
    let mut pick =
        LlamaSampler::chain_simple([LlamaSampler::temp(0.8), LlamaSampler::dist(o.seed)]);

    let mut batch = LlamaBatch::new(prompt.len().max(1), 1);
    batch.add_sequence(&prompt, 0, false)?;
    let mut out = std::io::stdout().lock();
    if !o.ids {
        writeln!(out, "{}", o.prompt)?;
    }
    // The position of the token each step adds.
    for position in (i32::try_from(prompt.len())?..).take(o.tokens) {
        ctx.decode(&mut batch)?;
        let mut candidates = ctx.token_data_array_ith(batch.n_tokens() - 1);
        candidates.apply_sampler(&mut truncate);
        scatter.apply(&mut candidates);
        candidates.apply_sampler(&mut pick);
        let token = candidates
            .selected_token()
            .ok_or("dist selected no token")?;
        truncate.accept(token);
        scatter.accept(token);
        pick.accept(token);
        if o.ids {
            writeln!(out, "{}", token.0)?;
        } else {
            out.write_all(&vocab.token_to_piece(token, true, None))?;
            out.flush()?;
        }
        if vocab.is_eog(token) {
            break;
        }
        batch.clear();
        batch.add(token, position, &[0], true)?;
    }
    let stats = scatter.stats();
    eprintln!(
        "\n{} ({}): {} applies, {} fired, {} scattered, mean strength {:.3}",
        scatter.name(),
        o.preset,
        stats.applies,
        stats.fired,
        stats.scattered,
        stats.strength_sum / stats.scattered.max(1) as f64
    );
    Ok(())
}
