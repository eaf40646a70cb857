/* Force-included into llama.cpp's C sources in a MinGW-w64 build (cmake/LlamaCpp.cmake).
 * ggml-cpu.c asks Windows not to throttle its threads (Windows 11 parks cores and puts them all on a
 * few), with THREAD_POWER_THROTTLING_STATE and its macros; mingw-w64's headers have them from v11 on,
 * Debian 12's are v10. Defined here as the Windows SDK defines them, so the build keeps that call. */
#include <_mingw.h>
#if defined(__MINGW64_VERSION_MAJOR) && __MINGW64_VERSION_MAJOR < 11
#define THREAD_POWER_THROTTLING_CURRENT_VERSION 1
#define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1
typedef struct _THREAD_POWER_THROTTLING_STATE {
    unsigned long Version;
    unsigned long ControlMask;
    unsigned long StateMask;
} THREAD_POWER_THROTTLING_STATE;
#endif
