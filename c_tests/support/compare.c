#include "compare.h"

#include <math.h>
#include <stdlib.h>

#include "harness.h"

/* An output's finite candidates by logit descending. */
struct output {
    llama_token_data * data;
    size_t n;
};

static int by_logit_desc(const void * a, const void * b) {
    const float x = ((const llama_token_data *) a)->logit;
    const float y = ((const llama_token_data *) b)->logit;
    return (x < y) - (x > y);
}

static int by_id(const void * a, const void * b) {
    const llama_token x = ((const llama_token_data *) a)->id;
    const llama_token y = ((const llama_token_data *) b)->id;
    return (x > y) - (x < y);
}

static int by_float(const void * a, const void * b) {
    const float x = *(const float *) a;
    const float y = *(const float *) b;
    return (x > y) - (x < y);
}

static struct output finite_sorted(const llama_token * ids, const float * logits, size_t n) {
    struct output o = { malloc((n ? n : 1) * sizeof(llama_token_data)), 0 };
    for (size_t i = 0; i < n; i++) {
        if (isfinite(logits[i])) {
            o.data[o.n++] = (llama_token_data) { ids ? ids[i] : (llama_token) i, logits[i], 0.0f };
        }
    }
    qsort(o.data, o.n, sizeof o.data[0], by_logit_desc);
    return o;
}

/* The softmax of the logits in f64. */
static void softmax(const struct output * o, double * p) {
    double total = 0.0;
    for (size_t i = 0; i < o->n; i++) {
        p[i] = exp((double) o->data[i].logit - (double) o->data[0].logit);
        total += p[i];
    }
    for (size_t i = 0; i < o->n; i++) {
        p[i] /= total;
    }
}

/* The input logits of an output's tokens, ascending. */
static float * raw_of(const struct output * o, const float * raw) {
    float * r = malloc((o->n ? o->n : 1) * sizeof(float));
    for (size_t i = 0; i < o->n; i++) {
        r[i] = raw[o->data[i].id];
    }
    qsort(r, o->n, sizeof r[0], by_float);
    return r;
}

static void check_same_tokens(const char * label, int step, struct output * device, struct output * cpu,
                              const float * raw, bool exact_ids) {
    float * raw_device = raw_of(device, raw);
    float * raw_cpu = raw_of(cpu, raw);
    bool same_raw = true;
    for (size_t i = 0; i < cpu->n; i++) {
        same_raw = same_raw && raw_device[i] == raw_cpu[i];
    }
    CHECK(same_raw, "%s step %d: the medium's input logits differ from the CPU's", label, step);
    free(raw_device);
    free(raw_cpu);
    if (exact_ids) {
        qsort(device->data, device->n, sizeof device->data[0], by_id);
        qsort(cpu->data, cpu->n, sizeof cpu->data[0], by_id);
        bool same_ids = true;
        for (size_t i = 0; i < cpu->n; i++) {
            same_ids = same_ids && device->data[i].id == cpu->data[i].id;
        }
        CHECK(same_ids, "%s step %d: the medium's tokens differ from the CPU's", label, step);
    }
}

/* The ranking of the input kept: along the input logits, the device's
 * logits never increase (tied input logits may take either order). */
static void check_ranking(const char * label, int step, const struct output * device, const float * raw) {
    llama_token_data * by_raw = malloc((device->n ? device->n : 1) * sizeof(llama_token_data));
    for (size_t i = 0; i < device->n; i++) {
        by_raw[i] = (llama_token_data) { device->data[i].id, raw[device->data[i].id], device->data[i].logit };
    }
    qsort(by_raw, device->n, sizeof by_raw[0], by_logit_desc);
    bool kept = true;
    for (size_t i = 1; i < device->n; i++) {
        kept = kept && (by_raw[i].p <= by_raw[i - 1].p || by_raw[i].logit == by_raw[i - 1].logit);
    }
    CHECK(kept, "%s step %d: a rank rose above a better one", label, step);
    free(by_raw);
}

double compare_backend_output(const char * label, int step, const float * logits, const llama_token * ids, size_t n,
                              const llama_token_data_array * cpu_array, const float * raw, bool exact_ids) {
    llama_token * cpu_ids = malloc((cpu_array->size ? cpu_array->size : 1) * sizeof(llama_token));
    float * cpu_logits = malloc((cpu_array->size ? cpu_array->size : 1) * sizeof(float));
    for (size_t i = 0; i < cpu_array->size; i++) {
        cpu_ids[i] = cpu_array->data[i].id;
        cpu_logits[i] = cpu_array->data[i].logit;
    }
    struct output cpu = finite_sorted(cpu_ids, cpu_logits, cpu_array->size);
    struct output device = finite_sorted(ids, logits, n);
    double worst = INFINITY;
    CHECK(device.n == cpu.n, "%s step %d: %zu candidates on the device, %zu on the CPU", label, step, device.n,
          cpu.n);
    if (device.n == cpu.n) {
        worst = 0.0;
        double * p_cpu = malloc((cpu.n ? cpu.n : 1) * sizeof(double));
        double * p_device = malloc((cpu.n ? cpu.n : 1) * sizeof(double));
        softmax(&cpu, p_cpu);
        softmax(&device, p_device);
        for (size_t i = 0; i < cpu.n; i++) {
            worst = fmax(worst, fabs(p_cpu[i] - p_device[i]));
        }
        free(p_cpu);
        free(p_device);
        check_ranking(label, step, &device, raw);
        check_same_tokens(label, step, &device, &cpu, raw, exact_ids);
    }
    free(device.data);
    free(cpu.data);
    free(cpu_logits);
    free(cpu_ids);
    return worst;
}
