/* scatter-bench: times llama.cpp's samplers and scatter side by side, in
 * one process, on identical inputs, and reports median ns per apply and
 * ratios (absolute times on shared machines are noisy; ratios from one run
 * are what we compare). See BENCHMARKS.md.
 *
 * usage: scatter-bench [--model MODEL.gguf] [--tokens N] [--repeat N] [--end-to-end-only] [--quick] [--csv FILE]
 * With --model, a real next-token logit row is captured from the model and
 * the end-to-end sampling time per token (llama_perf_sampler) is measured
 * for the default chain with and without scatter; --repeat N runs those
 * passes N times and also prints the medians over the runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llama-scatter.h"

typedef struct {
    const char *       name;
    size_t             n;
    bool               sorted;
    llama_token_data * data;
} input;

typedef struct {
    const char * name;
    struct llama_sampler * (*make)(void);
} sampler_def;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static int cmp_double(const void * a, const void * b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Sorts x[0..n) and returns its median (0 for none). */
static double median(double * x, int n) {
    if (n <= 0) {
        return 0.0;
    }
    qsort(x, (size_t) n, sizeof *x, cmp_double);
    return x[n / 2];
}

/* ---- the samplers ------------------------------------------------------ */

static void empty_apply(struct llama_sampler * s, llama_token_data_array * p) {
    (void) s;
    (void) p;
}
static struct llama_sampler_i EMPTY_I = { .apply = empty_apply };

static struct llama_sampler * mk_empty(void) { return llama_sampler_init(&EMPTY_I, NULL); }
static struct llama_sampler * mk_top_k40(void) { return llama_sampler_init_top_k(40); }
static struct llama_sampler * mk_top_k64(void) { return llama_sampler_init_top_k(64); }
static struct llama_sampler * mk_top_p(void) { return llama_sampler_init_top_p(0.95f, 1); }
static struct llama_sampler * mk_min_p(void) { return llama_sampler_init_min_p(0.05f, 1); }
static struct llama_sampler * mk_temp(void) { return llama_sampler_init_temp(0.8f); }
static struct llama_sampler * mk_xtc(void) { return llama_sampler_init_xtc(0.1f, 0.1f, 1, 42); }
static struct llama_sampler * mk_dist(void) { return llama_sampler_init_dist(42); }

/* The named preset, seeded 42, with k and steps changed where asked
 * (0 keeps the preset's). */
static struct llama_sampler * scatter_preset(const char * name, int32_t k, int32_t steps) {
    struct llama_scatter_params p = llama_scatter_default_params();
    if (!llama_scatter_preset_params(name, &p)) {
        fprintf(stderr, "no preset %s\n", name);
        exit(1);
    }
    p.seed = 42;
    p.k = k ? k : p.k;
    p.steps = steps ? steps : p.steps;
    return llama_sampler_init_scatter_params(&p);
}
static struct llama_sampler * mk_sc_noop(void) { return llama_sampler_init_scatter_params(NULL); }
static struct llama_sampler * mk_sc_subtle(void) { return scatter_preset("subtle", 0, 0); }
static struct llama_sampler * mk_sc_creative(void) { return scatter_preset("creative", 0, 0); }
static struct llama_sampler * mk_sc_adaptive(void) { return scatter_preset("adaptive", 0, 0); }
static struct llama_sampler * mk_sc_collision(void) { return scatter_preset("collision", 0, 0); }
static struct llama_sampler * mk_sc_absorb(void) {
    struct llama_sampler * s = scatter_preset("adaptive-absorb", 0, 0);
    for (int t = 0; t < 64; t++) {
        llama_sampler_accept(s, t % 16);
    }
    return s;
}
static struct llama_sampler * mk_sc_steps4(void) { return scatter_preset("creative", 0, 4); }
static struct llama_sampler * mk_sc_k16(void) { return scatter_preset("creative", 16, 0); }
static struct llama_sampler * mk_sc_k256(void) { return scatter_preset("creative", 256, 0); }

/* top_k 40 -> top_p 0.95 -> min_p 0.05 -> xtc -> [extra] -> temp 0.8 ->
 * dist, with llama.cpp's own timing on (as in its tools). */
static struct llama_sampler * chain_with(struct llama_sampler * extra) {
    struct llama_sampler_chain_params params = llama_sampler_chain_default_params();
    params.no_perf = false;
    struct llama_sampler * c = llama_sampler_chain_init(params);
    llama_sampler_chain_add(c, llama_sampler_init_top_k(40));
    llama_sampler_chain_add(c, llama_sampler_init_top_p(0.95f, 1));
    llama_sampler_chain_add(c, llama_sampler_init_min_p(0.05f, 1));
    llama_sampler_chain_add(c, llama_sampler_init_xtc(0.1f, 0.1f, 1, 42));
    if (extra) {
        llama_sampler_chain_add(c, extra);
    }
    llama_sampler_chain_add(c, llama_sampler_init_temp(0.8f));
    llama_sampler_chain_add(c, llama_sampler_init_dist(42));
    return c;
}
static struct llama_sampler * default_chain(bool with_scatter) {
    return chain_with(with_scatter ? mk_sc_creative() : NULL);
}
static struct llama_sampler * mk_chain(void) { return default_chain(false); }
static struct llama_sampler * mk_chain_scatter(void) { return default_chain(true); }

static const sampler_def SAMPLERS[] = {
    { "empty apply", mk_empty },
    { "llama top_k(40)", mk_top_k40 },
    { "llama top_k(64)", mk_top_k64 },
    { "llama top_p(0.95)", mk_top_p },
    { "llama min_p(0.05)", mk_min_p },
    { "llama temp(0.8)", mk_temp },
    { "llama xtc(0.1,0.1)", mk_xtc },
    { "llama dist", mk_dist },
    { "llama default chain", mk_chain },
    { "default chain + scatter", mk_chain_scatter },
    { "scatter noop (defaults)", mk_sc_noop },
    { "scatter subtle", mk_sc_subtle },
    { "scatter creative", mk_sc_creative },
    { "scatter adaptive", mk_sc_adaptive },
    { "scatter collision", mk_sc_collision },
    { "scatter adaptive-absorb", mk_sc_absorb },
    { "scatter creative steps=4", mk_sc_steps4 },
    { "scatter creative k=16", mk_sc_k16 },
    { "scatter creative k=256", mk_sc_k256 },
};
enum { N_SAMPLERS = sizeof SAMPLERS / sizeof SAMPLERS[0], FLOOR = N_SAMPLERS };
/* The reference columns: llama.cpp's top_k(64) (the full-row target) and
 * dist, which does the one exp pass and the draw scatter cannot avoid (the
 * target on short media). */
enum { TOP_K64 = 2, DIST = 7 };

/* ---- timing -------------------------------------------------------------- */

/* The floor: one read pass over every candidate (the max logit), the least
 * a sampler that looks at each candidate can cost. Eight independent
 * maxima keep the pass limited by loads, not by the latency of a chain of
 * dependent max operations. */
static volatile float floor_sink;
static void floor_pass(const llama_token_data * d, size_t n) {
    float m[8] = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int j = 0; j < 8; j++) {
            m[j] = d[i + j].logit > m[j] ? d[i + j].logit : m[j];
        }
    }
    for (; i < n; i++) {
        m[0] = d[i].logit > m[0] ? d[i].logit : m[0];
    }
    for (int j = 1; j < 8; j++) {
        m[0] = m[j] > m[0] ? m[j] : m[0];
    }
    floor_sink = m[0];
}

/* SplitMix64: one stream for the synthetic inputs, one for the order in
 * which samplers are timed (so that neither changes the other). */
static double unit_from(uint64_t * state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double) ((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}
static uint64_t input_rng = 12345, order_rng = 67890;
static double unit(void) { return unit_from(&input_rng); }

/* Median ns per apply of every sampler and of the floor on one input.
 * The samplers are timed in rounds, one sample each per round, so that a
 * slow phase of this shared machine hits all of them alike and the ratios
 * of one run stay comparable. Each apply gets a fresh copy of the
 * input, made outside the timed region, in batches so that small inputs
 * are timed over many applies per clock read. `t[FLOOR]` is the floor. */
static void time_all(const input * in, int reps, double t[N_SAMPLERS + 1]) {
    const size_t batch = in->n >= 65536 ? 1 : 65536 / (in->n ? in->n : 1);
    llama_token_data * copies = malloc(batch * in->n * sizeof *copies);
    double * samples = malloc((size_t) (N_SAMPLERS + 1) * (size_t) reps * sizeof *samples);
    struct llama_sampler * s[N_SAMPLERS];
    for (int i = 0; i < N_SAMPLERS; i++) {
        s[i] = SAMPLERS[i].make();
    }
    int order[N_SAMPLERS + 1];
    for (int i = 0; i <= N_SAMPLERS; i++) {
        order[i] = i;
    }
    for (int r = -2; r < reps; r++) { /* two warm-up rounds */
        /* A new order each round, so that what one sampler leaves behind
         * (caches, allocator state) falls on every other one alike. */
        for (int i = N_SAMPLERS; i > 0; i--) {
            const int j = (int) (unit_from(&order_rng) * (double) (i + 1));
            const int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int o = 0; o <= N_SAMPLERS; o++) {
            const int i = order[o];
            /* A large input is one apply per sample: an untimed apply of
             * the same sampler comes first, so that the timed one does not
             * pay for what the previous sampler left in the caches. */
            for (int timed = batch > 1; timed < 2; timed++) {
                for (size_t b = 0; b < batch; b++) {
                    memcpy(copies + b * in->n, in->data, in->n * sizeof *copies);
                }
                const double t0 = now_ns();
                for (size_t b = 0; b < batch; b++) {
                    llama_token_data_array arr = { copies + b * in->n, in->n, -1, in->sorted };
                    if (i < N_SAMPLERS) {
                        llama_sampler_apply(s[i], &arr);
                    } else {
                        floor_pass(arr.data, arr.size);
                    }
                }
                if (timed && r >= 0) {
                    samples[(size_t) i * (size_t) reps + (size_t) r] = (now_ns() - t0) / (double) batch;
                }
            }
        }
    }
    for (int i = 0; i <= N_SAMPLERS; i++) {
        double * mine = samples + (size_t) i * (size_t) reps;
        qsort(mine, (size_t) reps, sizeof *mine, cmp_double);
        t[i] = mine[reps / 2];
        if (i < N_SAMPLERS) {
            llama_sampler_free(s[i]);
        }
    }
    free(samples);
    free(copies);
}

/* ---- inputs -------------------------------------------------------------- */

/* Zipf-like logits in a shuffled order. */
static llama_token_data * zipf_row(size_t n) {
    llama_token_data * d = malloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++) {
        d[i].id = (int32_t) i;
        d[i].logit = (float) (-1.1 * log(1.0 + (double) i) + 0.5 * unit());
        d[i].p = 0.0f;
    }
    for (size_t i = n; i > 1; i--) {
        const size_t j = (size_t) (unit() * (double) i);
        const llama_token_data t = d[i - 1];
        d[i - 1] = d[j];
        d[j] = t;
    }
    return d;
}

static int by_logit_desc(const void * a, const void * b) {
    const float x = ((const llama_token_data *) a)->logit, y = ((const llama_token_data *) b)->logit;
    return (x < y) - (x > y);
}

/* The top n of a row, sorted: what scatter sees after top_k(n). */
static llama_token_data * top_sorted(const llama_token_data * row, size_t n_row, size_t n) {
    llama_token_data * all = malloc(n_row * sizeof *all);
    memcpy(all, row, n_row * sizeof *all);
    qsort(all, n_row, sizeof *all, by_logit_desc);
    llama_token_data * top = malloc(n * sizeof *top);
    memcpy(top, all, n * sizeof *top);
    free(all);
    return top;
}

static void quiet_log(enum ggml_log_level level, const char * text, void * user) {
    (void) user;
    if (level == GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

/* cur[t] = { t, logits[t], 0 }: the candidate array llama.cpp builds from
 * a logit row. */
static void fill_candidates(llama_token_data * cur, const float * logits, int n_vocab) {
    for (int t = 0; t < n_vocab; t++) {
        cur[t] = (llama_token_data) { t, logits[t], 0.0f };
    }
}

typedef struct {
    struct llama_context * ctx;
    const llama_token * prompt;
    int n_prompt;
    int n_vocab;
    int n_gen;
    llama_token_data * cur; /* n_vocab entries of scratch */
} generation;

/* Generates n_gen tokens from the prompt; at every step the default chain
 * and the same chain with `extra` (which the text follows) are applied to
 * the same logits, and llama.cpp's own counters time each. Prints both and
 * returns their ratio with the paired estimate below.
 *
 * Each chain runs right after a model evaluation, as in a generation loop:
 * after the first chain, the step's tokens are removed from the memory and
 * evaluated again, so the second chain meets the same logits and the same
 * caches the evaluation leaves (applying both after one evaluation would
 * time the second chain warm, and which chain goes second would decide the
 * difference). The order alternates between steps. Each step's two applies
 * are also timed here: the median over steps of their difference is a
 * paired estimate of what `extra` adds, which the step-to-step swings of
 * the whole chain (a top_k over the vocabulary) do not move. */
typedef struct {
    double ratio;  /* llama_perf_sampler: with extra / without */
    double paired; /* median per-step difference / median chain, in % */
} chain_figures;

static chain_figures chain_pass(const generation * g, struct llama_sampler * extra, const char * extra_name) {
    struct llama_sampler * chains[2] = { chain_with(NULL), chain_with(extra) };
    double * base = malloc((size_t) g->n_gen * sizeof *base);
    double * added = malloc((size_t) g->n_gen * sizeof *added);
    int steps = 0;
    llama_memory_t memory = llama_get_memory(g->ctx);
    llama_memory_clear(memory, true);
    struct llama_batch batch = llama_batch_get_one((llama_token *) g->prompt, g->n_prompt);
    llama_pos n_past = 0;
    llama_token next = 0;
    for (int i = 0; i < g->n_gen && llama_decode(g->ctx, batch) == 0; i++, steps++) {
        double t[2];
        for (int k = 0; k < 2; k++) {
            if (k == 1 && !(llama_memory_seq_rm(memory, 0, n_past, -1) && llama_decode(g->ctx, batch) == 0)) {
                fprintf(stderr, "error: could not evaluate step %d again\n", i);
                exit(1);
            }
            const int c = (i + k) % 2; /* alternate which chain goes first */
            fill_candidates(g->cur, llama_get_logits_ith(g->ctx, -1), g->n_vocab);
            llama_token_data_array arr = { g->cur, (size_t) g->n_vocab, -1, false };
            const double t0 = now_ns();
            llama_sampler_apply(chains[c], &arr);
            t[c] = now_ns() - t0;
            if (c == 1) {
                next = arr.data[arr.selected].id;
            }
        }
        base[steps] = t[0];
        added[steps] = t[1] - t[0];
        llama_sampler_accept(chains[0], next);
        llama_sampler_accept(chains[1], next);
        n_past += batch.n_tokens;
        batch = llama_batch_get_one(&next, 1);
    }
    double ms[2];
    for (int c = 0; c < 2; c++) {
        const struct llama_perf_sampler_data perf = llama_perf_sampler(chains[c]);
        ms[c] = perf.t_sample_ms / (perf.n_sample ? perf.n_sample : 1);
        printf("end to end (llama_perf_sampler, %d tokens, each chain right after a model evaluation): default "
               "chain%s%s: %.4f ms per token\n",
               perf.n_sample, c ? " + " : "", c ? extra_name : "", ms[c]);
        llama_sampler_free(chains[c]);
    }
    const double median_base = median(base, steps), median_added = median(added, steps);
    const double paired = 100.0 * median_added / median_base;
    printf("end to end, paired: %s adds a median %.0f ns per token to the default chain's median %.0f ns (%.1f %%)\n",
           extra_name, median_added, median_base, paired);
    free(base);
    free(added);
    return (chain_figures) { ms[1] / ms[0], paired };
}

/* Decodes a prompt and returns the real next-token logit row (unsorted);
 * also prints the end-to-end figures over `n_gen` generated tokens. */
static llama_token_data * model_row(const char * path, size_t * n_out, int n_gen, int repeat) {
    llama_log_set(quiet_log, NULL);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model * model = llama_model_load_from_file(path, mp);
    if (!model) {
        fprintf(stderr, "error: could not load %s\n", path);
        exit(1);
    }
    const struct llama_vocab * vocab = llama_model_get_vocab(model);
    const int n_vocab = llama_vocab_n_tokens(vocab);
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t) n_gen + 128; /* the prompt and every generated token */
    cp.no_perf = false;
    struct llama_context * ctx = llama_init_from_model(model, cp);
    const char * prompt = "Once upon a time, in a village by the sea, there lived";
    llama_token tokens[64];
    const int n_prompt = llama_tokenize(vocab, prompt, (int32_t) strlen(prompt), tokens, 64, true, true);
    llama_token_data * cur = malloc((size_t) n_vocab * sizeof *cur);
    const generation g = { ctx, tokens, n_prompt, n_vocab, n_gen, cur };

    /* The noop pass: an external sampler that does nothing costs what
     * calling into another library's code and data costs right after the
     * model evaluation has evicted the caches — the floor under any
     * sampler that is not built into libllama. A pass of its own, since
     * in one pass the noop would warm scatter's code and pages. */
    double * figures[4];
    for (int k = 0; k < 4; k++) {
        figures[k] = malloc((size_t) repeat * sizeof(double));
    }
    for (int r = 0; r < repeat; r++) {
        const chain_figures creative = chain_pass(&g, mk_sc_creative(), "scatter creative");
        const chain_figures noop = chain_pass(&g, mk_sc_noop(), "scatter noop");
        printf("end to end: with scatter / without = %.3f (with scatter noop / without = %.3f)\n", creative.ratio,
               noop.ratio);
        figures[0][r] = creative.ratio;
        figures[1][r] = noop.ratio;
        figures[2][r] = creative.paired;
        figures[3][r] = noop.paired;
    }
    if (repeat > 1) {
        printf("end to end, median of %d runs: with scatter / without = %.3f (noop: %.3f); paired: scatter creative "
               "adds %.1f %% (noop: %.1f %%)\n",
               repeat, median(figures[0], repeat), median(figures[1], repeat), median(figures[2], repeat),
               median(figures[3], repeat));
    }
    for (int k = 0; k < 4; k++) {
        free(figures[k]);
    }

    /* The row for the tables: the first next-token row of the prompt. */
    llama_memory_clear(llama_get_memory(ctx), true);
    struct llama_batch batch = llama_batch_get_one(tokens, n_prompt);
    llama_token_data * row = malloc((size_t) n_vocab * sizeof *row);
    if (llama_decode(ctx, batch) != 0) {
        fprintf(stderr, "error: could not evaluate the prompt\n");
        exit(1);
    }
    fill_candidates(row, llama_get_logits_ith(ctx, -1), n_vocab);
    llama_token next = 0;

    /* Second pass: scatter alone on the survivors of top_k 40 -> top_p 0.95
     * -> min_p 0.05, applied twice per step to two copies: the first apply
     * meets caches that the model evaluation has just evicted, the second
     * runs warm. Odd steps time the noop sampler instead: what any sampler
     * called through scatter's library costs there before doing any work. */
    struct llama_sampler * trunc[3] = { llama_sampler_init_top_k(40), llama_sampler_init_top_p(0.95f, 1),
                                        llama_sampler_init_min_p(0.05f, 1) };
    struct llama_sampler * timed[2] = { mk_sc_creative(), mk_sc_noop() };
    struct llama_sampler * pick = llama_sampler_init_dist(42);
    llama_token_data first[64], second[64];
    double * cold[2] = { malloc((size_t) n_gen * sizeof(double)), malloc((size_t) n_gen * sizeof(double)) };
    double * warm[2] = { malloc((size_t) n_gen * sizeof(double)), malloc((size_t) n_gen * sizeof(double)) };
    double survivors = 0.0;
    int steps[2] = { 0, 0 };
    llama_memory_clear(llama_get_memory(ctx), true);
    batch = llama_batch_get_one(tokens, n_prompt);
    for (int i = 0; i < n_gen && llama_decode(ctx, batch) == 0; i++) {
        fill_candidates(cur, llama_get_logits_ith(ctx, -1), n_vocab);
        llama_token_data_array arr = { cur, (size_t) n_vocab, -1, false };
        for (int k = 0; k < 3; k++) {
            llama_sampler_apply(trunc[k], &arr);
        }
        const int s = i % 2;
        memcpy(first, arr.data, arr.size * sizeof *first);
        memcpy(second, arr.data, arr.size * sizeof *second);
        llama_token_data_array a1 = { first, arr.size, -1, true }, a2 = { second, arr.size, -1, true };
        const double t0 = now_ns();
        llama_sampler_apply(timed[s], &a1);
        const double t1 = now_ns();
        llama_sampler_apply(timed[s], &a2);
        cold[s][steps[s]] = t1 - t0;
        warm[s][steps[s]] = now_ns() - t1;
        steps[s]++;
        survivors += (double) arr.size;
        llama_sampler_apply(pick, &a1);
        next = a1.data[a1.selected].id;
        batch = llama_batch_get_one(&next, 1);
    }
    const int n_steps = steps[0] + steps[1];
    printf("end to end: scatter creative on %.1f survivors on average: first apply after the model evaluation %.0f ns, "
           "second apply %.0f ns; scatter noop: first apply %.0f ns, second apply %.0f ns (medians)\n",
           survivors / (n_steps ? n_steps : 1), median(cold[0], steps[0]), median(warm[0], steps[0]),
           median(cold[1], steps[1]), median(warm[1], steps[1]));
    for (int k = 0; k < 2; k++) {
        free(cold[k]);
        free(warm[k]);
    }
    for (int k = 0; k < 3; k++) {
        llama_sampler_free(trunc[k]);
    }
    llama_sampler_free(timed[0]);
    llama_sampler_free(timed[1]);
    llama_sampler_free(pick);
    free(cur);
    llama_free(ctx);
    llama_model_free(model);
    *n_out = (size_t) n_vocab;
    return row;
}

int main(int argc, char ** argv) {
    const char * model = NULL;
    const char * csv_path = NULL;
    int quick = 0;
    int tokens = 256;
    int end_to_end_only = 0;
    int repeat = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
            model = argv[++i];
        } else if (strcmp(argv[i], "--tokens") == 0 && i + 1 < argc) {
            tokens = atoi(argv[++i]);
            if (tokens < 1 || tokens > 8192) {
                fprintf(stderr, "error: --tokens must be in [1, 8192]\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            repeat = atoi(argv[++i]);
            if (repeat < 1 || repeat > 100) {
                fprintf(stderr, "error: --repeat must be in [1, 100]\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--end-to-end-only") == 0) {
            end_to_end_only = 1;
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: %s [--model MODEL.gguf] [--tokens N] [--repeat N] [--end-to-end-only] [--quick] [--csv FILE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (end_to_end_only && !model) {
        fprintf(stderr, "error: --end-to-end-only needs --model\n");
        return 2;
    }

    input inputs[8];
    int n_inputs = 0;
    size_t n_real = 0;
    llama_token_data * real = model ? model_row(model, &n_real, quick ? 8 : tokens, repeat) : NULL;
    if (end_to_end_only) {
        free(real);
        return 0;
    }
    llama_token_data * big = zipf_row(262144);
    const llama_token_data * head_source = real ? real : big;
    const size_t head_n = real ? n_real : 262144;
    inputs[n_inputs++] = (input) { real ? "gemma top-40 sorted" : "zipf top-40 sorted", 40, true,
                                   top_sorted(head_source, head_n, 40) };
    inputs[n_inputs++] = (input) { real ? "gemma top-64 sorted" : "zipf top-64 sorted", 64, true,
                                   top_sorted(head_source, head_n, 64) };
    inputs[n_inputs++] = (input) { "zipf 32000 unsorted", 32000, false, zipf_row(32000) };
    inputs[n_inputs++] = (input) { "zipf 152064 unsorted", 152064, false, zipf_row(152064) };
    inputs[n_inputs++] = (input) { "zipf 262144 unsorted", 262144, false, big };
    if (real) {
        inputs[n_inputs++] = (input) { "gemma 262144 unsorted", n_real, false, real };
    }

    FILE * csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv) {
        fprintf(csv, "input,n,sampler,median_ns\n");
    }
    printf("\n| input | sampler | median ns/apply | × floor | × top_k(64) | × dist |\n");
    printf("|---|---|---:|---:|---:|---:|\n");
    for (int i = 0; i < n_inputs; i++) {
        const input * in = &inputs[i];
        const int reps = quick ? 3 : (in->n >= 65536 ? 101 : 301);
        double t[N_SAMPLERS + 1];
        time_all(in, reps, t);
        for (int s = 0; s <= N_SAMPLERS; s++) {
            const char * name = s == FLOOR ? "floor: one read pass" : SAMPLERS[s].name;
            printf("| %s | %s | %.0f | %.2f | %.2f | %.2f |\n", in->name, name, t[s], t[s] / t[FLOOR], t[s] / t[TOP_K64],
                   t[s] / t[DIST]);
            if (csv) {
                /* Quoted: a sampler's name holds commas (xtc(0.1,0.1)). */
                fprintf(csv, "%s,%zu,\"%s\",%.1f\n", in->name, in->n, name, t[s]);
            }
        }
    }
    if (csv) {
        fclose(csv);
    }
    for (int i = 0; i < n_inputs; i++) {
        if (inputs[i].data != real) {
            free(inputs[i].data);
        }
    }
    free(real);
    return 0;
}
