// The plan on the card's processor: sort_plan::plan_shared, then for every card c of the job
// sort_plan::plan_card (the host's own code, afushell/sort_plan.h) over the counts table,
// each timed by the cycle and instruction counters. A card would run plan_shared and its own
// plan_card.
// The job block and what the run writes (addresses in the RAM of plan_cpu.v):
//   0x4000  N, B, exact (uint32 each)
//   0x8000  the counts table, uint32 [N][B]
//   0x10000 scratch (sort_plan::scratch_words(N, B) words)
//   0x20000 plan_shared's cycles and instructions, then per card: cycles, instructions,
//           received, first, last, pieces, then per piece (destination, offset in the send
//           buffer, offset in the destination's, keys): uint64 each
#include <afushell/sort_plan.h>

static inline uint32_t cycles() {
    uint32_t c;
    asm volatile("rdcycle %0" : "=r"(c));
    return c;
}

static inline uint32_t instructions() {
    uint32_t i;
    asm volatile("rdinstret %0" : "=r"(i));
    return i;
}

extern "C" int main() {
    const volatile uint32_t *job = reinterpret_cast<const volatile uint32_t *>(0x4000);
    const int N = int(job[0]);
    const uint64_t B = job[1];
    const bool exact = job[2] != 0;
    const uint32_t *table = reinterpret_cast<const uint32_t *>(0x8000);
    uint64_t *scratch = reinterpret_cast<uint64_t *>(0x10000);
    uint64_t *out = reinterpret_cast<uint64_t *>(0x20000);
    uint32_t t0 = cycles(), i0 = instructions();
    afushell::sort_plan::plan_shared(table, N, B, exact, scratch);
    out[0] = cycles() - t0, out[1] = instructions() - i0;
    out += 2;
    for (int c = 0; c < N; ++c) {
        uint64_t *head = out;
        out += 6;
        uint64_t pieces = 0, first = 0, last = 0;
        t0 = cycles(), i0 = instructions();
        const uint64_t received = afushell::sort_plan::plan_card(
            table, N, B, c, exact, scratch,
            [&](int d, uint64_t local, uint64_t remote, uint64_t keys) {
                out[0] = uint64_t(d), out[1] = local, out[2] = remote, out[3] = keys;
                out += 4, ++pieces;
            },
            &first, &last);
        head[0] = cycles() - t0, head[1] = instructions() - i0;
        head[2] = received, head[3] = first, head[4] = last, head[5] = pieces;
    }
    return 1;
}
