/* scatter-eval: does scatter flatten the head without waking the tail?
 *
 * For each sampler configuration, generates several continuations of every
 * open-ended prompt (fixed seeds, the same for every configuration) and a few
 * tokens for every factual prompt, and measures, against the model's
 * unmodified next-token distribution at each step:
 *   diversity   distinct-1/-2 across the continuations of a prompt (token
 *               n-grams), repeated-4-gram rate within a continuation;
 *   coherence   mean log-probability of the generated tokens;
 *   tail        share of sampled tokens outside the top 40 / outside the
 *               top-p 0.95 nucleus, and the probability mass the final
 *               sampling distribution put there;
 *   accuracy    factual prompts answered (answer string, or agreement with
 *               greedy decoding when the file gives none);
 *   scatter     mean effective strength and firing rate
 *               (llama_sampler_scatter_stats).
 * "match:PRESET@T" runs temperature alone, raised until the mean entropy of
 * its sampling distribution equals that of PRESET@T on PRESET@T's own
 * contexts, so scatter and temperature are compared at the same diversity.
 * Output: a table on stdout, --json and --csv files, --dump for plots.
 * Usage: see usage() and EVALUATION.md. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"
#include "scatter_params.h"

enum { MAX_CONFIGS = 32, MAX_PROMPTS = 256, MAX_SAMPLES = 8, TOP_K = 40, N_GRID = 61, N_DUMP = 20 };
static const float TOP_P = 0.95f, MIN_P = 0.05f;
static const char * PRESET_NAMES[N_PRESETS] = { "subtle", "creative", "adaptive", "collision", "adaptive-absorb" };

/* ------------------------------------------------------------------ options */

typedef struct options {
    const char * model, * open_path, * factual_path, * json_path, * csv_path, * dump_path;
    char configs[1024];
    int n_tokens, n_factual_tokens, n_samples, n_prompts, n_threads;
    uint32_t seed;
} options;

static void usage(const char * argv0) {
    fprintf(stderr,
            "usage: %s -m MODEL --open FILE --factual FILE [options]\n"
            "  --configs LIST   comma-separated: greedy, temp=T, rawtemp=T (no truncation),\n"
            "                   PRESET@T (truncation, scatter preset, temperature T), match:PRESET@T,\n"
            "                   raw:PRESET@T (scatter and temperature on the full vocabulary)\n"
            "                   (default: the EVALUATION.md set)\n"
            "  -n N             tokens per open-ended continuation (default 32)\n"
            "  --samples K      continuations per prompt, at most %d (default 4)\n"
            "  --prompts N      use only the first N prompts of each file\n"
            "  -s SEED          base seed (default 1234)\n"
            "  -t THREADS       (default 2)\n"
            "  --json F, --csv F, --dump F   machine-readable results; distributions for plots\n",
            argv0, MAX_SAMPLES);
}

static const char * DEFAULT_CONFIGS =
    "greedy,temp=0.7,temp=0.8,temp=1.0,temp=1.3,rawtemp=0.8,rawtemp=1.0,raw:creative@0.8,"
    "subtle@0.8,creative@0.8,adaptive@0.8,collision@0.8,adaptive-absorb@0.8,"
    "match:subtle@0.8,match:creative@0.8,match:adaptive@0.8,match:collision@0.8,match:adaptive-absorb@0.8";

static int parse_options(int argc, char ** argv, options * o) {
    *o = (options){ .n_tokens = 32, .n_factual_tokens = 6, .n_samples = 4, .n_prompts = MAX_PROMPTS,
                    .n_threads = 2, .seed = 1234 };
    snprintf(o->configs, sizeof o->configs, "%s", DEFAULT_CONFIGS);
    for (int i = 1; i < argc; i++) {
        const char * a = argv[i];
        const char * v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            return -1;
        }
        i++;
        if (!strcmp(a, "-m")) o->model = v;
        else if (!strcmp(a, "--open")) o->open_path = v;
        else if (!strcmp(a, "--factual")) o->factual_path = v;
        else if (!strcmp(a, "--configs")) snprintf(o->configs, sizeof o->configs, "%s", v);
        else if (!strcmp(a, "-n")) o->n_tokens = atoi(v);
        else if (!strcmp(a, "--samples")) o->n_samples = atoi(v);
        else if (!strcmp(a, "--prompts")) o->n_prompts = atoi(v);
        else if (!strcmp(a, "-s")) o->seed = (uint32_t) strtoul(v, NULL, 10);
        else if (!strcmp(a, "-t")) o->n_threads = atoi(v);
        else if (!strcmp(a, "--json")) o->json_path = v;
        else if (!strcmp(a, "--csv")) o->csv_path = v;
        else if (!strcmp(a, "--dump")) o->dump_path = v;
        else return -1;
    }
    if (!o->model || !o->open_path || !o->factual_path || o->n_tokens < 4 || o->n_samples < 1 ||
        o->n_samples > MAX_SAMPLES || o->n_prompts < 1 || o->n_threads < 1) {
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ prompts */

typedef struct prompt {
    char * text;
    char * answer; /* factual only; "" = agreement with greedy */
} prompt;

/* One prompt per line (open) or "prompt<TAB>answer" (factual); blank lines
 * and lines starting with '#' are skipped. Returns the count. */
static int read_prompts(const char * path, prompt * out, int max) {
    FILE * f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        return -1;
    }
    char line[2048];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') {
            continue;
        }
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

/* ------------------------------------------------------------------ configs */

typedef enum { GREEDY, TEMP, RAWTEMP, SCATTER, MATCHED, RAWSCATTER } config_kind;

typedef struct metrics {
    double distinct1, distinct2, rep4, logprob, entropy;
    double leak_top40, leak_nucleus, mass_top40, mass_nucleus;
    double factual, fire_rate, mean_strength;
    long n_tokens, n_steps, n_prompts, n_continuations, n_factual, n_fired, n_apply, n_scattered;
    double strength_sum;
    double grid_entropy[N_GRID]; /* SCATTER: mean entropy of temperature alone, for matching */
} metrics;

typedef struct config {
    char label[64];
    config_kind kind;
    float temp;        /* MATCHED: the matched temperature, once run */
    float preset_temp; /* SCATTER, MATCHED: the preset's temperature */
    int preset;
    metrics m;
} config;

static float grid_temp(int g) { return 0.5f + 0.05f * (float) g; }

static int preset_index(const char * name, size_t len) {
    for (int i = 0; i < N_PRESETS; i++) {
        if (strlen(PRESET_NAMES[i]) == len && !strncmp(PRESET_NAMES[i], name, len)) {
            return i;
        }
    }
    return -1;
}

static int parse_config(const char * spec, config * c) {
    memset(c, 0, sizeof *c);
    snprintf(c->label, sizeof c->label, "%s", spec);
    const char * at = strchr(spec, '@');
    if (!strcmp(spec, "greedy")) {
        c->kind = GREEDY;
    } else if (!strncmp(spec, "temp=", 5)) {
        c->kind = TEMP;
        c->temp = strtof(spec + 5, NULL);
    } else if (!strncmp(spec, "rawtemp=", 8)) {
        c->kind = RAWTEMP;
        c->temp = strtof(spec + 8, NULL);
    } else if (at) {
        const int matched = !strncmp(spec, "match:", 6), raw = !strncmp(spec, "raw:", 4);
        const char * name = spec + (matched ? 6 : raw ? 4 : 0);
        c->kind = matched ? MATCHED : raw ? RAWSCATTER : SCATTER;
        c->preset = preset_index(name, (size_t) (at - name));
        c->temp = c->preset_temp = strtof(at + 1, NULL);
        if (c->preset < 0) {
            return -1;
        }
    } else {
        return -1;
    }
    return c->kind == GREEDY || (c->temp > 0.0f && c->temp < 10.0f) ? 0 : -1;
}

/* ------------------------------------------------------------------ model state */

typedef struct eval {
    const options * o;
    struct llama_model * model;
    struct llama_context * ctx;
    const struct llama_vocab * vocab;
    int n_vocab;
    llama_token_data * cand;      /* full-vocabulary candidates of one step */
    llama_token_data * sorted;    /* tokens of the buckets where the sets end */
    unsigned char * in_top40, * in_nucleus;
    int * marked;                 /* ids marked in either set */
} eval;

/* One continuation's samplers: truncation, shaping (scatter and/or
 * temperature), and the pick. */
typedef struct sampler_set {
    struct llama_sampler * trunc, * shape, * pick;
    struct llama_sampler * scatter; /* inside shape, or NULL */
} sampler_set;

static sampler_set make_samplers(const config * c, float temp, uint32_t seed) {
    struct llama_sampler_chain_params cp = llama_sampler_chain_default_params();
    cp.no_perf = true;
    sampler_set s = { llama_sampler_chain_init(cp), llama_sampler_chain_init(cp), NULL, NULL };
    if (c->kind == TEMP || c->kind == SCATTER || c->kind == MATCHED) {
        llama_sampler_chain_add(s.trunc, llama_sampler_init_top_k(TOP_K));
        llama_sampler_chain_add(s.trunc, llama_sampler_init_top_p(TOP_P, 1));
        llama_sampler_chain_add(s.trunc, llama_sampler_init_min_p(MIN_P, 1));
    }
    if (c->kind == SCATTER || c->kind == RAWSCATTER) {
        const scatter_params p = scatter_preset(c->preset, seed);
        s.scatter = scatter_make(&p);
        llama_sampler_chain_add(s.shape, s.scatter);
    }
    if (c->kind == GREEDY) {
        s.pick = llama_sampler_init_greedy();
    } else {
        llama_sampler_chain_add(s.shape, llama_sampler_init_temp(temp));
        s.pick = llama_sampler_init_dist(seed);
    }
    return s;
}

static void free_samplers(sampler_set * s) {
    llama_sampler_free(s->trunc);
    llama_sampler_free(s->shape);
    llama_sampler_free(s->pick);
}

static void accept_all(sampler_set * s, llama_token t) {
    llama_sampler_accept(s->trunc, t);
    llama_sampler_accept(s->shape, t);
    llama_sampler_accept(s->pick, t);
}

static int by_logit_desc(const void * a, const void * b) {
    const float x = ((const llama_token_data *) a)->logit, y = ((const llama_token_data *) b)->logit;
    return (x < y) - (x > y);
}

/* Entropy (nats) of softmax(logit / temp) over n candidates. */
static double entropy_at(const llama_token_data * c, size_t n, double temp) {
    double max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        max = fmax(max, c[i].logit / temp);
    }
    double z = 0.0, s = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double x = c[i].logit / temp - max;
        const double e = exp(x);
        z += e;
        s += e * x;
    }
    return log(z) - s / z;
}

/* Marks the model's raw top 40 and top-p 0.95 nucleus in e->in_top40 and
 * e->in_nucleus, listing the marked ids in e->marked (to unmark them). In
 * linear time: the head (logits within HEAD nats of the top; the rest holds
 * < 262,144 * e^-HEAD of the mass) is bucketed by logit; only the bucket
 * where a set ends is sorted. */
enum { N_BUCKETS = 4096 };
static const double HEAD = 25.0;

static size_t mark_sets(eval * e, const float * logits, double max, double lse) {
    static double mass[N_BUCKETS];
    static int count[N_BUCKETS];
    memset(mass, 0, sizeof mass);
    memset(count, 0, sizeof count);
    const double scale = (N_BUCKETS - 1) / HEAD;
    for (int i = 0; i < e->n_vocab; i++) {
        if (logits[i] >= max - HEAD) {
            const int b = (int) ((max - logits[i]) * scale);
            mass[b] += exp(logits[i] - lse);
            count[b]++;
        }
    }
    /* b_nuc, b_top: the buckets where the sets end (N_BUCKETS: the whole head) */
    int b_nuc = -1, b_top = -1;
    double before_nuc = 0.0;
    int before_top = 0;
    for (int b = 0; b < N_BUCKETS; b++) {
        if (b_nuc < 0) {
            if (before_nuc + mass[b] >= TOP_P) b_nuc = b;
            else before_nuc += mass[b];
        }
        if (b_top < 0) {
            if (before_top + count[b] >= TOP_K) b_top = b;
            else before_top += count[b];
        }
    }
    b_nuc = b_nuc < 0 ? N_BUCKETS : b_nuc;
    b_top = b_top < 0 ? N_BUCKETS : b_top;
    size_t n_marked = 0, n_edge_nuc = 0, n_edge_top = 0;
    llama_token_data * edge_nuc = e->sorted;
    llama_token_data * edge_top = e->sorted + e->n_vocab;
    for (int i = 0; i < e->n_vocab; i++) {
        if (logits[i] < max - HEAD) {
            continue;
        }
        const int b = (int) ((max - logits[i]) * scale);
        const int nuc = b < b_nuc, top = b < b_top;
        if (nuc || top) {
            e->in_nucleus[i] = (unsigned char) nuc;
            e->in_top40[i] = (unsigned char) top;
            e->marked[n_marked++] = i;
        }
        if (b == b_nuc) edge_nuc[n_edge_nuc++] = (llama_token_data){ i, logits[i], 0.0f };
        if (b == b_top) edge_top[n_edge_top++] = (llama_token_data){ i, logits[i], 0.0f };
    }
    qsort(edge_nuc, n_edge_nuc, sizeof *edge_nuc, by_logit_desc);
    for (size_t k = 0; k < n_edge_nuc && before_nuc < TOP_P; k++) {
        before_nuc += exp(edge_nuc[k].logit - lse);
        if (!e->in_nucleus[edge_nuc[k].id] && !e->in_top40[edge_nuc[k].id]) {
            e->marked[n_marked++] = edge_nuc[k].id;
        }
        e->in_nucleus[edge_nuc[k].id] = 1;
    }
    qsort(edge_top, n_edge_top, sizeof *edge_top, by_logit_desc);
    for (size_t k = 0; k < n_edge_top && before_top < TOP_K; k++, before_top++) {
        if (!e->in_nucleus[edge_top[k].id] && !e->in_top40[edge_top[k].id]) {
            e->marked[n_marked++] = edge_top[k].id;
        }
        e->in_top40[edge_top[k].id] = 1;
    }
    return n_marked;
}

/* Samples one token of one continuation from the raw logits; with
 * `record`, adds the step's measures to m. */
static llama_token sample_step(eval * e, sampler_set * s, const config * c, const float * logits, metrics * m,
                               int record) {
    const int nv = e->n_vocab;
    double max = -INFINITY;
    for (int i = 0; i < nv; i++) {
        e->cand[i] = (llama_token_data){ i, logits[i], 0.0f };
        max = fmax(max, logits[i]);
    }
    double z = 0.0;
    for (int i = 0; i < nv; i++) {
        z += exp(logits[i] - max);
    }
    const double lse = max + log(z);
    const size_t n_marked = mark_sets(e, logits, max, lse);

    llama_token_data_array arr = { e->cand, (size_t) nv, -1, false };
    llama_sampler_apply(s->trunc, &arr);
    if (record && c->kind == SCATTER) {
        for (int g = 0; g < N_GRID; g++) {
            m->grid_entropy[g] += entropy_at(arr.data, arr.size, grid_temp(g));
        }
    }
    llama_sampler_apply(s->shape, &arr);

    /* The final sampling distribution, and its mass outside the raw sets. */
    double fmax_logit = -INFINITY;
    for (size_t i = 0; i < arr.size; i++) {
        fmax_logit = fmax(fmax_logit, arr.data[i].logit);
    }
    double fz = 0.0, out40 = 0.0, outn = 0.0, fent = 0.0;
    if (c->kind == GREEDY) {
        fz = 1.0;
    } else {
        for (size_t i = 0; i < arr.size; i++) {
            const double w = exp(arr.data[i].logit - fmax_logit);
            fz += w;
            out40 += e->in_top40[arr.data[i].id] ? 0.0 : w;
            outn += e->in_nucleus[arr.data[i].id] ? 0.0 : w;
            fent -= w > 0.0 ? w * (arr.data[i].logit - fmax_logit) : 0.0;
        }
        fent = fent / fz + log(fz);
        out40 /= fz;
        outn /= fz;
    }
    llama_sampler_apply(s->pick, &arr);
    const llama_token t = arr.data[arr.selected].id;

    if (record) {
        m->n_tokens++;
        m->n_steps++;
        m->logprob += logits[t] - lse;
        m->entropy += fent;
        m->mass_top40 += out40;
        m->mass_nucleus += outn;
        m->leak_top40 += e->in_top40[t] ? 0.0 : 1.0;
        m->leak_nucleus += e->in_nucleus[t] ? 0.0 : 1.0;
    }
    for (size_t i = 0; i < n_marked; i++) {
        e->in_top40[e->marked[i]] = 0;
        e->in_nucleus[e->marked[i]] = 0;
    }
    accept_all(s, t);
    return t;
}

/* Generates n_samples continuations of `text` in one batch (one sequence
 * each), n tokens each, into tokens[sample][0..n). */
static int generate(eval * e, const config * c, float temp, const char * text, int prompt_index, int n_samples,
                    int n, llama_token tokens[][128], metrics * m, int record) {
    llama_token ptoks[512];
    const int np = llama_tokenize(e->vocab, text, (int32_t) strlen(text), ptoks, 512, true, true);
    if (np <= 0) {
        return -1;
    }
    llama_memory_clear(llama_get_memory(e->ctx), true);
    struct llama_batch batch = llama_batch_init(np * n_samples, 0, n_samples);
    for (int s = 0; s < n_samples; s++) {
        for (int i = 0; i < np; i++) {
            const int j = batch.n_tokens++;
            batch.token[j] = ptoks[i];
            batch.pos[j] = i;
            batch.n_seq_id[j] = 1;
            batch.seq_id[j][0] = s;
            batch.logits[j] = i == np - 1;
        }
    }
    sampler_set sets[MAX_SAMPLES];
    int logit_index[MAX_SAMPLES];
    for (int s = 0; s < n_samples; s++) {
        sets[s] = make_samplers(c, temp, e->o->seed + 1000u * (uint32_t) prompt_index + (uint32_t) s);
        logit_index[s] = (s + 1) * np - 1;
    }
    int rc = 0;
    for (int t = 0; t < n && rc == 0; t++) {
        if (llama_decode(e->ctx, batch) != 0) {
            rc = -1;
            break;
        }
        llama_token next[MAX_SAMPLES];
        for (int s = 0; s < n_samples; s++) {
            const float * logits = llama_get_logits_ith(e->ctx, logit_index[s]);
            next[s] = sample_step(e, &sets[s], c, logits, m, record);
            tokens[s][t] = next[s];
        }
        batch.n_tokens = 0;
        for (int s = 0; s < n_samples; s++) {
            batch.token[s] = next[s];
            batch.pos[s] = np + t;
            batch.n_seq_id[s] = 1;
            batch.seq_id[s][0] = s;
            batch.logits[s] = 1;
            logit_index[s] = s;
            batch.n_tokens++;
        }
    }
    for (int s = 0; s < n_samples; s++) {
        if (record && sets[s].scatter) {
            struct llama_scatter_stats st;
            llama_sampler_scatter_stats(sets[s].scatter, &st);
            m->n_apply += (long) st.n_apply;
            m->n_fired += (long) st.n_fired;
            m->n_scattered += (long) st.n_scattered;
            m->strength_sum += st.strength_sum;
        }
        free_samplers(&sets[s]);
    }
    llama_batch_free(batch);
    return rc;
}

/* ------------------------------------------------------------------ diversity */

static int count_distinct(const llama_token seqs[][128], int k, int len, int n, long * total) {
    /* n-grams as tuples; k * len is small, so a quadratic scan is fine */
    int distinct = 0;
    *total = 0;
    for (int s = 0; s < k; s++) {
        for (int i = 0; i + n <= len; i++) {
            (*total)++;
            int seen = 0;
            for (int s2 = 0; s2 <= s && !seen; s2++) {
                const int lim = s2 == s ? i : len - n + 1;
                for (int j = 0; j < lim && !seen; j++) {
                    seen = !memcmp(&seqs[s][i], &seqs[s2][j], (size_t) n * sizeof(llama_token));
                }
            }
            distinct += !seen;
        }
    }
    return distinct;
}

static double repeated_4grams(const llama_token * seq, int len) {
    int rep = 0, total = 0;
    for (int i = 0; i + 4 <= len; i++) {
        total++;
        for (int j = 0; j < i; j++) {
            if (!memcmp(&seq[i], &seq[j], 4 * sizeof(llama_token))) {
                rep++;
                break;
            }
        }
    }
    return total ? (double) rep / total : 0.0;
}

/* ------------------------------------------------------------------ runs */

static int piece_text(const struct llama_vocab * vocab, const llama_token * toks, int n, char * out, int size) {
    int len = 0;
    for (int i = 0; i < n && len < size - 1; i++) {
        const int k = llama_token_to_piece(vocab, toks[i], out + len, size - 1 - len, 0, false);
        len += k > 0 ? k : 0;
    }
    out[len] = '\0';
    return len;
}

static int starts_with_answer(const char * text, const char * answer) {
    while (isspace((unsigned char) *text)) text++;
    while (isspace((unsigned char) *answer)) answer++;
    const size_t n = strlen(answer);
    return n > 0 && strncasecmp(text, answer, n) == 0;
}

static float matched_temp(const config * source) {
    const double want = source->m.entropy; /* mean, after finish() */
    const double * h = source->m.grid_entropy;
    for (int g = 1; g < N_GRID; g++) {
        if (h[g] >= want) {
            const double f = (want - h[g - 1]) / (h[g] - h[g - 1]);
            return grid_temp(g - 1) + (float) (f * 0.05);
        }
    }
    return grid_temp(N_GRID - 1);
}

static void finish(metrics * m, long n_div_prompts) {
    const double steps = m->n_steps ? (double) m->n_steps : 1.0;
    m->logprob /= steps;
    m->entropy /= steps;
    m->mass_top40 /= steps;
    m->mass_nucleus /= steps;
    m->leak_top40 /= steps;
    m->leak_nucleus /= steps;
    for (int g = 0; g < N_GRID; g++) {
        m->grid_entropy[g] /= steps;
    }
    m->distinct1 /= (double) (n_div_prompts ? n_div_prompts : 1);
    m->distinct2 /= (double) (n_div_prompts ? n_div_prompts : 1);
    m->rep4 /= (double) (m->n_continuations ? m->n_continuations : 1);
    m->factual /= (double) (m->n_factual ? m->n_factual : 1);
    m->fire_rate = m->n_apply ? (double) m->n_fired / (double) m->n_apply : 0.0;
    m->mean_strength = m->n_scattered ? m->strength_sum / (double) m->n_scattered : 0.0;
}

static llama_token g_tokens[MAX_SAMPLES][128];
static char g_greedy_answer[MAX_PROMPTS][64];

static int run_config(eval * e, config * c, const prompt * open, int n_open, const prompt * fact, int n_fact) {
    const options * o = e->o;
    const int k = c->kind == GREEDY ? 1 : o->n_samples;
    metrics * m = &c->m;
    for (int p = 0; p < n_open; p++) {
        if (generate(e, c, c->temp, open[p].text, p, k, o->n_tokens, g_tokens, m, 1) != 0) {
            return -1;
        }
        long total1, total2;
        const int d1 = count_distinct((const llama_token(*)[128]) g_tokens, k, o->n_tokens, 1, &total1);
        const int d2 = count_distinct((const llama_token(*)[128]) g_tokens, k, o->n_tokens, 2, &total2);
        m->distinct1 += (double) d1 / (double) total1;
        m->distinct2 += (double) d2 / (double) total2;
        for (int s = 0; s < k; s++) {
            m->rep4 += repeated_4grams(g_tokens[s], o->n_tokens);
            m->n_continuations++;
        }
    }
    for (int p = 0; p < n_fact; p++) {
        if (generate(e, c, c->temp, fact[p].text, 10000 + p, k, o->n_factual_tokens, g_tokens, m, 0) != 0) {
            return -1;
        }
        for (int s = 0; s < k; s++) {
            char text[512];
            piece_text(e->vocab, g_tokens[s], o->n_factual_tokens, text, sizeof text);
            if (c->kind == GREEDY && s == 0) {
                /* the reference for prompts without an answer: greedy's first word */
                const char * t = text;
                while (isspace((unsigned char) *t)) t++;
                size_t w = strcspn(t, " \t\n.,;:!?");
                w = w < sizeof g_greedy_answer[p] - 1 ? w : sizeof g_greedy_answer[p] - 1;
                memcpy(g_greedy_answer[p], t, w);
                g_greedy_answer[p][w] = '\0';
            }
            const char * ref = fact[p].answer[0] ? fact[p].answer : g_greedy_answer[p];
            m->factual += starts_with_answer(text, ref);
            m->n_factual++;
        }
    }
    finish(m, n_open);
    return 0;
}

/* s as a JSON string (control characters dropped). */
static void json_string(FILE * f, const char * s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') {
            fputc('\\', f);
        }
        if ((unsigned char) *s >= 0x20) {
            fputc(*s, f);
        }
    }
    fputc('"', f);
}

/* Top-20 probabilities at the first step of the first three open prompts,
 * for each matched configuration: the default chain at the preset's
 * temperature without scatter, with the preset, and temperature alone at
 * the matched temperature. */
static void dump_series(eval * e, FILE * f, const float * logits, const config * c, float temp, const char * name,
                        int first) {
    sampler_set s = make_samplers(c, temp, 1);
    for (int i = 0; i < e->n_vocab; i++) {
        e->cand[i] = (llama_token_data){ i, logits[i], 0.0f };
    }
    llama_token_data_array arr = { e->cand, (size_t) e->n_vocab, -1, false };
    llama_sampler_apply(s.trunc, &arr);
    llama_sampler_apply(s.shape, &arr);
    qsort(arr.data, arr.size, sizeof *arr.data, by_logit_desc);
    double z = 0.0;
    for (size_t i = 0; i < arr.size; i++) {
        z += exp(arr.data[i].logit - arr.data[0].logit);
    }
    fprintf(f, "%s\"%s\": [", first ? "" : ", ", name);
    for (size_t i = 0; i < N_DUMP && i < arr.size; i++) {
        char piece[64];
        piece_text(e->vocab, &arr.data[i].id, 1, piece, sizeof piece);
        fprintf(f, "%s[", i ? ", " : "");
        json_string(f, piece);
        fprintf(f, ", %.6f]", exp(arr.data[i].logit - arr.data[0].logit) / z);
    }
    fprintf(f, "]");
    free_samplers(&s);
}

static void dump_dists(eval * e, FILE * f, const config * configs, int n_configs, const prompt * open, int n_open) {
    fprintf(f, "[");
    int first = 1;
    for (int ci = 0; ci < n_configs; ci++) {
        const config * c = &configs[ci];
        if (c->kind != MATCHED) {
            continue;
        }
        for (int p = 0; p < n_open && p < 3; p++) {
            llama_token ptoks[512];
            const int np = llama_tokenize(e->vocab, open[p].text, (int32_t) strlen(open[p].text), ptoks, 512, true, true);
            llama_memory_clear(llama_get_memory(e->ctx), true);
            if (np <= 0 || llama_decode(e->ctx, llama_batch_get_one(ptoks, np)) != 0) {
                continue;
            }
            const float * logits = llama_get_logits_ith(e->ctx, -1);
            config base = *c, scat = *c, temp_only = *c;
            base.kind = TEMP;
            scat.kind = SCATTER;
            temp_only.kind = TEMP;
            fprintf(f, "%s\n {\"config\": \"%s\", \"preset_temp\": %.4f, \"matched_temp\": %.4f, \"prompt\": ",
                    first ? "" : ",", c->label, c->preset_temp, c->temp);
            json_string(f, open[p].text);
            fprintf(f, ", \"series\": {");
            first = 0;
            dump_series(e, f, logits, &base, c->preset_temp, "without scatter", 1);
            dump_series(e, f, logits, &scat, c->preset_temp, "scatter", 0);
            dump_series(e, f, logits, &temp_only, c->temp, "temperature, matched entropy", 0);
            fprintf(f, "}}");
        }
    }
    fprintf(f, "\n]\n");
}

static const char * KIND_NAMES[] = { "greedy",  "temperature", "temperature (no truncation)", "scatter",
                                     "matched temperature", "scatter (no truncation)" };

static void write_outputs(const options * o, const config * cs, int n) {
    printf("\n%-26s %6s %7s %7s %6s %8s %7s %8s %8s %8s %8s %7s %6s %6s\n", "config", "T", "dist-1", "dist-2",
           "rep-4", "logprob", "H", "tok>40", "tok>nuc", "mass>40", "mass>nuc", "factual", "fire", "str");
    for (int i = 0; i < n; i++) {
        const metrics * m = &cs[i].m;
        printf("%-26s %6.3f %7.3f %7.3f %6.3f %8.3f %7.3f %8.4f %8.4f %8.5f %8.5f %7.3f %6.3f %6.3f\n", cs[i].label,
               cs[i].temp, m->distinct1, m->distinct2, m->rep4, m->logprob, m->entropy, m->leak_top40,
               m->leak_nucleus, m->mass_top40, m->mass_nucleus, m->factual, m->fire_rate, m->mean_strength);
    }
    if (o->csv_path) {
        FILE * f = fopen(o->csv_path, "w");
        if (f) {
            fprintf(f, "config,kind,temperature,distinct1,distinct2,rep4,mean_logprob,entropy,tok_outside_top40,"
                       "tok_outside_nucleus,mass_outside_top40,mass_outside_nucleus,factual_accuracy,fire_rate,"
                       "mean_strength,tokens\n");
            for (int i = 0; i < n; i++) {
                const metrics * m = &cs[i].m;
                fprintf(f, "\"%s\",\"%s\",%.4f,%.5f,%.5f,%.5f,%.5f,%.5f,%.6f,%.6f,%.7f,%.7f,%.5f,%.5f,%.5f,%ld\n", cs[i].label,
                        KIND_NAMES[cs[i].kind], cs[i].temp, m->distinct1, m->distinct2, m->rep4, m->logprob,
                        m->entropy, m->leak_top40, m->leak_nucleus, m->mass_top40, m->mass_nucleus, m->factual,
                        m->fire_rate, m->mean_strength, m->n_tokens);
            }
            fclose(f);
        }
    }
    if (o->json_path) {
        FILE * f = fopen(o->json_path, "w");
        if (f) {
            fprintf(f, "{\"model\": \"%s\", \"seed\": %u, \"tokens\": %d, \"samples\": %d, \"configs\": [", o->model,
                    o->seed, o->n_tokens, o->n_samples);
            for (int i = 0; i < n; i++) {
                const metrics * m = &cs[i].m;
                fprintf(f,
                        "%s\n {\"config\": \"%s\", \"kind\": \"%s\", \"temperature\": %.4f, \"distinct1\": %.5f, "
                        "\"distinct2\": %.5f, \"rep4\": %.5f, \"mean_logprob\": %.5f, \"entropy\": %.5f, "
                        "\"tok_outside_top40\": %.6f, \"tok_outside_nucleus\": %.6f, \"mass_outside_top40\": %.7f, "
                        "\"mass_outside_nucleus\": %.7f, \"factual_accuracy\": %.5f, \"fire_rate\": %.5f, "
                        "\"mean_strength\": %.5f, \"tokens\": %ld}",
                        i ? "," : "", cs[i].label, KIND_NAMES[cs[i].kind], cs[i].temp, m->distinct1, m->distinct2,
                        m->rep4, m->logprob, m->entropy, m->leak_top40, m->leak_nucleus, m->mass_top40,
                        m->mass_nucleus, m->factual, m->fire_rate, m->mean_strength, m->n_tokens);
            }
            fprintf(f, "\n]}\n");
            fclose(f);
        }
    }
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
    static config configs[MAX_CONFIGS];
    int n_configs = 0;
    for (char * spec = strtok(o.configs, ","); spec; spec = strtok(NULL, ",")) {
        if (n_configs == MAX_CONFIGS || parse_config(spec, &configs[n_configs]) != 0) {
            fprintf(stderr, "bad or too many configurations at '%s'\n", spec);
            return 2;
        }
        n_configs++;
    }
    /* greedy runs first: it is the reference of factual prompts without an answer */
    for (int i = 1; i < n_configs; i++) {
        if (configs[i].kind == GREEDY) {
            const config g = configs[i];
            memmove(&configs[1], &configs[0], (size_t) i * sizeof *configs);
            configs[0] = g;
        }
    }

    static prompt open[MAX_PROMPTS], fact[MAX_PROMPTS];
    int n_open = read_prompts(o.open_path, open, MAX_PROMPTS);
    int n_fact = read_prompts(o.factual_path, fact, MAX_PROMPTS);
    if (n_open < 1 || n_fact < 0) {
        return 1;
    }
    n_open = n_open < o.n_prompts ? n_open : o.n_prompts;
    n_fact = n_fact < o.n_prompts ? n_fact : o.n_prompts;

    llama_log_set(quiet_log, NULL);
    llama_backend_init();
    eval e = { .o = &o };
    e.model = llama_model_load_from_file(o.model, llama_model_default_params());
    if (!e.model) {
        fprintf(stderr, "cannot load %s\n", o.model);
        return 1;
    }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t) (o.n_samples * (o.n_tokens + 160));
    cp.n_batch = cp.n_ctx;
    cp.n_seq_max = (uint32_t) o.n_samples;
    cp.n_threads = cp.n_threads_batch = o.n_threads;
    cp.no_perf = true;
    e.ctx = llama_init_from_model(e.model, cp);
    e.vocab = llama_model_get_vocab(e.model);
    e.n_vocab = llama_vocab_n_tokens(e.vocab);
    e.cand = malloc((size_t) e.n_vocab * sizeof *e.cand);
    e.sorted = malloc(2 * (size_t) e.n_vocab * sizeof *e.sorted);
    e.in_top40 = calloc((size_t) e.n_vocab, 1);
    e.in_nucleus = calloc((size_t) e.n_vocab, 1);
    e.marked = malloc((size_t) e.n_vocab * sizeof *e.marked);
    if (!e.ctx || !e.cand || !e.sorted || !e.in_top40 || !e.in_nucleus || !e.marked || o.n_tokens > 128) {
        fprintf(stderr, "setup failed (at most 128 tokens per continuation)\n");
        return 1;
    }

    fprintf(stderr, "scatter-eval: %d open and %d factual prompts, %d samples x %d tokens, %d configurations\n",
            n_open, n_fact, o.n_samples, o.n_tokens, n_configs);
    for (int i = 0; i < n_configs; i++) {
        config * c = &configs[i];
        if (c->kind == MATCHED) {
            const config * src = NULL;
            for (int j = 0; j < i; j++) {
                if (configs[j].kind == SCATTER && configs[j].preset == c->preset && configs[j].temp == c->temp) {
                    src = &configs[j];
                }
            }
            if (!src) {
                fprintf(stderr, "%s needs %s@%g earlier in the list\n", c->label, PRESET_NAMES[c->preset], c->temp);
                return 2;
            }
            config run = *c;
            run.kind = TEMP;
            run.temp = matched_temp(src);
            if (run_config(&e, &run, open, n_open, fact, n_fact) != 0) {
                return 1;
            }
            c->m = run.m;
            c->temp = run.temp;
        } else if (run_config(&e, c, open, n_open, fact, n_fact) != 0) {
            fprintf(stderr, "%s: decoding failed\n", c->label);
            return 1;
        }
        fprintf(stderr, "  %-26s done\n", c->label);
    }
    write_outputs(&o, configs, n_configs);
    if (o.dump_path) {
        FILE * f = fopen(o.dump_path, "w");
        if (f) {
            dump_dists(&e, f, configs, n_configs, open, n_open);
            fclose(f);
        }
    }

    free(e.cand);
    free(e.sorted);
    free(e.in_top40);
    free(e.in_nucleus);
    free(e.marked);
    llama_free(e.ctx);
    llama_model_free(e.model);
    llama_backend_free();
    return 0;
}
