/* What carries a writer's messages. The encoders (mcap_msgs.c) build each
 * message's CDR in the writer's buffer and hand it to sensim__mcap_emit
 * (mcap.c), which checks and counts it and gives it to the writer's
 * transport: the MCAP file (mcap.c itself) or, for a live writer, DDS
 * (ros2_dds.c, which knows nothing of the file or the writer's inside).
 * The dependency runs one way: a transport includes this header, the
 * writer never includes a transport. */
#ifndef SENSIM_TRANSPORT_H
#define SENSIM_TRANSPORT_H

#include "cdr_buf.h"

#include <sensim/mcap.h>

#define SENSIM__MAX_TOPICS 1024 /* a writer's topics */

/* The writer's lock (every public call on a writer, transports' included, holds it).
 * 1 and @p m locked when it is an open writer; else 0 and nothing locked (the call then fails by itself). */
int sensim__mcap_lock(const sensim_mcap *m);
void sensim__mcap_unlock(const sensim_mcap *m);
void sensim__mcap_init_lock(sensim_mcap *m);
/* return (call) with the writer locked around it */
#define SENSIM__MCAP_LOCKED(m, call)                                                                         \
    do {                                                                                                     \
        int locked_ = sensim__mcap_lock(m);                                                                  \
        sensim_status st_ = (call);                                                                          \
        if (locked_)                                                                                         \
            sensim__mcap_unlock(m);                                                                          \
        return st_;                                                                                          \
    } while (0)

typedef struct sensim__transport_ops {
    /* Topic @p index (0, 1, ... in order) named @p name, of SENSIM_ROS_* @p type. On failure the
     * topic is not added and the writer stays usable. */
    sensim_status (*add_topic)(void *impl, uint32_t index, const char *name, int32_t type);
    /* Message @p msg of topic @p index: *sent 1 when it went out (counted), 0 when the transport gave
     * it up (counted in dropped()). It may take msg's buffer (then msg->p NULL, cap 0). */
    sensim_status (*send)(void *impl, uint32_t index, const char *name, buf *msg, int *sent);
    uint64_t (*dropped)(const void *impl);
    void (*close)(void *impl);
} sensim__transport_ops;

/* A writer whose messages @p ops carry to @p impl (owned by the writer from then on: closed with it,
 * also when this fails); @p label names it in messages ("ROS 2 domain 7"). */
sensim_status sensim__mcap_open_transport(const sensim__transport_ops *ops, void *impl, const char *label,
                                          sensim_mcap **out);
/* The writer's transport instance when @p m is an open writer carried by @p ops; else NULL. */
void *sensim__mcap_transport(const sensim_mcap *m, const sensim__transport_ops *ops);
/* A ROS 2 topic name: '/' then tokens of letters, digits (not first), '_', at most 255 bytes. */
int sensim__mcap_valid_topic(const char *s);
/* 1 when @p m is an open writer (of any transport). */
int sensim__mcap_is_open(const sensim_mcap *m);

#endif
