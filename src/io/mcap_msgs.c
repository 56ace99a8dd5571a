/* The ROS 2 messages libsensim writes into an MCAP (sensim/mcap.h), CDR
 * encoded: PointCloud2, Image, CameraInfo, Imu, NavSatFix, Odometry,
 * TFMessage, Clock. Layouts: ros2_msgdefs.c (the definitions embedded in the
 * schemas), XCDR1 little endian. */
#include "mcap_impl.h"
#include "motion.h"

#include <math.h>

static int datatype_size(uint32_t dt)
{
    static const int sz[9] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
    return dt >= 1 && dt <= 8 ? sz[dt] : 0;
}

/* A PointCloud2 of records of @p rs bytes. With @p ring_of (sensim_point records, rs 32), each record
 * goes out 4 bytes longer: a uint16 ring (ring_of[channel], the channel itself beyond @p nring) at
 * offset rs, and 2 zero bytes. */
static sensim_status cloud(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp, const char *frame_id,
                           const sensim_field *fields, uint32_t nf, const sensim_field *extra, uint32_t nextra,
                           uint32_t rs_in, const void *const recs[2], const uint64_t counts[2], const uint16_t *ring_of,
                           uint32_t nring, const char *fn)
{
    uint32_t rs = ring_of ? rs_in + 4 : rs_in;
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_POINTCLOUD2, log_ns, stamp, frame_id, fn);
    if (st)
        return st;
    if ((!fields && nf) || nf + nextra == 0 || nf > 256 || rs == 0)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: no fields, over 256 fields or a zero record size", fn);
    for (uint32_t i = 0; i < nf + nextra; i++) {
        const sensim_field *fd = i < nf ? &fields[i] : &extra[i - nf];
        int sz = datatype_size(fd->datatype);
        if (!fd->name || !sensim__mcap_valid_frame(fd->name) || !sz || fd->count == 0 || fd->count > rs ||
            fd->offset > rs || (uint64_t)fd->offset + (uint64_t)sz * fd->count > rs)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT,
                                "%s: field %u (%.64s): bad name, datatype %u, or offset %u + size beyond the %u-byte "
                                "record",
                                fn, i, fd->name ? fd->name : "(null)", fd->datatype, fd->offset, rs);
    }
    uint64_t n = counts[0] + counts[1];
    if ((counts[0] && !recs[0]) || (counts[1] && !recs[1]))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: records are NULL", fn);
    if (n > UINT32_MAX / rs)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: %llu records of %u bytes exceed PointCloud2's 4 GiB", fn,
                            (unsigned long long)n, rs);
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_u32(b, 1);
    c_u32(b, (uint32_t)n);
    c_u32(b, nf + nextra);
    for (uint32_t i = 0; i < nf + nextra; i++) {
        const sensim_field *fd = i < nf ? &fields[i] : &extra[i - nf];
        c_str(b, fd->name);
        c_u32(b, fd->offset);
        c_u8(b, (uint8_t)fd->datatype);
        c_u32(b, fd->count);
    }
    c_u8(b, 0); /* is_bigendian */
    c_u32(b, rs);
    c_u32(b, (uint32_t)(n * rs));
    c_u32(b, (uint32_t)(n * rs));
    for (int k = 0; k < 2; k++) {
        if (!counts[k])
            continue;
        if (!ring_of) {
            b_put(b, recs[k], counts[k] * rs);
            continue;
        }
        if (!b_reserve(b, counts[k] * rs))
            break;
        const sensim_point *p = recs[k];
        for (uint64_t i = 0; i < counts[k]; i++) {
            uint8_t *o = b->p + b->n + i * rs;
            uint16_t ch = p[i].channel, ring = ch < nring ? ring_of[ch] : ch;
            memcpy(o, &p[i], rs_in);
            o[rs_in] = (uint8_t)ring, o[rs_in + 1] = (uint8_t)(ring >> 8), o[rs_in + 2] = o[rs_in + 3] = 0;
        }
        b->n += counts[k] * rs;
    }
    c_u8(b, 1); /* is_dense */
    return sensim__mcap_emit(m, tp, log_ns);
}

static sensim_status write_cloud(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp, const char *frame_id,
                                 const sensim_field *fields, uint32_t nf, uint32_t rs, const void *records,
                                 uint64_t count)
{
    const void *r[2] = {records, NULL};
    uint64_t c[2] = {count, 0};
    return cloud(m, tp, log_ns, stamp, frame_id, fields, nf, NULL, 0, rs, r, c, NULL, 0, "sensim_mcap_write_cloud");
}

static sensim_status write_points(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                  const sensim_frame_view *v)
{
    if (!v || !v->header)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_points: view or its header is NULL");
    uint32_t nf;
    const sensim_field *f = sensim_point_fields(&nf);
    /* ring: velodyne_pointcloud's numbering (0 = the lowest beam) when the topic has a ring order
     * (sensim_mcap_set_ring_order), else the laser id; channel stays the laser id */
    static const sensim_field alias[2] = {
        {"t", 20, SENSIM_FIELD_UINT32, 1},    /* Ouster: ns since the stamp */
        {"ring", 28, SENSIM_FIELD_UINT16, 1}, /* the laser id */
    };
    static const sensim_field alias_ordered[2] = {
        {"t", 20, SENSIM_FIELD_UINT32, 1},
        {"ring", 32, SENSIM_FIELD_UINT16, 1}, /* rank by elevation, after the record */
    };
    const topic *t = m && m->magic == SENSIM_MAGIC_MCAP && tp < m->ntopics ? &m->topics[tp] : NULL;
    const uint16_t *ring_of = t ? t->ring_of : NULL;
    const void *r[2] = {v->points[0], v->points[1]};
    return cloud(m, tp, log_ns, v->header->t_begin_ns, frame_id, f, nf, ring_of ? alias_ordered : alias, 2,
                 sizeof(sensim_point), r, v->counts, ring_of, t ? t->nring : 0, "sensim_mcap_write_points");
}

static sensim_status write_image(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp, const char *frame_id,
                                 uint32_t w, uint32_t h, const char *enc, uint32_t step, const void *data)
{
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_IMAGE, log_ns, stamp, frame_id, "sensim_mcap_write_image");
    if (st)
        return st;
    static const char *const encs[] = {"rgb8", "bgr8", "bgra8", "rgba8", "mono8", "mono16", "16UC1", "32FC1", "32FC3"};
    static const uint32_t bpp[] = {3, 3, 4, 4, 1, 2, 2, 4, 12};
    int e = -1;
    for (int i = 0; enc && i < 9; i++)
        if (!strcmp(enc, encs[i]))
            e = i;
    if (e < 0 || !data)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_image: %s", e < 0 ? "unknown encoding" : "data is NULL");
    if (w == 0 || h == 0 || w > 65535 || h > 65535)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_write_image: size %ux%u", w, h);
    if (step < (uint64_t)w * bpp[e])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_image: step %u below %u x %u bytes", step,
                            w, bpp[e]);
    if ((uint64_t)step * h > UINT32_MAX)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_mcap_write_image: %u x %u bytes exceed 4 GiB", step, h);
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_u32(b, h);
    c_u32(b, w);
    c_str(b, enc);
    c_u8(b, 0);
    c_u32(b, step);
    c_u32(b, step * h);
    b_put(b, data, (size_t)step * h);
    return sensim__mcap_emit(m, tp, log_ns);
}

static sensim_status write_camera_info(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                       const char *frame_id, const sensim_camera_info *ci)
{
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_CAMERA_INFO, log_ns, stamp, frame_id,
                                   "sensim_mcap_write_camera_info");
    if (st)
        return st;
    if (!ci)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_camera_info: info is NULL");
    if (!memchr(ci->distortion_model, 0, sizeof ci->distortion_model))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_camera_info: distortion_model unterminated");
    if (!sensim__finite_array_d(ci->d, 5) || !sensim__finite_array_d(ci->k, 9) || !sensim__finite_array_d(ci->r, 9) ||
        !sensim__finite_array_d(ci->p, 12))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_mcap_write_camera_info: D, K, R or P not finite");
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_u32(b, ci->height);
    c_u32(b, ci->width);
    c_str(b, ci->distortion_model);
    c_u32(b, 5);
    c_f64s(b, ci->d, 5);
    c_f64s(b, ci->k, 9);
    c_f64s(b, ci->r, 9);
    c_f64s(b, ci->p, 12);
    c_u32(b, 0);
    c_u32(b, 0);
    for (int i = 0; i < 4; i++)
        c_u32(b, 0);
    c_u8(b, 0);
    return sensim__mcap_emit(m, tp, log_ns);
}

static void diag3(double out[9], double v)
{
    memset(out, 0, 9 * sizeof *out);
    out[0] = out[4] = out[8] = v;
}

static void diag_of(double out[9], const double v[3])
{
    memset(out, 0, 9 * sizeof *out);
    out[0] = v[0], out[4] = v[1], out[8] = v[2];
}

static sensim_status write_imu(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                               const sensim_nav_sample *s, double ov, double gv, double av)
{
    const double g3[3] = {gv, gv, gv}, a3[3] = {av, av, av};
    return sensim_mcap_write_imu_axes(m, tp, log_ns, frame_id, s, ov, g3, a3);
}

static sensim_status write_imu_axes(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                    const sensim_nav_sample *s, double ov, const double gv[3], const double av[3])
{
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_IMU, log_ns, s ? s->t_ns : 0, frame_id, "sensim_mcap_write_imu");
    if (st)
        return st;
    if (!s || !gv || !av)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_imu: sample or variances NULL");
    if (!sensim__finite_array_d(s->orientation, 4) || !sensim__finite_array_d(s->gyro, 3) ||
        !sensim__finite_array_d(s->accel, 3) || !isfinite(ov) || !sensim__finite_array_d(gv, 3) ||
        !sensim__finite_array_d(av, 3))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_mcap_write_imu: sample or variance not finite");
    if (gv[0] < 0 || gv[1] < 0 || gv[2] < 0 || av[0] < 0 || av[1] < 0 || av[2] < 0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_write_imu: negative gyro or accel variance");
    double c[9];
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, s->t_ns + m->stamp_offset_ns, frame_id);
    const double *q = s->orientation; /* (w, x, y, z) -> ROS (x, y, z, w) */
    c_f64(b, q[1]);
    c_f64(b, q[2]);
    c_f64(b, q[3]);
    c_f64(b, q[0]);
    diag3(c, ov < 0 ? 0 : ov);
    if (ov < 0)
        c[0] = -1;
    c_f64s(b, c, 9);
    c_f64s(b, s->gyro, 3);
    diag_of(c, gv);
    c_f64s(b, c, 9);
    c_f64s(b, s->accel, 3);
    diag_of(c, av);
    c_f64s(b, c, 9);
    return sensim__mcap_emit(m, tp, log_ns);
}

static sensim_status write_navsatfix(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                     const sensim_nav_sample *s, double hv, double vv)
{
    const double enu[3] = {hv, hv, vv};
    return sensim_mcap_write_navsatfix_enu(m, tp, log_ns, frame_id, s, enu);
}

static sensim_status write_navsatfix_enu(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                         const sensim_nav_sample *s, const double enu[3])
{
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_NAVSATFIX, log_ns, s ? s->t_ns : 0, frame_id,
                                   "sensim_mcap_write_navsatfix");
    if (st)
        return st;
    if (!s || !enu)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_navsatfix: sample or variances NULL");
    if (!isfinite(s->latitude_deg) || !isfinite(s->longitude_deg) || !isfinite(s->altitude_m) ||
        !sensim__finite_array_d(enu, 3))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_mcap_write_navsatfix: sample or variance not finite");
    if (enu[0] < 0 || enu[1] < 0 || enu[2] < 0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_write_navsatfix: negative variance");
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, s->t_ns + m->stamp_offset_ns, frame_id);
    c_u8(b, 0);  /* STATUS_FIX */
    c_u16(b, 1); /* SERVICE_GPS */
    c_f64(b, s->latitude_deg);
    c_f64(b, s->longitude_deg);
    c_f64(b, s->altitude_m);
    double c[9];
    diag_of(c, enu);
    c_f64s(b, c, 9);
    c_u8(b, (enu[0] > 0 || enu[1] > 0 || enu[2] > 0) ? 2 : 0); /* DIAGONAL_KNOWN or UNKNOWN */
    return sensim__mcap_emit(m, tp, log_ns);
}

/* a rigid pose: checked like every pose, and R^T R = I within 1e-6 */
static sensim_status check_rigid(const double p[16], const char *what)
{
    sensim_status st = sensim__check_pose(p, what);
    if (st)
        return st;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = 0;
            for (int k = 0; k < 3; k++)
                d += p[4 * i + k] * p[4 * j + k];
            if (fabs(d - (i == j)) > 1e-6)
                return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s is not a rotation plus translation", what);
        }
    return SENSIM_OK;
}

static void c_pose(buf *b, const double p[16])
{
    double q[4];
    sensim__quat_from_mat(p, q);
    if (q[0] < 0) /* one of the two signs, always: w >= 0 */
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    c_f64(b, p[12]);
    c_f64(b, p[13]);
    c_f64(b, p[14]);
    c_f64(b, q[1]);
    c_f64(b, q[2]);
    c_f64(b, q[3]);
    c_f64(b, q[0]);
}

static sensim_status write_odometry(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                    const char *frame_id, const char *child, const double pose[16],
                                    const double lin[3], const double ang[3])
{
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_ODOMETRY, log_ns, stamp, frame_id, "sensim_mcap_write_odometry");
    if (st)
        return st;
    if (!pose || !lin || !ang || !child)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_odometry: NULL argument");
    if (!sensim__mcap_valid_frame(child))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_odometry: child frame id '%.300s' invalid",
                            child);
    if ((st = check_rigid(pose, "sensim_mcap_write_odometry: pose")))
        return st;
    if (!sensim__finite_array_d(lin, 3) || !sensim__finite_array_d(ang, 3))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_mcap_write_odometry: twist not finite");
    static const double zero36[36] = {0};
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_str(b, child);
    c_pose(b, pose);
    c_f64s(b, zero36, 36);
    c_f64s(b, lin, 3);
    c_f64s(b, ang, 3);
    c_f64s(b, zero36, 36);
    return sensim__mcap_emit(m, tp, log_ns);
}

static sensim_status write_transforms(sensim_mcap *m, uint16_t tp, int64_t log_ns, const sensim_ros_transform *tf,
                                      uint32_t n)
{
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_TF, log_ns, 0, NO_FRAME, "sensim_mcap_write_transforms");
    if (st)
        return st;
    if (!tf || n == 0 || n > 65536)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_write_transforms: %s",
                            tf ? "count outside 1..65536" : "transforms is NULL");
    for (uint32_t i = 0; i < n; i++) {
        char what[64];
        snprintf(what, sizeof what, "sensim_mcap_write_transforms: transform %u", i);
        if ((st = sensim__mcap_check_write(m, tp, SENSIM_ROS_TF, log_ns, tf[i].stamp_ns, tf[i].parent_frame, what)))
            return st;
        if (!sensim__mcap_valid_frame(tf[i].child_frame))
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: child frame id invalid", what);
        if ((st = check_rigid(tf[i].pose, what)))
            return st;
    }
    buf *b = &m->msg;
    c_begin(b);
    c_u32(b, n);
    for (uint32_t i = 0; i < n; i++) {
        c_header(b, tf[i].stamp_ns + m->stamp_offset_ns, tf[i].parent_frame);
        c_str(b, tf[i].child_frame);
        c_pose(b, tf[i].pose);
    }
    return sensim__mcap_emit(m, tp, log_ns);
}

static sensim_status write_clock(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t clock_ns)
{
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_CLOCK, log_ns, clock_ns, NO_FRAME, "sensim_mcap_write_clock");
    if (st)
        return st;
    buf *b = &m->msg;
    c_begin(b);
    c_time(b, clock_ns + m->stamp_offset_ns);
    return sensim__mcap_emit(m, tp, log_ns);
}

/* The public calls: each holds the writer's lock (mcap_impl.h), so threads sharing a writer take turns. */
sensim_status sensim_mcap_write_cloud(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp, const char *frame_id,
                                      const sensim_field *fields, uint32_t nf, uint32_t rs, const void *r, uint64_t c)
{
    SENSIM__MCAP_LOCKED(m, write_cloud(m, tp, log_ns, stamp, frame_id, fields, nf, rs, r, c));
}

sensim_status sensim_mcap_write_points(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                       const sensim_frame_view *v)
{
    SENSIM__MCAP_LOCKED(m, write_points(m, tp, log_ns, frame_id, v));
}

sensim_status sensim_mcap_write_image(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp, const char *frame_id,
                                      uint32_t w, uint32_t h, const char *enc, uint32_t step, const void *data)
{
    SENSIM__MCAP_LOCKED(m, write_image(m, tp, log_ns, stamp, frame_id, w, h, enc, step, data));
}

sensim_status sensim_mcap_write_camera_info(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                            const char *frame_id, const sensim_camera_info *info)
{
    SENSIM__MCAP_LOCKED(m, write_camera_info(m, tp, log_ns, stamp, frame_id, info));
}

sensim_status sensim_mcap_write_imu(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                    const sensim_nav_sample *s, double ov, double gv, double av)
{
    SENSIM__MCAP_LOCKED(m, write_imu(m, tp, log_ns, frame_id, s, ov, gv, av));
}

sensim_status sensim_mcap_write_imu_axes(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                         const sensim_nav_sample *s, double ov, const double gv[3], const double av[3])
{
    SENSIM__MCAP_LOCKED(m, write_imu_axes(m, tp, log_ns, frame_id, s, ov, gv, av));
}

sensim_status sensim_mcap_write_navsatfix(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                          const sensim_nav_sample *s, double hv, double vv)
{
    SENSIM__MCAP_LOCKED(m, write_navsatfix(m, tp, log_ns, frame_id, s, hv, vv));
}

sensim_status sensim_mcap_write_navsatfix_enu(sensim_mcap *m, uint16_t tp, int64_t log_ns, const char *frame_id,
                                              const sensim_nav_sample *s, const double enu[3])
{
    SENSIM__MCAP_LOCKED(m, write_navsatfix_enu(m, tp, log_ns, frame_id, s, enu));
}

sensim_status sensim_mcap_write_odometry(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                         const char *frame_id, const char *child, const double pose[16],
                                         const double lin[3], const double ang[3])
{
    SENSIM__MCAP_LOCKED(m, write_odometry(m, tp, log_ns, stamp, frame_id, child, pose, lin, ang));
}

sensim_status sensim_mcap_write_transforms(sensim_mcap *m, uint16_t tp, int64_t log_ns, const sensim_ros_transform *tf,
                                           uint32_t n)
{
    SENSIM__MCAP_LOCKED(m, write_transforms(m, tp, log_ns, tf, n));
}

sensim_status sensim_mcap_write_clock(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t clock_ns)
{
    SENSIM__MCAP_LOCKED(m, write_clock(m, tp, log_ns, clock_ns));
}
