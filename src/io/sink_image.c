/* Image sinks (sensim/sink.h): camera captures in CARLA's synchronized-collection layout.
 *
 * Without threads a capture's files are written inside write(). With N
 * encoder threads write() reserves the capture's bytes in the queue's budget
 * (blocking while it is full), copies the images and returns; each capture
 * is cut into tasks, one per file (depth PNG, depth PFM, the semantic PNGs,
 * instance, normal, rgb), taken in order by whichever thread is free, so the
 * files of one capture and of consecutive captures are written in parallel.
 * The thread that finishes a capture's last file writes its JSON (the marker
 * of a complete capture), frees the copy and returns its bytes to the budget.
 * Every file's bytes depend on its capture only: any N writes the same files. */
#include "internal.h"
#include "ring_impl.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define SENSIM_MAGIC_IMAGE_SINK 0x4B534953u
#define MAX_ENCODER_THREADS 64
#define DEFAULT_QUEUE_BYTES (UINT64_C(64) << 20)

enum { T_DEPTH_PNG, T_DEPTH_PFM, T_SEMANTIC, T_CITYSCAPES, T_INSTANCE, T_NORMAL, T_RGB, T_COUNT };

/* One capture: its images (borrowed without threads, a copy with them) and its tasks. */
typedef struct capture {
    struct capture *next;
    uint64_t number;
    int64_t t_ns;
    double pose[16];
    uint32_t want;
    sensim_camera_images im;
    void *copy;      /* the images' copy (threads), freed with the capture */
    uint64_t bytes;  /* its share of the queue's budget */
    uint8_t task[T_COUNT];
    uint32_t ntasks, taken, done;
    int failed;      /* a file failed: no JSON */
} capture;

typedef struct encoder {
    sensim_image_sink *sink;
    pthread_t thread;
    uint8_t *img; /* 3 bytes a pixel of scratch */
    sensim__png_encoder png;
} encoder;

struct sensim_image_sink {
    uint32_t magic;
    char dir[4001];
    char name[64];
    const sensim_camera *camera;
    sensim_camera_info info;
    int32_t frame;
    uint32_t outputs;
    const sensim_ring *ring; /* the ring it writes (bound by the first consume) */
    uint8_t *img; /* 3 bytes a pixel: the synchronous writer's scratch */
    sensim__png_encoder png;
    uint8_t tag_rgb[256][3]; /* sensim_tag_color of every 8-bit tag */
    /* write and consume hold it (recursive: consume writes), so a sink attached to rings of rigs stepped
     * on several threads takes turns: img and png above are one caller's scratch */
    pthread_mutex_t call_mu;
    /* encoder threads: everything below under mu */
    uint32_t nthreads;
    encoder *enc;
    pthread_mutex_t mu;
    pthread_cond_t work, room; /* work: a task or quit; room: budget freed or a capture finished */
    capture *head, *tail;      /* captures not finished, in write() order */
    capture *spare;            /* finished captures' copies, reused (within the budget) */
    uint64_t budget, queued;
    int quit;
    sensim_status err;         /* the first failure, sticky */
    char err_msg[1024];
    sensim_image_sink_stats st;
};

static const char *const output_names[] = {"depth", "semantic", "instance", "normal", "rgb"};

_Atomic uint32_t sensim__image_sink_test_delay_ms;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sensim_image_sink_desc_init(sensim_image_sink_desc *d)
{
    if (d)
        memset(d, 0, sizeof *d);
}

static void *encoder_main(void *arg);
static void free_capture(capture *c);

sensim_status sensim_image_sink_create(const sensim_image_sink_desc *d, sensim_image_sink **out)
{
    if (!d || !out || !d->dir || !d->camera_name)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_create: NULL argument");
    *out = NULL;
    sensim_status st = sensim__check_sink_strings("sensim_image_sink_create", d->dir, d->camera_name);
    if (st != SENSIM_OK)
        return st;
    if (d->frame < SENSIM_FRAME_NATIVE || d->frame > SENSIM_FRAME_ISO8855 || (d->outputs & ~UINT32_C(31)))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_create: frame %d or outputs 0x%x unknown",
                            d->frame, d->outputs);
    if (d->reserved_u32 || d->reserved[0] || d->reserved[1])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_create: reserved fields must be zero");
    if (d->threads > MAX_ENCODER_THREADS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_image_sink_create: threads %u (at most %d)", d->threads,
                            MAX_ENCODER_THREADS);
    sensim_camera_info info;
    st = sensim_camera_get_info(d->camera, &info); /* checks the handle */
    if (st != SENSIM_OK)
        return st;
    const size_t scratch = (size_t)info.width * info.height * 3;
    sensim_image_sink *s = calloc(1, sizeof *s);
    uint8_t *img = s ? malloc(scratch) : NULL;
    encoder *enc = img && d->threads ? calloc(d->threads, sizeof *enc) : NULL;
    if (!img || (d->threads && !enc)) {
        free(img);
        free(s);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_image_sink_create: %u x %u scratch image", info.width,
                            info.height);
    }
    s->magic = SENSIM_MAGIC_IMAGE_SINK;
    snprintf(s->dir, sizeof s->dir, "%s", d->dir);
    snprintf(s->name, sizeof s->name, "%s", d->camera_name);
    s->camera = d->camera;
    s->info = info;
    s->frame = d->frame == SENSIM_FRAME_ISO8855 ? SENSIM_FRAME_NATIVE : d->frame;
    s->outputs = d->outputs;
    s->img = img;
    for (uint32_t t = 0; t < 256; t++)
        sensim_tag_color(t, s->tag_rgb[t]);
    s->budget = d->queue_bytes ? d->queue_bytes : DEFAULT_QUEUE_BYTES;
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->call_mu, &a);
    pthread_mutexattr_destroy(&a);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->room, NULL);
    s->enc = enc;
    for (uint32_t k = 0; k < d->threads; k++) {
        enc[k].sink = s;
        if (!(enc[k].img = malloc(scratch)) || pthread_create(&enc[k].thread, NULL, encoder_main, &enc[k]) != 0) {
            free(enc[k].img);
            sensim_image_sink_destroy(s); /* ends the threads started so far */
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_image_sink_create: cannot start encoder thread %u of "
                                "%u", k + 1, d->threads);
        }
        s->nthreads = k + 1;
    }
    s->st.threads = s->nthreads;
    *out = s;
    return SENSIM_OK;
}

void sensim_image_sink_destroy(sensim_image_sink *s)
{
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK)
        return;
    pthread_mutex_lock(&s->mu);
    s->quit = 1; /* the threads write what is queued, then end */
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->mu);
    for (uint32_t k = 0; k < s->nthreads; k++) {
        pthread_join(s->enc[k].thread, NULL);
        free(s->enc[k].img);
        sensim__png_encoder_free(&s->enc[k].png);
    }
    sensim__png_encoder_free(&s->png);
    for (capture **l = &s->head; l; l = l == &s->head ? &s->spare : NULL)
        while (*l) { /* none queued: the threads end with an empty queue */
            capture *c = *l;
            *l = c->next;
            free_capture(c);
        }
    s->magic = SENSIM_MAGIC_DEAD;
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->room);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->call_mu);
    free(s->enc);
    free(s->img);
    free(s);
}

/* mkdir DIR/SUB unless it exists as a folder. */
static sensim_status sub_dir(const sensim_image_sink *s, const char *sub, char *d, size_t cap)
{
    snprintf(d, cap, "%s/%s", s->dir, sub);
    struct stat sb;
    if (mkdir(d, 0777) != 0 && errno != EEXIST)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot create the folder: %s", d, strerror(errno));
    if (stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return sensim__fail(SENSIM_ERR_IO, "%s exists and is not a folder", d);
    return SENSIM_OK;
}

/* What one task cost and wrote. */
typedef struct task_cost {
    double encode_cpu_s, write_s;
    uint64_t files, bytes;
} task_cost;

static sensim_status out_png(const sensim_image_sink *s, sensim__png_encoder *e, const char *sub, const char *stem,
                             const uint8_t *px, int filter, task_cost *tc, double cpu0)
{
    char d[4200], p[4300];
    sensim_status st = sub_dir(s, sub, d, sizeof d);
    if (st != SENSIM_OK)
        return st;
    snprintf(p, sizeof p, "%s/%s.png", d, stem);
    const uint32_t w = s->info.width, h = s->info.height;
    if ((uint64_t)h * ((uint64_t)w * 3 + 1) > SENSIM__PNG_MEM_MAX) { /* streamed by libpng: counted as encoding */
        st = sensim_write_png(p, w, h, 3, 8, px, (size_t)w * 3);
        tc->encode_cpu_s += cpu_s() - cpu0;
        tc->files += st == SENSIM_OK;
        return st;
    }
    const unsigned char *png;
    size_t n;
    st = sensim__png_encode(e, p, w, h, 3, 8, px, (size_t)w * 3, filter, &png, &n);
    tc->encode_cpu_s += cpu_s() - cpu0;
    if (st != SENSIM_OK)
        return st;
    double t0 = mono_s();
    st = sensim__write_bytes(p, png, n);
    tc->write_s += mono_s() - t0;
    if (st == SENSIM_OK)
        tc->files++, tc->bytes += n;
    return st;
}

/* PFM (grayscale "Pf", little-endian, rows bottom to top). */
static sensim_status write_pfm(const sensim_image_sink *s, const char *stem, const float *depth, task_cost *tc)
{
    char d[4200], path[4300], tmp[4400];
    sensim_status st = sub_dir(s, "depth", d, sizeof d);
    if (st != SENSIM_OK)
        return st;
    double t0 = mono_s();
    snprintf(path, sizeof path, "%s/%s.pfm", d, stem);
    FILE *f = sensim__create_tmp(path, tmp, sizeof tmp);
    if (!f)
        return SENSIM_ERR_IO;
    const uint32_t w = s->info.width, h = s->info.height;
    int hn = fprintf(f, "Pf\n%u %u\n-1.0\n", w, h);
    for (uint32_t y = h; y-- > 0;)
        fwrite(depth + (size_t)y * w, sizeof(float), w, f);
    st = sensim__commit_tmp(f, tmp, path);
    tc->write_s += mono_s() - t0;
    if (st == SENSIM_OK)
        tc->files++, tc->bytes += (uint64_t)(hn > 0 ? hn : 0) + (uint64_t)w * h * sizeof(float);
    return st;
}

static void json_numbers(FILE *f, const double *v, int n)
{
    for (int k = 0; k < n; k++)
        fprintf(f, "%s%.17g", k ? ", " : "[", v[k]);
    fputc(']', f);
}

/* One file of capture @p c, converted in @p img (3 bytes a pixel) when it needs converting. */
static sensim_status run_task(const sensim_image_sink *s, const capture *c, int task, uint8_t *img,
                              sensim__png_encoder *e, task_cost *tc)
{
    char stem[32];
    snprintf(stem, sizeof stem, "%06llu", (unsigned long long)c->number);
    const size_t px = (size_t)s->info.width * s->info.height;
    const sensim_camera_images *im = &c->im;
    double cpu0 = cpu_s();
    switch (task) {
    case T_DEPTH_PNG: /* CARLA's 24-bit encoding */
        for (size_t p = 0; p < px; p++) {
            uint32_t n = sensim__carla_depth24(im->depth[p]);
            img[3 * p] = (uint8_t)(n & 255), img[3 * p + 1] = (uint8_t)((n >> 8) & 255);
            img[3 * p + 2] = (uint8_t)(n >> 16);
        }
        return out_png(s, e, "depth", stem, img, SENSIM__PNG_FILTER_NONE, tc, cpu0);
    case T_DEPTH_PFM: /* float metres */
        return write_pfm(s, stem, im->depth, tc);
    case T_SEMANTIC: /* CARLA raw: tag in red */
        for (size_t p = 0; p < px; p++)
            img[3 * p] = im->semantic[p], img[3 * p + 1] = img[3 * p + 2] = 0;
        return out_png(s, e, "semantic", stem, img, SENSIM__PNG_FILTER_NONE, tc, cpu0);
    case T_CITYSCAPES: /* the CityScapes palette */
        for (size_t p = 0; p < px; p++)
            memcpy(&img[3 * p], s->tag_rgb[im->semantic[p]], 3);
        return out_png(s, e, "semantic_cityscapes", stem, img, SENSIM__PNG_FILTER_NONE, tc, cpu0);
    case T_INSTANCE: /* CARLA 0.9.14+: R tag (when held), G id low byte, B id high byte */
        for (size_t p = 0; p < px; p++)
            img[3 * p] = im->semantic ? im->semantic[p] : 0, img[3 * p + 1] = (uint8_t)(im->instance[p] & 255),
            img[3 * p + 2] = (uint8_t)((im->instance[p] >> 8) & 255);
        return out_png(s, e, "instance", stem, img, SENSIM__PNG_FILTER_NONE, tc, cpu0);
    case T_NORMAL: /* (n + 1) / 2 in each channel, optical frame */
        for (size_t p = 0; p < 3 * px; p++)
            img[p] = (uint8_t)lround((im->normal[p] + 1.0) * 127.5);
        return out_png(s, e, "normal", stem, img, SENSIM__PNG_FILTER_UP, tc, cpu0);
    default:
        return out_png(s, e, "rgb", stem, im->rgb, SENSIM__PNG_FILTER_UP, tc, cpu0);
    }
}

/* The capture's JSON, last: its presence marks a finished capture (batch --resume). */
static sensim_status write_json(const sensim_image_sink *s, const capture *c, task_cost *tc)
{
    char path[4300], tmp[4400];
    double t0 = mono_s();
    snprintf(path, sizeof path, "%s/%06llu.json", s->dir, (unsigned long long)c->number);
    FILE *f = sensim__create_tmp(path, tmp, sizeof tmp);
    if (!f)
        return SENSIM_ERR_IO;
    double out_pose[16];
    sensim_pose_matrix_to_frame(s->frame, c->pose, out_pose);
    fprintf(f, "{\"t_ns\": %lld, \"camera\": \"%s\", \"frame_of_reference\": \"%s\", \"units\": \"%s\",\n"
               " \"depth\": \"%s\", \"outputs\": [",
            (long long)c->t_ns, s->name,
            s->frame == SENSIM_FRAME_CARLA ? "carla" : s->frame == SENSIM_FRAME_UE ? "ue" : "native",
            s->frame == SENSIM_FRAME_UE ? "cm" : "m",
            !strcmp(s->info.distortion_model, "equidistant") ? "along the ray" : "planar");
    for (int k = 0, n = 0; k < 5; k++)
        if (c->want & (1u << k))
            fprintf(f, "%s\"%s\"", n++ ? ", " : "", output_names[k]);
    fprintf(f, "], \"sensor_pose\": ");
    json_numbers(f, out_pose, 16);
    fprintf(f, ",\n \"camera_info\": {\"width\": %u, \"height\": %u, \"distortion_model\": \"%s\", \"D\": ",
            s->info.width, s->info.height, s->info.distortion_model);
    json_numbers(f, s->info.d, 5);
    fprintf(f, ", \"K\": ");
    json_numbers(f, s->info.k, 9);
    fprintf(f, ", \"R\": ");
    json_numbers(f, s->info.r, 9);
    fprintf(f, ", \"P\": ");
    json_numbers(f, s->info.p, 12);
    fprintf(f, "}}\n");
    long size = ftell(f);
    sensim_status st = sensim__commit_tmp(f, tmp, path);
    tc->write_s += mono_s() - t0;
    if (st == SENSIM_OK)
        tc->files++, tc->bytes += size > 0 ? (uint64_t)size : 0;
    return st;
}

static void add_cost(sensim_image_sink *s, const task_cost *tc)
{
    s->st.encode_cpu_s += tc->encode_cpu_s;
    s->st.write_s += tc->write_s;
    s->st.files += tc->files;
    s->st.bytes += tc->bytes;
}

/* The first failure, kept for every later call (under mu; the message is this thread's). */
static void set_error(sensim_image_sink *s, sensim_status st)
{
    if (st == SENSIM_OK || s->err != SENSIM_OK)
        return;
    s->err = st;
    snprintf(s->err_msg, sizeof s->err_msg, "%s", sensim_context_last_error(NULL));
}

static sensim_status sticky_error(sensim_image_sink *s)
{
    pthread_mutex_lock(&s->mu);
    sensim_status st = s->err;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", s->err_msg);
    pthread_mutex_unlock(&s->mu);
    return st == SENSIM_OK ? st : sensim__fail(st, "%s", msg);
}

static void free_capture(capture *c)
{
    free(c->copy);
    free(c);
}

static void *encoder_main(void *arg)
{
    encoder *e = arg;
    sensim_image_sink *s = e->sink;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        capture *c = s->head;
        while (c && c->taken == c->ntasks)
            c = c->next;
        if (!c) {
            if (s->quit)
                break;
            pthread_cond_wait(&s->work, &s->mu);
            continue;
        }
        const int task = c->task[c->taken++], skip = s->err != SENSIM_OK; /* after a failure: nothing more */
        pthread_mutex_unlock(&s->mu);
        task_cost tc = {0};
        uint32_t delay_ms = atomic_load(&sensim__image_sink_test_delay_ms);
        if (delay_ms) {
            struct timespec ts = {(time_t)(delay_ms / 1000), (long)(delay_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        sensim_status st = skip ? SENSIM_OK : run_task(s, c, task, e->img, &e->png, &tc);
        pthread_mutex_lock(&s->mu);
        add_cost(s, &tc);
        set_error(s, st);
        c->failed |= skip || st != SENSIM_OK;
        if (++c->done < c->ntasks)
            continue;
        /* the capture's last file: its JSON, then it leaves the queue */
        if (!c->failed && s->err == SENSIM_OK) {
            pthread_mutex_unlock(&s->mu);
            memset(&tc, 0, sizeof tc);
            st = write_json(s, c, &tc);
            pthread_mutex_lock(&s->mu);
            add_cost(s, &tc);
            set_error(s, st);
            s->st.captures += st == SENSIM_OK;
        }
        capture **pp = &s->head, *prev = NULL;
        while (*pp != c)
            prev = *pp, pp = &(*pp)->next;
        *pp = c->next;
        if (s->tail == c)
            s->tail = prev;
        s->queued -= c->bytes;
        c->next = s->spare; /* its memory for a later capture (the same outputs: the same size) */
        s->spare = c;
        pthread_cond_broadcast(&s->room);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* The capture's files in order: depth PNG and PFM, semantic raw and CityScapes, instance, normal, rgb. */
static void plan_tasks(capture *c)
{
    static const uint32_t need[T_COUNT] = {SENSIM_CAMERA_DEPTH,    SENSIM_CAMERA_DEPTH,    SENSIM_CAMERA_SEMANTIC,
                                           SENSIM_CAMERA_SEMANTIC, SENSIM_CAMERA_INSTANCE, SENSIM_CAMERA_NORMAL,
                                           SENSIM_CAMERA_RGB};
    c->ntasks = 0;
    for (int t = 0; t < T_COUNT; t++)
        if (c->want & need[t])
            c->task[c->ntasks++] = (uint8_t)t;
}

/* The bytes of the images a capture's tasks read (its share of the budget), each block's size in @p n:
 * depth, normal, instance, semantic, rgb (floats first, then uint32, then bytes: each block aligned). */
static uint64_t capture_bytes(const sensim_image_sink *s, const capture *c, size_t n[5])
{
    const size_t px = (size_t)s->info.width * s->info.height;
    const int sem = (c->want & SENSIM_CAMERA_SEMANTIC) || ((c->want & SENSIM_CAMERA_INSTANCE) && c->im.semantic);
    n[0] = c->want & SENSIM_CAMERA_DEPTH ? px * sizeof(float) : 0;
    n[1] = c->want & SENSIM_CAMERA_NORMAL ? 3 * px * sizeof(float) : 0;
    n[2] = c->want & SENSIM_CAMERA_INSTANCE ? px * sizeof(uint32_t) : 0;
    n[3] = sem ? px : 0;
    n[4] = c->want & SENSIM_CAMERA_RGB ? 3 * px : 0;
    return sizeof(capture) + n[0] + n[1] + n[2] + n[3] + n[4];
}

/* Capture @p src with its images copied into @p q's memory (q->copy holds q->bytes − sizeof(capture)). */
static void fill_capture(capture *q, const capture *src, const size_t n[5])
{
    void *mem = q->copy;
    uint64_t bytes = q->bytes;
    *q = *src;
    q->copy = mem, q->bytes = bytes, q->next = NULL;
    memset(&q->im, 0, sizeof q->im);
    unsigned char *p = mem;
    if (n[0])
        q->im.depth = memcpy(p, src->im.depth, n[0]), p += n[0];
    if (n[1])
        q->im.normal = memcpy(p, src->im.normal, n[1]), p += n[1];
    if (n[2])
        q->im.instance = memcpy(p, src->im.instance, n[2]), p += n[2];
    if (n[3])
        q->im.semantic = memcpy(p, src->im.semantic, n[3]), p += n[3];
    if (n[4])
        q->im.rgb = memcpy(p, src->im.rgb, n[4]);
}

static sensim_status write_capture(sensim_image_sink *s, uint64_t number, int64_t t_ns, const double pose[16],
                                   const sensim_camera_images *im)
{
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK || !pose || !im)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_write: %s",
                            s && s->magic == SENSIM_MAGIC_IMAGE_SINK ? "NULL pose or images" : "not an image sink");
    uint32_t held = (im->depth ? SENSIM_CAMERA_DEPTH : 0) | (im->semantic ? SENSIM_CAMERA_SEMANTIC : 0) |
                    (im->instance ? SENSIM_CAMERA_INSTANCE : 0) | (im->normal ? SENSIM_CAMERA_NORMAL : 0) |
                    (im->rgb ? SENSIM_CAMERA_RGB : 0);
    uint32_t want = s->outputs ? s->outputs : held;
    if (want & ~held)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_write: the images lack outputs 0x%x",
                            want & ~held);
    capture c;
    memset(&c, 0, sizeof c);
    c.number = number, c.t_ns = t_ns, c.want = want, c.im = *im;
    memcpy(c.pose, pose, sizeof c.pose);
    plan_tasks(&c);
    if (s->nthreads == 0 || c.ntasks == 0) { /* every file now, in the caller (no images: the JSON alone) */
        task_cost tc = {0};
        sensim_status st = s->nthreads ? sticky_error(s) : SENSIM_OK;
        for (uint32_t k = 0; k < c.ntasks && st == SENSIM_OK; k++)
            st = run_task(s, &c, c.task[k], s->img, &s->png, &tc);
        if (st == SENSIM_OK)
            st = write_json(s, &c, &tc);
        pthread_mutex_lock(&s->mu);
        add_cost(s, &tc);
        s->st.captures += st == SENSIM_OK;
        pthread_mutex_unlock(&s->mu);
        return st;
    }
    sensim_status st = sticky_error(s);
    if (st != SENSIM_OK)
        return st;
    size_t n[5];
    const uint64_t bytes = capture_bytes(s, &c, n);
    pthread_mutex_lock(&s->mu); /* room in the budget first, then the copy: memory stays within it */
    if (s->queued > 0 && s->queued + bytes > s->budget && s->err == SENSIM_OK) {
        double t0 = mono_s();
        while (s->queued > 0 && s->queued + bytes > s->budget && s->err == SENSIM_OK)
            pthread_cond_wait(&s->room, &s->mu);
        s->st.waits++;
        s->st.wait_s += mono_s() - t0;
    }
    if (s->err != SENSIM_OK) {
        pthread_mutex_unlock(&s->mu);
        return sticky_error(s);
    }
    s->queued += bytes;
    if (s->queued > s->st.queue_peak_bytes)
        s->st.queue_peak_bytes = s->queued;
    capture *q = NULL;
    while (s->spare && !q) { /* a finished capture's memory, if of this size */
        capture *f = s->spare;
        s->spare = f->next;
        if (f->bytes == bytes)
            q = f;
        else
            free_capture(f);
    }
    pthread_mutex_unlock(&s->mu);
    if (!q && (q = calloc(1, sizeof *q)) != NULL && !(q->copy = malloc(bytes - sizeof *q + 1))) {
        free(q);
        q = NULL;
    }
    if (!q) {
        pthread_mutex_lock(&s->mu);
        s->queued -= bytes;
        pthread_cond_broadcast(&s->room);
        pthread_mutex_unlock(&s->mu);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_image_sink_write: cannot queue capture %llu (%u x %u)",
                            (unsigned long long)number, s->info.width, s->info.height);
    }
    q->bytes = bytes;
    fill_capture(q, &c, n); /* outside the lock: the threads go on meanwhile */
    pthread_mutex_lock(&s->mu);
    if (s->tail)
        s->tail->next = q;
    else
        s->head = q;
    s->tail = q;
    pthread_cond_broadcast(&s->work);
    pthread_mutex_unlock(&s->mu);
    return SENSIM_OK;
}

sensim_status sensim_image_sink_flush(sensim_image_sink *s)
{
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_flush: not an image sink");
    pthread_mutex_lock(&s->mu);
    while (s->head)
        pthread_cond_wait(&s->room, &s->mu);
    pthread_mutex_unlock(&s->mu);
    return sticky_error(s);
}

sensim_status sensim_image_sink_get_stats(const sensim_image_sink *sink, sensim_image_sink_stats *out)
{
    sensim_image_sink *s = (sensim_image_sink *)sink; /* the mutex only */
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_get_stats: %s",
                            out ? "not an image sink" : "NULL out");
    pthread_mutex_lock(&s->mu);
    *out = s->st;
    out->queued_bytes = s->queued;
    pthread_mutex_unlock(&s->mu);
    return SENSIM_OK;
}

static sensim_status consume(sensim_image_sink *s, sensim_ring *ring)
{
    sensim_status st = sensim__ring_check(ring);
    if (st != SENSIM_OK)
        return st;
    if (sensim__ring_kind(ring) != SENSIM__RING_IMAGES)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_consume: an image sink takes an image "
                                                         "ring");
    char what[4200];
    snprintf(what, sizeof what, "%.4000s/NNNNNN.*: a second camera's captures would overwrite them", s->dir);
    if ((st = sensim__sink_bind(&s->ring, ring, "sensim_image_sink_consume", what)) != SENSIM_OK)
        return st;
    sensim_image_view v;
    while ((st = sensim_ring_peek_image(ring, &v)) == SENSIM_OK) {
        if (v.width != s->info.width || v.height != s->info.height)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_consume: the ring holds %u x %u "
                                "images, the camera takes %u x %u", v.width, v.height, s->info.width, s->info.height);
        sensim_camera_images im;
        memset(&im, 0, sizeof im);
        im.depth = (float *)v.depth, im.semantic = (uint8_t *)v.semantic, im.instance = (uint32_t *)v.instance;
        im.normal = (float *)v.normal, im.rgb = (uint8_t *)v.rgb;
        st = write_capture(s, v.header->frame_number, v.header->t_begin_ns, v.header->sensor_pose, &im);
        sensim_status rel = sensim_ring_release(ring);
        if (st != SENSIM_OK)
            return st;
        if (rel != SENSIM_OK)
            return rel;
    }
    return st == SENSIM_ERR_RING_EMPTY ? SENSIM_OK : st;
}

sensim_status sensim_image_sink_write(sensim_image_sink *s, uint64_t number, int64_t t_ns, const double pose[16],
                                      const sensim_camera_images *im)
{
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK)
        return write_capture(s, number, t_ns, pose, im); /* refused there */
    pthread_mutex_lock(&s->call_mu);
    sensim_status st = write_capture(s, number, t_ns, pose, im);
    pthread_mutex_unlock(&s->call_mu);
    return st;
}

sensim_status sensim_image_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring)
{
    (void)sensor_index;
    sensim_image_sink *s = sink;
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_consume: not an image sink");
    pthread_mutex_lock(&s->call_mu);
    sensim_status st = consume(s, ring);
    pthread_mutex_unlock(&s->call_mu);
    return st;
}
