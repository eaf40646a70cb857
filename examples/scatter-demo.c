/* scatter-demo: generate text with a GGUF model through the chain
 *   top_k 40 -> top_p 0.95 -> min_p 0.05 -> scatter ("creative") -> temp 0.8 -> dist
 * and show, for the first steps, the medium's top probabilities before and
 * after scatter.
 *
 * usage: scatter-demo -m MODEL.gguf [-p PROMPT] [-n TOKENS] [-s SEED] [-t THREADS] [--show STEPS]
 *                     [--preset NAME] [--ids] [-v]
 *
 * -s seeds the draw and scatter's collision gate; -t sets llama.cpp's
 * threads (default: llama.cpp's); --preset takes another of
 * scatter's presets; --ids prints only the token ids, one a line: what the
 * Rust crate's example prints with the same flag, for the check that both
 * give the same tokens (scripts/check-rust-crate.sh). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"

enum { SCATTER_INDEX = 3, TOP_SHOWN = 6 };

typedef struct {
    const char * model;
    const char * prompt;
    int          n_predict;
    uint32_t     seed;
    int          threads;
    int          show;
    const char * preset;
    int          ids;
    int          verbose;
} options;

static void quiet_log(enum ggml_log_level level, const char * text, void * user) {
    (void) user;
    if (level == GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

static int parse(int argc, char ** argv, options * o) {
    o->model = NULL;
    o->prompt = "Once upon a time, in a village by the sea,";
    o->n_predict = 64;
    o->seed = 42;
    o->threads = 0;
    o->show = 3;
    o->preset = "creative";
    o->ids = 0;
    o->verbose = 0;
    for (int i = 1; i < argc; i++) {
        const char * a = argv[i];
        const int has_value = i + 1 < argc;
        if (strcmp(a, "-m") == 0 && has_value) {
            o->model = argv[++i];
        } else if (strcmp(a, "-p") == 0 && has_value) {
            o->prompt = argv[++i];
        } else if (strcmp(a, "-n") == 0 && has_value) {
            o->n_predict = atoi(argv[++i]);
        } else if (strcmp(a, "-s") == 0 && has_value) {
            o->seed = (uint32_t) strtoul(argv[++i], NULL, 10);
        } else if (strcmp(a, "-t") == 0 && has_value) {
            o->threads = atoi(argv[++i]);
        } else if (strcmp(a, "--show") == 0 && has_value) {
            o->show = atoi(argv[++i]);
        } else if (strcmp(a, "--preset") == 0 && has_value) {
            o->preset = argv[++i];
        } else if (strcmp(a, "--ids") == 0) {
            o->ids = 1;
        } else if (strcmp(a, "-v") == 0) {
            o->verbose = 1;
        } else {
            return 0;
        }
    }
    return o->model != NULL && o->n_predict > 0;
}

static const char * piece(const struct llama_vocab * vocab, llama_token t, char * buf, int size) {
    const int n = llama_token_to_piece(vocab, t, buf, size - 1, 0, true);
    buf[n > 0 ? n : 0] = '\0';
    for (char * c = buf; *c; c++) {
        if (*c == '\n') {
            *c = ' ';
        }
    }
    return buf;
}

static int by_p_desc(const void * a, const void * b) {
    const float x = ((const llama_token_data *) a)->p, y = ((const llama_token_data *) b)->p;
    return (x < y) - (x > y);
}

/* Top probabilities of the survivors, softmaxed over the survivors. */
static void top_before(const llama_token_data_array * arr, llama_token_data * out, size_t * n_out) {
    float max = -INFINITY;
    for (size_t i = 0; i < arr->size; i++) {
        max = arr->data[i].logit > max ? arr->data[i].logit : max;
    }
    double z = 0.0;
    for (size_t i = 0; i < arr->size; i++) {
        z += exp((double) arr->data[i].logit - max);
    }
    for (size_t i = 0; i < arr->size; i++) {
        out[i] = arr->data[i];
        out[i].p = (float) (exp((double) arr->data[i].logit - max) / z);
    }
    qsort(out, arr->size, sizeof *out, by_p_desc);
    *n_out = arr->size;
}

static void print_comparison(const struct llama_vocab * vocab, int step, const llama_token_data * before,
                             size_t n_before, const llama_token_data_array * after) {
    char buf[64];
    printf("\n  step %d: %zu candidates after min_p, %zu after scatter\n", step, n_before, after->size);
    printf("    %-18s %9s %9s\n", "token", "before", "after");
    for (size_t i = 0; i < TOP_SHOWN && i < n_before; i++) {
        float p_after = 0.0f;
        for (size_t j = 0; j < after->size; j++) {
            if (after->data[j].id == before[i].id) {
                p_after = after->data[j].p;
            }
        }
        printf("    %-18s %9.4f %9.4f\n", piece(vocab, before[i].id, buf, sizeof buf), (double) before[i].p,
               (double) p_after);
    }
}

int main(int argc, char ** argv) {
    options o;
    if (!parse(argc, argv, &o)) {
        fprintf(stderr,
                "usage: %s -m MODEL.gguf [-p PROMPT] [-n TOKENS] [-s SEED] [-t THREADS] [--show STEPS] [--preset NAME] [--ids] "
                "[-v]\n",
                argv[0]);
        return 2;
    }
    struct llama_scatter_params scatter;
    if (!llama_scatter_preset_params(o.preset, &scatter)) {
        fprintf(stderr, "error: no preset named %s\n", o.preset);
        return 2;
    }
    scatter.seed = o.seed;
    if (o.ids) {
        o.show = 0;
    }
    if (!o.verbose) {
        llama_log_set(quiet_log, NULL);
    }
    llama_backend_init();

    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model * model = llama_model_load_from_file(o.model, mp);
    if (!model) {
        fprintf(stderr, "error: could not load %s\n", o.model);
        return 1;
    }
    const struct llama_vocab * vocab = llama_model_get_vocab(model);
    const int n_vocab = llama_vocab_n_tokens(vocab);

    const int n_prompt = -llama_tokenize(vocab, o.prompt, (int32_t) strlen(o.prompt), NULL, 0, true, true);
    llama_token * tokens = malloc((size_t) n_prompt * sizeof *tokens);
    llama_tokenize(vocab, o.prompt, (int32_t) strlen(o.prompt), tokens, n_prompt, true, true);

    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t) (n_prompt + o.n_predict + 8);
    cp.n_batch = (uint32_t) n_prompt;
    cp.no_perf = false;
    if (o.threads > 0) {
        cp.n_threads = o.threads;
        cp.n_threads_batch = o.threads;
    }
    struct llama_context * ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "error: could not create a context\n");
        return 1;
    }

    struct llama_sampler_chain_params sp = llama_sampler_chain_default_params();
    sp.no_perf = false;
    struct llama_sampler * chain = llama_sampler_chain_init(sp);
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(40));
    llama_sampler_chain_add(chain, llama_sampler_init_top_p(0.95f, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_min_p(0.05f, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_scatter_params(&scatter));
    llama_sampler_chain_add(chain, llama_sampler_init_temp(0.8f));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(o.seed));

    /* With --ids, stdout has the ids alone. */
    FILE * info = o.ids ? stderr : stdout;
    fprintf(info, "model: %s (vocabulary %d)\nchain:", o.model, n_vocab);
    for (int i = 0; i < llama_sampler_chain_n(chain); i++) {
        fprintf(info, " %s%s", i ? "-> " : "", llama_sampler_name(llama_sampler_chain_get(chain, i)));
    }
    fprintf(info, "\nscatter: %s\nseed: %u\n", o.preset, o.seed);

    llama_token_data * cand = malloc((size_t) n_vocab * sizeof *cand);
    llama_token_data * before = malloc((size_t) n_vocab * sizeof *before);
    char * text = calloc((size_t) o.n_predict * 64 + 1, 1);
    char buf[256];

    struct llama_batch batch = llama_batch_get_one(tokens, n_prompt);
    llama_token next = 0;
    for (int step = 0; step < o.n_predict; step++) {
        if (llama_decode(ctx, batch) != 0) {
            fprintf(stderr, "error: llama_decode failed\n");
            return 1;
        }
        const float * logits = llama_get_logits_ith(ctx, -1);
        for (int i = 0; i < n_vocab; i++) {
            cand[i].id = i;
            cand[i].logit = logits[i];
            cand[i].p = 0.0f;
        }
        llama_token_data_array arr = { cand, (size_t) n_vocab, -1, false };
        if (step < o.show) {
            /* Apply the chain's samplers one at a time to look inside it. */
            size_t n_before = 0;
            for (int i = 0; i < llama_sampler_chain_n(chain); i++) {
                if (i == SCATTER_INDEX) {
                    top_before(&arr, before, &n_before);
                }
                llama_sampler_apply(llama_sampler_chain_get(chain, i), &arr);
                if (i == SCATTER_INDEX) {
                    print_comparison(vocab, step, before, n_before, &arr);
                }
            }
        } else {
            llama_sampler_apply(chain, &arr);
        }
        next = arr.data[arr.selected].id;
        llama_sampler_accept(chain, next);
        if (o.ids) {
            printf("%d\n", next);
        }
        if (llama_vocab_is_eog(vocab, next)) {
            break;
        }
        strcat(text, piece(vocab, next, buf, sizeof buf));
        batch = llama_batch_get_one(&next, 1);
    }

    fprintf(info, "\n--- prompt ---\n%s\n--- continuation ---\n%s\n", o.prompt, text);
    const struct llama_perf_sampler_data perf = llama_perf_sampler(chain);
    /* The chain times only its own applies: the first --show steps went
     * sampler by sampler and are not in t_sample_ms. */
    const int timed = perf.n_sample - (o.show < perf.n_sample ? o.show : perf.n_sample);
    fprintf(info, "--- sampling (llama_perf_sampler): %.3f ms per token over %d timed tokens ---\n",
           timed > 0 ? perf.t_sample_ms / timed : 0.0, timed);

    free(text);
    free(before);
    free(cand);
    free(tokens);
    llama_sampler_free(chain);
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
