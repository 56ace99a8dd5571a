/* sensim placement: rank candidate poses of a lidar by what it sees of a
 * region of interest (sensim/placement.h), pick M of them greedily, shard a
 * large search and merge the shards' rankings.
 *
 * Per candidate: a fresh lidar (the same pattern from t = 0 for everyone),
 * or each lidar of a rig on its mount, scans the scene from the candidate
 * (platform) pose for the integration time, rounded
 * up to whole frames, with points in the world frame; the points fill the
 * ROI grid and the object counts; the pattern's nominal beams give what each
 * object box would receive with nothing in the way. Object boxes are added
 * to the scene as actors, so objects hide each other.
 *
 * score = w_d·log10(1 + density) + w_u/(1 + cv) + w_c·coverage
 *       + w_v·visible/objects (0 without objects) + w_i·information gain share;
 * a function of the candidate alone, so shards merge to the single run. */
#include "batch.h"
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES 100000
#define MAX_OBJECTS 4096
#define OBJECT_ID_BASE 1000000u

typedef struct cand_result {
    uint32_t index;
    uint32_t row; /* --merge: the row's place among the shards' lines */
    double pose6[6];
    sensim_roi_metrics m;
    uint32_t visible, occluded, out_of_view, by_static, by_objects;
    double info_bits, info_share;
    double score;
} cand_result;

typedef struct plan {
    sensim_roi_desc roi;
    uint32_t nx, ny;
    double w[5];
    const double *boxes;
    uint32_t nboxes;
    const uint32_t *box_ids; /* the boxes' actor ids */
    const float *prior; /* occupancy prior per cell, or NULL (0.5) */
} plan;

static double score_of(const plan *p, const sensim_roi_metrics *m, uint32_t visible, double info_share)
{
    double s = p->w[0] * log10(1 + m->density_per_m2) + p->w[1] / (1 + m->cell_cv) + p->w[2] * m->coverage;
    if (p->nboxes)
        s += p->w[3] * (double)visible / (double)p->nboxes;
    return s + p->w[4] * info_share;
}

/* Object states; an occluded object is blamed on what stopped most of its
 * blocked beams (static world, or other objects; ties: static). */
static void states(const plan *p, const uint32_t *pts, const uint32_t *shots, const uint32_t *bst,
                   const uint32_t *bob, cand_result *r)
{
    r->visible = r->occluded = r->out_of_view = r->by_static = r->by_objects = 0;
    const uint32_t k = p->roi.min_points;
    for (uint32_t b = 0; b < p->nboxes; b++) {
        if (pts[b] >= k) {
            r->visible++;
        } else if (shots[b] >= k) {
            r->occluded++;
            if (bob[b] > bst[b])
                r->by_objects++;
            else
                r->by_static++;
        } else {
            r->out_of_view++;
        }
    }
}

/* A lidar of the rig (or the one --lidar) and its ring, made for the first
 * candidate and rewound for the next ones: every candidate scans the same
 * span from t = 0, as a new lidar would (sensim_lidar_rewind). */
typedef struct lidar_slot {
    sensim_lidar *l;
    sensim_ring *ring;
    void *mem;
    int64_t P, T; /* frame period; the scanned span, whole frames */
} lidar_slot;

static void slots_free(lidar_slot *slots, uint32_t n)
{
    for (uint32_t s = 0; s < n; s++) {
        sensim_lidar_destroy(slots[s].l);
        free(slots[s].mem);
        memset(&slots[s], 0, sizeof slots[s]);
    }
}

static sensim_status slot_make(lidar_slot *o, const sensor_spec *spec, const char *const *sets, uint32_t nsets,
                               double duration_s)
{
    const char *all[2 * MAX_SETS + 1];
    uint32_t n = 0;
    for (uint32_t i = 0; i < spec->nsets; i++) /* the rig's keys, then --set, then the world frame */
        all[n++] = spec->sets[i];
    for (uint32_t i = 0; i < nsets; i++)
        all[n++] = sets[i];
    all[n++] = "points_frame=world";
    sensim_lidar_info li;
    sensim_status st = sensim_lidar_create_from_preset(g_ctx, spec->preset, all, n, &o->l);
    if (st == SENSIM_OK)
        st = sensim_lidar_get_info(o->l, &li);
    if (st != SENSIM_OK)
        return st;
    o->P = li.frame_period_ns;
    const int64_t frames = (int64_t)ceil(duration_s * 1e9 / (double)o->P - 1e-9);
    o->T = (frames < 1 ? 1 : frames) * o->P;
    uint64_t cap;
    size_t size;
    if ((st = sensim_lidar_ring_size(o->l, 2, &cap, &size)) == SENSIM_OK && !(o->mem = malloc(size)))
        st = SENSIM_ERR_OUT_OF_MEMORY;
    if (st == SENSIM_OK)
        st = sensim_ring_init(o->mem, size, cap, 2, SENSIM_OVERFLOW_FAIL, &o->ring);
    return st;
}

/* One lidar of a candidate: scan, add to the grid and the object counts. 0 or an exit status. */
static int evaluate_lidar(const plan *p, const sensim_scene *scene, const sensor_spec *spec, const char *const *sets,
                          uint32_t nsets, double duration_s, const double pose[16], lidar_slot *o, uint32_t *cells,
                          uint32_t *obj_pts, uint32_t *obj_shots, uint32_t *obj_bst, uint32_t *obj_bob, double *scan_s)
{
    sensim_status st = o->l ? sensim_lidar_rewind(o->l) : slot_make(o, spec, sets, nsets, duration_s);
    for (int64_t t = 0; st == SENSIM_OK && t < o->T; t += o->P) { /* a frame a call: the ring never fills */
        double a = now_s();
        st = sensim_lidar_scan(o->l, scene, t, t + o->P, pose, o->ring, NULL);
        *scan_s += now_s() - a; /* time inside the scan: a candidate's cost against its bare scan */
        sensim_frame_view v;
        while (st == SENSIM_OK && sensim_ring_peek(o->ring, &v) == SENSIM_OK) {
            for (int k = 0; k < 2 && st == SENSIM_OK; k++) {
                st = sensim_roi_accumulate(&p->roi, v.points[k], v.counts[k], cells, NULL);
                if (st == SENSIM_OK)
                    st = sensim_boxes_count(p->boxes, p->nboxes, v.points[k], v.counts[k], obj_pts);
            }
            sensim_ring_release(o->ring);
        }
    }
    if (st == SENSIM_OK)
        st = sensim_lidar_box_shots(o->l, 0, o->T, pose, p->boxes, p->nboxes, obj_shots, scene, p->box_ids, obj_bst,
                                    obj_bob);
    return st == SENSIM_OK ? 0 : fail(st);
}

/* One candidate: every lidar of the rig (or the one --lidar) from the
 * candidate platform pose, into one grid. 0 or an exit status. */
static int evaluate(const plan *p, const sensim_scene *scene, const sensor_spec *specs, uint32_t nspecs,
                    const char *const *sets, uint32_t nsets, double duration_s, const double pose6[6],
                    lidar_slot *slots, uint32_t *cells, uint32_t *obj_pts, uint32_t *obj_shots, uint32_t *obj_bst,
                    uint32_t *obj_bob, double *scan_s)
{
    double pose[16];
    sensim_status st = sensim_pose_from_frame(SENSIM_FRAME_NATIVE, pose6, pose6 + 3, pose);
    if (st != SENSIM_OK)
        return fail(st);
    memset(cells, 0, (size_t)p->nx * p->ny * sizeof *cells);
    memset(obj_pts, 0, p->nboxes * sizeof *obj_pts);
    memset(obj_shots, 0, p->nboxes * sizeof *obj_shots);
    memset(obj_bst, 0, p->nboxes * sizeof *obj_bst);
    memset(obj_bob, 0, p->nboxes * sizeof *obj_bob);
    for (uint32_t s = 0; s < nspecs; s++) {
        if (specs[s].camera || specs[s].nav || specs[s].radar)
            continue; /* lidars only */
        int rc = evaluate_lidar(p, scene, &specs[s], sets, nsets, duration_s, pose, &slots[s], cells, obj_pts,
                                obj_shots, obj_bst, obj_bob, scan_s);
        if (rc)
            return rc;
    }
    return 0;
}

/* Candidates are scored in parallel, one per worker thread, each worker
 * with its own lidars (rewound per candidate) scanning on one thread: a
 * short scan (0.1 s) parallelises poorly over its own lanes, independent
 * candidates do not. Results go to the candidate's own row and grid, so
 * the output is the same for any worker count and order. */
typedef struct cand_job {
    const plan *p;
    const sensim_scene *scene;
    const sensor_spec *specs;
    uint32_t nspecs, nsets, nc, shard_n, shard_k, nb;
    const char *const *sets;
    double duration_s;
    const double *cand;
    bool select_m, maps;
    size_t ncell;
    uint32_t *grids, *opts, *oshots; /* per candidate with select_m, else per worker */
    cand_result *res;                /* row c / shard_n of candidate c */
    const char *out;
    atomic_uint next;                /* the next candidate to take */
    atomic_int stop;                 /* an error: take no more */
} cand_job;

typedef struct cand_worker {
    cand_job *job;
    uint32_t id;
    lidar_slot slots[MAX_SENSORS];
    uint32_t *obst, *obob;
    double scan_s;
    int rc;
} cand_worker;

static int score_candidate(cand_worker *w, uint32_t c)
{
    cand_job *j = w->job;
    const plan *p = j->p;
    size_t slot = j->select_m ? c : w->id;
    uint32_t *cells = &j->grids[slot * j->ncell], *op = &j->opts[slot * j->nb], *os = &j->oshots[slot * j->nb];
    int rc = evaluate(p, j->scene, j->specs, j->nspecs, j->sets, j->nsets, j->duration_s, &j->cand[6 * c], w->slots,
                      cells, op, os, w->obst, w->obob, &w->scan_s);
    if (rc)
        return rc;
    cand_result *r = &j->res[c / j->shard_n];
    r->index = c;
    memcpy(r->pose6, &j->cand[6 * c], sizeof r->pose6);
    sensim_status st = sensim_roi_evaluate(&p->roi, cells, &r->m);
    if (st != SENSIM_OK)
        return fail(st);
    states(p, op, os, w->obst, w->obob, r);
    if ((st = sensim_roi_information_gain(&p->roi, cells, p->prior, &r->info_bits, &r->info_share)) != SENSIM_OK)
        return fail(st);
    r->score = score_of(p, &r->m, r->visible, r->info_share);
    if (j->maps) {
        char path[4200];
        snprintf(path, sizeof path, "%s/candidate_%06u.png", j->out, c);
        if ((st = sensim_write_roi_png(path, &p->roi, cells, &j->cand[6 * c], 1, NULL, NULL)) != SENSIM_OK)
            return fail(st);
    }
    return 0;
}

static void *cand_worker_run(void *arg)
{
    cand_worker *w = arg;
    cand_job *j = w->job;
    while (!atomic_load(&j->stop)) {
        uint32_t c = atomic_fetch_add(&j->next, 1);
        if (c >= j->nc)
            break;
        if (c % j->shard_n != j->shard_k)
            continue;
        if ((w->rc = score_candidate(w, c)) != 0) {
            atomic_store(&j->stop, 1);
            break;
        }
    }
    slots_free(w->slots, MAX_SENSORS);
    return NULL;
}

/* Score every candidate of this shard on @p nworkers threads; 0 or the
 * first worker's exit status. Adds the time inside the scans to @p scan_s. */
static int score_all(cand_job *j, uint32_t nworkers, double *scan_s)
{
    cand_worker *w = calloc(nworkers, sizeof *w);
    pthread_t *tid = calloc(nworkers, sizeof *tid);
    uint32_t started = 0;
    int rc = 0;
    for (uint32_t k = 0; w && tid && k < nworkers; k++) {
        w[k].job = j, w[k].id = k;
        w[k].obst = calloc(j->nb + 1, sizeof *w[k].obst), w[k].obob = calloc(j->nb + 1, sizeof *w[k].obob);
        if (!w[k].obst || !w[k].obob)
            break;
    }
    for (uint32_t k = 0; w && tid && k < nworkers && w[k].obst && w[k].obob; k++, started++)
        if (k > 0 && pthread_create(&tid[k], NULL, cand_worker_run, &w[k]) != 0)
            break;
    if (!w || !tid || started < nworkers) { /* no memory or no thread: what started finishes the work */
        rc = started ? 0 : fail(SENSIM_ERR_OUT_OF_MEMORY);
    }
    if (started)
        cand_worker_run(&w[0]); /* the calling thread is worker 0 */
    for (uint32_t k = 1; k < started; k++)
        pthread_join(tid[k], NULL);
    for (uint32_t k = 0; w && k < nworkers; k++) {
        if (!rc && k < started && w[k].rc)
            rc = w[k].rc;
        *scan_s += w[k].scan_s;
        free(w[k].obst);
        free(w[k].obob);
    }
    free(w);
    free(tid);
    return rc;
}

static int io_fail(const char *path)
{
    fprintf(stderr, "sensim: error: %s: cannot write: %s\n", path, strerror(errno));
    return EXIT_STATUS_BASE + SENSIM_ERR_IO;
}

static int by_score(const void *a, const void *b)
{
    const cand_result *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Columns: every measure but cv and nuc grows with a better placement. cv is
 * the coefficient of variation of the ROI cells' point counts (population
 * std / mean; 0 = perfectly even, lower is better; "inf" without points) and
 * enters the score as U / (1 + cv); nuc is PCSim's non-uniformity (lower is
 * better). Before 0.2 the cv column was called "uniformity"; --merge still
 * reads shards written with that name. */
static const char CSV_HEADER[] = "candidate,x,y,z,roll,pitch,yaw,density,cv,coverage,visible_objects,score,"
                                 "nuc,roi_points,occluded_objects,out_of_view_objects,information_gain,information_bits,"
                                 "occluded_by_static,occluded_by_objects";
static const char CSV_HEADER_01[] = "candidate,x,y,z,roll,pitch,yaw,density,uniformity,coverage,visible_objects,"
                                    "score,nuc,roi_points,occluded_objects,out_of_view_objects,information_gain,"
                                    "information_bits,occluded_by_static,occluded_by_objects";

static void csv_row(FILE *f, const cand_result *r)
{
    fprintf(f, "%u", r->index);
    for (int k = 0; k < 6; k++)
        fprintf(f, ",%.17g", r->pose6[k]);
    fprintf(f, ",%.17g,%.17g,%.17g,%u,%.17g,%.17g,%llu,%u,%u,%.17g,%.17g,%u,%u\n", r->m.density_per_m2, r->m.cell_cv,
            r->m.coverage, r->visible, r->score, r->m.nuc, (unsigned long long)r->m.points, r->occluded,
            r->out_of_view, r->info_share, r->info_bits, r->by_static, r->by_objects);
}

/* ranking.csv (best first) and ranking.json in @p out, through temporary names. */
static int write_ranking(const char *out, cand_result *r, uint32_t n, const plan *p)
{
    qsort(r, n, sizeof *r, by_score);
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/ranking.csv", out);
    FILE *f = cli_tmp_create(path, tmp, sizeof tmp);
    if (!f)
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    fprintf(f, "%s\n", CSV_HEADER);
    for (uint32_t i = 0; i < n; i++)
        csv_row(f, &r[i]);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return io_fail(path);
    snprintf(path, sizeof path, "%s/ranking.json", out);
    if (!(f = cli_tmp_create(path, tmp, sizeof tmp)))
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    fprintf(f, "{\"roi\": [%.17g, %.17g, %.17g, %.17g], \"roi_z\": [%.17g, %.17g], \"cell_m\": %.17g, "
               "\"min_points\": %u, \"weights\": {\"density\": %.17g, \"uniformity\": %.17g, \"coverage\": %.17g, "
               "\"visibility\": %.17g, \"information\": %.17g}, \"objects\": %u,\n \"ranking\": [",
            p->roi.xmin, p->roi.ymin, p->roi.xmax, p->roi.ymax, p->roi.zmin, p->roi.zmax, p->roi.cell_m,
            p->roi.min_points, p->w[0], p->w[1], p->w[2], p->w[3], p->w[4], p->nboxes);
    for (uint32_t i = 0; i < n; i++) {
        const cand_result *c = &r[i];
        fprintf(f, "%s\n  {\"candidate\": %u, \"pose\": [%.17g, %.17g, %.17g, %.17g, %.17g, %.17g], "
                   "\"density\": %.17g, \"cv\": %s%.17g%s, \"nuc\": %s%.17g%s, \"coverage\": %.17g, "
                   "\"roi_points\": %llu, \"visible_objects\": %u, \"occluded_objects\": %u, "
                   "\"out_of_view_objects\": %u, \"occluded_by_static\": %u, \"occluded_by_objects\": %u, "
                   "\"information_gain\": %.17g, \"information_bits\": %.17g, \"score\": %.17g}",
                i ? "," : "", c->index, c->pose6[0], c->pose6[1], c->pose6[2], c->pose6[3], c->pose6[4], c->pose6[5],
                c->m.density_per_m2, isfinite(c->m.cell_cv) ? "" : "\"", isfinite(c->m.cell_cv) ? c->m.cell_cv : 0,
                isfinite(c->m.cell_cv) ? "" : "inf\"", isfinite(c->m.nuc) ? "" : "\"",
                isfinite(c->m.nuc) ? c->m.nuc : 0, isfinite(c->m.nuc) ? "" : "nan\"", c->m.coverage,
                (unsigned long long)c->m.points, c->visible, c->occluded, c->out_of_view, c->by_static, c->by_objects,
                c->info_share, c->info_bits, c->score);
    }
    fprintf(f, "\n]}\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return io_fail(path);
    return 0;
}

/* --merge: the shards' ranking.csv rows, re-sorted into one ranking. */
static int merge(const char *out, char *dirs)
{
    cand_result *r = NULL;
    uint32_t n = 0, cap = 0;
    int rc = 0;
    char *save = NULL, **texts = NULL;
    for (char *d = strtok_r(dirs, ",", &save); d && !rc; d = strtok_r(NULL, ",", &save)) {
        char path[4200], line[4096];
        snprintf(path, sizeof path, "%s/ranking.csv", d);
        FILE *f;
        if ((rc = open_regular_file(path, &f)) != 0)
            break;
        unsigned long long ln = 0;
        while (!rc && fgets(line, sizeof line, f)) {
            ln++;
            if (ln == 1) {
                if (strncmp(line, CSV_HEADER, sizeof CSV_HEADER - 1) &&
                    strncmp(line, CSV_HEADER_01, sizeof CSV_HEADER_01 - 1))
                    rc = msg_fail("%s:%llu: not a sensim placement ranking%s", path, ln, "");
                continue;
            }
            cand_result c;
            memset(&c, 0, sizeof c);
            double v[19];
            char *p = line, *end;
            int k = 0;
            unsigned long idx = strtoul(p, &end, 10);
            if (end == p || *end != ',' || idx >= MAX_CANDIDATES)
                k = -1;
            for (p = end; k >= 0 && k < 19 && *p == ','; k++) {
                p++;
                errno = 0;
                v[k] = strtod(p, &end);
                if (end == p || errno)
                    break;
                p = end;
            }
            if (k != 19 || (*p != '\n' && *p)) {
                rc = msg_fail("%s:%llu: malformed ranking row%s", path, ln, "");
                break;
            }
            if (n == cap) {
                uint32_t nc = cap ? 2 * cap : 256;
                cand_result *nr = realloc(r, nc * sizeof *nr);
                char **nt = realloc(texts, nc * sizeof *nt);
                if (nr)
                    r = nr;
                if (nt)
                    texts = nt;
                if (!nr || !nt) {
                    rc = msg_fail("%s:%llu: out of memory%s", path, ln, "");
                    break;
                }
                cap = nc;
            }
            c.index = (uint32_t)idx;
            c.score = v[10];
            c.row = n;
            if (!(texts[n] = strdup(line))) {
                rc = msg_fail("%s:%llu: out of memory%s", path, ln, "");
                break;
            }
            r[n++] = c;
        }
        fclose(f);
    }
    if (!rc) {
        qsort(r, n, sizeof *r, by_score);
        for (uint32_t i = 1; i < n && !rc; i++)
            if (r[i].index == r[i - 1].index)
                rc = msg_fail("--merge: candidate %s%llu appears in two shards%s", "", r[i].index, "");
    }
    int out_lock; /* the folder's run lock, as batch and collect take it (held until exit) */
    if (!rc && !ensure_dir(out))
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    if (!rc)
        rc = claim_output(out, NULL, 0, 0, 0, 0, 1, &out_lock);
    if (!rc) {
        char path[4200], tmp[4300];
        snprintf(path, sizeof path, "%s/ranking.csv", out);
        FILE *f = cli_tmp_create(path, tmp, sizeof tmp);
        if (!f) {
            rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
        } else {
            fprintf(f, "%s\n", CSV_HEADER);
            for (uint32_t i = 0; i < n; i++)
                fputs(texts[r[i].row], f);
            if (fclose(f) != 0 || rename(tmp, path) != 0)
                rc = io_fail(path);
        }
        if (!rc)
            printf("merged %u candidates into %s/ranking.csv\n", n, out);
    }
    for (uint32_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    free(r);
    return rc;
}

/* "A" or "A:B:STEP" into values (at most cap); how many, 0 on error. */
static uint32_t axis_values(const char *s, double *v, uint32_t cap)
{
    double a[3];
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *c = buf; *c; c++)
        *c = *c == ':' ? ',' : *c;
    int n = parse_numbers(buf, a, 1, 3);
    if (n == 1) {
        v[0] = a[0];
        return 1;
    }
    if (n != 3 || !(a[2] > 0) || a[1] < a[0])
        return 0;
    double steps = floor((a[1] - a[0]) / a[2] + 1e-9) + 1;
    if (steps > cap)
        return 0;
    for (uint32_t i = 0; i < (uint32_t)steps; i++)
        v[i] = a[0] + i * a[2];
    return (uint32_t)steps;
}

/* Candidates on mounting surfaces: vertical rays dropped on a @p step grid
 * over the ROI widened by @p margin, kept where the first surface hit is
 * nearly level (normal z >= 0.9) and carries one of @p tags (pole tops,
 * roofs); the candidate stands @p height above it, yaw 0. Deterministic: grid
 * order. 0 or an exit status; *out malloc'ed (6 per candidate). */
static int surface_candidates(const sensim_scene *scene, const plan *p, const char *tag_list, double step,
                              double margin, double height, double **out, uint32_t *n)
{
    *out = NULL, *n = 0;
    uint8_t want[256] = {0};
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", tag_list);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int32_t id = sensim_tag_from_name(t);
        if (id < 0) {
            char m[300];
            snprintf(m, sizeof m, "--surfaces: unknown tag '%.100s' (CARLA names: Poles, Buildings, ...)", t);
            return usage(m);
        }
        want[id] = 1;
    }
    const double x0 = p->roi.xmin - margin, y0 = p->roi.ymin - margin;
    const double nxf = floor((p->roi.xmax - p->roi.xmin + 2 * margin) / step) + 1,
                 nyf = floor((p->roi.ymax - p->roi.ymin + 2 * margin) / step) + 1;
    if (nxf * nyf > 4e6)
        return usage("--surfaces: more than 4 million drop points (raise --surface-step)");
    const uint64_t nr = (uint64_t)(nxf * nyf);
    float *org = malloc(nr * 3 * sizeof *org);
    sensim_ray_hit *hits = malloc(nr * sizeof *hits);
    double *c = malloc(nr * 6 * sizeof *c);
    if (!org || !hits || !c) {
        free(org), free(hits), free(c);
        return fail(SENSIM_ERR_OUT_OF_MEMORY);
    }
    for (uint64_t k = 0; k < nr; k++) {
        org[3 * k] = (float)(x0 + (double)(k % (uint64_t)nxf) * step);
        org[3 * k + 1] = (float)(y0 + (double)(k / (uint64_t)nxf) * step);
        org[3 * k + 2] = 1e4f;
    }
    const float down[3] = {0, 0, -1};
    sensim_ray_batch b;
    memset(&b, 0, sizeof b);
    b.count = nr, b.origins = org;
    sensim_status st = SENSIM_OK;
    float *dirs = malloc(nr * 3 * sizeof *dirs); /* every ray straight down (a stride of 0 means packed) */
    if (!dirs)
        st = SENSIM_ERR_OUT_OF_MEMORY;
    for (uint64_t k = 0; dirs && k < nr; k++)
        memcpy(&dirs[3 * k], down, sizeof down);
    b.directions = dirs;
    if (st == SENSIM_OK)
        st = sensim_scene_intersect(scene, &b, hits);
    for (uint64_t k = 0; st == SENSIM_OK && k < nr; k++) {
        const sensim_ray_hit *h = &hits[k];
        if (!h->hit || !want[h->tag] || h->normal[2] < 0.9f)
            continue;
        double *q = &c[6 * (*n)++];
        q[0] = org[3 * k], q[1] = org[3 * k + 1], q[2] = 1e4 - h->distance + height;
        q[3] = q[4] = q[5] = 0;
    }
    free(org), free(hits), free(dirs);
    if (st != SENSIM_OK) {
        free(c);
        return fail(st);
    }
    *out = c;
    return 0;
}

int cmd_placement(int argc, char **argv)
{
    const char *scene_arg = NULL, *lidar_arg = NULL, *rig_arg = NULL, *cand_path = NULL, *grid = NULL, *out = NULL, *objects = NULL,
               *tags = NULL, *occupancy = NULL, *surfaces = NULL, *sets[MAX_SETS];
    char *merge_dirs = NULL;
    uint32_t nsets = 0, threads = 0, select_m = 0, shard_k = 0, shard_n = 1;
    double duration_s = 0.1, surface_step = 2, surface_margin = 30, mount_height = 0.5;
    int maps = 1, have_roi = 0, json = 0;
    plan p;
    memset(&p, 0, sizeof p);
    sensim_roi_desc_init(&p.roi);
    p.w[0] = p.w[1] = p.w[2] = p.w[3] = p.w[4] = 1;
    g_flatten = FLATTEN_DEFAULT;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-maps")) {
            maps = 0;
            continue;
        }
        if (!strcmp(a, "--json")) { /* the summary as one JSON line (benchmarks) */
            json = 1;
            continue;
        }
        if (!v)
            return usage_option(a, 1);
        i++;
        double t[6];
        if (!strcmp(a, "--scene"))
            scene_arg = v;
        else if (!strcmp(a, "--lidar"))
            lidar_arg = v;
        else if (!strcmp(a, "--rig"))
            rig_arg = v;
        else if (!strcmp(a, "--candidates"))
            cand_path = v;
        else if (!strcmp(a, "--grid"))
            grid = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--objects"))
            objects = v;
        else if (!strcmp(a, "--tags"))
            tags = v;
        else if (!strcmp(a, "--flatten-actors")) {
            if (!parse_u32(v, &g_flatten))
                return usage("--flatten-actors needs a triangle budget 0..4294967295");
        }
        else if (!strcmp(a, "--occupancy"))
            occupancy = v;
        else if (!strcmp(a, "--surfaces"))
            surfaces = v;
        else if (!strcmp(a, "--surface-step") || !strcmp(a, "--surface-margin")) {
            if (parse_numbers(v, t, 1, 1) != 1 || !(t[0] >= 0.05 && t[0] <= 1000))
                return usage("--surface-step and --surface-margin need 0.05..1000 m");
            *(!strcmp(a, "--surface-step") ? &surface_step : &surface_margin) = t[0];
        } else if (!strcmp(a, "--mount-height")) {
            if (parse_numbers(v, t, 1, 1) != 1 || !(t[0] >= -100 && t[0] <= 1000))
                return usage("--mount-height needs -100..1000 m");
            mount_height = t[0];
        }
        else if (!strcmp(a, "--merge"))
            merge_dirs = (char *)v;
        else if (!strcmp(a, "--roi")) {
            if (parse_numbers(v, t, 4, 4) != 4)
                return usage("--roi needs xmin,ymin,xmax,ymax (metres, world)");
            p.roi.xmin = t[0], p.roi.ymin = t[1], p.roi.xmax = t[2], p.roi.ymax = t[3];
            have_roi = 1;
        } else if (!strcmp(a, "--roi-z")) {
            if (parse_numbers(v, t, 2, 2) != 2)
                return usage("--roi-z needs zmin,zmax (metres)");
            p.roi.zmin = t[0], p.roi.zmax = t[1];
        } else if (!strcmp(a, "--cell")) {
            if (parse_numbers(v, t, 1, 1) != 1 || !(t[0] >= 0.01 && t[0] <= 1000))
                return usage("--cell needs a cell size in 0.01..1000 m");
            p.roi.cell_m = t[0];
        } else if (!strcmp(a, "--min-points")) {
            if (!parse_u32(v, &p.roi.min_points) || p.roi.min_points < 1)
                return usage("--min-points needs an integer >= 1");
        } else if (!strcmp(a, "--duration")) {
            if (parse_numbers(v, t, 1, 1) != 1 || !(t[0] > 0 && t[0] <= 3600))
                return usage("--duration needs seconds in (0, 3600]");
            duration_s = t[0];
        } else if (!strcmp(a, "--weights")) {
            int nw = parse_numbers(v, p.w, 4, 5);
            if (nw == 4)
                p.w[4] = 1;
            if (nw < 4 || p.w[0] < 0 || p.w[1] < 0 || p.w[2] < 0 || p.w[3] < 0 || p.w[4] < 0)
                return usage("--weights needs density,uniformity,coverage,visibility[,information] (>= 0)");
        } else if (!strcmp(a, "--select")) {
            if (!parse_u32(v, &select_m) || select_m < 1 || select_m > 64)
                return usage("--select needs M in 1..64 (lidars picked greedily)");
        } else if (!strcmp(a, "--shard")) {
            if (!parse_shard(v, &shard_k, &shard_n))
                return usage("--shard needs K/N with 0 <= K < N <= 100000");
        } else if (!strcmp(a, "--threads")) {
            if (!parse_u32(v, &threads) || threads > 1024)
                return usage("--threads needs an integer in 0..1024 (0 = all cores)");
        } else if (!strcmp(a, "--seed")) {
            uint32_t s;
            if (!parse_u32(v, &s))
                return usage("--seed needs a non-negative integer");
            p.roi.seed = s;
        } else if (!strcmp(a, "--set")) {
            if (!strchr(v, '=') || nsets == MAX_SETS - 2)
                return usage("--set needs KEY=VALUE");
            sets[nsets++] = v;
        } else {
            return usage_option(a, 0);
        }
    }
    if (merge_dirs) {
        if (!out || scene_arg || lidar_arg || rig_arg || cand_path || grid)
            return usage("--merge DIR,DIR,... takes --out only");
        return merge(out, merge_dirs);
    }
    if (!scene_arg || !lidar_arg == !rig_arg || !out || !have_roi || (!!cand_path + !!grid + !!surfaces) != 1)
        return usage("placement needs --scene, one of --lidar or --rig, --roi, --out and one of --candidates FILE, "
                     "--grid or --surfaces");
    if (select_m && shard_n > 1)
        return usage("--select needs every candidate in one run (no --shard)");
    sensim_status st = sensim_roi_grid_size(&p.roi, &p.nx, &p.ny);
    if (st != SENSIM_OK)
        return fail(st);
    /* candidates */
    double *cand = NULL, *boxes = NULL;
    uint32_t nc = 0, nb = 0;
    int rc = 0;
    if (cand_path) {
        rc = load_number_rows(cand_path, "x,y,z,roll,pitch,yaw", 6, MAX_CANDIDATES, &cand, &nc);
    } else if (grid) {
        char buf[512], *save = NULL;
        snprintf(buf, sizeof buf, "%s", grid);
        double ax[4][1000];
        uint32_t na[4] = {0, 0, 0, 0}, k = 0;
        for (char *s = strtok_r(buf, ",", &save); s && k < 4; s = strtok_r(NULL, ",", &save), k++)
            na[k] = axis_values(s, ax[k], 1000);
        if (k != 4 || !na[0] || !na[1] || !na[2] || !na[3] || (double)na[0] * na[1] * na[2] * na[3] > MAX_CANDIDATES)
            return usage("--grid needs X,Y,Z,YAW, each A or A:B:STEP (at most 10^5 candidates)");
        nc = na[0] * na[1] * na[2] * na[3];
        if (!(cand = malloc((size_t)nc * 6 * sizeof *cand)))
            return fail(SENSIM_ERR_OUT_OF_MEMORY);
        uint32_t c = 0;
        for (uint32_t a = 0; a < na[0]; a++)
            for (uint32_t b = 0; b < na[1]; b++)
                for (uint32_t z = 0; z < na[2]; z++)
                    for (uint32_t y = 0; y < na[3]; y++, c++) {
                        double *q = &cand[6 * c];
                        q[0] = ax[0][a], q[1] = ax[1][b], q[2] = ax[2][z], q[3] = 0, q[4] = 0, q[5] = ax[3][y];
                    }
    }
    if (!rc && nc == 0 && !surfaces)
        rc = usage("no candidates");
    if (!rc && objects)
        rc = load_number_rows(objects, "xmin,ymin,zmin,xmax,ymax,zmax", 6, MAX_OBJECTS, &boxes, &nb);
    for (uint32_t k = 0; !rc && k < nb; k++) { /* boxes within the scene's ±1e9 m, each a real box */
        const double *q = &boxes[6 * k];
        for (int c = 0; c < 6 && !rc; c++)
            if (!(fabs(q[c]) <= 1e9))
                rc = msg_fail("%s: box %llu: a coordinate beyond ±1e9 m%s", objects, k + 1ull,
                              " (xmin,ymin,zmin,xmax,ymax,zmax, metres)");
        if (!rc && !(q[0] < q[3] && q[1] < q[4] && q[2] < q[5]))
            rc = msg_fail("%s: box %llu: needs xmin < xmax, ymin < ymax and zmin < zmax%s", objects, k + 1ull, "");
    }
    p.boxes = boxes, p.nboxes = nb;
    float *prior = NULL;
    if (!rc && occupancy) { /* rows x,y,p: the cell holding (x, y) gets p; cells not listed 0 */
        double *occ = NULL;
        uint32_t no = 0;
        rc = load_number_rows(occupancy, "x,y,p", 3, 1u << 24, &occ, &no);
        if (!rc && !(prior = calloc((size_t)p.nx * p.ny, sizeof *prior)))
            rc = fail(SENSIM_ERR_OUT_OF_MEMORY);
        for (uint32_t k = 0; !rc && k < no; k++) {
            const double *q = &occ[3 * k];
            if (!(q[2] >= 0 && q[2] <= 1)) {
                rc = msg_fail("%s: row %llu: p must be in [0, 1]%s", occupancy, k + 1, "");
                break;
            }
            if (q[0] < p.roi.xmin || q[0] >= p.roi.xmax || q[1] < p.roi.ymin || q[1] >= p.roi.ymax)
                continue; /* outside the ROI */
            uint32_t i = (uint32_t)((q[0] - p.roi.xmin) / p.roi.cell_m), j = (uint32_t)((q[1] - p.roi.ymin) / p.roi.cell_m);
            prior[(size_t)(j < p.ny ? j : p.ny - 1) * p.nx + (i < p.nx ? i : p.nx - 1)] = (float)q[2];
        }
        free(occ);
    }
    p.prior = prior;
    /* the lidars a candidate carries: a rig's (mounts from its file), or the one --lidar */
    sensor_spec *specs = calloc(MAX_SENSORS, sizeof *specs);
    uint32_t nspecs = 0;
    if (!rc && !specs)
        rc = fail(SENSIM_ERR_OUT_OF_MEMORY);
    if (!rc && rig_arg) {
        rc = load_rig_file(rig_arg, specs, &nspecs);
    } else if (!rc) {
        snprintf(specs[0].name, sizeof specs[0].name, "lidar");
        snprintf(specs[0].preset, sizeof specs[0].preset, "%s", lidar_arg);
        nspecs = 1;
    }
    uint32_t nlidars = 0;
    for (uint32_t k = 0; k < nspecs; k++)
        nlidars += !specs[k].camera && !specs[k].nav && !specs[k].radar;
    if (!rc && !nlidars)
        rc = usage("the rig has no lidar");
    if (!rc)
        rc = open_context(threads);
    if (rc) {
        free(cand);
        free(boxes);
        free(prior);
        if (specs)
            free_specs(specs, nspecs);
        free(specs);
        return rc;
    }
    /* the scene, with the object boxes as actors that hide each other */
    sensim_scene *scene = NULL;
    st = sensim_scene_create(g_ctx, &scene);
    if (st == SENSIM_OK)
        st = load_scene(scene_arg, SENSIM_FRAME_NATIVE, tags, scene);
    for (uint32_t b = 0; st == SENSIM_OK && b < nb; b++) {
        const double *q = &boxes[6 * b];
        float v[24];
        for (int c = 0; c < 8; c++)
            v[3 * c] = (float)q[c & 1 ? 3 : 0], v[3 * c + 1] = (float)q[c & 2 ? 4 : 1], v[3 * c + 2] = (float)q[c & 4 ? 5 : 2];
        static const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                         2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
        sensim_mesh_desc md;
        sensim_mesh_desc_init(&md);
        md.vertices = v, md.vertex_count = 8, md.indices = idx, md.triangle_count = 12;
        md.tag = 14; /* Car */
        md.flags = SENSIM_MESH_PROTOTYPE;
        uint32_t mid;
        const double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        st = sensim_scene_add_mesh(scene, &md, &mid);
        if (st == SENSIM_OK)
            st = sensim_scene_add_actor(scene, mid, OBJECT_ID_BASE + b, I);
    }
    if (st == SENSIM_OK)
        st = sensim_scene_commit(scene);
    if (st != SENSIM_OK)
        rc = fail(st);
    if (!rc && surfaces) { /* candidates where the scene offers a mount, found before the object boxes hide it */
        rc = surface_candidates(scene, &p, surfaces, surface_step, surface_margin, mount_height, &cand, &nc);
        if (!rc && nc == 0) {
            fprintf(stderr, "sensim: error: --surfaces %s: no level surface of those tags within %g m of the ROI\n",
                    surfaces, surface_margin);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
        }
        if (!rc && nc > MAX_CANDIDATES) {
            fprintf(stderr, "sensim: error: --surfaces %s: %u candidates found, at most %u are scored: raise "
                            "--surface-step or narrow the ROI\n", surfaces, nc, (unsigned)MAX_CANDIDATES);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
        }
    }
    int out_lock; /* the folder's run lock, as batch and collect take it (held until exit); shards share it */
    if (!rc && !ensure_dir(out))
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    if (!rc)
        rc = claim_output(out, NULL, 0, 0, 0, shard_k, shard_n, &out_lock);
    const size_t ncell = (size_t)p.nx * p.ny;
    uint32_t mine = 0;
    for (uint32_t c = 0; c < nc; c++)
        mine += c % shard_n == shard_k;
    cand_result *res = calloc(mine ? mine : 1, sizeof *res);
    /* workers: one candidate each at a time, each lidar scanning on one thread */
    const uint32_t threads_all = sensim_context_thread_count(g_ctx);
    const uint32_t nworkers = mine < threads_all ? (mine ? mine : 1) : threads_all;
    uint32_t *grids = calloc((select_m ? (size_t)nc : nworkers) * ncell, sizeof *grids);
    uint32_t *opts = calloc(((select_m ? (size_t)nc : nworkers) * nb) + 1, sizeof *opts);
    uint32_t *oshots = calloc(((select_m ? (size_t)nc : nworkers) * nb) + 1, sizeof *oshots);
    uint32_t *ids = calloc(nb + 1, 4);
    for (uint32_t b = 0; ids && b < nb; b++)
        ids[b] = OBJECT_ID_BASE + b;
    p.box_ids = ids;
    if (!rc && (!res || !grids || !opts || !oshots || !ids))
        rc = fail(SENSIM_ERR_OUT_OF_MEMORY);
    double t0 = now_s(), scan_s = 0;
    uint32_t done = mine;
    if (!rc) {
        cand_job cj = {.p = &p, .scene = scene, .specs = specs, .nspecs = nspecs, .nsets = nsets, .nc = nc,
                       .shard_n = shard_n, .shard_k = shard_k, .nb = nb, .sets = sets, .duration_s = duration_s,
                       .cand = cand, .select_m = select_m != 0, .maps = maps != 0, .ncell = ncell, .grids = grids,
                       .opts = opts, .oshots = oshots, .res = res, .out = out};
        atomic_init(&cj.next, 0);
        atomic_init(&cj.stop, 0);
        if (nworkers > 1 && (st = sensim_context_set_thread_count(g_ctx, 1)) != SENSIM_OK)
            rc = fail(st);
        if (!rc)
            rc = score_all(&cj, nworkers, &scan_s);
        if (nworkers > 1)
            (void)sensim_context_set_thread_count(g_ctx, threads_all); /* the same count, set again */
    }
    double secs = now_s() - t0;
    if (!rc)
        rc = write_ranking(out, res, done, &p);
    if (!rc && select_m) { /* greedy M of N: each pick maximises the score of the union */
        uint32_t *sum = calloc(ncell, sizeof *sum), *try = calloc(ncell, sizeof *try);
        uint32_t *sp = calloc(nb + 1, sizeof *sp), *ss = calloc(nb + 1, sizeof *ss), *tp = calloc(nb + 1, sizeof *tp),
                 *ts = calloc(nb + 1, sizeof *ts);
        uint8_t *taken = calloc(nc, 1);
        char path[4200];
        snprintf(path, sizeof path, "%s/selection.csv", out);
        FILE *f = sum && try && sp && ss && tp && ts && taken ? fopen(path, "w") : NULL;
        if (!f) {
            rc = io_fail(path);
        } else {
            fprintf(f, "step,candidate,x,y,z,roll,pitch,yaw,density,cv,coverage,visible_objects,score\n");
            double pts_xy[128];
            for (uint32_t step = 0; step < select_m && step < nc; step++) {
                double best = -INFINITY;
                uint32_t bc = 0;
                sensim_roi_metrics bm;
                memset(&bm, 0, sizeof bm);
                uint32_t bv = 0;
                for (uint32_t c = 0; c < nc; c++) {
                    if (taken[c])
                        continue;
                    for (size_t q = 0; q < ncell; q++) {
                        uint64_t s = (uint64_t)sum[q] + grids[c * ncell + q];
                        try[q] = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
                    }
                    for (uint32_t b = 0; b < nb; b++)
                        tp[b] = sp[b] + opts[c * nb + b], ts[b] = ss[b] + oshots[c * nb + b];
                    sensim_roi_metrics m;
                    (void)sensim_roi_evaluate(&p.roi, try, &m); /* the ROI was checked above */
                    uint32_t vis = 0;
                    for (uint32_t b = 0; b < nb; b++)
                        vis += tp[b] >= p.roi.min_points;
                    double bits, share;
                    (void)sensim_roi_information_gain(&p.roi, try, p.prior, &bits, &share);
                    double s = score_of(&p, &m, vis, share);
                    if (s > best) /* ties: the lowest index */
                        best = s, bc = c, bm = m, bv = vis;
                }
                taken[bc] = 1;
                for (size_t q = 0; q < ncell; q++) {
                    uint64_t s = (uint64_t)sum[q] + grids[bc * ncell + q];
                    sum[q] = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
                }
                for (uint32_t b = 0; b < nb; b++)
                    sp[b] += opts[bc * nb + b], ss[b] += oshots[bc * nb + b];
                fprintf(f, "%u,%u", step + 1, bc);
                for (int k = 0; k < 6; k++)
                    fprintf(f, ",%.17g", cand[6 * bc + k]);
                fprintf(f, ",%.17g,%.17g,%.17g,%u,%.17g\n", bm.density_per_m2, bm.cell_cv, bm.coverage, bv, best);
                pts_xy[2 * step] = cand[6 * bc], pts_xy[2 * step + 1] = cand[6 * bc + 1];
                if (maps && step + 1 == (select_m < nc ? select_m : nc)) {
                    char mp[4200];
                    snprintf(mp, sizeof mp, "%s/selection.png", out);
                    if ((st = sensim_write_roi_png(mp, &p.roi, sum, pts_xy, step + 1, NULL, NULL)) != SENSIM_OK)
                        rc = fail(st);
                }
            }
            if (fclose(f) != 0)
                rc = io_fail(path);
        }
        free(sum), free(try), free(sp), free(ss), free(tp), free(ts), free(taken);
    }
    /* a candidate's cost against its scans: wall time x workers / time inside the scans */
    const double over_scan = scan_s > 0 ? secs * nworkers / scan_s : 0.0;
    if (!rc && json) {
        printf("{\"candidates\": %u, \"seconds\": %.4f, \"candidates_per_s\": %.3f, \"workers\": %u, "
               "\"scan_seconds\": %.4f, \"placement_candidate_over_scan\": %.4f, \"best\": %u, \"score\": %.6f}\n",
               done, secs, secs > 0 ? done / secs : 0.0, nworkers, scan_s, over_scan, done ? res[0].index : 0,
               done ? res[0].score : 0.0);
    } else if (!rc) {
        printf("placement: %u candidates in %.3f s (%.2f candidates/s), best %u (score %.4f): %s/ranking.csv\n",
               done, secs, secs > 0 ? done / secs : 0.0, done ? res[0].index : 0, done ? res[0].score : 0.0, out);
        if (done && scan_s > 0)
            printf("placement: %u workers, %.3f s of scans (summed over the workers): a candidate costs %.2fx its "
                   "scan\n", nworkers, scan_s, over_scan);
    }
    free(res), free(grids), free(opts), free(oshots), free(ids), free(cand), free(boxes),
        free(prior);
    free_specs(specs, nspecs);
    free(specs);
    sensim_scene_destroy(scene);
    sensim_context_destroy(g_ctx);
    g_ctx = NULL;
    return rc;
}
