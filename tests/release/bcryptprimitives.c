/* Wine 8.0 has no bcryptprimitives.dll, whose ProcessPrng Rust's standard library calls for
 * its random numbers (every Windows 10 and later has it). This stand-in, built with MinGW
 * and put beside the test programs by scripts/release-test.sh, answers through
 * SystemFunction036 (RtlGenRandom, advapi32), which wine has. Tests only: it never ships. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
