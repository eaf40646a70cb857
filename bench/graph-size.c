/* How many nodes (operations) one apply adds to llama.cpp's sampling graph under backend
 * sampling, for llama.cpp's samplers and scatter's presets, in the chain where each runs:
 * `top_k 40 -> scatter -> temp 0.8 -> dist` on a 262,144-logit row, and scatter first on the
 * whole row. On a GPU each node that
 * computes is a kernel launch, which is what a sampler costs there. A benchmark: it reports,
 * it checks nothing (BENCHMARKS.md, "Backend sampling").
 *
 *     build/bench/scatter-graph-size */
#include <stdio.h>
#include <string.h>

#include "ggml-backend.h"
#include "ggml.h"
#include "llama-scatter.h"
#include "llama.h"

enum { VOCABULARY = 262144, MAX_NODES = 4096 };

/* Nodes that move no data (views, reshapes) are not kernels. */
static bool computes(const struct ggml_tensor * node) {
    switch (node->op) {
        case GGML_OP_NONE:
        case GGML_OP_VIEW:
        case GGML_OP_RESHAPE:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return false;
        default:
            return true;
    }
}

/* Runs `chain` (NULL-terminated) through backend_init and backend_apply on one row and prints,
 * for each sampler, the nodes and kernels its apply added. */
static void measure(const char * label, struct llama_sampler ** chain) {
    struct ggml_init_params ip = {
        MAX_NODES * ggml_tensor_overhead() + ggml_graph_overhead_custom(MAX_NODES, false), NULL, true };
    struct ggml_context * ctx = ggml_init(ip);
    struct ggml_cgraph * gf = ggml_new_graph_custom(ctx, MAX_NODES, false);
    struct llama_sampler_data data = { ggml_new_tensor_1d(ctx, GGML_TYPE_F32, VOCABULARY), NULL, NULL, NULL };
    int before = 0, kernels_before = 0;
    printf("%s\n", label);
    for (struct llama_sampler ** s = chain; *s; s++) {
        struct llama_sampler * smpl = *s;
        if (!smpl->iface->backend_init || !smpl->iface->backend_init(smpl, ggml_backend_cpu_buffer_type(), 1)) {
            printf("  %-12s not on the backend\n", llama_sampler_name(smpl));
            break;
        }
        if (smpl->iface->backend_apply) {
            smpl->iface->backend_apply(smpl, ctx, gf, &data);
        }
        struct ggml_tensor * outputs[] = { data.logits, data.probs, data.sampled, data.candidates };
        for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
            if (outputs[i]) {
                ggml_build_forward_expand(gf, outputs[i]);
            }
        }
        const int n = ggml_graph_n_nodes(gf);
        int kernels = 0;
        for (int i = 0; i < n; i++) {
            kernels += computes(ggml_graph_node(gf, i));
        }
        printf("  %-12s %4d nodes, %4d kernels\n", llama_sampler_name(smpl), n - before, kernels - kernels_before);
        before = n;
        kernels_before = kernels;
    }
    ggml_free(ctx);
    for (struct llama_sampler ** s = chain; *s; s++) {
        llama_sampler_free(*s);
    }
}

int main(void) {
    llama_backend_init();
    struct llama_sampler * plain[] = {
        llama_sampler_init_top_k(40), llama_sampler_init_temp(0.8f), llama_sampler_init_dist(1), NULL };
    measure("llama.cpp's samplers: top_k 40 -> temp 0.8 -> dist", plain);
    for (size_t i = 0; llama_scatter_preset_name(i); i++) {
        struct llama_scatter_params p;
        llama_scatter_preset_params(llama_scatter_preset_name(i), &p);
        p.seed = 1;
        struct llama_sampler * chain[] = {
            llama_sampler_init_top_k(40), llama_sampler_init_scatter_params(&p), llama_sampler_init_temp(0.8f),
            llama_sampler_init_dist(1), NULL };
        char label[96];
        snprintf(label, sizeof label, "top_k 40 -> scatter %s -> temp 0.8 -> dist", llama_scatter_preset_name(i));
        measure(label, chain);
    }
    /* Scatter first: the whole row, cut with ggml_top_k inside its graph. */
    struct llama_scatter_params creative;
    llama_scatter_preset_params("creative", &creative);
    creative.seed = 1;
    struct llama_sampler * first[] = {
        llama_sampler_init_scatter_params(&creative), llama_sampler_init_temp(0.8f), llama_sampler_init_dist(1), NULL };
    measure("scatter creative -> temp 0.8 -> dist (the whole row)", first);
    llama_backend_free();
    return 0;
}
