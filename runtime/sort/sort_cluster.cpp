// sort_cluster: sorts random keys with payloads across the cards of a cluster file with
// afushell::distributed_sort (afushell/sort.hpp) and checks the result against
// std::stable_sort. Usage: sort_cluster CLUSTER.json KEYS [u32|u64] [SEED] [VALUES] [--count-on-cards|--move-on-cards]
// (VALUES: keys drawn from that many values, e.g. 64 as OPTWEB; default the whole range).
// --move-on-cards: afushell::distributed_sort_on_cards, every key and payload moved by the
// cards' scatter writers (cards built with --sort-scatter; u64 keys with payloads in 16 bytes);
// --key-range=LO,HI before it: the keys' range, known (no range pass).
#include <afushell/sort.hpp>

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>

enum class OnCards { none, count, move };

template <class Key>
static int run(afu_rdma_cluster cl, uint64_t n, unsigned seed, uint64_t values, OnCards on_cards,
               const std::pair<uint64_t, uint64_t> *key_range) {
    std::mt19937_64 rng(seed);
    std::vector<Key> keys(n);
    for (Key &k : keys) k = Key(rng()) >> (rng() % 3 == 0 ? 3 : 0);  // some duplicates
    for (uint64_t i = 0; i + 1 < n; i += 97) keys[i + 1] = keys[i];
    if (values)
        for (Key &k : keys) k = Key(1000 + k % values);
    std::vector<uint32_t> pays(n);
    std::iota(pays.begin(), pays.end(), 0u);
    std::vector<Key> out;
    std::vector<uint32_t> outp;
    afushell::SortResult r;
    if (on_cards == OnCards::move)
        r = afushell::distributed_sort_on_cards<Key>(cl, keys.data(), pays.data(), n, out,
                                                     &outp, key_range);
    else
        r = afushell::distributed_sort<Key>(cl, keys.data(), pays.data(), n, out, &outp, on_cards == OnCards::count);
    if (r.code) {
        std::fprintf(stderr, "sort_cluster: %s%s%s\n", afuShellErrStr(r.code), r.error.empty() ? "" : ": ",
                     r.error.c_str());
        return 1;
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    uint64_t wrong = out.size() == n ? 0 : n;
    for (uint64_t i = 0; i < n && !wrong; ++i)
        wrong += out[i] != keys[order[i]] || outp[i] != order[i];
    for (const auto &p : r.phases)
        std::printf("%-15s %-8s %10.1f us %10llu cycles\n", p.name.c_str(), p.where.c_str(), p.seconds * 1e6,
                    (unsigned long long)p.cycles);
    std::printf("cards:");
    for (uint64_t c : r.counts) std::printf(" %llu", (unsigned long long)c);
    std::printf("\n%s: %llu keys of %zu bytes, %llu wrong\n", wrong ? "FAILED" : "sorted", (unsigned long long)n,
                sizeof(Key), (unsigned long long)wrong);
    return wrong ? 1 : 0;
}

int main(int argc, char **argv) {
    std::pair<uint64_t, uint64_t> range;
    const std::pair<uint64_t, uint64_t> *key_range = nullptr;
    for (int i = 1; i < argc; ++i)  // --key-range=LO,HI: taken out of the positional arguments
        if (std::string(argv[i]).rfind("--key-range=", 0) == 0) {
            char *end = nullptr;
            range.first = std::strtoull(argv[i] + 12, &end, 10);
            range.second = *end == ',' ? std::strtoull(end + 1, nullptr, 10) : 0;
            key_range = &range;
            for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
            --argc, --i;
        }
    const std::string flag = argc > 1 ? argv[argc - 1] : "";
    const OnCards on_cards = flag == "--count-on-cards" ? OnCards::count
                           : flag == "--move-on-cards"  ? OnCards::move : OnCards::none;
    argc -= on_cards != OnCards::none;
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s CLUSTER.json KEYS [u32|u64] [SEED] [VALUES] [--count-on-cards|"
                             "[--key-range=LO,HI] --move-on-cards]\n",
                     argv[0]);
        return 2;
    }
    const std::string type = argc > 3 ? argv[3] : "u32";
    if (type != "u32" && type != "u64") {
        std::fprintf(stderr, "sort_cluster: key type %s: u32 or u64\n", type.c_str());
        return 2;
    }
    afu_rdma_cluster cl;
    if (afuShellRDMAClusterOpenFile(argv[1], &cl)) {
        std::fprintf(stderr, "sort_cluster: %s\n", afuShellLastError());
        return 2;
    }
    const uint64_t n = std::strtoull(argv[2], nullptr, 10);
    const unsigned seed = argc > 4 ? unsigned(std::atoi(argv[4])) : 1u;
    const uint64_t values = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 0;
    if (key_range && on_cards != OnCards::move) {
        std::fprintf(stderr, "sort_cluster: --key-range takes --move-on-cards\n");
        return 2;
    }
    int rc = type == "u32" ? run<uint32_t>(cl, n, seed, values, on_cards, key_range)
                           : run<uint64_t>(cl, n, seed, values, on_cards, key_range);
    afuShellRDMAClusterClose(cl);
    return rc;
}
