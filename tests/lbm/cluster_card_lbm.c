/* RDMA into a card while its cores run an LBM cascade, through the C API only.
 *   cluster_card_lbm CLUSTER.json IN.records OUT_PREFIX PUT_BYTES
 * Opens the cluster (RTL cards of a `spgen build --cascade C --links 2` of the LBM core),
 * opens card 0 as an ordinary card (afuShellRDMAClusterCardOpen), uploads the records to
 * its memory A (H2F: C steps), starts a put of PUT_BYTES from card 1 into card 0's memory B
 * (past the grid) and a get by card 1 of card 0's memory A (the grid the cores are
 * reading), runs the cascade A -> B (C more steps), waits for both RDMA operations,
 * downloads B (C more steps). Writes OUT_PREFIX.out (the records after 3C steps) and
 * OUT_PREFIX.get (what the get read: the records after C steps); checks the put's bytes
 * itself. Prints the run's counters and the cluster cycles of each event; exit 0 when
 * every call succeeded and the put's bytes are right. */
#include <afushell/afushell.h>
#include <afushell/rdma.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_B 0x100000000ull
#define PUT_SRC 0x100000ull            /* on card 1 */
#define PUT_DST (MEM_B + 0x1000000ull) /* on card 0, past the grid's records in B */
#define GET_DST 0x2000000ull           /* on card 1 */

static int fail(const char *what, const char *msg) {
    fprintf(stderr, "%s: %s\n", what, msg);
    return 1;
}

static int write_file(const char *prefix, const char *ext, const void *p, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", prefix, ext);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) return 1;
    return fclose(f) != 0;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s CLUSTER.json IN.records OUT_PREFIX PUT_BYTES\n", argv[0]);
        return 2;
    }
    const uint64_t put_bytes = strtoull(argv[4], NULL, 0);
    FILE *in = fopen(argv[2], "rb");
    if (!in) return fail(argv[2], "cannot read");
    fseek(in, 0, SEEK_END);
    const size_t bytes = (size_t)ftell(in);
    fseek(in, 0, SEEK_SET);

    afu_rdma_cluster cl = NULL;
    afu_result rc = afuShellRDMAClusterOpenFile(argv[1], &cl);
    if (rc) return fail("afuShellRDMAClusterOpenFile", afuShellLastError());
    afu_shell_handle card = NULL;
    rc = afuShellRDMAClusterCardOpen(cl, 0, &card);
    if (rc) return fail("afuShellRDMAClusterCardOpen", afuShellLastError());
    afu_shell_handle none = NULL;
    if (afuShellRDMAClusterCardOpen(cl, 7, &none) != AFU_ERR_RDMA_BAD_CARD || none)
        return fail("afuShellRDMAClusterCardOpen(card 7)", "not refused with AFU_ERR_RDMA_BAD_CARD");

    const char *regs[3] = {"omega", "uw_x", "uw_y"};
    const double values[3] = {1.3, 0.07, 0.01};
    for (int i = 0; i < 3; ++i)
        if (afuShellWriteRegValue(card, regs[i], values[i]) != FPGA_OK) return fail(regs[i], afuShellLastError());
    void *buf = NULL;
    if (afuShellAllocH(card, bytes, &buf) != FPGA_OK) return fail("afuShellAllocH", afuShellLastError());
    if (fread(buf, 1, bytes, in) != bytes) return fail(argv[2], "short read");
    fclose(in);

    unsigned char *pattern = malloc(put_bytes), *back = malloc(put_bytes > bytes ? put_bytes : bytes);
    for (uint64_t i = 0; i < put_bytes; ++i) pattern[i] = (unsigned char)(i * 131 + (i >> 9));
    if (afuShellRDMAWriteMem(cl, 1, PUT_SRC, pattern, put_bytes)) return fail("afuShellRDMAWriteMem", "refused");

    const uint64_t c_up = afuShellRDMACycles(cl);
    if (afuShellDMATransferH(card, (void *)0, buf, bytes, H2F) != FPGA_OK) return fail("H2F", afuShellLastError());
    afu_rdma_handle put, get;
    const uint64_t c_issue = afuShellRDMACycles(cl);
    rc = afuShellRDMAPutAsync(cl, 1, 0, PUT_SRC, PUT_DST, put_bytes, &put);
    if (rc) return fail("afuShellRDMAPutAsync", afuShellLastError());
    rc = afuShellRDMAGetAsync(cl, 1, 0, GET_DST, 0, bytes, &get);
    if (rc) return fail("afuShellRDMAGetAsync", afuShellLastError());
    afu_shell_run_result run;
    if (afuShellRun(card, 0, MEM_B, bytes / 40, &run) != FPGA_OK) return fail("afuShellRun", afuShellLastError());
    const uint64_t c_run = afuShellRDMACycles(cl);
    const int put_pending = afuShellRDMATest(cl, put) == AFU_ERR_TIMEOUT;
    if ((rc = afuShellRDMAWait(cl, put, 0)) != FPGA_OK) return fail("put", afuShellLastError());
    if ((rc = afuShellRDMAWait(cl, get, 0)) != FPGA_OK) return fail("get", afuShellLastError());
    const uint64_t c_rdma = afuShellRDMACycles(cl);
    if (afuShellDMATransferH(card, buf, (const void *)MEM_B, bytes, F2H) != FPGA_OK)
        return fail("F2H", afuShellLastError());
    const uint64_t c_down = afuShellRDMACycles(cl);

    if (write_file(argv[3], "out", buf, bytes)) return fail(argv[3], "cannot write .out");
    if (afuShellRDMAReadMem(cl, 1, GET_DST, back, bytes)) return fail("afuShellRDMAReadMem", "refused");
    if (write_file(argv[3], "get", back, bytes)) return fail(argv[3], "cannot write .get");
    if (afuShellRDMAReadMem(cl, 0, PUT_DST, back, put_bytes)) return fail("afuShellRDMAReadMem", "refused");
    const int put_ok = memcmp(back, pattern, put_bytes) == 0;

    printf("upload @%llu, rdma issued @%llu, run returned @%llu (put still in flight: %s), rdma done @%llu, "
           "download done @%llu\n",
           (unsigned long long)c_up, (unsigned long long)c_issue, (unsigned long long)c_run,
           put_pending ? "yes" : "no", (unsigned long long)c_rdma, (unsigned long long)c_down);
    printf("run: %llu records in %llu cycles at the first core, %llu moved, stall rate %.6f, elapsed %llu ns\n",
           (unsigned long long)(bytes / 40), (unsigned long long)run.in_total_cycles,
           (unsigned long long)run.in_moved_cycles, run.stall_rate, (unsigned long long)run.elapsed_ns);
    printf("put %llu B: %s\n", (unsigned long long)put_bytes, put_ok ? "bytes right" : "BYTES WRONG");
    afuShellFreeH(card, buf);
    afuShellClose(card);
    afuShellRDMAClusterClose(cl);
    free(pattern);
    free(back);
    return put_ok ? 0 : 1;
}
