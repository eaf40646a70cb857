// Can llama.cpp's AMX kernels run where they are built? What ggml-cpu/amx/mmq.cpp does before its
// first tile instruction, built as ggml builds it (this C++ compiler, -O3 -march=native), run by
// cmake/LlamaCpp.cmake in a child process that is allowed to die: ask Linux for the tile data
// (arch_prctl), fill a tile configuration as ggml does and load it with _tile_loadconfig, read it
// back, clear a tile. Exit 0 means yes; a compile error (the CPU does not advertise AMX), another
// exit or a signal means no. GCC 12 drops the stores that fill the configuration (DESIGN.md, "AMX").
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

// ggml's layout and initialisation (ggml-cpu/amx/mmq.cpp, tile_config_t).
struct tile_config_t {
    uint8_t palette_id = 0;
    uint8_t start_row = 0;
    uint8_t reserved_0[14] = {0};
    uint16_t colsb[16] = {0};
    uint8_t rows[16] = {0};
};

static void say(const char *what) {
    puts(what);
    fflush(stdout);
}

__attribute__((noinline)) static void load_config() {
    alignas(64) tile_config_t tc = {};
    tc.palette_id = 1;
    for (int i = 0; i < 8; i++) {
        tc.rows[i] = i < 2 ? 8 : 16;
        tc.colsb[i] = i == 2 || i == 3 ? 32 : 64;
    }
    _tile_loadconfig(&tc);
}

int main() {
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0) {
        say("Linux refuses the tile data (arch_prctl)");
        return 1;
    }
    say("tile data permitted; loading ggml's tile configuration");
    load_config();
    alignas(64) tile_config_t back;
    _tile_storeconfig(&back);
    if (back.palette_id != 1 || back.rows[4] != 16 || back.colsb[4] != 64) {
        say("the tile configuration loaded is not the one written");
        return 2;
    }
    _tile_zero(4);
    _tile_release();
    say("tile configuration loaded, a tile cleared");
    return 0;
}
