/* A C program linked only against the runtime library (libafushell): opens a cluster file
 * whose card 0 runs core_a and card 1 core_b with core_a's branch stream bound to core_b
 * (examples/branch_across_cards), runs both cores at once (afuShellRDMARunCores) with
 * random host chunks and gaps, and writes both outputs.
 *   rdma_branch_run CLUSTER.json A_IN.bin B_IN.bin A_OUT.bin B_OUT.bin
 * Records are 4 bytes in and out on both cards. Prints "card C: tx_words rx_words
 * tx_stalls" per card and "ok CYCLES", or the error and exits 1. */
#include <afushell/rdma.h>

#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *path, long *bytes) {
    FILE *f = fopen(path, "rb");
    if (!f) return perror(path), NULL;
    fseek(f, 0, SEEK_END);
    *bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)*bytes);
    if (!b || fread(b, 1, (size_t)*bytes, f) != (size_t)*bytes) b = NULL;
    fclose(f);
    return b;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s CLUSTER A_IN B_IN A_OUT B_OUT\n", argv[0]);
        return 2;
    }
    afu_rdma_cluster cl;
    if (afuShellRDMAClusterOpenFile(argv[1], &cl)) {
        fprintf(stderr, "%s\n", afuShellLastError());
        return 1;
    }
    long na = 0, nb = 0;
    char *a = slurp(argv[2], &na), *b = slurp(argv[3], &nb);
    char *ya = malloc((size_t)na), *yb = malloc((size_t)nb);
    if (!a || !b || !ya || !yb) return 1;
    const int cards[2] = {0, 1};
    const void *in[2] = {a, b};
    void *out[2] = {ya, yb};
    const uint64_t rec[2] = {4, 4}, records[2] = {(uint64_t)na / 4, (uint64_t)nb / 4};
    afu_rdma_pipeline_opts opts = {31, 300, 5, 0}; /* random chunks and gaps at every host */
    afu_rdma_pipeline_stats st[2];
    uint64_t cycles = 0;
    afu_result rc = afuShellRDMARunCores(cl, 2, cards, in, rec, out, rec, records, &opts, st, &cycles);
    if (rc) {
        fprintf(stderr, "run: %s\n%s\n", afuShellLastError(), afuShellRDMALastDump(cl));
        return 1;
    }
    for (int k = 0; k < 2; ++k)
        printf("card %d: %llu %llu %llu\n", k, (unsigned long long)st[k].stream_tx_words,
               (unsigned long long)st[k].stream_rx_words, (unsigned long long)st[k].stream_tx_stalls);
    FILE *f = fopen(argv[4], "wb");
    if (!f || fwrite(ya, 1, (size_t)na, f) != (size_t)na) return perror(argv[4]), 1;
    fclose(f);
    f = fopen(argv[5], "wb");
    if (!f || fwrite(yb, 1, (size_t)nb, f) != (size_t)nb) return perror(argv[5]), 1;
    fclose(f);
    afuShellRDMAClusterClose(cl);
    free(a), free(b), free(ya), free(yb);
    printf("ok %llu\n", (unsigned long long)cycles);
    return 0;
}
