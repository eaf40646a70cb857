/* NULL arguments reaching our callbacks are noops, never crashes: a NULL
 * candidate array, NULL data, and a sampler shell without a context. */
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"

int main(void) {
    struct llama_sampler * s = llama_sampler_init_scatter(64, 0.3f, 2.5f, 1);

    llama_token_data_array empty = { NULL, 0, -1, false };
    llama_sampler_apply(s, &empty);
    CHECK(empty.data == NULL && empty.size == 0 && empty.selected == -1 && !empty.sorted, "empty array changed");

    llama_token_data_array no_data = { NULL, 5, 3, false };
    llama_sampler_apply(s, &no_data);
    CHECK(no_data.data == NULL && no_data.size == 5 && no_data.selected == 3 && !no_data.sorted,
          "NULL data with size 5 must be left alone");

    s->iface->apply(s, NULL);
    harness_passed++; /* reaching this line is the check */

    /* A shell with our iface but no context behaves as a noop sampler. */
    struct llama_sampler shell = { s->iface, NULL };
    CHECK(strcmp(s->iface->name(&shell), "?scatter") == 0, "context-less name %s", s->iface->name(&shell));
    llama_token_data d[2] = { { 0, 1.0f, 0.0f }, { 1, 0.0f, 0.0f } };
    llama_token_data_array arr = { d, 2, -1, false };
    s->iface->apply(&shell, &arr);
    s->iface->accept(&shell, 1);
    s->iface->reset(&shell);
    CHECK(arr.size == 2 && !arr.sorted && d[0].p == 0.0f, "context-less apply changed the array");
    CHECK(s->iface->clone(&shell) == NULL, "context-less clone must return NULL");
    s->iface->free(&shell);
    CHECK(shell.ctx == NULL, "context-less free changed the shell");

    /* NULL sampler pointers passed to our callbacks. */
    CHECK(strcmp(s->iface->name(NULL), "?scatter") == 0, "NULL sampler name");
    s->iface->apply(NULL, &arr);
    s->iface->accept(NULL, 0);
    s->iface->reset(NULL);
    CHECK(s->iface->clone(NULL) == NULL, "NULL sampler clone must return NULL");
    s->iface->free(NULL);

    llama_sampler_free(s);
    return harness_finish("test_null");
}
