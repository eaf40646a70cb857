/* Scatter's backend-sampling graph on a ggml device, with no model: the
 * hooks llama.cpp calls (backend_init, backend_apply, backend_set_input)
 * driven directly on synthetic logit rows, each graph computed on the device
 * (support/device.h: the CPU backend unless the environment names an RPC
 * server or a device such as Vulkan0) and compared step by step with the
 * CPU apply of a second sampler of the same parameters and seed: the same
 * candidates, each probability within BACKEND_TOLERANCE, the input ranking
 * kept, and the same collision-gate decision at every step. It needs only
 * the kernels of scatter's own graph, so on a device that compiles its
 * kernels on first use (lavapipe) it costs seconds.
 *
 * Rows: what a backend `top_k` leaves (a short row with candidate ids in no
 * order: sorted whole by the graph), with ties, with `-inf` (what backend
 * `top_p`/`min_p` write), longer rows up to the sort-whole limit, rows
 * shorter than k or with fewer than two finite logits (left as they are),
 * and the whole vocabulary (no candidates: the graph's `top_k` path), also
 * with `-inf`. Parameters: every preset without absorption (absorption
 * never runs on a device), k 16, steps 3 with radius 6, and the adaptive
 * curve with one piece, with its strength outside [min, max] and with
 * several passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "llama-scatter.h"
#include "support/compare.h"
#include "support/device.h"
#include "support/harness.h"
#include "support/presets.h"
#include "support/synth.h"

enum { STEPS = 6, VOCABULARY = 262144, MAX_NODES = 1024 };

/* Steps of a gated parameter set on which the gate fired, and declined:
 * the suite must see both. */
static int gate_fired = 0;
static int gate_declined = 0;

struct device {
    ggml_backend_t backend;
    ggml_backend_buffer_type_t buft;
};

struct row_case {
    const char * label;
    size_t n;
    synth_kind kind;
    bool candidates; /* a row an earlier sampler shrank: ids beside the logits */
    size_t n_finite; /* 0: as synth_fill makes it; else only the first n_finite are finite */
};

static const struct row_case ROWS[] = {
    { "40 candidates", 40, SYNTH_ZIPF, true, 0 },
    { "40 candidates with ties", 40, SYNTH_TIES, true, 0 },
    { "40 candidates with -inf", 40, SYNTH_NONFINITE, true, 0 },
    { "256 candidates", 256, SYNTH_ZIPF, true, 0 },
    { "10 candidates", 10, SYNTH_ZIPF, true, 0 },
    { "2 candidates", 2, SYNTH_ZIPF, true, 0 },
    { "40 candidates, one finite", 40, SYNTH_ZIPF, true, 1 },
    { "the whole vocabulary", VOCABULARY, SYNTH_ZIPF, false, 0 },
    { "the whole vocabulary with -inf", VOCABULARY, SYNTH_NONFINITE, false, 0 },
};

/* Row `step` of a case, in the order the device gets it. A model's logits
 * are never NaN, so where synth_fill sprinkles NaN the row has -inf (the
 * masks of backend samplers). A whole row is in token order, as a model's
 * output row is. */
static void make_row(const struct row_case * c, int step, llama_token_data * row) {
    synth_fill(row, c->n, c->kind, false, 1000u * (uint64_t) step + c->n);
    for (size_t i = 0; i < c->n; i++) {
        if (isnan(row[i].logit) || (c->n_finite > 0 && i >= c->n_finite)) {
            row[i].logit = -INFINITY;
        }
    }
    if (!c->candidates) {
        llama_token_data * shuffled = malloc(c->n * sizeof(llama_token_data));
        memcpy(shuffled, row, c->n * sizeof(llama_token_data));
        for (size_t i = 0; i < c->n; i++) {
            row[shuffled[i].id] = shuffled[i];
        }
        free(shuffled);
    }
}

struct device_output {
    float * logits;
    llama_token * ids; /* NULL: the positions are the ids */
    size_t n;
};

/* One apply of `smpl` on `row` as llama.cpp runs it: a fresh graph with the
 * row as its input, built by backend_apply, allocated on the device, its
 * inputs set (backend_set_input draws the gate), computed, read back. */
static struct device_output apply_on_device(const struct device * dev, struct llama_sampler * smpl,
                                            const llama_token_data * row, size_t n, bool candidates) {
    struct device_output out = { NULL, NULL, 0 };
    const struct ggml_init_params params = {
        MAX_NODES * ggml_tensor_overhead() + ggml_graph_overhead_custom(MAX_NODES, false), NULL, true
    };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, MAX_NODES, false);
    struct ggml_tensor * logits = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, (int64_t) n);
    struct ggml_tensor * ids = candidates ? ggml_new_tensor_1d(ctx, GGML_TYPE_I32, (int64_t) n) : NULL;
    ggml_set_input(logits);
    if (ids) {
        ggml_set_input(ids);
    }
    struct llama_sampler_data data = { logits, NULL, NULL, ids };
    if (smpl->iface->backend_reset) {
        smpl->iface->backend_reset(smpl);
    }
    smpl->iface->backend_apply(smpl, ctx, gf, &data);
    ggml_set_output(data.logits);
    ggml_build_forward_expand(gf, data.logits);
    if (data.candidates) {
        ggml_set_output(data.candidates);
        ggml_build_forward_expand(gf, data.candidates);
    }
    ggml_gallocr_t alloc = ggml_gallocr_new(dev->buft);
    const bool allocated = ggml_gallocr_alloc_graph(alloc, gf);
    CHECK(allocated, "the graph could not be allocated on the device");
    if (allocated) {
        float * values = malloc(n * sizeof(float));
        llama_token * tokens = malloc(n * sizeof(llama_token));
        for (size_t i = 0; i < n; i++) {
            values[i] = row[i].logit;
            tokens[i] = row[i].id;
        }
        ggml_backend_tensor_set(logits, values, 0, n * sizeof(float));
        if (ids) {
            ggml_backend_tensor_set(ids, tokens, 0, n * sizeof(llama_token));
        }
        smpl->iface->backend_set_input(smpl);
        const enum ggml_status status = ggml_backend_graph_compute(dev->backend, gf);
        CHECK(status == GGML_STATUS_SUCCESS, "the device failed to compute the graph (status %d)", (int) status);
        out.n = (size_t) ggml_nelements(data.logits);
        out.logits = malloc(out.n * sizeof(float));
        ggml_backend_tensor_get(data.logits, out.logits, 0, out.n * sizeof(float));
        if (data.candidates) {
            out.ids = malloc(out.n * sizeof(llama_token));
            ggml_backend_tensor_get(data.candidates, out.ids, 0, out.n * sizeof(llama_token));
        }
        free(values);
        free(tokens);
    }
    ggml_gallocr_free(alloc);
    ggml_free(ctx);
    return out;
}

/* STEPS applies of one parameter set on rows of one case, on the device
 * and on the CPU, compared step by step. */
static void compare_case(const struct device * dev, const struct llama_scatter_params * p, const char * name,
                         const struct row_case * c) {
    char label[160];
    snprintf(label, sizeof label, "%s on %s", name, c->label);
    struct llama_sampler * on_device = llama_sampler_init_scatter_params(p);
    struct llama_sampler * on_cpu = llama_sampler_init_scatter_params(p);
    const bool runs = on_device->iface->backend_init != NULL &&
                      on_device->iface->backend_init(on_device, dev->buft, 1);
    CHECK(runs && strcmp(llama_sampler_name(on_device), "+scatter") == 0, "%s: backend_init refused (%s)", label,
          llama_sampler_name(on_device));
    llama_token_data * row = malloc(c->n * sizeof(llama_token_data));
    llama_token_data * cpu_row = malloc(c->n * sizeof(llama_token_data));
    float * raw = malloc(c->n * sizeof(float));
    double worst = 0.0;
    uint64_t fired_before = 0;
    for (int step = 0; runs && step < STEPS; step++) {
        make_row(c, step, row);
        for (size_t i = 0; i < c->n; i++) {
            raw[row[i].id] = row[i].logit;
        }
        struct device_output out = apply_on_device(dev, on_device, row, c->n, c->candidates);
        memcpy(cpu_row, row, c->n * sizeof(llama_token_data));
        llama_token_data_array arr = { cpu_row, c->n, -1, false };
        llama_sampler_apply(on_cpu, &arr);
        if (out.logits) {
            worst = fmax(worst, compare_backend_output(label, step, out.logits, out.ids, out.n, &arr, raw,
                                                       c->kind != SYNTH_TIES));
        }
        struct llama_scatter_stats d;
        struct llama_scatter_stats h;
        llama_sampler_scatter_stats(on_device, &d);
        llama_sampler_scatter_stats(on_cpu, &h);
        if (p->collision < 1.0f) {
            const bool fired = d.n_fired > fired_before;
            gate_fired += fired;
            gate_declined += !fired;
            fired_before = d.n_fired;
        }
        CHECK(d.n_apply == h.n_apply && d.n_fired == h.n_fired,
              "%s step %d: the device counted %llu applies (%llu fired), the CPU %llu (%llu)", label, step,
              (unsigned long long) d.n_apply, (unsigned long long) d.n_fired, (unsigned long long) h.n_apply,
              (unsigned long long) h.n_fired);
        free(out.logits);
        free(out.ids);
    }
    CHECK(worst <= BACKEND_TOLERANCE, "%s: a probability differs by %.3g between device and CPU", label, worst);
    printf("%-60s largest difference of a probability %.3g\n", label, worst);
    free(row);
    free(cpu_row);
    free(raw);
    llama_sampler_free(on_device);
    llama_sampler_free(on_cpu);
}

static void compare_params(const struct device * dev, const struct llama_scatter_params * p, const char * name) {
    for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
        compare_case(dev, p, name, &ROWS[i]);
    }
}

int main(void) {
    ggml_backend_dev_t device = test_device();
    if (!device) {
        device = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    }
    CHECK(device != NULL, "no device");
    if (!device) {
        return harness_finish("test_backend_graph");
    }
    struct device dev = { ggml_backend_dev_init(device, NULL), ggml_backend_dev_buffer_type(device) };
    CHECK(dev.backend != NULL, "device %s did not start", ggml_backend_dev_name(device));
    if (!dev.backend) {
        return harness_finish("test_backend_graph");
    }
    printf("device %s (%s)\n", ggml_backend_dev_name(device), ggml_backend_dev_description(device));

    struct llama_scatter_params creative = llama_scatter_default_params();
    struct llama_scatter_params adaptive = llama_scatter_default_params();
    for (size_t i = 0; i < presets_count(); i++) {
        const struct llama_scatter_params p = preset_with_seed(i, 7);
        if (p.absorption <= 0.0f) {
            compare_params(&dev, &p, llama_scatter_preset_name(i));
        }
        if (strcmp(llama_scatter_preset_name(i), "creative") == 0) {
            creative = p;
        }
        if (strcmp(llama_scatter_preset_name(i), "adaptive") == 0) {
            adaptive = p;
        }
    }
    /* The adaptive curve's other shapes: one piece (target 0, target 1), and
     * a strength outside [min, max] (the clamp). */
    adaptive.entropy_target = 0.0f;
    compare_params(&dev, &adaptive, "adaptive, target 0");
    adaptive.entropy_target = 1.0f;
    compare_params(&dev, &adaptive, "adaptive, target 1");
    adaptive.entropy_target = 0.55f;
    adaptive.strength = 0.5f;
    compare_params(&dev, &adaptive, "adaptive, strength above max");
    adaptive.steps = 3;
    compare_params(&dev, &adaptive, "adaptive, strength above max, steps 3");
    creative.k = 16;
    compare_params(&dev, &creative, "creative, k 16");
    creative.k = 64;
    creative.steps = 3;
    creative.radius = 6.0f;
    compare_params(&dev, &creative, "creative, steps 3, radius 6");

    CHECK(gate_fired > 0 && gate_declined > 0, "the gate fired on %d steps and declined on %d: both must be compared",
          gate_fired, gate_declined);
    printf("the gate fired on %d steps and declined on %d\n", gate_fired, gate_declined);

    ggml_backend_free(dev.backend);
    return harness_finish("test_backend_graph");
}
