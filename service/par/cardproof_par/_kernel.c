/* Exact hindsight par of poker squares: annealing for a grid, branch-and-bound for proof.
 *
 * A deal is 25 known cards (indices 0..51: rank = index % 13 with 0 the deuce, suit =
 * index / 13); a grid's score is its 5 rows and 5 columns (optionally the 2 long
 * diagonals), each five-card hand scored by a table of 10 points indexed by category
 * (0 high card .. 9 royal flush). Any points work, negative ones included.
 *
 * The proof (search) rests on these facts:
 *  - the rows are a partition of the 25 cards into 5 hands, so are the columns, and
 *    every row meets every column in exactly one card;
 *  - a grid and its transpose score the same, so only grids whose rows score at least
 *    their columns are searched: the rows must reach half the target;
 *  - rows are chosen best-first from the deal's 53,130 hands sorted by score, so the
 *    rows still to choose score at most (rows left) x (the last row's score);
 *  - the column through a card of row 1 takes exactly one card of every other chosen
 *    row, and the rest from the cards not placed yet: the first category (best points
 *    first) such a column could still form bounds it (col_bound), and a suit makes at
 *    most as many flush columns as its scarcest row holds cards of it (columns_total);
 *    a node's bound holds for everything below it, and once all rows are chosen any
 *    of them may head the columns (the lowest bound counts);
 *  - with all rows chosen, the columns are searched card by card under the same bound
 *    (place_card), each column's bound kept by its cards for the row partition.
 * Nothing here knows the service: the Python module cardproof.solvers.hindsight drives
 * it and checks every grid it returns with the rules engine.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NCARDS 25
#define NHANDS 53130
#define NCAT 10

enum { HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL };

static int binom[26][6];
static const uint16_t WHEEL = 0x100F; /* A 2 3 4 5 */

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void init_binom(void) {
    for (int n = 0; n < 26; n++)
        for (int k = 0; k < 6; k++)
            binom[n][k] = k == 0 ? 1 : n == 0 ? 0 : binom[n - 1][k - 1] + binom[n - 1][k];
}

/* The category (0..9) of five card indices, in any order. */
static int category5(const int *c) {
    int counts[13] = {0};
    uint16_t ranks = 0;
    int suit = c[0] / 13, flush = 1;
    for (int i = 0; i < 5; i++) {
        int r = c[i] % 13;
        counts[r]++;
        ranks |= (uint16_t)(1u << r);
        if (c[i] / 13 != suit) flush = 0;
    }
    int distinct = __builtin_popcount(ranks);
    if (distinct == 5) {
        int low = __builtin_ctz(ranks);
        int straight = ranks == WHEEL || ranks == (uint16_t)(0x1F << low);
        if (straight && flush) return ranks == 0x1F00 ? ROYAL : STRAIGHT_FLUSH;
        if (flush) return FLUSH;
        if (straight) return STRAIGHT;
        return HIGH;
    }
    int most = 0;
    for (int r = 0; r < 13; r++)
        if (counts[r] > most) most = counts[r];
    if (distinct == 2) return most == 4 ? QUADS : FULL_HOUSE;
    if (distinct == 3) return most == 3 ? TRIPS : TWO_PAIR;
    return PAIR;
}

/* ---- a deal: its cards, every hand's score, the hands sorted best first ------------ */

typedef struct {
    int card[NCARDS];
    int points[NCAT];
    int order[NCAT]; /* categories, best points first */
    int16_t score[NHANDS]; /* by colex rank of the hand's positions */
    uint32_t mask_of[NHANDS]; /* by colex rank: the hand's positions */
    uint32_t sorted_mask[NHANDS];
    int sorted_score[NHANDS];
    int sorted_at[NHANDS]; /* colex rank -> place in the sorted list */
    uint64_t card_bit[NCARDS];
} Deal;

static inline int colex(uint32_t mask) {
    int rank = 0, k = 1;
    while (mask) {
        int p = __builtin_ctz(mask);
        mask &= mask - 1;
        rank += binom[p][k++];
    }
    return rank;
}

static inline int hand_score(const Deal *d, uint32_t mask) { return d->score[colex(mask)]; }

/* The categories by points, best first (an insertion sort). */
static void order_points(Deal *d) {
    for (int i = 0; i < NCAT; i++) d->order[i] = i;
    for (int i = 1; i < NCAT; i++)
        for (int j = i; j > 0 && d->points[d->order[j]] > d->points[d->order[j - 1]]; j--) {
            int t = d->order[j];
            d->order[j] = d->order[j - 1];
            d->order[j - 1] = t;
        }
}

static int by_key(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The deal's hands, scored; sorted by score (best first), then by colex rank. */
static void deal_init(Deal *d, const int *cards, const int *points, uint64_t *keys) {
    memcpy(d->card, cards, sizeof d->card);
    memcpy(d->points, points, sizeof d->points);
    order_points(d);
    for (int p = 0; p < NCARDS; p++) d->card_bit[p] = 1ull << cards[p];
    int c[5];
    for (int a = 0; a < NCARDS; a++)
        for (int b = a + 1; b < NCARDS; b++)
            for (int e = b + 1; e < NCARDS; e++)
                for (int f = e + 1; f < NCARDS; f++)
                    for (int g = f + 1; g < NCARDS; g++) {
                        uint32_t mask = (1u << a) | (1u << b) | (1u << e) | (1u << f) | (1u << g);
                        c[0] = cards[a], c[1] = cards[b], c[2] = cards[e], c[3] = cards[f];
                        c[4] = cards[g];
                        int r = colex(mask);
                        int s = points[category5(c)];
                        d->score[r] = (int16_t)s;
                        d->mask_of[r] = mask;
                        keys[r] = ((uint64_t)(uint32_t)(20000 - s) << 32) | (uint64_t)r;
                    }
    qsort(keys, NHANDS, sizeof(uint64_t), by_key);
    for (int i = 0; i < NHANDS; i++) {
        int r = (int)(keys[i] & 0xFFFFFFFF);
        d->sorted_mask[i] = d->mask_of[r];
        d->sorted_score[i] = d->score[r];
        d->sorted_at[r] = i;
    }
}

/* ---- scoring grids --------------------------------------------------------------- */

static const int LINES[12][5] = {
    {0, 1, 2, 3, 4},      {5, 6, 7, 8, 9},      {10, 11, 12, 13, 14}, {15, 16, 17, 18, 19},
    {20, 21, 22, 23, 24}, {0, 5, 10, 15, 20},   {1, 6, 11, 16, 21},   {2, 7, 12, 17, 22},
    {3, 8, 13, 18, 23},   {4, 9, 14, 19, 24},   {0, 6, 12, 18, 24},   {4, 8, 12, 16, 20},
};

/* grid: cell -> position in the deal */
static inline int line_score(const Deal *d, const int *grid, int line) {
    uint32_t mask = 0;
    for (int i = 0; i < 5; i++) mask |= 1u << grid[LINES[line][i]];
    return hand_score(d, mask);
}

static int grid_score(const Deal *d, const int *grid, int nlines) {
    int total = 0;
    for (int k = 0; k < nlines; k++) total += line_score(d, grid, k);
    return total;
}

/* ---- poker patience: can the grid be laid in deal order? --------------------------- */

/* Abstract rows and columns of the grid are placed on 0..4 so that each card (in deal
 * order) touches, 8 ways, a card laid before it: the row and column orders are free,
 * a grid and its transpose alike. */
typedef struct {
    int r[NCARDS], c[NCARDS];
    int row_at[5], col_at[5];
    int row_used, col_used;
} Lay;

static int lay_from(Lay *L, int i) {
    if (i == NCARDS) return 1;
    int r = L->r[i], c = L->c[i];
    int rfixed = L->row_at[r] >= 0, cfixed = L->col_at[c] >= 0;
    for (int pr = 0; pr < 5; pr++) {
        if (rfixed ? pr != L->row_at[r] : (L->row_used >> pr) & 1) continue;
        for (int pc = 0; pc < 5; pc++) {
            if (cfixed ? pc != L->col_at[c] : (L->col_used >> pc) & 1) continue;
            if (i) {
                int touches = 0;
                for (int j = 0; j < i && !touches; j++) {
                    int dr = L->row_at[L->r[j]] - pr, dc = L->col_at[L->c[j]] - pc;
                    touches = dr >= -1 && dr <= 1 && dc >= -1 && dc <= 1;
                }
                if (!touches) continue;
            }
            if (!rfixed) L->row_at[r] = pr, L->row_used |= 1 << pr;
            if (!cfixed) L->col_at[c] = pc, L->col_used |= 1 << pc;
            if (lay_from(L, i + 1)) return 1;
            if (!rfixed) L->row_at[r] = -1, L->row_used &= ~(1 << pr);
            if (!cfixed) L->col_at[c] = -1, L->col_used &= ~(1 << pc);
        }
    }
    return 0;
}

/* grid: cell -> deal position. Position p is dealt p-th. */
static int layable(const int *grid) {
    int cell_of[NCARDS];
    for (int cell = 0; cell < NCARDS; cell++) cell_of[grid[cell]] = cell;
    for (int transpose = 0; transpose < 2; transpose++) {
        Lay L;
        for (int p = 0; p < NCARDS; p++) {
            int row = cell_of[p] / 5, col = cell_of[p] % 5;
            L.r[p] = transpose ? col : row;
            L.c[p] = transpose ? row : col;
        }
        for (int k = 0; k < 5; k++) L.row_at[k] = L.col_at[k] = -1;
        L.row_used = L.col_used = 0;
        if (lay_from(&L, 0)) return 1;
    }
    return 0;
}

/* With the diagonals on, reordering rows and columns moves them: a grid counts only as
 * laid, each card (in deal order) touching one laid before it where it stands. */
static int lays_in_place(const int *grid) {
    int cell_of[NCARDS];
    for (int cell = 0; cell < NCARDS; cell++) cell_of[grid[cell]] = cell;
    for (int p = 1; p < NCARDS; p++) {
        int r = cell_of[p] / 5, c = cell_of[p] % 5, touches = 0;
        for (int q = 0; q < p && !touches; q++) {
            int dr = cell_of[q] / 5 - r, dc = cell_of[q] % 5 - c;
            touches = dr >= -1 && dr <= 1 && dc >= -1 && dc <= 1;
        }
        if (!touches) return 0;
    }
    return 1;
}

/* ---- annealing: a strong grid before the proof ------------------------------------ */

typedef struct {
    uint64_t s;
} Rng;

static inline uint64_t rng_next(Rng *g) { /* splitmix64 */
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline int rng_below(Rng *g, int n) { return (int)((rng_next(g) >> 33) % (uint64_t)n); }
static inline double rng_unit(Rng *g) { return (double)(rng_next(g) >> 11) * (1.0 / 9007199254740992.0); }

typedef struct {
    int of[NCARDS][4]; /* the lines through each cell */
    int n[NCARDS];
} CellLines;

static void cell_lines(CellLines *t, int nlines) {
    for (int cell = 0; cell < NCARDS; cell++) {
        t->n[cell] = 0;
        for (int k = 0; k < nlines; k++)
            for (int i = 0; i < 5; i++)
                if (LINES[k][i] == cell) t->of[cell][t->n[cell]++] = k;
    }
}

/* Simulated annealing over swaps from a shuffle (or ``start``), ``steps`` swaps or until
 * ``deadline``; the best grid (when ``patience``, layable ones only: 2, laid in place)
 * goes to ``best``. Returns its score, or INT32_MIN when no layable grid was met. */
static int lays(const int *grid, int patience) {
    return !patience || (patience == 2 ? lays_in_place(grid) : layable(grid));
}

static int anneal_once(const Deal *d, int nlines, int patience, long steps, double hot,
                       double cold, double deadline, Rng *g, const int *start, int *best) {
    int grid[NCARDS], value[12];
    CellLines through;
    cell_lines(&through, nlines);
    if (start) {
        memcpy(grid, start, sizeof grid);
    } else {
        for (int i = 0; i < NCARDS; i++) grid[i] = i;
        for (int i = NCARDS - 1; i > 0; i--) {
            int j = rng_below(g, i + 1), t = grid[i];
            grid[i] = grid[j], grid[j] = t;
        }
    }
    int current = 0;
    for (int k = 0; k < nlines; k++) current += value[k] = line_score(d, grid, k);
    int best_score = INT32_MIN;
    if (lays(grid, patience)) best_score = current, memcpy(best, grid, sizeof grid);
    int touched[8], fresh[8];
    for (long step = 0; step < steps; step++) {
        if ((step & 1023) == 1023 && now_s() > deadline) break;
        double heat = hot * pow(cold / hot, (double)step / (double)steps);
        int i = rng_below(g, NCARDS), j = rng_below(g, NCARDS);
        if (i == j) continue;
        int n = 0;
        for (int a = 0; a < through.n[i]; a++) touched[n++] = through.of[i][a];
        for (int a = 0; a < through.n[j]; a++) {
            int k = through.of[j][a], seen = 0;
            for (int b = 0; b < n; b++) seen |= touched[b] == k;
            if (!seen) touched[n++] = k;
        }
        int t = grid[i];
        grid[i] = grid[j], grid[j] = t;
        int delta = 0;
        for (int b = 0; b < n; b++) delta += (fresh[b] = line_score(d, grid, touched[b])) - value[touched[b]];
        if (delta >= 0 || rng_unit(g) < exp((double)delta / heat)) {
            for (int b = 0; b < n; b++) value[touched[b]] = fresh[b];
            current += delta;
            if (current > best_score && lays(grid, patience)) {
                best_score = current;
                memcpy(best, grid, sizeof grid);
            }
        } else {
            t = grid[i];
            grid[i] = grid[j], grid[j] = t;
        }
    }
    return best_score;
}

/* ---- the column bound ------------------------------------------------------------ */

#define RANK_BITS(r) (0x0008004002001ull << (r)) /* rank r in each of the 4 suits */
#define SUIT_BITS(s) (0x1FFFull << (13 * (s)))
#define NONE (-1000000)

static inline uint16_t ranks_of(uint64_t m) {
    return (uint16_t)((m | (m >> 13) | (m >> 26) | (m >> 39)) & 0x1FFF);
}

static inline int suits_of(uint64_t m) {
    int suits = 0;
    for (int s = 0; s < 4; s++)
        if (m & SUIT_BITS(s)) suits |= 1 << s;
    return suits;
}

/* What is still to come to every column alike: one card from each of ``m`` rows
 * (``rows``: the cards each may give) and ``p`` from ``pool``. */
typedef struct {
    int m;
    uint64_t rows[4];
    uint16_t row_ranks[4];
    int row_suits[4];
    uint64_t pool;
    int p;
    int pool_count[13];
    uint16_t pool_ranks;
    int base[13]; /* the most cards of each rank these can give one column */
    uint16_t base_ge[6]; /* the ranks of which they can give at least 0..5 */
    uint16_t reach; /* the ranks they hold */
    int cap[4]; /* how many columns can be of each suit: one card of it from every row and
                 * ``p`` from the pool each */
} Offer;

static void offer_of(const uint64_t *rows, int m, uint64_t pool, int p, Offer *o) {
    o->m = m;
    o->pool = pool;
    o->p = p;
    o->pool_ranks = p ? ranks_of(pool) : 0;
    o->reach = o->pool_ranks;
    for (int i = 0; i < m; i++) {
        o->rows[i] = rows[i];
        o->row_ranks[i] = ranks_of(rows[i]);
        o->row_suits[i] = suits_of(rows[i]);
        o->reach |= o->row_ranks[i];
    }
    for (int r = 0; r < 13; r++) {
        o->pool_count[r] = p ? __builtin_popcountll(pool & RANK_BITS(r)) : 0;
        int with = 0;
        for (int i = 0; i < m; i++) with += (o->row_ranks[i] >> r) & 1;
        o->base[r] = with + (o->pool_count[r] < p ? o->pool_count[r] : p);
    }
    for (int t = 0; t < 6; t++) {
        o->base_ge[t] = 0;
        for (int r = 0; r < 13; r++)
            if (o->base[r] >= t) o->base_ge[t] |= (uint16_t)(1u << r);
    }
    for (int s = 0; s < 4; s++) {
        int most = 5;
        for (int i = 0; i < m; i++) {
            int n = __builtin_popcountll(rows[i] & SUIT_BITS(s));
            if (n < most) most = n;
        }
        if (p > 0) {
            int n = __builtin_popcountll(pool & SUIT_BITS(s)) / p;
            if (n < most) most = n;
        }
        o->cap[s] = most;
    }
}

/* A column's own cards: ``f`` of them (mask ``fixed``). */
typedef struct {
    uint64_t fixed;
    int f;
    uint16_t ranks;
    int suit; /* the suit they share, -1 if they differ */
    int count[13];
} Fixed;

static void fixed_of(uint64_t fixed, Fixed *x) {
    x->fixed = fixed;
    x->f = __builtin_popcountll(fixed);
    x->ranks = ranks_of(fixed);
    int suits = suits_of(fixed);
    x->suit = __builtin_popcount(suits) == 1 ? __builtin_ctz(suits) : -1;
    memset(x->count, 0, sizeof x->count);
    for (uint16_t m = x->ranks; m; m &= m - 1) {
        int r = __builtin_ctz(m);
        x->count[r] = __builtin_popcountll(fixed & RANK_BITS(r));
    }
}

/* Rows give distinct ranks of ``open`` (each row one), covering every rank of ``need``. */
static int rows_cover(const uint16_t *row_ranks, int m, uint16_t open, uint16_t need) {
    if (__builtin_popcount(need) > m) return 0;
    if (m == 0) return need == 0;
    uint16_t choice = row_ranks[0] & open;
    while (choice) {
        uint16_t bit = choice & (uint16_t)-choice;
        choice &= choice - 1;
        if (rows_cover(row_ranks + 1, m - 1, open & ~bit, need & ~bit)) return 1;
    }
    return 0;
}

/* At least ``d1`` cards of rank r1 and ``d2`` of rank r2 (d2 = 0: one rank only). */
static int ranks_possible(const Offer *o, const Fixed *x, int r1, int d1, int r2, int d2) {
    int others = x->f - x->count[r1] - (d2 ? x->count[r2] : 0);
    if (others > 5 - d1 - d2) return 0;
    int n1 = d1 - x->count[r1];
    if (n1 < 0) n1 = 0;
    if (!d2) return n1 <= o->base[r1];
    int n2 = d2 - x->count[r2];
    if (n2 < 0) n2 = 0;
    int with1 = 0, with2 = 0, both = 0;
    for (int i = 0; i < o->m; i++) {
        int a = (o->row_ranks[i] >> r1) & 1, b = (o->row_ranks[i] >> r2) & 1;
        with1 += a, with2 += b, both += a | b;
    }
    int max1 = n1 < o->pool_count[r1] ? n1 : o->pool_count[r1];
    int max2 = n2 < o->pool_count[r2] ? n2 : o->pool_count[r2];
    for (int y1 = 0; y1 <= max1 && y1 <= o->p; y1++)
        for (int y2 = 0; y2 <= max2 && y1 + y2 <= o->p; y2++) {
            int x1 = n1 - y1, x2 = n2 - y2;
            if (x1 <= with1 && x2 <= with2 && x1 + x2 <= both) return 1;
        }
    return 0;
}

static int straight_possible(const Offer *o, const Fixed *x, uint16_t window) {
    if (x->ranks & ~window) return 0;
    uint16_t open = window & ~x->ranks;
    if (open & ~o->reach) return 0;
    for (int i = 0; i < o->m; i++)
        if (!(o->row_ranks[i] & open)) return 0;
    return rows_cover(o->row_ranks, o->m, open, open & ~o->pool_ranks);
}

/* The exact cards of a straight flush: each row holds exactly one, the pool the rest. */
static int cards_possible(const Offer *o, const Fixed *x, uint64_t cards) {
    if (x->fixed & ~cards) return 0;
    uint64_t rest = cards & ~x->fixed, from_rows = 0;
    for (int i = 0; i < o->m; i++) {
        uint64_t held = o->rows[i] & rest;
        if (__builtin_popcountll(held) != 1) return 0;
        from_rows |= held;
    }
    return ((rest & ~from_rows) & ~o->pool) == 0;
}

/* The ranks of which the column can hold at least ``t`` cards. */
static inline uint16_t avail_ge(const Offer *o, const Fixed *x, int t) {
    uint16_t m = o->base_ge[t] & ~x->ranks;
    for (uint16_t f = x->ranks; f; f &= f - 1) {
        int r = __builtin_ctz(f);
        if (x->count[r] + o->base[r] >= t) m |= (uint16_t)(1u << r);
    }
    return m;
}

static int category_possible(const Offer *o, const Fixed *x, int cat) {
    switch (cat) {
    case ROYAL:
    case STRAIGHT_FLUSH:
        if (x->suit < 0) return 0;
        for (int low = cat == ROYAL ? 8 : -1; low <= (cat == ROYAL ? 8 : 7); low++) {
            uint16_t window = low < 0 ? WHEEL : (uint16_t)(0x1F << low);
            if (!(x->ranks & ~window) && cards_possible(o, x, (uint64_t)window << (13 * x->suit)))
                return 1;
        }
        return 0;
    case FLUSH: {
        if (x->suit < 0) return 0;
        if (__builtin_popcountll(o->pool & SUIT_BITS(x->suit)) < o->p) return 0;
        for (int i = 0; i < o->m; i++)
            if (!((o->row_suits[i] >> x->suit) & 1)) return 0;
        return 1;
    }
    case STRAIGHT:
        if (__builtin_popcount(x->ranks) != x->f) return 0;
        for (int low = -1; low <= 8; low++)
            if (straight_possible(o, x, low < 0 ? WHEEL : (uint16_t)(0x1F << low))) return 1;
        return 0;
    case QUADS:
    case TRIPS:
    case PAIR: {
        int need = cat == QUADS ? 4 : cat == TRIPS ? 3 : 2;
        for (uint16_t m = avail_ge(o, x, need); m; m &= m - 1)
            if (ranks_possible(o, x, __builtin_ctz(m), need, 0, 0)) return 1;
        return 0;
    }
    case FULL_HOUSE:
    case TWO_PAIR: {
        int d1 = cat == FULL_HOUSE ? 3 : 2;
        uint16_t pairs = avail_ge(o, x, 2);
        for (uint16_t m1 = avail_ge(o, x, d1); m1; m1 &= m1 - 1) {
            int r1 = __builtin_ctz(m1);
            uint16_t m2 = pairs & ~(uint16_t)(cat == FULL_HOUSE ? 1u << r1 : (2u << r1) - 1);
            for (; m2; m2 &= m2 - 1)
                if (ranks_possible(o, x, r1, d1, __builtin_ctz(m2), 2)) return 1;
        }
        return 0;
    }
    default: /* high card: the fixed cards' ranks differ (it is never ruled out otherwise) */
        return __builtin_popcount(x->ranks) == x->f;
    }
}

/* What a column can still score: ``plain`` the best category that is not of one suit,
 * ``suited`` the best of one suit (flush, straight flush, royal) when above it, else
 * NONE; ``suit``: the suit such a column must be (its fixed cards'). */
typedef struct {
    int plain, suited, suit;
} Bound;

/* The first category, best points first, that the column could still form, of each
 * kind (each check may say yes wrongly, never no wrongly). */
static Bound col_bound(const Deal *d, const Offer *o, uint64_t fixed) {
    Fixed x;
    fixed_of(fixed, &x);
    Bound b = {NONE, NONE, x.suit};
    for (int k = 0; k < NCAT; k++) {
        int cat = d->order[k];
        int suited = cat == FLUSH || cat == STRAIGHT_FLUSH || cat == ROYAL;
        if (suited && b.suited != NONE) continue;
        if (category_possible(o, &x, cat)) {
            if (!suited) {
                b.plain = d->points[cat];
                break; /* a suited category below it adds nothing */
            }
            b.suited = d->points[cat];
        }
    }
    return b;
}

/* The most any completion of the column can score. */
static int col_best(const Deal *d, const Offer *o, uint64_t fixed) {
    Bound b = col_bound(d, o, fixed);
    return b.suited > b.plain ? b.suited : b.plain;
}

/* The columns' total at most: each its plain best, and the suited ones where a suit's
 * cards allow (``cap[s]``: how many columns can be of suit s at most), best gains first. */
static int columns_total(const Bound *b, const int *cap) {
    int total = 0, gains[4][5], n[4] = {0, 0, 0, 0};
    for (int j = 0; j < 5; j++) {
        total += b[j].plain;
        if (b[j].suited != NONE && b[j].suited > b[j].plain && b[j].suit >= 0)
            gains[b[j].suit][n[b[j].suit]++] = b[j].suited - b[j].plain;
    }
    for (int s = 0; s < 4; s++) {
        int take = n[s] < cap[s] ? n[s] : cap[s];
        for (int t = 0; t < take; t++) { /* the largest gain left */
            int at = t;
            for (int u = t + 1; u < n[s]; u++)
                if (gains[s][u] > gains[s][at]) at = u;
            int g = gains[s][at];
            gains[s][at] = gains[s][t];
            gains[s][t] = g;
            total += g;
        }
    }
    return total < NONE ? NONE : total;
}

/* ---- the branch-and-bound --------------------------------------------------------- */


#define SEEN 8192

typedef struct {
    const Deal *d;
    int patience;
    int target; /* grids above it are sought */
    int best;
    int best_grid[NCARDS];
    int found; /* a grid above the target was found (the incumbent moved) */
    double deadline;
    int timed_out;
    long nodes;
    /* the rows chosen so far (deal-position masks) and their cards as 52-bit masks */
    uint32_t row_mask[5];
    uint64_t row_cards[5];
    int row_pos[5][5];
    int R; /* rows' points */
    /* the column phase: each column's cards so far and its bound */
    int col_pos[5][5];
    uint64_t col_cards[5];
    int col_n[5];
    Bound col_b[5];
    Offer from[6]; /* what rows i..4 offer a column */
    /* columns met before in this row partition, by their cards (a direct-mapped cache:
     * the same column recurs under every placement of the other columns' cards) */
    uint32_t generation;
    struct {
        uint64_t cards;
        uint32_t generation;
        Bound bound;
    } seen[SEEN];
} Search;

static uint64_t cards_of(const Deal *d, uint32_t mask) {
    uint64_t m = 0;
    while (mask) {
        m |= d->card_bit[__builtin_ctz(mask)];
        mask &= mask - 1;
    }
    return m;
}

static int check_time(Search *S) {
    if ((++S->nodes & 1023) == 0 && now_s() > S->deadline) S->timed_out = 1;
    return S->timed_out;
}

static void accept_grid(Search *S, int total) {
    int grid[NCARDS];
    for (int j = 0; j < 5; j++) /* column j holds one card of each row; row i is grid row i */
        for (int k = 0; k < 5; k++) {
            int p = S->col_pos[j][k];
            for (int i = 0; i < 5; i++)
                if ((S->row_mask[i] >> p) & 1) grid[i * 5 + j] = p;
        }
    if (S->patience && !layable(grid)) return;
    S->best = total;
    memcpy(S->best_grid, grid, sizeof grid);
    S->found = 1;
    if (total > S->target) S->target = total;
}

/* The bound of a column holding ``cards`` (rows after its last card to give one each). */
static Bound column_bound(Search *S, uint64_t cards, int from) {
    uint64_t h = cards * 0x9E3779B97F4A7C15ull;
    int slot = (int)(h >> 51) & (SEEN - 1);
    if (S->seen[slot].cards == cards && S->seen[slot].generation == S->generation)
        return S->seen[slot].bound;
    Bound b = col_bound(S->d, &S->from[from], cards);
    S->seen[slot].cards = cards;
    S->seen[slot].generation = S->generation;
    S->seen[slot].bound = b;
    return b;
}

/* Place card ``k`` of row ``i`` (rows 1..4; row 0's cards head the columns). */
static void place_card(Search *S, int i, int k, unsigned free_cols) {
    if (S->timed_out || check_time(S)) return;
    if (k == 5) {
        if (i == 4) {
            int total = S->R;
            for (int j = 0; j < 5; j++) {
                int c[5];
                for (int a = 0; a < 5; a++) c[a] = S->d->card[S->col_pos[j][a]];
                total += S->d->points[category5(c)];
            }
            if (total > S->target) accept_grid(S, total);
            return;
        }
        place_card(S, i + 1, 0, 0x1F);
        return;
    }
    int p = S->row_pos[i][k];
    for (int j = 0; j < 5; j++) {
        if (!((free_cols >> j) & 1)) continue;
        Bound old = S->col_b[j];
        S->col_pos[j][S->col_n[j]++] = p;
        S->col_cards[j] |= S->d->card_bit[p];
        S->col_b[j] = column_bound(S, S->col_cards[j], i + 1);
        int C = columns_total(S->col_b, S->from[i + 1].cap);
        if (S->R + (C < S->R ? C : S->R) > S->target) place_card(S, i, k + 1, free_cols & ~(1u << j));
        S->col_b[j] = old;
        S->col_cards[j] &= ~S->d->card_bit[p];
        S->col_n[j]--;
        if (S->timed_out) return;
    }
}

static void columns_of_rows(Search *S, int cols) {
    for (int j = 0; j < 5; j++) {
        S->col_n[j] = 1;
        S->col_pos[j][0] = S->row_pos[0][j];
        S->col_cards[j] = S->d->card_bit[S->row_pos[0][j]];
    }
    for (int i = 1; i <= 5; i++) offer_of(S->row_cards + i, 5 - i, 0, 0, &S->from[i]);
    S->generation++; /* a new row partition: the columns met before are another's */
    for (int j = 0; j < 5; j++) S->col_b[j] = col_bound(S->d, &S->from[1], S->col_cards[j]);
    int C = columns_total(S->col_b, S->from[1].cap);
    if (C > cols) C = cols;
    if (S->R + (C < S->R ? C : S->R) > S->target) place_card(S, 1, 0, 0x1F);
}

static void set_row(Search *S, int i, uint32_t mask) {
    S->row_mask[i] = mask;
    S->row_cards[i] = cards_of(S->d, mask);
    int k = 0;
    for (uint32_t m = mask; m; m &= m - 1) S->row_pos[i][k++] = __builtin_ctz(m);
}

static void swap_rows(Search *S, int a, int b) {
    if (a == b) return;
    uint32_t m = S->row_mask[a];
    S->row_mask[a] = S->row_mask[b], S->row_mask[b] = m;
    uint64_t c = S->row_cards[a];
    S->row_cards[a] = S->row_cards[b], S->row_cards[b] = c;
    int pos[5];
    memcpy(pos, S->row_pos[a], sizeof pos);
    memcpy(S->row_pos[a], S->row_pos[b], sizeof pos);
    memcpy(S->row_pos[b], pos, sizeof pos);
}

/* The columns' bound with ``chosen`` rows (row 0 heads the columns) and the rest unplaced. */
static int partial_columns(Search *S, int chosen, uint32_t used) {
    uint32_t rest = ((1u << NCARDS) - 1) & ~used;
    uint64_t pool = cards_of(S->d, rest);
    Bound b[5];
    Offer o;
    offer_of(S->row_cards + 1, chosen - 1, pool, 5 - chosen, &o);
    for (int j = 0; j < 5; j++) b[j] = col_bound(S->d, &o, S->d->card_bit[S->row_pos[0][j]]);
    return columns_total(b, o.cap);
}

/* The best a node can reach: its rows at most ``rmax``, the columns at most ``cols`` and
 * never more than the rows (the transpose is searched instead). */
static inline int node_bound(int rmax, int cols) { return rmax + (cols < rmax ? cols : rmax); }

/* Choose row ``k`` among the hands from ``from`` on, free of ``used``; ``cols`` bounds the
 * columns of every grid below this node (its parent's bound holds for its children). */
static void choose_row(Search *S, int k, int from, uint32_t used, int cols) {
    const Deal *d = S->d;
    if (k == 3) { /* the last two rows split the 10 cards left */
        uint32_t rest = ((1u << NCARDS) - 1) & ~used;
        int low = __builtin_ctz(rest);
        uint32_t others = rest & ~(1u << low);
        int pos[9], n = 0;
        for (uint32_t m = others; m; m &= m - 1) pos[n++] = __builtin_ctz(m);
        for (int a = 0; a < 9; a++)
            for (int b = a + 1; b < 9; b++)
                for (int c = b + 1; c < 9; c++)
                    for (int e = c + 1; e < 9; e++) {
                        if (S->timed_out || check_time(S)) return;
                        uint32_t x = (1u << low) | (1u << pos[a]) | (1u << pos[b]) | (1u << pos[c]) |
                                     (1u << pos[e]);
                        uint32_t y = rest & ~x;
                        int ix = d->sorted_at[colex(x)], iy = d->sorted_at[colex(y)];
                        if (ix > iy) {
                            int t = ix;
                            ix = iy, iy = t;
                            uint32_t tm = x;
                            x = y, y = tm;
                        }
                        if (ix < from) continue;
                        int R = S->R + d->sorted_score[ix] + d->sorted_score[iy];
                        if (node_bound(R, cols) <= S->target) continue;
                        set_row(S, 3, x);
                        set_row(S, 4, y);
                        int saved = S->R;
                        S->R = R;
                        /* any row may head the columns: the one whose bound is lowest */
                        int head = 0, exact = cols;
                        for (int h = 0; h < 5 && node_bound(R, exact) > S->target; h++) {
                            swap_rows(S, 0, h);
                            int b = partial_columns(S, 5, (1u << NCARDS) - 1);
                            swap_rows(S, 0, h);
                            if (b < exact) exact = b, head = h;
                        }
                        if (node_bound(R, exact) > S->target) {
                            swap_rows(S, 0, head);
                            columns_of_rows(S, exact);
                            swap_rows(S, 0, head);
                        }
                        S->R = saved;
                    }
        return;
    }
    for (int i = from; i < NHANDS; i++) {
        int s = d->sorted_score[i];
        int rmax = S->R + s * (5 - k);
        if (node_bound(rmax, cols) <= S->target) return; /* later hands score no more */
        uint32_t mask = d->sorted_mask[i];
        if (mask & used) continue;
        if (S->timed_out || check_time(S)) return;
        set_row(S, k, mask);
        S->R += s;
        int below = partial_columns(S, k + 1, used | mask);
        if (below > cols) below = cols;
        if (node_bound(rmax, below) > S->target) choose_row(S, k + 1, i + 1, used | mask, below);
        S->R -= s;
    }
}

/* A bound on every grid whose first row is hand ``from`` or later (the search stopped
 * there): each such node's own bound, as when it was reached. */
static int bound_from(Search *S, int from) {
    const Deal *d = S->d;
    int bound = INT32_MIN;
    for (int i = from; i < NHANDS; i++) {
        int s = d->sorted_score[i];
        int rmax = 5 * s;
        if (2 * rmax <= bound) break;
        if ((i & 255) == 0 && now_s() > S->deadline + 0.05) { /* late: the coarse bound */
            if (2 * rmax > bound) bound = 2 * rmax;
            break;
        }
        set_row(S, 0, d->sorted_mask[i]);
        int b = node_bound(rmax, partial_columns(S, 1, d->sorted_mask[i]));
        if (b > bound) bound = b;
    }
    return bound;
}

/* Search for grids above ``S->target`` until the deadline. Returns 1 when finished (no
 * grid above the final target but those found), 0 when stopped; ``*stopped_bound`` is
 * then a bound on the grids not searched. */
static int run_search(Search *S, int *stopped_bound) {
    const Deal *d = S->d;
    for (int i = 0; i < NHANDS; i++) {
        int s = d->sorted_score[i];
        if (10 * s <= S->target) return 1;
        if (check_time(S)) {
            *stopped_bound = bound_from(S, i);
            return 0;
        }
        set_row(S, 0, d->sorted_mask[i]);
        S->R = s;
        int cols = partial_columns(S, 1, d->sorted_mask[i]);
        if (node_bound(5 * s, cols) > S->target) choose_row(S, 1, i + 1, d->sorted_mask[i], cols);
        if (S->timed_out) {
            *stopped_bound = bound_from(S, i);
            return 0;
        }
    }
    return 1;
}

/* ---- Python ----------------------------------------------------------------------- */

/* A list an item's ``__index__`` resized while it was read (its copy was read): refused. */
static int resized(PyObject *seq, Py_ssize_t n, const char *what) {
    if (!PyList_Check(seq) || PyList_GET_SIZE(seq) == n) return 0;
    PyErr_Format(PyExc_ValueError, "%s: the list changed size while it was read", what);
    return -1;
}

/* ``n`` integers of ``seq``, each in ``lo``..``hi`` (checked before it is cut to an int),
 * all different when ``distinct`` (card indices, lo >= 0 and hi <= 63). The sequence is
 * copied to a tuple first: an item's ``__index__`` may change a list, never the copy. */
static int read_ints(PyObject *seq, int *out, int n, int lo, int hi, int distinct, const char *what) {
    PyObject *items = PySequence_Tuple(seq);
    if (!items) {
        if (PyErr_ExceptionMatches(PyExc_TypeError))
            PyErr_Format(PyExc_TypeError, "%s: a sequence of %d integers expected", what, n);
        return -1;
    }
    if (PyTuple_GET_SIZE(items) != n) {
        PyErr_Format(PyExc_ValueError, "%s: %d values expected", what, n);
        Py_DECREF(items);
        return -1;
    }
    uint64_t seen = 0;
    for (int i = 0; i < n; i++) {
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(PyTuple_GET_ITEM(items, i), &overflow);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(items);
            return -1;
        }
        if (overflow || v < lo || v > hi || (distinct && ((seen >> v) & 1))) {
            PyErr_Format(PyExc_ValueError, "%s: %d %sintegers in %d..%d expected", what, n,
                         distinct ? "different " : "", lo, hi);
            Py_DECREF(items);
            return -1;
        }
        if (distinct) seen |= 1ull << v;
        out[i] = (int)v;
    }
    Py_DECREF(items);
    return resized(seq, n, what);
}

#define MAX_POINTS 10000 /* a category's points: 12 lines of them sum far inside an int */

static int read_deal(PyObject *cards_obj, PyObject *points_obj, int *cards, int *points) {
    return read_ints(cards_obj, cards, NCARDS, 0, 51, 1, "cards") ||
                   read_ints(points_obj, points, NCAT, -MAX_POINTS, MAX_POINTS, 0, "points")
               ? -1
               : 0;
}

static PyObject *grid_tuple(const Deal *d, const int *grid) {
    PyObject *t = PyTuple_New(NCARDS);
    if (!t) return NULL;
    for (int i = 0; i < NCARDS; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(d->card[grid[i]]));
    return t;
}

/* grid given as card indices: to deal positions */
static int grid_positions(const Deal *d, PyObject *obj, int *grid) {
    int cards[NCARDS];
    if (read_ints(obj, cards, NCARDS, 0, 51, 1, "grid")) return -1;
    uint32_t seen = 0;
    for (int cell = 0; cell < NCARDS; cell++) {
        int found = -1;
        for (int p = 0; p < NCARDS; p++)
            if (d->card[p] == cards[cell]) found = p;
        if (found < 0 || ((seen >> found) & 1)) {
            PyErr_SetString(PyExc_ValueError, "grid: the deal's 25 cards, each once");
            return -1;
        }
        seen |= 1u << found;
        grid[cell] = found;
    }
    return 0;
}

static PyObject *py_score_grid(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *names[] = {"grid", "points", "diagonals", NULL};
    PyObject *grid_obj, *points_obj;
    int diagonals = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|p", names, &grid_obj, &points_obj, &diagonals))
        return NULL;
    int cards[NCARDS], points[NCAT];
    if (read_ints(grid_obj, cards, NCARDS, 0, 51, 1, "grid") ||
        read_ints(points_obj, points, NCAT, -MAX_POINTS, MAX_POINTS, 0, "points"))
        return NULL;
    int total = 0;
    for (int k = 0; k < (diagonals ? 12 : 10); k++) {
        int c[5];
        for (int i = 0; i < 5; i++) c[i] = cards[LINES[k][i]];
        total += points[category5(c)];
    }
    return PyLong_FromLong(total);
}

static PyObject *py_category(PyObject *self, PyObject *arg) {
    (void)self;
    int c[5];
    if (read_ints(arg, c, 5, 0, 51, 1, "hand")) return NULL;
    return PyLong_FromLong(category5(c));
}

/* Card indices as a mask (a tuple copy, as in read_ints). */
static int read_mask(PyObject *seq, uint64_t *mask, const char *what) {
    PyObject *items = PySequence_Tuple(seq);
    if (!items) return -1;
    *mask = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(items); i++) {
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(PyTuple_GET_ITEM(items, i), &overflow);
        if ((v == -1 && PyErr_Occurred()) || overflow || v < 0 || v > 51 || ((*mask >> v) & 1)) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: distinct card indices 0..51", what);
            Py_DECREF(items);
            return -1;
        }
        *mask |= 1ull << v;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    Py_DECREF(items);
    return resized(seq, n, what);
}

static PyObject *py_column_best(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *fixed_obj, *rows_obj, *pool_obj, *points_obj;
    int p, m;
    if (!PyArg_ParseTuple(args, "OOOiO", &fixed_obj, &rows_obj, &pool_obj, &p, &points_obj)) return NULL;
    uint64_t fixed, pool, rows[4];
    Deal *d = PyMem_Calloc(1, sizeof(Deal));
    if (!d) return PyErr_NoMemory();
    PyObject *result = NULL, *seq = NULL;
    if (read_ints(points_obj, d->points, NCAT, -MAX_POINTS, MAX_POINTS, 0, "points") ||
        read_mask(fixed_obj, &fixed, "fixed") || read_mask(pool_obj, &pool, "pool"))
        goto done;
    seq = PySequence_Tuple(rows_obj);
    if (!seq) goto done;
    m = PyTuple_GET_SIZE(seq) > 5 ? 5 : (int)PyTuple_GET_SIZE(seq);
    uint64_t all = fixed | pool;
    int overlap = (fixed & pool) != 0;
    for (int i = 0; i < m && i < 4; i++) {
        if (read_mask(PyTuple_GET_ITEM(seq, i), &rows[i], "rows")) goto done;
        overlap |= (all & rows[i]) != 0 || rows[i] == 0;
        all |= rows[i];
    }
    if (resized(rows_obj, PyTuple_GET_SIZE(seq), "rows")) goto done;
    int f = __builtin_popcountll(fixed);
    if (m > 4 || p < 0 || p > 5 || f < 1 || f + m + p != 5 || __builtin_popcountll(pool) < p || overlap) {
        PyErr_SetString(PyExc_ValueError,
                        "a column: 1..5 fixed cards, at most 4 non-empty rows, fixed + rows + p == 5, "
                        "p <= pool's size, no card twice");
        goto done;
    }
    order_points(d);
    Offer o;
    offer_of(rows, m, pool, p, &o);
    result = PyLong_FromLong(col_best(d, &o, fixed));
done:
    Py_XDECREF(seq);
    PyMem_Free(d);
    return result;
}

static PyObject *py_layable(PyObject *self, PyObject *arg) {
    (void)self;
    int grid[NCARDS]; /* deal positions 0..24: position p is dealt p-th */
    if (read_ints(arg, grid, NCARDS, 0, NCARDS - 1, 1, "grid")) return NULL;
    return PyBool_FromLong(layable(grid));
}

static Deal *new_deal(const int *cards, const int *points) {
    Deal *d = PyMem_Malloc(sizeof(Deal));
    uint64_t *keys = PyMem_Malloc(NHANDS * sizeof(uint64_t));
    if (!d || !keys) {
        PyMem_Free(d);
        PyMem_Free(keys);
        PyErr_NoMemory();
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS;
    deal_init(d, cards, points, keys);
    Py_END_ALLOW_THREADS;
    PyMem_Free(keys);
    return d;
}

/* anneal(cards, points, *, steps, restarts, seed, diagonals, patience, start, seconds)
 * Stops at ``seconds`` (the GIL is released meanwhile); steps x restarts is capped. */
static PyObject *py_anneal(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *names[] = {"cards", "points", "steps", "restarts", "seed", "diagonals", "patience",
                            "start", "hot", "cold", "seconds", NULL};
    PyObject *cards_obj, *points_obj, *start_obj = Py_None;
    long steps = 200000;
    int restarts = 4, diagonals = 0, patience = 0;
    unsigned long long seed = 0;
    double hot = 0, cold = 0, seconds = 10.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$liKppOddd", names, &cards_obj, &points_obj, &steps,
                                     &restarts, &seed, &diagonals, &patience, &start_obj, &hot, &cold,
                                     &seconds))
        return NULL;
    if (steps < 0 || restarts < 1 || restarts > 1000 || steps > 100000000 / restarts) {
        PyErr_SetString(PyExc_ValueError, "steps 0.., restarts 1..1000, steps x restarts at most 1e8");
        return NULL;
    }
    if (!(seconds >= 0 && seconds <= 3600) || !(hot >= 0 && hot <= 1e9) || !(cold >= 0 && cold <= 1e9)) {
        PyErr_SetString(PyExc_ValueError, "seconds 0..3600, hot and cold 0..1e9 (0: the default)");
        return NULL;
    }
    double started = now_s();
    int cards[NCARDS], points[NCAT];
    if (read_deal(cards_obj, points_obj, cards, points)) return NULL;
    Deal *d = new_deal(cards, points);
    if (!d) return NULL;
    int start[NCARDS], have_start = start_obj != Py_None;
    if (have_start && grid_positions(d, start_obj, start)) {
        PyMem_Free(d);
        return NULL;
    }
    int best[NCARDS], grid[NCARDS], best_score = INT32_MIN;
    int nlines = diagonals ? 12 : 10;
    Py_BEGIN_ALLOW_THREADS;
    int lo = d->points[d->order[NCAT - 1]], hi = d->points[d->order[0]];
    double spread = (double)(hi - lo) / 100.0;
    if (spread < 0.01) spread = 0.01;
    if (!(hot > 0)) hot = 8.0 * spread;
    if (!(cold > 0) || cold > hot) cold = 0.3 * spread;
    if (cold > hot) cold = hot;
    Rng g = {seed * 0x9E3779B97F4A7C15ull + 1};
    double deadline = started + seconds;
    int lay = patience ? (diagonals ? 2 : 1) : 0;
    for (int r = 0; r < restarts && (r == 0 || now_s() <= deadline); r++) {
        int s = anneal_once(d, nlines, lay, steps, hot, cold, deadline, &g,
                            have_start && r == 0 ? start : NULL, grid);
        if (s > best_score) best_score = s, memcpy(best, grid, sizeof grid);
    }
    Py_END_ALLOW_THREADS;
    PyObject *result;
    if (best_score == INT32_MIN)
        result = Py_BuildValue("(iO)", 0, Py_None);
    else
        result = Py_BuildValue("(iN)", best_score, grid_tuple(d, best));
    PyMem_Free(d);
    return result;
}

/* search(cards, points, grid, *, target, seconds, patience)
 *     -> (score, grid, finished, bound, nodes)
 *
 * Seeks grids whose rows and columns score above ``target``; ``grid`` (card indices, row
 * by row) is the incumbent, returned (with its score) unless a better one is found. A
 * grid found above the target raises the target to its score. ``finished``: the search
 * ran to its end, so no grid scores above ``bound`` = max(target, score); otherwise it
 * stopped at ``seconds`` and ``bound`` is what the grids not searched can still reach
 * (never below the target). ``patience``: only grids poker patience lays in deal order
 * count. */
static PyObject *py_search(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static char *names[] = {"cards", "points", "grid", "target", "seconds", "patience", NULL};
    PyObject *cards_obj, *points_obj, *grid_obj;
    double seconds = 2.0;
    int patience = 0, target = INT32_MIN; /* by default the incumbent's score */
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|$idp", names, &cards_obj, &points_obj, &grid_obj,
                                     &target, &seconds, &patience))
        return NULL;
    if (!(seconds >= 0 && seconds <= 3600) || (target != INT32_MIN && (target < -1000000 || target > 1000000))) {
        PyErr_SetString(PyExc_ValueError, "seconds 0..3600, target -1e6..1e6");
        return NULL;
    }
    int cards[NCARDS], points[NCAT];
    if (read_deal(cards_obj, points_obj, cards, points)) return NULL;
    double started = now_s();
    Deal *d = new_deal(cards, points);
    if (!d) return NULL;
    Search *S = PyMem_Calloc(1, sizeof(Search));
    if (!S) {
        PyMem_Free(d);
        return PyErr_NoMemory();
    }
    if (grid_positions(d, grid_obj, S->best_grid)) {
        PyMem_Free(S);
        PyMem_Free(d);
        return NULL;
    }
    S->d = d;
    S->patience = patience;
    S->deadline = started + seconds;
    int finished, bound = 0;
    Py_BEGIN_ALLOW_THREADS;
    S->best = grid_score(d, S->best_grid, 10);
    S->target = target > S->best ? target : S->best;
    int stopped = 0;
    finished = run_search(S, &stopped);
    bound = finished || stopped < S->target ? S->target : stopped;
    Py_END_ALLOW_THREADS;
    PyObject *result = Py_BuildValue("(iNOil)", S->best, grid_tuple(d, S->best_grid),
                                     finished ? Py_True : Py_False, bound, S->nodes);
    PyMem_Free(S);
    PyMem_Free(d);
    return result;
}

static PyMethodDef methods[] = {
    {"anneal", (PyCFunction)(void (*)(void))py_anneal, METH_VARARGS | METH_KEYWORDS,
     "anneal(cards, points, *, steps=200000, restarts=4, seed=0, diagonals=False, patience=False, "
     "start=None, seconds=10.0) -> (score, grid | None): the best grid of simulated annealing over "
     "swaps, within seconds (steps x restarts at most 1e8)."},
    {"search", (PyCFunction)(void (*)(void))py_search, METH_VARARGS | METH_KEYWORDS,
     "search(cards, points, grid, *, target=score, seconds=2.0, patience=False) -> (score, grid, "
     "finished, bound, nodes): the branch-and-bound search for grids above the target."},
    {"score_grid", (PyCFunction)(void (*)(void))py_score_grid, METH_VARARGS | METH_KEYWORDS,
     "score_grid(grid, points, diagonals=False) -> int: a grid's points (card indices row by row)."},
    {"category", py_category, METH_O, "category(hand) -> int: the category (0..9) of 5 card indices."},
    {"column_best", py_column_best, METH_VARARGS,
     "column_best(fixed, rows, pool, p, points) -> int: the most a column can still score."},
    {"layable", py_layable, METH_O,
     "layable(grid) -> bool: whether poker patience can lay the grid (deal positions 0..24)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "The compiled kernel of exact poker-squares par.", -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) {
    init_binom();
    return PyModule_Create(&module);
}
