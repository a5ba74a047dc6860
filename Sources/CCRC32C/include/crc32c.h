#ifndef WIDGETSIM_CCRC32C_H
#define WIDGETSIM_CCRC32C_H

/* The processor's CRC-32C instruction, for WidgetSimExecution's `CRC32C`. */

#include <stddef.h>
#include <stdint.h>

/* CRC-32C with the SSE4.2 `crc32` instruction, which computes exactly this checksum
   (polynomial 0x1EDC6F41, reflected). `crc` and the result are the running register,
   without the initial and final inversion. Call only when widgetsim_crc32c_hardware()
   says the processor has the instruction. */
#if defined(__x86_64__)
#include <cpuid.h>
#include <string.h>

static inline int widgetsim_crc32c_hardware(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
static inline uint32_t widgetsim_crc32c_update(uint32_t crc, const void *data, size_t count) {
    const uint8_t *bytes = (const uint8_t *)data;
    uint64_t c = crc;
    while (count >= 8) {
        uint64_t v;
        memcpy(&v, bytes, 8);
        c = __builtin_ia32_crc32di(c, v);
        bytes += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (count > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *bytes);
        bytes += 1;
        count -= 1;
    }
    return c32;
}
#else
static inline int widgetsim_crc32c_hardware(void) { return 0; }
static inline uint32_t widgetsim_crc32c_update(uint32_t crc, const void *data, size_t count) {
    (void)data;
    (void)count;
    return crc;
}
#endif

#endif
