/* A rig's rings into a rosbag2 bag: the MCAP sink (sensim/sink.h), and one
 * camera capture's messages (sensim_mcap_write_capture), shared with
 * `sensim batch --format mcap`. */
#include "internal.h"
#include "ring_impl.h"
#include "mcap_impl.h"

#include <sensim/sink.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENSIM_MAGIC_MCAP_SINK UINT64_C(0x4b4e53504143414d) /* "MACPSNSK" */
#define NONE UINT16_MAX

static sensim_status write_capture(sensim_mcap *m, const uint16_t tp[6], int64_t t, const char *frame,
                                   const sensim_camera *camera, const sensim_camera_images *im)
{
    if (!m || !tp || !frame || !camera || !im)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_capture: NULL argument");
    sensim_camera_info ci;
    sensim_status st = sensim_camera_get_info(camera, &ci);
    if (st != SENSIM_OK)
        return st;
    const uint32_t W = ci.width, H = ci.height;
    if (im->depth && tp[0] != NONE && (st = sensim_mcap_write_image(m, tp[0], t, t, frame, W, H, "32FC1", 4 * W,
                                                                    im->depth)))
        return st;
    if (im->semantic && tp[1] != NONE &&
        (st = sensim_mcap_write_image(m, tp[1], t, t, frame, W, H, "mono8", W, im->semantic)))
        return st;
    if (im->instance && tp[2] != NONE) { /* CARLA's layout: R tag, G and B the low 16 bits of the object id */
        if (!im->semantic)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_capture: instance needs semantic");
        uint8_t *rgb = malloc((size_t)W * H * 3);
        if (!rgb)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_write_capture: %u x %u scratch", W, H);
        for (size_t p = 0; p < (size_t)W * H; p++) {
            rgb[3 * p] = im->semantic[p];
            rgb[3 * p + 1] = (uint8_t)(im->instance[p] & 255);
            rgb[3 * p + 2] = (uint8_t)((im->instance[p] >> 8) & 255);
        }
        st = sensim_mcap_write_image(m, tp[2], t, t, frame, W, H, "rgb8", 3 * W, rgb);
        free(rgb);
        if (st)
            return st;
    }
    if (im->normal && tp[3] != NONE &&
        (st = sensim_mcap_write_image(m, tp[3], t, t, frame, W, H, "32FC3", 12 * W, im->normal)))
        return st;
    if (im->rgb && tp[4] != NONE && (st = sensim_mcap_write_image(m, tp[4], t, t, frame, W, H, "rgb8", 3 * W,
                                                                  im->rgb)))
        return st;
    if (tp[5] != NONE && (st = sensim_mcap_write_camera_info(m, tp[5], t, t, frame, &ci)))
        return st;
    return SENSIM_OK;
}

/* One capture's messages in a row, even when other threads write to the writer. */
sensim_status sensim_mcap_write_capture(sensim_mcap *m, const uint16_t tp[6], int64_t t, const char *frame,
                                        const sensim_camera *camera, const sensim_camera_images *im)
{
    SENSIM__MCAP_LOCKED(m, write_capture(m, tp, t, frame, camera, im));
}

sensim_status sensim_mcap_write_odometry_sample(sensim_mcap *m, uint16_t tp, const char *odom, const char *child,
                                                const sensim_nav_sample *ns)
{
    if (!ns)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_odometry_sample: sample is NULL");
    const double *q = ns->orientation; /* unit quaternion (w, x, y, z) to a column-major rotation */
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    const double pose[16] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0,
                             2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0,
                             2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0,
                             ns->position[0], ns->position[1], ns->position[2], 1};
    return sensim_mcap_write_odometry(m, tp, ns->t_ns, ns->t_ns, odom, child, pose, ns->velocity_body,
                                      ns->angular_velocity);
}

struct sensim_mcap_sink {
    uint64_t magic;
    sensim_mcap_sink_desc d;
    char name[64], prefix[128], frame[80];
    int topics_made;
    uint16_t tp[6];
    const sensim_ring *ring; /* the ring it writes (bound by the first consume) */
    /* consume holds it: a sink attached to rings of several rigs stepped on several threads takes turns */
    pthread_mutex_t mu;
};

void sensim_mcap_sink_desc_init(sensim_mcap_sink_desc *d)
{
    if (d)
        memset(d, 0, sizeof *d);
}

sensim_status sensim_mcap_sink_create(const sensim_mcap_sink_desc *d, sensim_mcap_sink **out)
{
    if (!d || !out || !d->writer || !d->name)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_sink_create: NULL argument (desc, writer, name)");
    *out = NULL;
    for (int i = 0; i < 3; i++)
        if (d->reserved[i])
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_sink_create: reserved[%d] is not zero", i);
    const char *pre = d->topic_prefix ? d->topic_prefix : "";
    size_t n = strlen(d->name);
    if (n == 0 || n > 48 || strlen(pre) > 100)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_sink_create: name of 1..48 bytes, prefix of at "
                            "most 100");
    for (size_t i = 0; i < n; i++) { /* a ROS name piece: letters, digits, '_' ('-' becomes '_') */
        char c = d->name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_sink_create: name '%.48s': letters, digits, "
                                "'_' and '-' only", d->name);
    }
    if (d->nav_kind < 0 || d->nav_kind > SENSIM_NAV_ODOMETRY)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_sink_create: nav_kind %d", d->nav_kind);
    for (int i = 0; i < 3; i++)
        if (!(d->gyro_var[i] >= 0 && d->accel_var[i] >= 0 && d->enu_var_m2[i] >= 0) || !isfinite(d->gyro_var[i]) ||
            !isfinite(d->accel_var[i]) || !isfinite(d->enu_var_m2[i]))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_sink_create: variances must be finite and >= 0");
    sensim_mcap_sink *s = calloc(1, sizeof *s);
    if (!s)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_sink_create: out of memory");
    s->magic = SENSIM_MAGIC_MCAP_SINK;
    s->d = *d;
    snprintf(s->name, sizeof s->name, "%s", d->name);
    for (char *c = s->name; *c; c++)
        if (*c == '-')
            *c = '_';
    snprintf(s->prefix, sizeof s->prefix, "%s", pre);
    s->d.name = s->name, s->d.topic_prefix = s->prefix;
    for (int i = 0; i < 6; i++)
        s->tp[i] = NONE;
    pthread_mutex_init(&s->mu, NULL);
    *out = s;
    return SENSIM_OK;
}

void sensim_mcap_sink_destroy(sensim_mcap_sink *s)
{
    if (s && s->magic == SENSIM_MAGIC_MCAP_SINK) {
        s->magic = 0;
        pthread_mutex_destroy(&s->mu);
        free(s);
    }
}

static sensim_status sink_topic(sensim_mcap_sink *s, const char *tail, int32_t type, uint16_t *out)
{
    char t[256];
    snprintf(t, sizeof t, "%s/%s/%s", s->prefix, s->name, tail);
    if (sensim__mcap_find_topic(s->d.writer, t, type, out)) /* added by the host beforehand */
        return SENSIM_OK;
    return sensim_mcap_add_topic(s->d.writer, t, type, out);
}

/* The sink's topics for @p kind of ring, at its first frame. */
static sensim_status make_topics_locked(sensim_mcap_sink *s, int32_t kind, uint32_t outputs)
{
    sensim_status st = SENSIM_OK;
    snprintf(s->frame, sizeof s->frame, "%s%s", s->name, kind == SENSIM__RING_IMAGES ? "_optical" : "");
    if (kind == SENSIM__RING_POINTS) {
        st = sink_topic(s, "points", SENSIM_ROS_POINTCLOUD2, &s->tp[0]);
        if (!st && s->d.lidar)
            st = sensim__mcap_ring_order_of(s->d.writer, s->tp[0], s->d.lidar);
    }
    else if (kind == SENSIM__RING_NAV)
        st = s->d.nav_kind == SENSIM_NAV_IMU ? sink_topic(s, "imu", SENSIM_ROS_IMU, &s->tp[0])
             : s->d.nav_kind == SENSIM_NAV_GNSS ? sink_topic(s, "fix", SENSIM_ROS_NAVSATFIX, &s->tp[0])
                                                : sink_topic(s, "odom", SENSIM_ROS_ODOMETRY, &s->tp[0]);
    else {
        static const char *const name[5] = {"depth/image", "semantic/image", "instance/image", "normal/image",
                                            "rgb/image"};
        static const uint32_t bit[5] = {SENSIM_CAMERA_DEPTH, SENSIM_CAMERA_SEMANTIC, SENSIM_CAMERA_INSTANCE,
                                        SENSIM_CAMERA_NORMAL, SENSIM_CAMERA_RGB};
        for (int i = 0; i < 5 && !st; i++)
            if (outputs & bit[i])
                st = sink_topic(s, name[i], SENSIM_ROS_IMAGE, &s->tp[i]);
        if (!st && s->d.camera)
            st = sink_topic(s, "camera_info", SENSIM_ROS_CAMERA_INFO, &s->tp[5]);
    }
    s->topics_made = st == SENSIM_OK;
    return st;
}

/* Under the writer's lock: find-or-add of a topic is one step when sinks sharing the writer start together. */
static sensim_status make_topics(sensim_mcap_sink *s, int32_t kind, uint32_t outputs)
{
    SENSIM__MCAP_LOCKED(s->d.writer, make_topics_locked(s, kind, outputs));
}

static sensim_status consume(sensim_mcap_sink *s, sensim_ring *ring)
{
    sensim_status st = sensim__ring_check(ring);
    if (st != SENSIM_OK)
        return st;
    const int32_t kind = sensim__ring_kind(ring);
    if (kind == SENSIM__RING_IMAGES && !s->d.camera)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_sink_consume: an image ring needs the "
                            "sink's camera (its CameraInfo)");
    char what[320];
    snprintf(what, sizeof what, "topics %s/%s/...: a second sensor's messages would mix with them", s->prefix,
             s->name);
    if ((st = sensim__sink_bind(&s->ring, ring, "sensim_mcap_sink_consume", what)) != SENSIM_OK)
        return st;
    for (;;) {
        if (kind == SENSIM__RING_POINTS) {
            sensim_frame_view v;
            if ((st = sensim_ring_peek(ring, &v)) == SENSIM_ERR_RING_EMPTY)
                return SENSIM_OK;
            if (!st && !s->topics_made)
                st = make_topics(s, kind, 0);
            if (!st) /* logged at the frame's end: the time the whole frame exists */
                st = sensim_mcap_write_points(s->d.writer, s->tp[0], v.header->t_end_ns, s->frame, &v);
        } else if (kind == SENSIM__RING_NAV) {
            const sensim_frame_header *h;
            const sensim_nav_sample *ns;
            if ((st = sensim_ring_peek_nav(ring, &h, &ns)) == SENSIM_ERR_RING_EMPTY)
                return SENSIM_OK;
            if (!st && !s->topics_made)
                st = make_topics(s, kind, 0);
            if (!st && s->d.nav_kind == SENSIM_NAV_IMU)
                st = sensim_mcap_write_imu_axes(s->d.writer, s->tp[0], ns->t_ns, s->frame, ns, -1, s->d.gyro_var,
                                                s->d.accel_var);
            else if (!st && s->d.nav_kind == SENSIM_NAV_GNSS)
                st = sensim_mcap_write_navsatfix_enu(s->d.writer, s->tp[0], ns->t_ns, s->frame, ns, s->d.enu_var_m2);
            else if (!st)
                st = sensim_mcap_write_odometry_sample(s->d.writer, s->tp[0], "odom", s->frame, ns);
        } else {
            sensim_image_view v;
            if ((st = sensim_ring_peek_image(ring, &v)) == SENSIM_ERR_RING_EMPTY)
                return SENSIM_OK;
            if (!st && !s->topics_made)
                st = make_topics(s, kind, v.outputs);
            if (!st) {
                sensim_camera_images im = {(float *)v.depth, (uint8_t *)v.semantic, (uint32_t *)v.instance,
                                           (float *)v.normal, (uint8_t *)v.rgb, {0}};
                st = sensim_mcap_write_capture(s->d.writer, s->tp, v.header->t_begin_ns, s->frame, s->d.camera, &im);
            }
        }
        sensim_status rel = sensim_ring_release(ring); /* written or not, the frame leaves the ring */
        if (st != SENSIM_OK)
            return st;
        if (rel != SENSIM_OK)
            return rel;
    }
}

sensim_status sensim_mcap_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring)
{
    (void)sensor_index;
    sensim_mcap_sink *s = sink;
    if (!s || s->magic != SENSIM_MAGIC_MCAP_SINK)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_sink_consume: not an MCAP sink");
    pthread_mutex_lock(&s->mu);
    sensim_status st = consume(s, ring);
    pthread_mutex_unlock(&s->mu);
    return st;
}
