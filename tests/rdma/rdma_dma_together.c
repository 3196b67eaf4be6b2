/* DMA and RDMA calls in one C program, every result checked as the one type they all
 * return (afu_result): opens a cluster of RTL cards, opens cards 0 and 1 as ordinary cards,
 * uploads a pattern into card 0's memory (H2F), puts it to card 1 over the links (RDMA),
 * gets it back from card 1 into card 0 at another address, downloads both copies (F2H)
 * and compares; then one refusal of each kind, each with its code and afuShellLastError():
 * a DMA of a count not a multiple of 4, an RDMA put to a card outside the cluster, one past
 * the end of the remote memory, a wait on an unknown handle, a reduction of an unknown type.
 *   rdma_dma_together CLUSTER.json
 * Prints "ok" and a line per refusal, exits 0; else names the failed call and exits 1. */
#include <afushell/afushell.h>
#include <afushell/rdma.h>

#include <stdio.h>
#include <string.h>

#define BYTES 4096u
#define SRC 0x10000ull   /* card 0: the uploaded pattern */
#define DST 0x20000ull   /* card 1: the put's copy */
#define BACK 0x30000ull  /* card 0: the get's copy of card 1's */

static int failed = 0;

/* every call's result against the one it should be */
static void expect(const char *call, afu_result got, afu_result want) {
    if (got == want) {
        if (want != FPGA_OK) printf("%s: %s (0x%x): %s\n", call, afuShellErrStr(got), (unsigned)got, afuShellLastError());
        return;
    }
    fprintf(stderr, "%s: 0x%x (%s: %s), expected 0x%x\n", call, (unsigned)got, afuShellErrStr(got), afuShellLastError(),
            (unsigned)want);
    failed = 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s CLUSTER.json\n", argv[0]);
        return 2;
    }
    afu_rdma_cluster cl = NULL;
    expect("afuShellRDMAClusterOpenFile", afuShellRDMAClusterOpenFile(argv[1], &cl), FPGA_OK);
    if (failed) return 1;
    afu_shell_handle card[2] = {NULL, NULL};
    for (int c = 0; c < 2; ++c) expect("afuShellRDMAClusterCardOpen", afuShellRDMAClusterCardOpen(cl, c, &card[c]), FPGA_OK);
    if (failed) return 1;

    unsigned char *buf = NULL, *back = NULL, *got = NULL;  /* host buffers of card 0, 0 and 1 */
    expect("afuShellAllocH", afuShellAllocH(card[0], BYTES, (void **)&buf), FPGA_OK);
    expect("afuShellAllocH", afuShellAllocH(card[0], BYTES, (void **)&back), FPGA_OK);
    expect("afuShellAllocH", afuShellAllocH(card[1], BYTES, (void **)&got), FPGA_OK);
    if (failed) return 1;
    for (unsigned i = 0; i < BYTES; ++i) buf[i] = (unsigned char)(i * 37u + (i >> 8));

    expect("H2F", afuShellDMATransferH(card[0], (void *)SRC, buf, BYTES, H2F), FPGA_OK);
    expect("afuShellRDMAPut", afuShellRDMAPut(cl, 0, 1, SRC, DST, BYTES), FPGA_OK);
    afu_rdma_handle h = 0;
    expect("afuShellRDMAGetAsync", afuShellRDMAGetAsync(cl, 0, 1, BACK, DST, BYTES, &h), FPGA_OK);
    expect("afuShellRDMAWait", afuShellRDMAWait(cl, h, 0), FPGA_OK);
    expect("F2H card 1", afuShellDMATransferH(card[1], got, (const void *)DST, BYTES, F2H), FPGA_OK);
    if (!failed && memcmp(got, buf, BYTES) != 0) fprintf(stderr, "card 1: the put's bytes differ\n"), failed = 1;
    expect("F2H card 0", afuShellDMATransferH(card[0], back, (const void *)BACK, BYTES, F2H), FPGA_OK);
    if (!failed && memcmp(back, buf, BYTES) != 0) fprintf(stderr, "card 0: the get's bytes differ\n"), failed = 1;
    if (!failed) printf("ok: %u bytes H2F, put, get, F2H intact\n", BYTES);

    const int chain[2] = {0, 1};
    expect("H2F of 6 bytes", afuShellDMATransferH(card[0], (void *)SRC, buf, 6, H2F), AFU_ERR_BAD_COUNT);
    expect("put to card 99", afuShellRDMAPut(cl, 0, 99, SRC, DST, 64), AFU_ERR_RDMA_NO_ROUTE);
    expect("put from card 99", afuShellRDMAPut(cl, 99, 0, SRC, DST, 64), AFU_ERR_RDMA_BAD_CARD);
    expect("put past the end", afuShellRDMAPut(cl, 0, 1, SRC, (2ull << 32) - 16, 64), AFU_ERR_RDMA_REMOTE_RANGE);
    expect("wait on handle 12345", afuShellRDMAWait(cl, 12345, 0), AFU_ERR_BAD_REQUEST);
    expect("reduce of type 7", afuShellRDMAReduce(cl, chain, 2, SRC, SRC, 64, 7), AFU_ERR_BAD_ARG);
    expect("write past memory", afuShellRDMAWriteMem(cl, 1, (2ull << 32) - 2, buf, 4), AFU_ERR_OUT_OF_RANGE);

    expect("afuShellFreeH", afuShellFreeH(card[0], buf), FPGA_OK);
    expect("afuShellFreeH", afuShellFreeH(card[0], back), FPGA_OK);
    expect("afuShellFreeH", afuShellFreeH(card[1], got), FPGA_OK);
    for (int c = 0; c < 2; ++c) expect("afuShellClose", afuShellClose(card[c]), FPGA_OK);
    afuShellRDMAClusterClose(cl);
    return failed;
}
