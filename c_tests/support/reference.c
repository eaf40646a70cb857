#include "reference.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    float  logit;
    size_t pos;
    int32_t id;
} ranked;

static int by_logit_desc(const void * a, const void * b) {
    const ranked * x = a;
    const ranked * y = b;
    if (x->logit != y->logit) {
        return x->logit > y->logit ? -1 : 1;
    }
    return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

static double clamp01(double x) {
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

static double adaptive_strength(const double * p, size_t m, const struct llama_scatter_params * sp) {
    double lo = clamp01(sp->strength_min), hi = clamp01(sp->strength_max);
    if (lo > hi) {
        double t = lo;
        lo = hi;
        hi = t;
    }
    const double t = clamp01(sp->entropy_target), s = clamp01(sp->strength);
    double h = 0.0;
    for (size_t i = 0; i < m; i++) {
        if (p[i] > 0.0) {
            h -= p[i] * log(p[i]);
        }
    }
    h /= log((double) m);
    double r = h < t ? hi + (s - hi) * h / t : (h > t ? s + (lo - s) * (h - t) / (1.0 - t) : s);
    return r < lo ? lo : (r > hi ? hi : r);
}

static void normalize(double * p, size_t m) {
    double z = 0.0;
    for (size_t i = 0; i < m; i++) {
        z += p[i];
    }
    for (size_t i = 0; i < m; i++) {
        p[i] /= z;
    }
}

size_t reference_scatter(const llama_token_data * in, size_t n, const struct llama_scatter_params * sp,
                         const int32_t * history, size_t n_history, int32_t * ids, double * probs) {
    ranked * all = malloc((n ? n : 1) * sizeof *all);
    size_t n_finite = 0;
    for (size_t i = 0; i < n; i++) {
        if (isinf(in[i].logit) && in[i].logit > 0) {
            free(all);
            return 0;
        }
        if (isfinite(in[i].logit)) {
            ranked r = { in[i].logit, i, in[i].id };
            all[n_finite++] = r;
        }
    }
    qsort(all, n_finite, sizeof *all, by_logit_desc);
    const size_t m = n_finite < (size_t) sp->k ? n_finite : (size_t) sp->k;
    if (m < 2) {
        free(all);
        return 0;
    }

    double * p = malloc(m * sizeof *p);
    double * q = malloc(m * sizeof *q);
    double * next = malloc(m * sizeof *next);
    for (size_t i = 0; i < m; i++) {
        ids[i] = all[i].id;
        p[i] = exp((double) all[i].logit - (double) all[0].logit);
    }
    normalize(p, m);

    const double s = sp->adaptive ? adaptive_strength(p, m, sp) : clamp01(sp->strength);
    const double r2 = 2.0 * (double) sp->radius * (double) sp->radius;
    for (size_t i = 0; i < m; i++) {
        q[i] = p[i];
    }
    for (int32_t step = 0; step < sp->steps; step++) {
        for (size_t i = 0; i < m; i++) {
            double num = 0.0, den = 0.0;
            for (size_t j = 0; j < m; j++) {
                const double d = (double) i - (double) j;
                const double w = exp(-d * d / r2);
                num += w * q[j];
                den += w;
            }
            next[i] = num / den;
        }
        for (size_t i = 0; i < m; i++) {
            q[i] = next[i];
        }
    }
    for (size_t i = 0; i < m; i++) {
        p[i] = (1.0 - s) * p[i] + s * q[i];
    }
    normalize(p, m);

    if (sp->absorption > 0.0f && sp->absorption_last_n > 0) {
        const size_t window = (size_t) sp->absorption_last_n;
        const size_t start = n_history > window ? n_history - window : 0;
        for (size_t i = 0; i < m; i++) {
            int c = 0;
            for (size_t h = start; h < n_history; h++) {
                c += history[h] == ids[i];
            }
            p[i] *= exp(-(double) sp->absorption * c);
        }
        normalize(p, m);
        /* Stable insertion sort by probability, descending. */
        for (size_t i = 1; i < m; i++) {
            const double pv = p[i];
            const int32_t idv = ids[i];
            size_t j = i;
            for (; j > 0 && p[j - 1] < pv; j--) {
                p[j] = p[j - 1];
                ids[j] = ids[j - 1];
            }
            p[j] = pv;
            ids[j] = idv;
        }
    }
    for (size_t i = 0; i < m; i++) {
        probs[i] = p[i];
    }
    free(all);
    free(p);
    free(q);
    free(next);
    return m;
}
