/* scatter-eval: the generation and measurement engine of the pre-registered
 * evaluation (EVALUATION.md). eval/evaluate.py plans the runs and analyses
 * the records; this program only generates, measures and scores.
 *
 * For every prompt, every setting of the plan and every sample, it generates
 * a continuation with the setting's sampler chain and writes one JSON record
 * per continuation with what the analysis needs, per step:
 *   H    entropy (nats) of the sampling distribution pi;
 *   KL   KL(pi || model), the model's untruncated distribution;
 *   TKL  min over temperatures T of KL(pi || q_T), q_T the model's
 *        distribution at temperature T after the chain's truncation samplers
 *        (settings that are not plain temperature);
 * and, when a scorer model is given, the scorer's log-likelihood of the
 * continuation text given the prompt text, with the text's length in bytes.
 * With --factual it writes, per factual prompt and setting, the probability
 * that pi gives the answer's first token at the answer step (mean over the
 * samples' samplers, so a random gate is averaged over its draws).
 *
 * The draw: every sample owns a stream of uniforms u(seed, step) shared by all
 * settings (common random numbers: settings are paired through their seeds);
 * the token is the inverse CDF of pi at u in the order the chain leaves the
 * candidates. A chain that selects a token itself (adaptive-p) keeps its pick.
 * End-of-generation tokens are masked (logit -inf) before the chain, so every
 * continuation has the same number of tokens.
 *
 * Precision: logits are f32 as llama.cpp hands them over; every sum,
 * softmax, entropy and KL here is computed in f64.
 *
 * Threads: between two decodes, the sequences' steps and the scorer's rows
 * run in parallel (OpenMP); each sequence owns its samplers, so the results
 * do not depend on the number of threads.
 *
 * Plan file: one setting per line, "LABEL<TAB>CHAIN<TAB>TEMP<TAB>SAMPLER",
 * CHAIN one of D (top_k 40, top_p 0.95, min_p 0.05), K (top_k 64), N (none),
 * M (min_p 0.1); SAMPLER one of
 *   temp                     temperature alone
 *   scatter:PRESET           a SPEC §6 preset (llama_scatter_preset_params)
 *   scatter-fixed:S          creative with strength S
 *   xtc:P,THRESHOLD          llama.cpp's XTC
 *   dyn:DELTA,EXPONENT       llama.cpp's dynamic temperature (temp_ext)
 *   adaptive-p:TARGET,DECAY  llama.cpp's adaptive-p, last in the chain
 * The sampler sits where llama.cpp's default chain puts it: after the
 * truncation samplers and before temperature (adaptive-p after it). */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"

enum { MAX_SETTINGS = 256, MAX_PROMPTS = 512, MAX_TOKENS = 256, MAX_GROUP = 256, MAX_PROMPT_TOKENS = 128 };
/* The scorer's chunks: SCORE_BATCH tokens (their logits are SCORE_BATCH rows
 * of the scorer's vocabulary, 1 GB for Gemma's), at most SCORE_SEQS texts. */
enum { SCORE_BATCH = 1024, SCORE_SEQS = 64 };

/* ------------------------------------------------------------------ options */

typedef struct options {
    const char * model, * scorer, * plan, * prompts, * factual, * out;
    int n_tokens, n_samples, n_threads, group, first, count;
    uint32_t seed_base;
} options;

static void usage(const char * argv0) {
    fprintf(stderr,
            "usage: %s -m MODEL --plan FILE --out FILE (--prompts FILE | --factual FILE) [options]\n"
            "  --scorer MODEL   score every continuation with this model (per-byte log-likelihood)\n"
            "  -n N             tokens per continuation (default 40)\n"
            "  --samples K      continuations per prompt and setting (default 4)\n"
            "  --seed-base S    sample j of prompt i has seed S + 1000 i + j (default 1000)\n"
            "  --group G        sequences decoded together, at most %d (default 256)\n"
            "  --first I --count N   only open-ended prompts I .. I+N-1 (seeds as in a whole run)\n"
            "  -t THREADS       (default 2)\n",
            argv0, MAX_GROUP);
}

static int parse_options(int argc, char ** argv, options * o) {
    *o = (options){ .n_tokens = 40, .n_samples = 4, .n_threads = 2, .group = MAX_GROUP, .seed_base = 1000,
                    .count = MAX_PROMPTS };
    for (int i = 1; i + 1 < argc; i += 2) {
        const char * a = argv[i], * v = argv[i + 1];
        if (!strcmp(a, "-m")) o->model = v;
        else if (!strcmp(a, "--scorer")) o->scorer = v;
        else if (!strcmp(a, "--plan")) o->plan = v;
        else if (!strcmp(a, "--prompts")) o->prompts = v;
        else if (!strcmp(a, "--factual")) o->factual = v;
        else if (!strcmp(a, "--out")) o->out = v;
        else if (!strcmp(a, "-n")) o->n_tokens = atoi(v);
        else if (!strcmp(a, "--samples")) o->n_samples = atoi(v);
        else if (!strcmp(a, "--seed-base")) o->seed_base = (uint32_t) strtoul(v, NULL, 10);
        else if (!strcmp(a, "--group")) o->group = atoi(v);
        else if (!strcmp(a, "-t")) o->n_threads = atoi(v);
        else if (!strcmp(a, "--first")) o->first = atoi(v);
        else if (!strcmp(a, "--count")) o->count = atoi(v);
        else return -1;
    }
    if (argc % 2 == 0 || !o->model || !o->plan || !o->out || (!o->prompts == !o->factual) || o->n_tokens < 1 ||
        o->n_tokens > MAX_TOKENS || o->n_samples < 1 || o->n_samples > MAX_GROUP || o->group < o->n_samples ||
        o->group > MAX_GROUP || o->n_threads < 1 || o->first < 0 || o->count < 1) {
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ inputs */

typedef enum { S_TEMP, S_SCATTER, S_XTC, S_DYN, S_ADAPTIVE_P } sampler_kind;

typedef struct setting {
    char label[64];
    char chain;
    float temp;
    sampler_kind kind;
    struct llama_scatter_params scatter;
    float a, b; /* xtc: p, threshold; dyn: delta, exponent; adaptive-p: target, decay */
} setting;

static int parse_setting(char * line, setting * s) {
    char * f[4];
    for (int i = 0; i < 4; i++) {
        f[i] = strsep(&line, "\t");
        if (!f[i]) {
            return -1;
        }
    }
    memset(s, 0, sizeof *s);
    snprintf(s->label, sizeof s->label, "%s", f[0]);
    s->chain = f[1][0];
    s->temp = strtof(f[2], NULL);
    if (!strchr("DKNM", s->chain) || f[1][1] || !(s->temp > 0.0f && s->temp < 10.0f)) {
        return -1;
    }
    char * arg = strchr(f[3], ':');
    if (arg) {
        *arg++ = '\0';
    }
    if (!strcmp(f[3], "temp")) {
        s->kind = S_TEMP;
        return arg ? -1 : 0;
    }
    if (!arg) {
        return -1;
    }
    if (!strcmp(f[3], "scatter")) {
        s->kind = S_SCATTER;
        return llama_scatter_preset_params(arg, &s->scatter) ? 0 : -1;
    }
    if (!strcmp(f[3], "scatter-fixed")) {
        s->kind = S_SCATTER;
        llama_scatter_preset_params("creative", &s->scatter);
        s->scatter.strength = strtof(arg, NULL);
        return s->scatter.strength > 0.0f && s->scatter.strength <= 1.0f ? 0 : -1;
    }
    s->kind = !strcmp(f[3], "xtc") ? S_XTC : !strcmp(f[3], "dyn") ? S_DYN : !strcmp(f[3], "adaptive-p") ? S_ADAPTIVE_P : S_TEMP;
    return s->kind != S_TEMP && sscanf(arg, "%f,%f", &s->a, &s->b) == 2 ? 0 : -1;
}

/* The next line of f that is neither blank nor a '#' comment, without its
 * line end; NULL at the end of the file. */
static char * next_line(FILE * f, char * buf, int size) {
    while (fgets(buf, size, f)) {
        buf[strcspn(buf, "\r\n")] = '\0';
        if (buf[0] != '\0' && buf[0] != '#') {
            return buf;
        }
    }
    return NULL;
}

static int read_plan(const char * path, setting * out) {
    FILE * f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    char line[512];
    int n = 0;
    while (next_line(f, line, sizeof line)) {
        if (n == MAX_SETTINGS || parse_setting(line, &out[n]) != 0) {
            fprintf(stderr, "%s: bad setting, or more than %d: %s\n", path, MAX_SETTINGS, line);
            fclose(f);
            return -1;
        }
        n++;
    }
    fclose(f);
    return n;
}

typedef struct prompt {
    char * text;
    char * answer; /* factual prompts only */
} prompt;

/* One prompt per line, "prompt<TAB>answer" for factual ones. */
static int read_prompts(const char * path, prompt * out) {
    FILE * f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    char line[2048];
    int n = 0;
    while (n < MAX_PROMPTS && next_line(f, line, sizeof line)) {
        char * tab = strchr(line, '\t');
        if (tab) {
            *tab = '\0';
        }
        out[n].text = strdup(line);
        out[n].answer = strdup(tab ? tab + 1 : "");
        n++;
    }
    fclose(f);
    return n;
}

/* ------------------------------------------------------------------ samplers */

/* The truncation samplers of a chain, into `chain`. */
static void add_truncation(struct llama_sampler * chain, char c) {
    if (c == 'D') {
        llama_sampler_chain_add(chain, llama_sampler_init_top_k(40));
        llama_sampler_chain_add(chain, llama_sampler_init_top_p(0.95f, 1));
        llama_sampler_chain_add(chain, llama_sampler_init_min_p(0.05f, 1));
    } else if (c == 'K') {
        llama_sampler_chain_add(chain, llama_sampler_init_top_k(64));
    } else if (c == 'M') {
        llama_sampler_chain_add(chain, llama_sampler_init_min_p(0.1f, 1));
    }
}

static struct llama_sampler * new_chain(void) {
    struct llama_sampler_chain_params cp = llama_sampler_chain_default_params();
    cp.no_perf = true;
    return llama_sampler_chain_init(cp);
}

/* A setting's samplers, but the draw, in two chains: the truncation
 * (whose survivors the distance to temperature needs), then the rest;
 * scatter points to the scatter sampler inside the rest, if any. */
typedef struct samplers {
    struct llama_sampler * truncation, * rest, * scatter;
} samplers;

static samplers make_samplers(const setting * s, uint32_t seed) {
    samplers m = { new_chain(), new_chain(), NULL };
    add_truncation(m.truncation, s->chain);
    if (s->kind == S_SCATTER) {
        struct llama_scatter_params p = s->scatter;
        p.seed = seed;
        m.scatter = llama_sampler_init_scatter_params(&p);
        llama_sampler_chain_add(m.rest, m.scatter);
    } else if (s->kind == S_XTC) {
        llama_sampler_chain_add(m.rest, llama_sampler_init_xtc(s->a, s->b, 1, seed));
    }
    llama_sampler_chain_add(m.rest, s->kind == S_DYN ? llama_sampler_init_temp_ext(s->temp, s->a, s->b)
                                                     : llama_sampler_init_temp(s->temp));
    if (s->kind == S_ADAPTIVE_P) {
        llama_sampler_chain_add(m.rest, llama_sampler_init_adaptive_p(s->a, s->b, seed));
    }
    return m;
}

static void free_samplers(samplers * m) {
    llama_sampler_free(m->truncation);
    llama_sampler_free(m->rest);
}

/* The whole vocabulary as candidates, end-of-generation tokens masked. */
static llama_token_data_array candidates(const float * raw, int n_vocab, const unsigned char * eog,
                                         llama_token_data * cand) {
    for (int i = 0; i < n_vocab; i++) {
        cand[i] = (llama_token_data){ i, eog[i] ? -INFINITY : raw[i], 0.0f };
    }
    return (llama_token_data_array){ cand, (size_t) n_vocab, -1, false };
}

/* log sum exp of the candidates' logits: pi_i = exp(logit_i - it). */
static double log_normaliser(const llama_token_data_array * arr) {
    double max = -INFINITY, z = 0.0;
    for (size_t i = 0; i < arr->size; i++) {
        max = fmax(max, arr->data[i].logit);
    }
    for (size_t i = 0; i < arr->size; i++) {
        z += exp((double) arr->data[i].logit - max);
    }
    return max + log(z);
}

/* ------------------------------------------------------------------ measures */

/* The uniform of a sample's stream at a step: splitmix64 of both. */
static double uniform(uint32_t seed, int step) {
    uint64_t z = ((uint64_t) seed << 32 | (uint32_t) step) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double) (z >> 11) * 0x1.0p-53;
}

/* log-sum-exp of beta * x over n values, and the mean and variance of x
 * under softmax(beta * x). */
static double lse_moments(const float * x, size_t n, double beta, double * mean, double * var) {
    double max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        max = fmax(max, beta * x[i]);
    }
    double z = 0.0, s1 = 0.0, s2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double e = exp(beta * x[i] - max);
        z += e;
        s1 += e * x[i];
        s2 += e * (double) x[i] * x[i];
    }
    *mean = s1 / z;
    *var = fmax(s2 / z - *mean * *mean, 0.0);
    return max + log(z);
}

/* min over beta = 1/T in [1/20, 20] of KL(pi || softmax(beta * x)): the
 * derivative in beta is E_q[x] - E_pi[x], increasing in beta (its derivative
 * is Var_q[x]), so a safeguarded Newton search on it converges. neg_h is
 * sum pi ln pi, pi_x is E_pi[x]; x holds the truncated raw logits. */
static double min_kl_to_temperature(const float * x, size_t n, double neg_h, double pi_x) {
    double lo = 0.05, hi = 20.0, beta = 1.0, best = INFINITY;
    for (int it = 0; it < 60; it++) {
        double mean, var;
        const double lse = lse_moments(x, n, beta, &mean, &var);
        best = fmin(best, neg_h - beta * pi_x + lse);
        const double g = mean - pi_x;
        if (g > 0) hi = beta;
        else lo = beta;
        if (fabs(g) < 1e-9 || hi - lo < 1e-9) {
            break;
        }
        const double next = var > 0 ? beta - g / var : 0.5 * (lo + hi);
        beta = next > lo && next < hi ? next : 0.5 * (lo + hi);
    }
    return fmax(best, 0.0);
}

typedef struct scratch {
    llama_token_data * cand; /* the candidates */
    float * x;               /* the raw logits that survive truncation */
} scratch;

typedef struct step_result {
    llama_token token;
    double h, kl, tkl;
} step_result;

/* One step of one sample: the samplers on the masked raw logits, the
 * measures, the draw. lse is the log-sum-exp of the masked raw logits. */
static step_result sample_step(const float * raw, int n_vocab, double lse, const unsigned char * eog, const setting * s,
                               samplers * m, uint32_t seed, int step, scratch * w) {
    llama_token_data_array arr = candidates(raw, n_vocab, eog, w->cand);
    llama_sampler_apply(m->truncation, &arr);
    size_t n_x = 0; /* the survivors' raw logits, for the distance to temperature */
    for (size_t i = 0; s->kind != S_TEMP && i < arr.size; i++) {
        if (isfinite(arr.data[i].logit)) w->x[n_x++] = arr.data[i].logit;
    }
    llama_sampler_apply(m->rest, &arr);

    /* neg_h = sum pi ln pi; pi_x = E_pi[raw logit] */
    const double norm = log_normaliser(&arr);
    const double u = uniform(seed, step);
    double cum = 0.0, neg_h = 0.0, kl = 0.0, pi_x = 0.0;
    llama_token token = -1, last = -1;
    for (size_t i = 0; i < arr.size; i++) {
        const double lp = (double) arr.data[i].logit - norm;
        const double p = exp(lp);
        if (p > 0.0) {
            const double raw_i = raw[arr.data[i].id];
            neg_h += p * lp;
            kl += p * (lp - (raw_i - lse));
            pi_x += p * raw_i;
            cum += p;
            last = arr.data[i].id;
            if (token < 0 && u < cum) {
                token = last;
            }
        }
    }
    if (token < 0) {
        token = last; /* u beyond the rounded sum */
    }
    if (arr.selected >= 0) {
        token = arr.data[arr.selected].id;
    }
    step_result r = { token, -neg_h, fmax(kl, 0.0), NAN };
    if (s->kind != S_TEMP) {
        r.tkl = min_kl_to_temperature(w->x, n_x, neg_h, pi_x);
    }
    llama_sampler_accept(m->truncation, token);
    llama_sampler_accept(m->rest, token);
    return r;
}

/* ------------------------------------------------------------------ models */

typedef struct model {
    struct llama_model * model;
    struct llama_context * ctx;
    const struct llama_vocab * vocab;
    int n_vocab;
} model;

/* unified: one KV stream for all sequences (the scorer's short chunks);
 * otherwise one per sequence, so a token attends only to its own sequence. */
static int load(model * m, const char * path, int n_ctx, int n_batch, int n_seq, bool unified, int n_threads) {
    m->model = llama_model_load_from_file(path, llama_model_default_params());
    if (!m->model) {
        fprintf(stderr, "cannot load %s\n", path);
        return -1;
    }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t) n_ctx;
    cp.n_batch = cp.n_ubatch = (uint32_t) n_batch;
    cp.n_seq_max = (uint32_t) n_seq;
    cp.kv_unified = unified;
    cp.n_threads = cp.n_threads_batch = n_threads;
    cp.no_perf = true;
    m->ctx = llama_init_from_model(m->model, cp);
    m->vocab = llama_model_get_vocab(m->model);
    m->n_vocab = llama_vocab_n_tokens(m->vocab);
    return m->ctx ? 0 : -1;
}

static int tokenize(const model * m, const char * text, bool bos, llama_token * out, int max) {
    return llama_tokenize(m->vocab, text, (int32_t) strlen(text), out, max, bos, false);
}

static double lse_of(const float * x, int n, const unsigned char * mask) {
    double max = -INFINITY, z = 0.0;
    for (int i = 0; i < n; i++) {
        if (!mask || !mask[i]) max = fmax(max, x[i]);
    }
    for (int i = 0; i < n; i++) {
        if (!mask || !mask[i]) z += exp((double) x[i] - max);
    }
    return max + log(z);
}

/* Decodes the prompt into sequence 0 of a cleared memory. Returns the
 * prompt's length, or -1. */
static int decode_prompt(model * m, const char * text) {
    llama_token toks[MAX_PROMPT_TOKENS];
    const int np = tokenize(m, text, true, toks, MAX_PROMPT_TOKENS);
    if (np <= 0) {
        return -1;
    }
    llama_memory_t mem = llama_get_memory(m->ctx);
    llama_memory_clear(mem, true);
    struct llama_batch b = llama_batch_get_one(toks, np);
    if (llama_decode(m->ctx, b) != 0) {
        return -1;
    }
    return np;
}

/* The scorer's log-likelihood (nats) of each continuation given its prompt,
 * for n texts of one prompt: [BOS] prompt continuation, the continuation
 * tokenized on its own. Sequences go through in chunks of at most n_batch
 * tokens. */
static int score(model * sc, int n_batch, const char * prompt_text, char ** texts, int n, double * ll) {
    llama_token ptoks[MAX_PROMPT_TOKENS];
    const int np = tokenize(sc, prompt_text, true, ptoks, MAX_PROMPT_TOKENS);
    if (np <= 0) {
        return -1;
    }
    static llama_token ctoks[MAX_GROUP][4 * MAX_TOKENS];
    int nc[MAX_GROUP];
    for (int i = 0; i < n; i++) {
        nc[i] = tokenize(sc, texts[i], false, ctoks[i], 4 * MAX_TOKENS);
        if (nc[i] < 0 || np + nc[i] > n_batch) {
            return -1;
        }
        ll[i] = 0.0;
    }
    struct llama_batch b = llama_batch_init(n_batch, 0, 1);
    int first = 0, rc = 0;
    while (first < n && rc == 0) {
        int last = first;
        b.n_tokens = 0;
        llama_memory_clear(llama_get_memory(sc->ctx), true);
        while (last < n && last - first < SCORE_SEQS && b.n_tokens + np + nc[last] <= n_batch) {
            for (int j = 0; j < np + nc[last]; j++) {
                const int k = b.n_tokens++;
                b.token[k] = j < np ? ptoks[j] : ctoks[last][j - np];
                b.pos[k] = j;
                b.n_seq_id[k] = 1;
                b.seq_id[k][0] = last - first;
                b.logits[k] = j >= np - 1 && j < np + nc[last] - 1;
            }
            last++;
        }
        if (llama_decode(sc->ctx, b) != 0) {
            rc = -1;
            break;
        }
        /* continuation token j of text i is predicted by the batch entry
         * before it; the rows are looked up first (the lookup is not
         * thread-safe), then the log-probabilities computed in parallel */
        static const float * rows[SCORE_BATCH];
        static llama_token target[SCORE_BATCH];
        static double lp[SCORE_BATCH];
        int n_rows = 0;
        for (int i = first, offset = 0; i < last; offset += np + nc[i], i++) {
            for (int j = 0; j < nc[i]; j++, n_rows++) {
                rows[n_rows] = llama_get_logits_ith(sc->ctx, offset + np - 1 + j);
                target[n_rows] = ctoks[i][j];
            }
        }
#pragma omp parallel for schedule(dynamic)
        for (int k = 0; k < n_rows; k++) {
            lp[k] = rows[k][target[k]] - lse_of(rows[k], sc->n_vocab, NULL);
        }
        for (int i = first, k = 0; i < last; i++) {
            for (int j = 0; j < nc[i]; j++, k++) {
                ll[i] += lp[k];
            }
        }
        first = last;
    }
    llama_batch_free(b);
    return rc;
}

/* ------------------------------------------------------------------ output */

static void write_hex(FILE * f, const char * s) {
    for (; *s; s++) {
        fprintf(f, "%02x", (unsigned char) *s);
    }
}

static void write_series(FILE * f, const char * name, const double * v, int n) {
    fprintf(f, ",\"%s\":[", name);
    for (int i = 0; i < n; i++) {
        if (isnan(v[i])) fprintf(f, "%snull", i ? "," : "");
        else fprintf(f, "%s%.6g", i ? "," : "", v[i]);
    }
    fputc(']', f);
}

/* ------------------------------------------------------------------ runs */

typedef struct run {
    const options * o;
    model gen, sc;
    int has_scorer;
    unsigned char * eog;
    scratch * w; /* one per thread */
    int n_workers;
    FILE * out;
    long decoded, logical; /* tokens decoded, and without shared slots */
} run;

typedef struct sequence {
    const setting * s;
    int sample;
    uint32_t seed;
    samplers m;
    llama_token tokens[MAX_TOKENS];
    double h[MAX_TOKENS], kl[MAX_TOKENS], tkl[MAX_TOKENS];
    char text[16 * MAX_TOKENS];
} sequence;

static void piece_text(const model * m, const llama_token * toks, int n, char * out, int size) {
    int len = 0;
    for (int i = 0; i < n && len < size - 1; i++) {
        const int k = llama_token_to_piece(m->vocab, toks[i], out + len, size - 1 - len, 0, false);
        len += k > 0 ? k : 0;
    }
    out[len] = '\0';
}

/* Generates, measures and scores one group of sequences of one prompt.
 * Sequences with the same tokens so far share one KV sequence (a slot): the
 * settings draw with shared uniforms, so many agree for a while, and only
 * distinct histories are decoded. When the members of a slot draw different
 * tokens, each new token gets a copy of the slot. The prompt is decoded once,
 * in slot 0. */
static int run_group(run * r, const prompt * p, int prompt_index, sequence * seqs, int n) {
    const options * o = r->o;
    const int np = decode_prompt(&r->gen, p->text);
    if (np < 0) {
        return -1;
    }
    llama_memory_t mem = llama_get_memory(r->gen.ctx);
    struct llama_batch b = llama_batch_init(n, 0, 1);
    int slot[MAX_GROUP], row[MAX_GROUP], n_slots = 1;
    long decoded = 0;
    row[0] = -1; /* the prompt's last row */
    for (int i = 0; i < n; i++) {
        slot[i] = 0;
    }
    for (int t = 0; t < o->n_tokens; t++) {
        const float * raw[MAX_GROUP];
        double lse[MAX_GROUP];
        for (int k = 0; k < n_slots; k++) {
            raw[k] = llama_get_logits_ith(r->gen.ctx, row[k]);
        }
#pragma omp parallel for schedule(dynamic)
        for (int k = 0; k < n_slots; k++) {
            lse[k] = lse_of(raw[k], r->gen.n_vocab, r->eog);
        }
#pragma omp parallel for schedule(dynamic)
        for (int i = 0; i < n; i++) {
            const int k = slot[i];
            const step_result sr = sample_step(raw[k], r->gen.n_vocab, lse[k], r->eog, seqs[i].s, &seqs[i].m,
                                               seqs[i].seed, t, &r->w[omp_get_thread_num()]);
            seqs[i].tokens[t] = sr.token;
            seqs[i].h[t] = sr.h;
            seqs[i].kl[t] = sr.kl;
            seqs[i].tkl[t] = sr.tkl;
        }
        if (t + 1 == o->n_tokens) {
            break;
        }
        /* token_of[slot]: the token the slot decodes next, -1 before its first member */
        int token_of[MAX_GROUP];
        const int n_old = n_slots;
        for (int k = 0; k < n_old; k++) {
            token_of[k] = -1;
        }
        b.n_tokens = 0;
        for (int i = 0; i < n; i++) {
            const int k = slot[i];
            const llama_token tok = seqs[i].tokens[t];
            if (token_of[k] < 0) {
                token_of[k] = tok;
                continue;
            }
            if (token_of[k] == tok) {
                continue;
            }
            int moved = -1; /* a slot split from k this step with this token */
            for (int j = n_old; j < n_slots && moved < 0; j++) {
                moved = token_of[j] == tok && row[j] == k ? j : -1;
            }
            if (moved < 0) {
                moved = n_slots++;
                llama_memory_seq_cp(mem, k, moved, -1, -1);
                token_of[moved] = tok;
                row[moved] = k; /* parent, until the batch is built */
            }
            slot[i] = moved;
        }
        for (int k = 0; k < n_slots; k++) {
            const int j = b.n_tokens++;
            b.token[j] = token_of[k];
            b.pos[j] = np + t;
            b.n_seq_id[j] = 1;
            b.seq_id[j][0] = k;
            b.logits[j] = 1;
            row[k] = j;
        }
        decoded += b.n_tokens;
        if (llama_decode(r->gen.ctx, b) != 0) {
            llama_batch_free(b);
            return -1;
        }
    }
    llama_batch_free(b);
    r->decoded += decoded;
    r->logical += (long) n * (o->n_tokens - 1);

    static char * texts[MAX_GROUP];
    static double ll[MAX_GROUP];
    for (int i = 0; i < n; i++) {
        piece_text(&r->gen, seqs[i].tokens, o->n_tokens, seqs[i].text, sizeof seqs[i].text);
        texts[i] = seqs[i].text;
    }
    if (r->has_scorer && score(&r->sc, SCORE_BATCH, p->text, texts, n, ll) != 0) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const sequence * q = &seqs[i];
        fprintf(r->out, "{\"setting\":\"%s\",\"prompt\":%d,\"sample\":%d,\"seed\":%u,\"tokens\":[", q->s->label,
                prompt_index, q->sample, q->seed);
        for (int t = 0; t < o->n_tokens; t++) {
            fprintf(r->out, "%s%d", t ? "," : "", q->tokens[t]);
        }
        fputs("],\"text_hex\":\"", r->out);
        write_hex(r->out, q->text);
        fputc('"', r->out);
        write_series(r->out, "H", q->h, o->n_tokens);
        write_series(r->out, "KL", q->kl, o->n_tokens);
        write_series(r->out, "TKL", q->tkl, o->n_tokens);
        if (r->has_scorer) {
            fprintf(r->out, ",\"score_ll\":%.6f,\"score_bytes\":%zu", ll[i], strlen(q->text));
        }
        if (q->m.scatter) {
            struct llama_scatter_stats st;
            llama_sampler_scatter_stats(q->m.scatter, &st);
            fprintf(r->out, ",\"n_apply\":%llu,\"n_fired\":%llu,\"n_scattered\":%llu,\"strength_sum\":%.6f",
                    (unsigned long long) st.n_apply, (unsigned long long) st.n_fired,
                    (unsigned long long) st.n_scattered, st.strength_sum);
        }
        fputs("}\n", r->out);
    }
    fflush(r->out);
    return 0;
}

static uint32_t sample_seed(const options * o, int prompt_index, int sample) {
    return o->seed_base + 1000u * (uint32_t) prompt_index + (uint32_t) sample;
}

static int run_open(run * r, const prompt * prompts, int n_prompts, const setting * settings, int n_settings) {
    const options * o = r->o;
    static sequence seqs[MAX_GROUP];
    const int per_group = o->group / o->n_samples;
    const int end = o->first + o->count < n_prompts ? o->first + o->count : n_prompts;
    for (int p = o->first; p < end; p++) {
        for (int first = 0; first < n_settings; first += per_group) {
            const int last = first + per_group < n_settings ? first + per_group : n_settings;
            int n = 0;
            for (int s = first; s < last; s++) {
                for (int j = 0; j < o->n_samples; j++, n++) {
                    sequence * q = &seqs[n];
                    q->s = &settings[s];
                    q->sample = j;
                    q->seed = sample_seed(o, p, j);
                    q->m = make_samplers(q->s, q->seed);
                }
            }
            const int rc = run_group(r, &prompts[p], p, seqs, n);
            for (int i = 0; i < n; i++) {
                free_samplers(&seqs[i].m);
            }
            if (rc != 0) {
                fprintf(stderr, "prompt %d: decoding or scoring failed\n", p);
                return -1;
            }
        }
        fprintf(stderr, "\rprompt %d/%d", p + 1, end);
    }
    fputc('\n', stderr);
    return 0;
}

/* The answer step of each factual prompt: the probability pi gives the
 * answer's first token (the answer after a space, as it follows the prompt). */
static int run_factual(run * r, const prompt * prompts, int n_prompts, const setting * settings, int n_settings) {
    const options * o = r->o;
    for (int p = 0; p < n_prompts; p++) {
        char answer[512];
        snprintf(answer, sizeof answer, " %s", prompts[p].answer);
        llama_token at[64];
        if (tokenize(&r->gen, answer, false, at, 64) < 1 || decode_prompt(&r->gen, prompts[p].text) < 0) {
            return -1;
        }
        const float * raw = llama_get_logits_ith(r->gen.ctx, -1);
        const double lse = lse_of(raw, r->gen.n_vocab, r->eog);
        fprintf(r->out, "{\"factual\":%d,\"answer_token\":%d,\"model_p\":%.6g,\"settings\":{", p, at[0],
                exp(raw[at[0]] - lse));
        for (int s = 0; s < n_settings; s++) {
            double sum = 0.0;
            for (int j = 0; j < o->n_samples; j++) {
                samplers m = make_samplers(&settings[s], sample_seed(o, p, j));
                llama_token_data_array arr = candidates(raw, r->gen.n_vocab, r->eog, r->w[0].cand);
                llama_sampler_apply(m.truncation, &arr);
                llama_sampler_apply(m.rest, &arr);
                free_samplers(&m);
                const double norm = log_normaliser(&arr);
                for (size_t i = 0; i < arr.size; i++) {
                    sum += arr.data[i].id == at[0] ? exp((double) arr.data[i].logit - norm) : 0.0;
                }
            }
            fprintf(r->out, "%s\"%s\":%.6g", s ? "," : "", settings[s].label, sum / o->n_samples);
        }
        fputs("}}\n", r->out);
    }
    return 0;
}

static void quiet_log(enum ggml_log_level level, const char * text, void * data) {
    (void) data;
    if (level == GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

int main(int argc, char ** argv) {
    options o;
    if (parse_options(argc, argv, &o) != 0) {
        usage(argv[0]);
        return 2;
    }
    static setting settings[MAX_SETTINGS];
    static prompt prompts[MAX_PROMPTS];
    const int n_settings = read_plan(o.plan, settings);
    const int n_prompts = read_prompts(o.prompts ? o.prompts : o.factual, prompts);
    if (n_settings < 1 || n_prompts < 1) {
        fprintf(stderr, "no settings in %s or no prompts\n", o.plan);
        return 2;
    }
    llama_log_set(quiet_log, NULL);
    llama_backend_init();
    run r = { .o = &o, .has_scorer = o.scorer != NULL };
    const int per_group = (o.group / o.n_samples) * o.n_samples;
    if (load(&r.gen, o.model, per_group * (MAX_PROMPT_TOKENS + o.n_tokens), per_group > 512 ? per_group : 512,
             per_group, false, o.n_threads) != 0 ||
        (r.has_scorer && load(&r.sc, o.scorer, SCORE_BATCH, SCORE_BATCH, SCORE_SEQS, true, o.n_threads) != 0)) {
        return 1;
    }
    const int nv = r.gen.n_vocab;
    r.eog = calloc((size_t) nv, 1);
    r.n_workers = omp_get_max_threads();
    r.w = calloc((size_t) r.n_workers, sizeof *r.w);
    int ok = r.w != NULL;
    for (int k = 0; ok && k < r.n_workers; k++) {
        r.w[k] = (scratch){ malloc((size_t) nv * sizeof *r.w[k].cand), malloc((size_t) nv * sizeof *r.w[k].x) };
        ok = r.w[k].cand && r.w[k].x;
    }
    r.out = fopen(o.out, "w");
    if (!r.eog || !ok || !r.out) {
        fprintf(stderr, "setup failed (%s)\n", o.out);
        return 1;
    }
    for (int i = 0; i < nv; i++) {
        r.eog[i] = llama_vocab_is_eog(r.gen.vocab, i);
    }
    fprintf(stderr, "scatter-eval: %d prompts, %d settings, %d samples x %d tokens%s\n", n_prompts, n_settings,
            o.n_samples, o.n_tokens, r.has_scorer ? ", scored" : "");
    const int rc = o.prompts ? run_open(&r, prompts, n_prompts, settings, n_settings)
                             : run_factual(&r, prompts, n_prompts, settings, n_settings);
    if (o.prompts) {
        fprintf(stderr, "decoded %ld of %ld sequence steps (the rest shared a history)\n", r.decoded, r.logical);
    }
    fclose(r.out);
    free(r.eog);
    for (int k = 0; k < r.n_workers; k++) {
        free(r.w[k].cand);
        free(r.w[k].x);
    }
    free(r.w);
    llama_free(r.gen.ctx);
    llama_model_free(r.gen.model);
    if (r.has_scorer) {
        llama_free(r.sc.ctx);
        llama_model_free(r.sc.model);
    }
    llama_backend_free();
    return rc == 0 ? 0 : 1;
}
