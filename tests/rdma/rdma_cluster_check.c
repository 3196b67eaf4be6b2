/* A C program linked only against the runtime library (libafushell): opens a cluster from
 * its cluster file and runs puts, gets and block-stride puts between every ordered pair of
 * cards, all started at once -- on RTL cards with a reduction over all cards in a random
 * order (a u32 sum and an f32 allreduce in turn) among them --, then checks every destination byte by byte -- the written
 * windows equal their sources, and everything around them is untouched (nothing lost,
 * nothing duplicated or misplaced). Then the errors: a card outside the cluster, a remote
 * range past the end of memory, a bad card number.
 *   rdma_cluster_check CLUSTER.json SEED [ROUNDS]
 * Prints "ok ..." and exits 0, or names every failure and exits 1. */
#include <afushell/rdma.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC 0x0ull                 /* every card: 64 KiB of its own random bytes */
#define SRC_BYTES 0x10000ull
#define PUT_WIN 0x100000ull        /* puts from card a land at PUT_WIN + a * WIN */
#define GET_WIN 0x200000ull        /* gets from card b land at GET_WIN + b * WIN */
#define STRIDE_WIN 0x300000ull     /* block-stride puts from a at STRIDE_WIN + a * WIN / 2 */
#define SGET_WIN 0x380000ull       /* block-stride gets from b at SGET_WIN + b * WIN / 2 (RTL) */
#define RED_OUT 0x3C0000ull       /* reductions land here on the chain's last card, allreduces on every card (RTL) */
#define WIN 0x10000ull
#define TOP 0x400000ull            /* bytes checked per card */
#define MAX_OPS 4096
#define MAX_CARDS 16               /* the windows above hold 16 cards */

static unsigned long long rng_state;
static unsigned long long rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

struct op { int kind, card, peer; uint64_t local, remote, len, block, count, ls, rs; afu_rdma_handle h; };

/* f32 a + b as the reduction unit adds (IEEE-754, round to nearest even; NaN: 0x7FC00000) */
static uint32_t f32_add(uint32_t a, uint32_t b) {
    float x, y, z;
    uint32_t r;
    memcpy(&x, &a, 4), memcpy(&y, &b, 4);
    z = x + y;
    memcpy(&r, &z, 4);
    return z != z ? 0x7FC00000u : r;
}

/* a block-stride transfer's shape drawn at random (block, count, local and remote strides,
 * len), and its offsets in the source and the destination window, the source's first */
static void draw_strided(struct op *o, uint64_t *src_off, uint64_t *dst_off) {
    o->block = 4 * (1 + rnd() % 16), o->count = 1 + rnd() % 32;
    o->ls = o->block + 4 * (rnd() % 8), o->rs = o->block + 4 * (rnd() % 8);
    *src_off = 4 * (rnd() % 64), *dst_off = 4 * (rnd() % 64);
    o->len = o->block * o->count;
}

/* what a block-stride transfer writes: its count blocks, each side at its own stride */
static void copy_blocks(uint8_t *dst, uint64_t dst_stride, const uint8_t *src, uint64_t src_stride,
                        const struct op *o) {
    for (uint64_t k = 0; k < o->count; ++k) memcpy(dst + k * dst_stride, src + k * src_stride, o->block);
}

static int failures;
#define FAIL(...) do { if (failures++ < 10) { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s CLUSTER.json SEED [ROUNDS]\n", argv[0]);
        return 2;
    }
    rng_state = strtoull(argv[2], NULL, 10) * 2654435761ull + 1;
    const int rounds = argc > 3 ? atoi(argv[3]) : 1;
    afu_rdma_cluster cl;
    if (afuShellRDMAClusterOpenFile(argv[1], &cl) != FPGA_OK) {
        fprintf(stderr, "open: %s\n", afuShellLastError());
        return 1;
    }
    const int n = afuShellRDMAClusterCards(cl);
    if (n > MAX_CARDS) {
        fprintf(stderr, "%d cards: this check lays out windows for at most %d\n", n, MAX_CARDS);
        return 2;
    }
    uint8_t **src = calloc((size_t)n, sizeof *src), **want = calloc((size_t)n, sizeof *want);
    uint8_t *got = malloc(TOP);
    for (int c = 0; c < n; ++c) {
        src[c] = malloc(SRC_BYTES);
        want[c] = calloc(1, TOP);
        for (uint64_t i = 0; i < SRC_BYTES; ++i) src[c][i] = (uint8_t)rnd();
        memcpy(want[c] + SRC, src[c], SRC_BYTES);
        if (afuShellRDMAWriteMem(cl, c, SRC, src[c], SRC_BYTES)) FAIL("card %d: write", c);
    }
    static struct op ops[MAX_OPS];
    int nops = 0;
    uint64_t bytes = 0, c0 = afuShellRDMACycles(cl);
    for (int r = 0; r < rounds; ++r) {
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b) {
                if (a == b || nops >= MAX_OPS) continue;
                struct op *o = &ops[nops++];
                o->kind = (int)(rnd() % (afuShellRDMAClusterIsRTL(cl) ? 4 : 3)), o->card = a, o->peer = b;
                o->len = 4 * (1 + rnd() % 2048);              /* 4 B .. 8 KiB */
                uint64_t off = 4 * (rnd() % ((SRC_BYTES - o->len) / 4 + 1));
                uint64_t woff = 4 * (rnd() % ((WIN - o->len) / 4 + 1));
                afu_result rc;
                if (o->kind == 0) {        /* put a -> b */
                    o->local = SRC + off, o->remote = PUT_WIN + (uint64_t)a * WIN + woff;
                    memcpy(want[b] + o->remote, src[a] + off, o->len);
                    rc = afuShellRDMAPutAsync(cl, a, b, o->local, o->remote, o->len, &o->h);
                } else if (o->kind == 1) { /* get b -> a */
                    o->remote = SRC + off, o->local = GET_WIN + (uint64_t)b * WIN + woff;
                    memcpy(want[a] + o->local, src[b] + off, o->len);
                    rc = afuShellRDMAGetAsync(cl, a, b, o->local, o->remote, o->len, &o->h);
                } else {                   /* block-stride: get b -> a (kind 3), put a -> b */
                    const int get = o->kind == 3;
                    uint64_t so, dso;
                    draw_strided(o, &so, &dso);
                    if (get) {
                        o->remote = SRC + so, o->local = SGET_WIN + (uint64_t)b * (WIN / 2) + dso;
                        copy_blocks(want[a] + o->local, o->ls, src[b] + o->remote, o->rs, o);
                    } else {
                        o->local = SRC + so, o->remote = STRIDE_WIN + (uint64_t)a * (WIN / 2) + dso;
                        copy_blocks(want[b] + o->remote, o->rs, src[a] + o->local, o->ls, o);
                    }
                    rc = (get ? afuShellRDMAGetStridedAsync : afuShellRDMAPutStridedAsync)(
                        cl, a, b, o->local, o->remote, o->block, o->count, o->ls, o->rs, &o->h);
                }
                if (rc) FAIL("op %d (card %d -> %d): refused at once: %s", nops - 1, a, b, afuShellLastError());
                bytes += o->len;
                if (afuShellRDMAClusterIsRTL(cl) && a == n / 2 && b == 0 && nops < MAX_OPS) {
                    /* halfway through the pairs: a reduction over every card in a random order */
                    struct op *q = &ops[nops++];
                    int chain[MAX_CARDS];
                    for (int k = 0; k < n; ++k) chain[k] = k;
                    for (int k = n - 1; k > 0; --k) {
                        int j = (int)(rnd() % (uint64_t)(k + 1)), t = chain[k];
                        chain[k] = chain[j], chain[j] = t;
                    }
                    q->kind = 4 + r % 2, q->card = chain[0], q->peer = chain[n - 1];
                    q->len = 4 * (1 + rnd() % (WIN / 4)), q->local = SRC + 4 * (rnd() % ((SRC_BYTES - q->len) / 4 + 1));
                    q->remote = RED_OUT;
                    for (uint64_t i = 0; i < q->len; i += 4) {
                        uint32_t acc, v;
                        memcpy(&acc, src[chain[0]] + q->local + i, 4);
                        for (int k = 1; k < n; ++k) {
                            memcpy(&v, src[chain[k]] + q->local + i, 4);
                            acc = q->kind == 5 ? f32_add(acc, v) : acc + v;
                        }
                        for (int k = q->kind == 5 ? 0 : n - 1; k < n; ++k)  /* allreduce: every card */
                            memcpy(want[chain[k]] + RED_OUT + i, &acc, 4);
                    }
                    rc = q->kind == 5 ? afuShellRDMAAllreduceAsync(cl, chain, n, q->local, RED_OUT, q->len, AFU_REDUCE_F32, &q->h)
                                      : afuShellRDMAReduceAsync(cl, chain, n, q->local, RED_OUT, q->len, AFU_REDUCE_U32, &q->h);
                    if (rc) FAIL("reduction: refused at once: %s", afuShellLastError());
                    bytes += q->len;
                }
            }
        for (int i = 0; i < nops; ++i) {
            afu_result rc = afuShellRDMAWait(cl, ops[i].h, 0);
            if (rc) {
                FAIL("op %d (kind %d, card %d -> %d, %llu B): %s\n%s", i, ops[i].kind, ops[i].card, ops[i].peer,
                     (unsigned long long)ops[i].len, afuShellLastError(), afuShellRDMALastDump(cl));
            }
        }
        /* second and later rounds overwrite the same windows: the last writer wins, and
         * the ops of one round all finish before the next round starts */
        nops = 0;
    }
    uint64_t cycles = afuShellRDMACycles(cl) - c0;
    for (int c = 0; c < n; ++c) {
        if (afuShellRDMAReadMem(cl, c, 0, got, TOP)) FAIL("card %d: read", c);
        for (uint64_t i = 0; i < TOP; ++i)
            if (got[i] != want[c][i]) {
                FAIL("card %d: byte 0x%llx is 0x%02x, expected 0x%02x", c, (unsigned long long)i, got[i], want[c][i]);
                break;
            }
    }
    /* errors at the initiator, each clear and final; good operations still work after */
    afu_rdma_handle h;
    afu_result rc = afuShellRDMAPut(cl, 0, n + 1, SRC, PUT_WIN, 64);
    if (rc != AFU_ERR_RDMA_NO_ROUTE) FAIL("put to card %d (not in the cluster): %d, expected NO_ROUTE", n + 1, rc);
    rc = afuShellRDMAPut(cl, 0, 1, SRC, (8ull << 30) - 32, 64);
    if (rc != AFU_ERR_RDMA_REMOTE_RANGE) FAIL("put past the end of remote memory: %d, expected REMOTE_RANGE", rc);
    rc = afuShellRDMAGet(cl, 0, 1, GET_WIN, (8ull << 30) - 32, 64);
    if (rc != AFU_ERR_RDMA_REMOTE_RANGE) FAIL("get past the end of remote memory: %d, expected REMOTE_RANGE", rc);
    rc = afuShellRDMAPutAsync(cl, n + 5, 0, SRC, PUT_WIN, 64, &h);
    if (rc != AFU_ERR_RDMA_BAD_CARD) FAIL("put from card %d: %d, expected BAD_CARD", n + 5, rc);
    rc = afuShellRDMAPut(cl, 0, 1, SRC, PUT_WIN, 6);
    if (rc != AFU_ERR_RDMA_ALIGN) FAIL("put of 6 bytes: %d, expected ALIGN", rc);
    if (afuShellRDMAClusterIsRTL(cl)) {
        int chain[2] = {1, 0};
        rc = afuShellRDMAReduce(cl, chain, 2, SRC + 2, RED_OUT, 64, AFU_REDUCE_U32);
        if (rc != AFU_ERR_RDMA_ALIGN) FAIL("reduction at an odd address: %d, expected ALIGN", rc);
        rc = afuShellRDMAReduce(cl, chain, 1, SRC, RED_OUT, 64, AFU_REDUCE_U32);
        if (rc != AFU_ERR_RDMA_BAD_CARD) FAIL("reduction over 1 card: %d, expected BAD_CARD", rc);
    }
    rc = afuShellRDMAPut(cl, 1, 0, SRC, PUT_WIN + WIN, 256);
    if (rc != FPGA_OK) FAIL("put after the errors: %s", afuShellLastError());
    afuShellRDMAReadMem(cl, 0, PUT_WIN + WIN, got, 256);
    if (memcmp(got, src[1], 256)) FAIL("put after the errors: wrong bytes");
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    if (getenv("RDMA_CHECK_DUMP")) fputs(afuShellRDMAClusterDump(cl, ~0ull), stdout);
    printf("ok %d cards, %d rounds, %llu bytes, %llu cycles, %s\n", n, rounds, (unsigned long long)bytes,
           (unsigned long long)cycles, afuShellRDMAClusterIsRTL(cl) ? "RTL cards" : "model");
    afuShellRDMAClusterClose(cl);
    return 0;
}
