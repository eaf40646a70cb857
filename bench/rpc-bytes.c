/* LD_PRELOAD into ggml's RPC server: counts the bytes its send() and recv()
 * move (ggml-rpc's TCP transport uses only these two), into two uint64 in
 * the file named by SCATTER_RPC_BYTES (sent, received), which another
 * process reads while the server runs. bench/backend_sampling.py
 * --rpc-server uses it for the bytes the host and the device exchange per
 * token. Counts every socket of the process. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

static uint64_t * counters(void) {
    static uint64_t * mapped = NULL;
    if (mapped == NULL) {
        const char * path = getenv("SCATTER_RPC_BYTES");
        int fd = path ? open(path, O_RDWR | O_CREAT, 0644) : -1;
        if (fd < 0 || ftruncate(fd, 2 * sizeof(uint64_t)) != 0) {
            abort();
        }
        mapped = mmap(NULL, 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (mapped == MAP_FAILED) {
            abort();
        }
    }
    return mapped;
}

/* At load, so that the file holds two zeros before the first call. */
__attribute__((constructor)) static void map_counters(void) {
    counters();
}

ssize_t send(int fd, const void * buf, size_t len, int flags) {
    static ssize_t (*real)(int, const void *, size_t, int) = NULL;
    if (real == NULL) {
        *(void **) &real = dlsym(RTLD_NEXT, "send");
    }
    const ssize_t n = real(fd, buf, len, flags);
    if (n > 0) {
        __atomic_fetch_add(&counters()[0], (uint64_t) n, __ATOMIC_RELAXED);
    }
    return n;
}

ssize_t recv(int fd, void * buf, size_t len, int flags) {
    static ssize_t (*real)(int, void *, size_t, int) = NULL;
    if (real == NULL) {
        *(void **) &real = dlsym(RTLD_NEXT, "recv");
    }
    const ssize_t n = real(fd, buf, len, flags);
    if (n > 0) {
        __atomic_fetch_add(&counters()[1], (uint64_t) n, __ATOMIC_RELAXED);
    }
    return n;
}
