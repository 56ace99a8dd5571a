/* The sertype of live writers and readers: samples are CDR bytes carried as
 * they are (as rmw_cyclonedds does with its serializer's output), so nothing
 * is serialized twice and the wire equals the bag. */
#ifdef SENSIM_HAVE_DDS

#include "dds_impl.h"

#include <dds/ddsi/q_radmin.h>

/* ---- a sertype whose samples are CDR bytes, carried as they are ---- */


static raw_serdata *raw_new(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, size_t n)
{
    if (n > UINT32_MAX - 4)
        return NULL;
    raw_serdata *d = calloc(1, sizeof *d);
    size_t cap = (n + 3) & ~(size_t)3;
    if (!d || !(d->p = malloc(cap ? cap : 4))) { /* the caller fills n bytes: only the padding is zeroed */
        free(d);
        return NULL;
    }
    memset(d->p + n, 0, (cap ? cap : 4) - n);
    ddsi_serdata_init(&d->c, type, kind);
    d->c.hash = type ? type->serdata_basehash : 0; /* keyless: one instance */
    d->n = (uint32_t)n;
    return d;
}

static bool raw_eqkey(const struct ddsi_serdata *a, const struct ddsi_serdata *b)
{
    (void)a, (void)b;
    return true; /* ROS types have no key */
}

/* whole 4-byte words, DATA and DATA_FRAG alike: the encapsulation options count the padding */
static uint32_t raw_size(const struct ddsi_serdata *d) { return (((const raw_serdata *)d)->n + 3) & ~3u; }

static void raw_free(struct ddsi_serdata *d)
{
    raw_serdata *r = (raw_serdata *)d;
    free(r->p);
    free(r);
}

/* A received sample (sensim_ros2_reader): the fragments of the payload, in order, copied out of DDS's
 * receive buffers (fragments may overlap: each byte is taken once). */
static struct ddsi_serdata *raw_from_ser(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
                                         const struct nn_rdata *fragchain, size_t size)
{
    if (size > READ_MAX_BYTES)
        return NULL; /* dropped by DDS: over the reader's budget */
    raw_serdata *d = raw_new(type, kind, size);
    if (!d)
        return NULL;
    uint32_t off = 0;
    for (; fragchain && off < size; fragchain = fragchain->nextfrag) {
        if (fragchain->maxp1 <= off)
            continue;
        if (fragchain->min > off) /* a hole: never handed over by DDS, but not trusted either */
            break;
        const unsigned char *pl = NN_RMSG_PAYLOADOFF(fragchain->rmsg, NN_RDATA_PAYLOAD_OFF(fragchain));
        uint32_t end = fragchain->maxp1 < size ? fragchain->maxp1 : (uint32_t)size;
        memcpy(d->p + off, pl + (off - fragchain->min), end - off);
        off = end;
    }
    if (off < size) {
        raw_free(&d->c);
        return NULL;
    }
    return &d->c;
}

static struct ddsi_serdata *raw_from_ser_iov(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
                                             ddsrt_msg_iovlen_t niov, const ddsrt_iovec_t *iov, size_t size)
{
    raw_serdata *d = raw_new(type, kind, size);
    if (!d)
        return NULL;
    size_t at = 0;
    for (ddsrt_msg_iovlen_t i = 0; i < niov && at < size; i++) {
        size_t k = iov[i].iov_len < size - at ? iov[i].iov_len : size - at;
        memcpy(d->p + at, iov[i].iov_base, k);
        at += k;
    }
    return &d->c;
}

static struct ddsi_serdata *raw_from_keyhash(const struct ddsi_sertype *type, const struct ddsi_keyhash *kh)
{
    (void)kh;
    raw_serdata *d = raw_new(type, SDK_KEY, 0);
    return d ? &d->c : NULL;
}

static struct ddsi_serdata *raw_from_sample(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
                                            const void *sample)
{
    const raw_sample *s = sample;
    size_t n = kind == SDK_DATA ? s->n : 0;
    raw_serdata *d = raw_new(type, kind, n);
    if (!d)
        return NULL;
    if (n)
        memcpy(d->p, s->p, n);
    return &d->c;
}

static void raw_to_ser(const struct ddsi_serdata *d, size_t off, size_t sz, void *dst)
{
    memcpy(dst, ((const raw_serdata *)d)->p + off, sz);
}

static struct ddsi_serdata *raw_to_ser_ref(const struct ddsi_serdata *d, size_t off, size_t sz, ddsrt_iovec_t *ref)
{
    ref->iov_base = ((const raw_serdata *)d)->p + off;
    ref->iov_len = (ddsrt_iov_len_t)sz;
    return ddsi_serdata_ref(d);
}

static void raw_to_ser_unref(struct ddsi_serdata *d, const ddsrt_iovec_t *ref)
{
    (void)ref;
    ddsi_serdata_unref(d);
}

static bool raw_to_sample(const struct ddsi_serdata *d, void *sample, void **bufptr, void *buflim)
{
    (void)bufptr, (void)buflim;
    raw_sample *s = sample;
    s->p = ((const raw_serdata *)d)->p;
    s->n = ((const raw_serdata *)d)->n;
    return true;
}

static struct ddsi_serdata *raw_to_untyped(const struct ddsi_serdata *d)
{
    raw_serdata *u = raw_new(d->type, SDK_KEY, 0);
    if (!u)
        return NULL;
    u->c.type = NULL;
    return &u->c;
}

static bool raw_untyped_to_sample(const struct ddsi_sertype *type, const struct ddsi_serdata *d, void *sample,
                                  void **bufptr, void *buflim)
{
    (void)type, (void)d, (void)bufptr, (void)buflim;
    raw_sample *s = sample;
    s->p = NULL, s->n = 0;
    return true;
}

static size_t raw_print(const struct ddsi_sertype *type, const struct ddsi_serdata *d, char *out, size_t size)
{
    (void)type;
    int k = snprintf(out, size, "(CDR, %u bytes)", ((const raw_serdata *)d)->n);
    return k < 0 ? 0 : (size_t)k;
}

static void raw_get_keyhash(const struct ddsi_serdata *d, struct ddsi_keyhash *kh, bool force_md5)
{
    (void)d, (void)force_md5;
    memset(kh, 0, sizeof *kh);
}

const struct ddsi_serdata_ops sensim__raw_serdata_ops = {
    .eqkey = raw_eqkey,
    .get_size = raw_size,
    .from_ser = raw_from_ser,
    .from_ser_iov = raw_from_ser_iov,
    .from_keyhash = raw_from_keyhash,
    .from_sample = raw_from_sample,
    .to_ser = raw_to_ser,
    .to_ser_ref = raw_to_ser_ref,
    .to_ser_unref = raw_to_ser_unref,
    .to_sample = raw_to_sample,
    .to_untyped = raw_to_untyped,
    .untyped_to_sample = raw_untyped_to_sample,
    .free = raw_free,
    .print = raw_print,
    .get_keyhash = raw_get_keyhash,
};

void sensim__raw_type_free(struct ddsi_sertype *t)
{
    ddsi_sertype_fini(t);
    free(t);
}

static void raw_zero_samples(const struct ddsi_sertype *t, void *samples, size_t count)
{
    (void)t;
    memset(samples, 0, count * sizeof(raw_sample));
}

static void raw_realloc_samples(void **ptrs, const struct ddsi_sertype *t, void *old, size_t oldcount, size_t count)
{
    (void)t;
    raw_sample *s = realloc(old, (count ? count : 1) * sizeof *s);
    if (s && count > oldcount)
        memset(s + oldcount, 0, (count - oldcount) * sizeof *s);
    for (size_t i = 0; i < count; i++)
        ptrs[i] = s ? &s[i] : NULL;
}

static void raw_free_samples(const struct ddsi_sertype *t, void **ptrs, size_t count, dds_free_op_t op)
{
    (void)t;
    if (count && (op & DDS_FREE_ALL_BIT))
        free(ptrs[0]);
}

static bool raw_type_equal(const struct ddsi_sertype *a, const struct ddsi_sertype *b)
{
    (void)a, (void)b;
    return true; /* the common part (type name, ops) is compared by DDS */
}

static uint32_t raw_type_hash(const struct ddsi_sertype *t)
{
    (void)t;
    return 0;
}

static size_t raw_serialized_size(const struct ddsi_sertype *t, const void *sample)
{
    (void)t;
    return (((const raw_sample *)sample)->n + 3) & ~(size_t)3;
}

static bool raw_serialize_into(const struct ddsi_sertype *t, const void *sample, void *dst, size_t dst_size)
{
    (void)t;
    const raw_sample *s = sample;
    size_t padded = (s->n + 3) & ~(size_t)3;
    if (dst_size < padded)
        return false;
    memcpy(dst, s->p, s->n);
    memset((char *)dst + s->n, 0, padded - s->n);
    return true;
}

const struct ddsi_sertype_ops sensim__raw_sertype_ops = {
    .version = ddsi_sertype_v0,
    .arg = NULL,
    .free = sensim__raw_type_free,
    .zero_samples = raw_zero_samples,
    .realloc_samples = raw_realloc_samples,
    .free_samples = raw_free_samples,
    .equal = raw_type_equal,
    .hash = raw_type_hash,
    .get_serialized_size = raw_serialized_size,
    .serialize_into = raw_serialize_into,
};

/* "pkg/msg/Name" → "pkg::msg::dds_::Name_" */
void sensim__dds_type_name(char *dst, size_t cap, const char *ros)
{
    const char *last = strrchr(ros, '/');
    size_t pre = (size_t)(last - ros), k = 0;
    for (size_t i = 0; i < pre && k + 3 < cap; i++) {
        if (ros[i] == '/')
            dst[k++] = ':', dst[k++] = ':';
        else
            dst[k++] = ros[i];
    }
    snprintf(dst + k, cap - k, "::dds_::%s_", last + 1);
}

sensim_status sensim__dds_fail(const char *fn, const char *what, dds_return_t rc)
{
    return sensim__fail(SENSIM_ERR_BACKEND, "%s: %s: %s", fn, what, dds_strretcode(rc));
}

/* RTPS carries a payload in whole 4-byte words (raw_size): the padding goes on the wire, and the
 * encapsulation options' two low bits say how many bytes of it there are (XTypes 1.3, 7.6.3.1.2), so a
 * reader knows where the message ends. A bag stores the message as it is (options 0). */
void sensim__dds_mark_padding(uint8_t *p, size_t n)
{
    if (n >= 4)
        p[3] = (uint8_t)((p[3] & ~3u) | (uint8_t)(((n + 3) & ~(size_t)3) - n));
}

#else
typedef int sensim__dds_raw_unused; /* ISO C: a translation unit is not empty */
#endif
