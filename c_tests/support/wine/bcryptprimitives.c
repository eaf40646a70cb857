/* A test fixture, never shipped: Rust's standard library (so llama_scatter.dll) imports ProcessPrng
 * from bcryptprimitives.dll, which Windows 10 and later have and Wine 8 lacks. This DLL, on the tests'
 * WINEPATH only (scripts/wine-run.sh), gives it through RtlGenRandom (advapi32's SystemFunction036). */
#include <windows.h>
#include <ntsecapi.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
    while (size > 0) {
        ULONG chunk = size > 0x40000000 ? 0x40000000 : (ULONG) size;
        if (!RtlGenRandom(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        size -= chunk;
    }
    return TRUE;
}
