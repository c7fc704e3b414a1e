/* tune_fit.c - `hayanagi tune fit`: fits the embedded evaluation's weights.
 *
 *   hayanagi tune fit [--epochs E] [--lr R] [--lr-end R] [--l2 L] [--lambda X] [--k K] [--ks S] [--out FILE] IN...
 *
 * IN holds lines "<result> [<score>] <sfen>" (result 1, 0.5 or 0 for black; score from
 * black's side), as written by `tune generate` and `tune records`. The target is the
 * result, or where there is a score, lambda * sigmoid(score / Ks) + (1 - lambda) * result
 * with Ks fitted to the results (one Ks per input file: each file may come from another
 * engine, e.g. `tune label`; --ks S gives every file the scale S instead, for data whose
 * results say more about the players than the positions, such as a teacher's games
 * against a much weaker engine). The model is the engine's own evaluation:
 * q = sigmoid(eval / K). K is fitted first to the starting weights (the installed ones),
 * unless --k gives it (to keep the evaluation's scale, which the search's margins assume).
 * The linear weights (all but king safety) are then fitted by full-batch Adam on the
 * mean squared error between target and q, with an L2 pull towards the starting weights
 * so that rarely seen features stay near their prior. The step size falls geometrically
 * from --lr to --lr-end over the epochs (the default keeps it constant). One block of
 * 256 lines in ten is held out, and the weights of the epoch with the lowest held-out
 * loss are kept. Last, the four king-danger weights get a coordinate descent (steps 8,
 * 4, 2, 1). The output is the complete source file src/eval/classic_weights.c
 * (--epochs 0 rewrites the installed weights unchanged).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/classic.h"
#include "tune/tune.h"
#include "util/atomic_file.h"
#include "util/cli_opts.h"
#include "util/parse.h"

_Static_assert(sizeof(ClassicWeights) == CLASSIC_WEIGHT_COUNT * sizeof(int), "ClassicWeights must be all ints");

enum { SCORE_NONE = INT32_MIN, MAX_INPUTS = 16 };

typedef struct {
    int n, cap;
    Position *pos;
    float *result;
    float *target; /* what q is fitted to: the result, mixed with the record's score */
    int *score;    /* the record's score from black's side, or SCORE_NONE */
    bool *held_out;
    int *danger;   /* king safety under the current danger weights (black's view) */
    size_t *first; /* features of position i: feats[first[i] .. first[i + 1]) */
    ClassicFeature *feats;
    size_t nfeats, feats_cap;
    int inputs;                     /* files read so far */
    int file_first[MAX_INPUTS + 1]; /* positions of file f: [file_first[f], file_first[f + 1]) */
    const char *file_name[MAX_INPUTS];
} FitData;

static void data_free(FitData *d) {
    free(d->pos);
    free(d->result);
    free(d->target);
    free(d->score);
    free(d->held_out);
    free(d->danger);
    free(d->first);
    free(d->feats);
}

static bool data_grow(FitData *d) {
    int cap = d->cap ? d->cap * 2 : 1 << 16;
    Position *p = realloc(d->pos, (size_t)cap * sizeof *p);
    if (!p)
        return false;
    d->pos = p;
    float *r = realloc(d->result, (size_t)cap * sizeof *r);
    if (!r)
        return false;
    d->result = r;
    float *t = realloc(d->target, (size_t)cap * sizeof *t);
    if (!t)
        return false;
    d->target = t;
    int *sc = realloc(d->score, (size_t)cap * sizeof *sc);
    if (!sc)
        return false;
    d->score = sc;
    bool *h = realloc(d->held_out, (size_t)cap * sizeof *h);
    if (!h)
        return false;
    d->held_out = h;
    d->cap = cap;
    return true;
}

/* Reads one data file; lines that do not parse are reported with file:line and skipped. */
static bool load_file(const char *path, FitData *d) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hayanagi tune: cannot open %s\n", path);
        return false;
    }
    char line[512];
    long lineno = 0;
    bool ok = true;
    int bad = 0;
    TuneLine tl;
    while (tune_next_line(f, path, &lineno, line, sizeof line, &tl, &bad)) {
        if (d->n == d->cap && !data_grow(d)) {
            ok = false;
            break;
        }
        StateInfo st;
        char err[128];
        if (!position_from_sfen(&d->pos[d->n], &st, tl.sfen, err, sizeof err)) {
            fprintf(stderr, "%s:%ld: %s (skipped)\n", path, lineno, err);
            continue;
        }
        d->pos[d->n].st = NULL; /* the classical evaluation reads no state */
        d->result[d->n] = d->target[d->n] = tl.result;
        d->score[d->n] = tl.has_score ? tl.score : SCORE_NONE;
        d->held_out[d->n] = (d->n / 256) % 10 == 9;
        d->n++;
    }
    fclose(f);
    if (!ok)
        fprintf(stderr, "hayanagi tune: out of memory\n");
    return ok;
}

/* Lists every position's features once (they do not depend on the weights). */
static bool extract_features(FitData *d, const ClassicWeights *w) {
    d->first = malloc(((size_t)d->n + 1) * sizeof *d->first);
    d->danger = malloc((size_t)d->n * sizeof *d->danger);
    d->feats_cap = (size_t)d->n * 120;
    d->feats = malloc(d->feats_cap * sizeof *d->feats);
    if (!d->first || !d->danger || !d->feats)
        return false;
    d->nfeats = 0;
    for (int i = 0; i < d->n; i++) {
        if (d->nfeats + CLASSIC_MAX_FEATURES > d->feats_cap) {
            size_t cap = d->feats_cap * 2 + CLASSIC_MAX_FEATURES; /* one doubling of a small cap may not fit */
            ClassicFeature *f = realloc(d->feats, cap * sizeof *f);
            if (!f)
                return false;
            d->feats = f;
            d->feats_cap = cap;
        }
        d->first[i] = d->nfeats;
        d->nfeats += (size_t)classic_features(&d->pos[i], d->feats + d->nfeats);
        d->danger[i] = classic_danger(w, &d->pos[i]);
    }
    d->first[d->n] = d->nfeats;
    return true;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static double score_loss(const FitData *d, int from, int to, double k) {
    double sum = 0;
    for (int i = from; i < to; i++)
        if (d->score[i] != SCORE_NONE) {
            double e = d->result[i] - sigmoid(d->score[i] / k);
            sum += e * e;
        }
    return sum;
}

/* Where the records carry the engine's scores, the target becomes
 * lambda * sigmoid(score / Ks) + (1 - lambda) * result, Ks fitted so that the scores
 * predict the results best. Each input file gets its own Ks: files labelled by different
 * engines (tune records, tune label) speak in different scales. Writes "Ks 1096.2 (a.txt)"
 * per file with scores into ks_text. */
static void mix_scores(FitData *d, double lambda, double fixed_ks, char *ks_text, size_t ks_len) {
    ks_text[0] = '\0';
    for (int f = 0; f < d->inputs; f++) {
        int from = d->file_first[f], to = d->file_first[f + 1], scored = 0;
        for (int i = from; i < to; i++)
            scored += d->score[i] != SCORE_NONE;
        if (!scored)
            continue;
        double k = fixed_ks;
        if (k <= 0) {
            double lo = 50, hi = 5000;
            for (int it = 0; it < 40; it++) {
                double a = hi - (hi - lo) / 1.618, b = lo + (hi - lo) / 1.618;
                if (score_loss(d, from, to, a) < score_loss(d, from, to, b))
                    hi = b;
                else
                    lo = a;
            }
            k = (lo + hi) / 2;
        }
        for (int i = from; i < to; i++)
            if (d->score[i] != SCORE_NONE)
                d->target[i] = (float)(lambda * sigmoid(d->score[i] / k) + (1 - lambda) * d->result[i]);
        fprintf(stderr, "tune: %s: %d of %d positions have a score; their scale Ks %.1f%s, lambda %.2f\n",
                d->file_name[f], scored, to - from, k, fixed_ks > 0 ? " (given)" : "", lambda);
        const char *base = strrchr(d->file_name[f], '/');
        size_t used = strlen(ks_text);
        snprintf(ks_text + used, ks_len - used, "%sKs %.1f (%s)", used ? ", " : "", k,
                 base ? base + 1 : d->file_name[f]);
    }
    if (!ks_text[0])
        snprintf(ks_text, ks_len, "none");
}

/* Black's evaluation of position i under linear weights v (floats) and the stored danger. */
static double linear_eval(const FitData *d, int i, const double *v) {
    double e = d->danger[i];
    for (size_t j = d->first[i]; j < d->first[i + 1]; j++)
        e += v[d->feats[j].index] * d->feats[j].coef;
    return e;
}

/* Mean squared error over the training (held == false) or held-out positions; with
 * grad, also accumulates the training gradient d loss / d v. */
static double fit_loss(const FitData *d, const double *v, double k, bool held, double *grad) {
    double sum = 0;
    int count = 0;
    for (int i = 0; i < d->n; i++) {
        if (d->held_out[i] != held)
            continue;
        double q = sigmoid(linear_eval(d, i, v) / k), err = d->target[i] - q;
        sum += err * err;
        count++;
        if (grad) {
            double g = -2 * err * q * (1 - q) / k;
            for (size_t j = d->first[i]; j < d->first[i + 1]; j++)
                grad[d->feats[j].index] += g * d->feats[j].coef;
        }
    }
    if (grad && count)
        for (int j = 0; j < CLASSIC_LINEAR_COUNT; j++)
            grad[j] /= count;
    return count ? sum / count : 0;
}

/* Loss of integer weights w with king safety recomputed (for the danger weights). */
static double int_loss(const FitData *d, const ClassicWeights *w, double k, bool held) {
    const int *v = (const int *)w;
    double sum = 0;
    int count = 0;
    for (int i = 0; i < d->n; i++) {
        if (d->held_out[i] != held)
            continue;
        double e = classic_danger(w, &d->pos[i]);
        for (size_t j = d->first[i]; j < d->first[i + 1]; j++)
            e += v[d->feats[j].index] * d->feats[j].coef;
        double err = d->target[i] - sigmoid(e / k);
        sum += err * err;
        count++;
    }
    return count ? sum / count : 0;
}

/* ---- output: the complete classic_weights.c ---- */

typedef struct {
    const char *name;
    size_t offset;
    int dims[6]; /* zero-terminated */
} FieldShape;

#define SHAPE(f, ...)                                                                                                  \
    {                                                                                                                  \
#f, offsetof(ClassicWeights, f), { __VA_ARGS__ }                                                               \
    }
static const FieldShape SHAPES[] = {
    SHAPE(board, PIECE_TYPE_NB),
    SHAPE(hand, GOLD + 1, HAND_COUNT_NB),
    SHAPE(own_king, PIECE_TYPE_NB, KREL_DX, KREL_DY),
    SHAPE(enemy_king, PIECE_TYPE_NB, KREL_DX, KREL_DY),
    SHAPE(own_king_region, KREG_NB, PIECE_TYPE_NB, KREG_DX, KREL_DY),
    SHAPE(enemy_king_region, KREG_NB, PIECE_TYPE_NB, KREG_DX, KREL_DY),
    SHAPE(pst, PIECE_TYPE_NB, PST_RANKS, PST_FILES),
    SHAPE(own_kp, KP_KING_NB, PIECE_TYPE_NB, SQ_NB),
    SHAPE(enemy_kp, KP_KING_NB, PIECE_TYPE_NB, SQ_NB),
    SHAPE(mobility, PIECE_TYPE_NB, MOBILITY_NB),
    SHAPE(tempo, 1),
    SHAPE(king_zone, KREG_NB, ZONE_SQ, ZONE_COUNT, ZONE_COUNT, ZONE_OCC),
    SHAPE(hand_attack, GOLD + 1, HAND_ATTACK_NB, ZONE_WEAK_NB),
    SHAPE(phase_board, PHASE_NB, PIECE_TYPE_NB),
    SHAPE(phase_hand, PHASE_NB, GOLD + 1, HAND_COUNT_NB),
    SHAPE(phase_zone, PHASE_NB, ZONE_SQ, ZONE_COUNT, ZONE_COUNT, ZONE_OCC),
    SHAPE(phase_own_king, PHASE_NB, PIECE_TYPE_NB, KREL_DX, KREL_DY),
    SHAPE(phase_enemy_king, PHASE_NB, PIECE_TYPE_NB, KREL_DX, KREL_DY),
    SHAPE(danger_attack, 1),
    SHAPE(danger_defence, 1),
    SHAPE(danger_hand, 1),
    SHAPE(danger_scale, 1),
};

static void print_block(FILE *f, const int *v, const int *dims, int nd) {
    if (nd == 1) {
        fputc('{', f);
        for (int i = 0; i < dims[0]; i++)
            fprintf(f, "%s%d", i ? ", " : "", v[i]);
        fputc('}', f);
        return;
    }
    int stride = 1;
    for (int i = 1; i < nd; i++)
        stride *= dims[i];
    fputs("{\n", f);
    for (int i = 0; i < dims[0]; i++) {
        print_block(f, v + i * stride, dims + 1, nd - 1);
        fputs(i + 1 < dims[0] ? ",\n" : "\n", f);
    }
    fputc('}', f);
}

static void print_weights(FILE *f, const ClassicWeights *w, const char *note) {
    fprintf(f,
            "/* classic_weights.c - the embedded evaluation's weights, written by `hayanagi tune fit`\n"
            " * (docs/eval.md has the procedure); edit by refitting, not by hand.\n%s */\n"
            "#include \"eval/classic.h\"\n\n"
            "// clang-format off\n"
            "const ClassicWeights classic_default_weights = {\n",
            note);
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        const FieldShape *sh = &SHAPES[s];
        int nd = 0;
        while (nd < 5 && sh->dims[nd])
            nd++;
        const int *v = (const int *)((const char *)w + sh->offset);
        fprintf(f, ".%s = ", sh->name);
        if (nd == 1 && sh->dims[0] == 1)
            fprintf(f, "%d", v[0]);
        else
            print_block(f, v, sh->dims, nd);
        fputs(",\n", f);
    }
    fputs("};\n// clang-format on\n", f);
}

static void usage(FILE *f) {
    fprintf(f, "usage: hayanagi tune fit [--epochs E] [--lr R] [--lr-end R] [--l2 L] [--lambda X] [--k K] [--ks S]\n"
               "                         [--out FILE] IN...\n"
               "Fits the classic evaluation's weights to the positions of IN (tune generate, records or label)\n"
               "and writes them as C source to FILE.\n"
               "  --epochs E   Adam epochs (default 400)       --lr R, --lr-end R  learning rate, start and end\n"
               "  --l2 L       L2 penalty (default 1e-7)       --lambda X  weight of the results against scores\n"
               "  --k K        the sigmoid scale (default: fitted)   --ks S  the scale of the teacher's scores\n");
}

int tune_fit_main(int argc, char **argv) {
    static const char prog[] = "hayanagi tune fit";
    static const struct option longopts[] = {
        {"epochs", required_argument, NULL, 'e'}, {"lr", required_argument, NULL, 'r'},
        {"lr-end", required_argument, NULL, 'R'}, {"l2", required_argument, NULL, 'l'},
        {"lambda", required_argument, NULL, 'x'}, {"k", required_argument, NULL, 'k'},
        {"ks", required_argument, NULL, 'K'},     {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    int epochs = 400;
    double lr = 1.0, lr_end = -1, l2 = 1e-7, lambda = 0.5, fixed_ks = 0, fixed_k = 0;
    const char *out = NULL;
    FitData d;
    memset(&d, 0, sizeof d);
    int inputs = 0;
    char **av = cli_opts_begin(prog, argc, argv);
    if (!av)
        return 1;
    int c, st = -1;
    while (st < 0 && (c = getopt_long(argc, av, "", longopts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'e': ok = parse_int(optarg, 0, 100000000, &epochs); break;
        case 'r': ok = parse_double(optarg, 1e-300, 1e300, &lr); break;
        case 'R': ok = parse_double(optarg, 1e-300, 1e300, &lr_end); break;
        case 'l': ok = parse_double(optarg, 0, 1e300, &l2); break;
        case 'x': ok = parse_double(optarg, 0, 1, &lambda); break;
        case 'k': ok = parse_double(optarg, 1, 100000, &fixed_k); break;
        case 'K': ok = parse_double(optarg, 1, 100000, &fixed_ks); break;
        case 'o': out = optarg; break;
        case 'h':
            usage(stdout);
            st = 0;
            break;
        default: st = cli_opts_unknown(prog); break;
        }
        if (!ok)
            st = cli_opts_bad_value(prog, longopts, c, optarg, "out of range or malformed");
    }
    for (int i = optind; st < 0 && i < argc; i++) {
        if (d.inputs == MAX_INPUTS) {
            fprintf(stderr, "hayanagi tune: at most %d input files\n", MAX_INPUTS);
            st = CLI_USAGE_ERROR;
            break;
        }
        d.file_name[d.inputs] = av[i];
        d.file_first[d.inputs] = d.n;
        if (!load_file(av[i], &d)) {
            st = 1;
            break;
        }
        d.file_first[++d.inputs] = d.n;
        inputs++;
    }
    free(av);
    if (st >= 0) {
        data_free(&d);
        return st;
    }
    if (!inputs || epochs < 0 || lr <= 0 || l2 < 0 || lambda < 0 || lambda > 1) {
        data_free(&d);
        usage(stderr);
        return CLI_USAGE_ERROR;
    }
    if (lr_end <= 0)
        lr_end = lr;
    char ks_text[256];
    mix_scores(&d, lambda, fixed_ks, ks_text, sizeof ks_text);
    ClassicWeights w = classic_default_weights;
    if (d.n < 10 || !extract_features(&d, &w)) {
        fprintf(stderr, "hayanagi tune: %s\n", d.n < 10 ? "too few positions" : "out of memory");
        data_free(&d);
        return 1;
    }
    double *v = calloc(CLASSIC_LINEAR_COUNT, sizeof *v), *v0 = calloc(CLASSIC_LINEAR_COUNT, sizeof *v0);
    double *best_v = calloc(CLASSIC_LINEAR_COUNT, sizeof *best_v), *g = calloc(CLASSIC_LINEAR_COUNT, sizeof *g);
    double *m1 = calloc(CLASSIC_LINEAR_COUNT, sizeof *m1), *m2 = calloc(CLASSIC_LINEAR_COUNT, sizeof *m2);
    int rc = 1;
    if (!v || !v0 || !best_v || !g || !m1 || !m2)
        goto done;
    for (int j = 0; j < CLASSIC_LINEAR_COUNT; j++)
        v[j] = v0[j] = best_v[j] = ((const int *)&w)[j];

    /* The scale K by golden-section search on the starting weights, unless given. */
    double k = fixed_k;
    if (k <= 0) {
        double lo = 50, hi = 3000;
        for (int it = 0; it < 40; it++) {
            double a = hi - (hi - lo) / 1.618, b = lo + (hi - lo) / 1.618;
            if (fit_loss(&d, v, a, false, NULL) < fit_loss(&d, v, b, false, NULL))
                hi = b;
            else
                lo = a;
        }
        k = (lo + hi) / 2;
    }
    double train0 = fit_loss(&d, v, k, false, NULL), held0 = fit_loss(&d, v, k, true, NULL);
    double best_held = held0;
    int best_epoch = 0;
    fprintf(stderr, "tune: %d positions (%zu features), K %.1f, loss train %.6f held-out %.6f\n", d.n, d.nfeats, k,
            train0, held0);
    const double beta1 = 0.9, beta2 = 0.999;
    for (int epoch = 1; epoch <= epochs; epoch++) {
        memset(g, 0, CLASSIC_LINEAR_COUNT * sizeof *g);
        double train = fit_loss(&d, v, k, false, g);
        double b1 = 1 - pow(beta1, epoch), b2 = 1 - pow(beta2, epoch);
        double step = epochs > 1 ? lr * pow(lr_end / lr, (double)(epoch - 1) / (epochs - 1)) : lr;
        for (int j = 0; j < CLASSIC_LINEAR_COUNT; j++) {
            double gj = g[j] + 2 * l2 * (v[j] - v0[j]);
            if (gj == 0 && m1[j] == 0)
                continue; /* a feature the data never shows keeps its weight */
            m1[j] = beta1 * m1[j] + (1 - beta1) * gj;
            m2[j] = beta2 * m2[j] + (1 - beta2) * gj * gj;
            v[j] -= step * (m1[j] / b1) / (sqrt(m2[j] / b2) + 1e-12);
        }
        double held = fit_loss(&d, v, k, true, NULL);
        if (held < best_held) {
            best_held = held;
            best_epoch = epoch;
            memcpy(best_v, v, CLASSIC_LINEAR_COUNT * sizeof *v);
        }
        if (epoch % 25 == 0 || epoch == epochs)
            fprintf(stderr, "tune: epoch %d/%d lr %.3g loss train %.6f held-out %.6f (best %.6f at %d)\n", epoch,
                    epochs, step, train, held, best_held, best_epoch);
    }
    bool any_held = false;
    for (int i = 0; i < d.n && !any_held; i++)
        any_held = d.held_out[i];
    if (!any_held) /* too little data to hold any out: the last epoch it is */
        memcpy(best_v, v, CLASSIC_LINEAR_COUNT * sizeof *v);
    int *wi = (int *)&w;
    for (int j = 0; j < CLASSIC_LINEAR_COUNT; j++)
        wi[j] = (int)lround(best_v[j]);

    /* King safety: coordinate descent on the training loss. */
    double cur = int_loss(&d, &w, k, false);
    for (int step = epochs ? 8 : 0; step >= 1; step /= 2) {
        bool improved = true;
        for (int pass = 0; improved && pass < 4; pass++) {
            improved = false;
            for (int j = CLASSIC_LINEAR_COUNT; j < CLASSIC_WEIGHT_COUNT; j++) {
                for (int dir = -1; dir <= 1; dir += 2) {
                    wi[j] += dir * step;
                    double l = wi[j] >= 0 ? int_loss(&d, &w, k, false) : INFINITY;
                    if (l < cur - 1e-9) {
                        cur = l;
                        improved = true;
                        break;
                    }
                    wi[j] -= dir * step;
                }
            }
        }
    }
    double train1 = int_loss(&d, &w, k, false), held1 = int_loss(&d, &w, k, true);
    fprintf(stderr, "tune: final loss train %.6f held-out %.6f (danger %d %d %d %d)\n", train1, held1, w.danger_attack,
            w.danger_defence, w.danger_hand, w.danger_scale);

    char note[1024];
    snprintf(note, sizeof note,
             " * Last fit: %d positions, K %.1f, %d epochs (best held-out at %d), lr %g to %g, l2 %g,\n"
             " * record scores: %s, lambda %g;\n * loss train %.6f -> %.6f, held-out %.6f -> %.6f.\n",
             d.n, k, epochs, best_epoch, lr, lr_end, l2, ks_text, lambda, train0, train1, held0, held1);
    if (out) {
        AtomicFile af;
        char err[512];
        if (!atomic_file_open(&af, out, err, sizeof err)) {
            fprintf(stderr, "hayanagi tune: %s\n", err);
            goto done;
        }
        print_weights(af.f, &w, note);
        if (!atomic_file_commit(&af, err, sizeof err)) {
            fprintf(stderr, "hayanagi tune: %s\n", err);
            goto done;
        }
    } else {
        print_weights(stdout, &w, note);
    }
    rc = 0;
done:
    free(v);
    free(v0);
    free(best_v);
    free(g);
    free(m1);
    free(m2);
    data_free(&d);
    return rc;
}
