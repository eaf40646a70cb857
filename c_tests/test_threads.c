/* Eight threads at once, each driving its own samplers and clones of one
 * shared template (cloned concurrently), for many applies: the results
 * equal a single-threaded run with the same seeds. Also run under
 * Helgrind in the hardening preset, which checks for data races. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"
#include "support/presets.h"
#include "support/synth.h"

enum { N_THREADS = 8, N_APPLIES = 400, N_ROW = 300 };

static struct llama_sampler * TEMPLATE;

typedef struct {
    int      index;
    uint64_t checksum;
} job;

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h;
}

/* Applies the sampler to N_APPLIES rows and folds everything it wrote
 * (size, ids, probability bits) into a checksum. */
static uint64_t drive(struct llama_sampler * s, int index, uint64_t h) {
    llama_token_data row[N_ROW];
    for (int i = 0; i < N_APPLIES; i++) {
        synth_fill(row, N_ROW, (synth_kind) (i % 3), i % 2 == 0, (uint64_t) (index * 100000 + i));
        llama_token_data_array arr = { row, N_ROW, -1, false };
        llama_sampler_apply(s, &arr);
        h = mix(h, arr.size);
        for (size_t j = 0; j < arr.size; j++) {
            uint32_t bits;
            memcpy(&bits, &arr.data[j].p, sizeof bits);
            h = mix(mix(h, (uint64_t) arr.data[j].id), bits);
        }
        llama_sampler_accept(s, arr.data[0].id);
    }
    return h;
}

static void * work(void * arg) {
    job * j = arg;
    const struct llama_scatter_params p = preset_with_seed((size_t) j->index % presets_count(), 1000u + (uint32_t) j->index);
    struct llama_sampler * own = llama_sampler_init_scatter_params(&p);
    struct llama_sampler * clone = llama_sampler_clone(TEMPLATE);
    uint64_t h = drive(own, j->index, 0);
    h = drive(clone, j->index, h);
    struct llama_sampler * clone_of_clone = llama_sampler_clone(clone);
    h = drive(clone_of_clone, j->index, h);
    llama_sampler_free(own);
    llama_sampler_free(clone);
    llama_sampler_free(clone_of_clone);
    j->checksum = h;
    return NULL;
}

int main(void) {
    struct llama_scatter_params t = llama_scatter_default_params();
    llama_scatter_preset_params("adaptive-absorb", &t);
    t.seed = 77;
    t.collision = 0.5f;
    TEMPLATE = llama_sampler_init_scatter_params(&t);
    for (int i = 0; i < 10; i++) {
        llama_sampler_accept(TEMPLATE, i);
    }

    job sequential[N_THREADS], parallel[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        sequential[i].index = parallel[i].index = i;
        work(&sequential[i]);
    }
    pthread_t threads[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        CHECK(pthread_create(&threads[i], NULL, work, &parallel[i]) == 0, "pthread_create %d", i);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(parallel[i].checksum == sequential[i].checksum, "thread %d differs from the sequential run", i);
    }
    llama_sampler_free(TEMPLATE);
    return harness_finish("test_threads");
}
