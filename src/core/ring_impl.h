/* Producer side of the ring, used by scans. */
#ifndef SENSIM_RING_IMPL_H
#define SENSIM_RING_IMPL_H

#include "internal.h"

#include <sensim/camera.h>
#include <sensim/nav.h>

/* Validate the handle; SENSIM_OK or SENSIM_ERR_BAD_HANDLE. */
sensim_status sensim__ring_check(const sensim_ring *ring);

/* A sink writes one sensor's stream: the first ring it consumes binds it
 * (@p *bound, under the sink's lock); another ring is SENSIM_ERR_INVALID_ARGUMENT
 * naming @p fn and saying @p what a second ring's frames would do there
 * (overwrite one another's files, mix in one topic or table). */
sensim_status sensim__sink_bind(const sensim_ring **bound, const sensim_ring *ring, const char *fn,
                                const char *what);

/* A scan is one transaction: under SENSIM_OVERFLOW_FAIL it is all or nothing. */
void sensim__ring_tx_begin(sensim_ring *ring);
/* True once this transaction overflowed a FAIL ring (it will be refused). */
bool sensim__ring_tx_failed(const sensim_ring *ring);
/* Undo this transaction (a cancelled scan): the ring is as at tx_begin,
 * except frames DROP_OLDEST dropped before the transaction began, which stay
 * dropped and counted. */
void sensim__ring_tx_abort(sensim_ring *ring);
/* Publish frames closed in the transaction. Returns SENSIM_ERR_RING_FULL and
 * rolls everything back if the transaction overflowed under FAIL. */
sensim_status sensim__ring_tx_end(sensim_ring *ring, uint64_t *out_written, uint64_t *out_lost);

/* Make frame @p number the open frame (closing a different open frame first;
 * it is flagged partial if not fully scanned). */
void sensim__ring_open_frame(sensim_ring *ring, uint64_t number, int64_t t_begin_ns,
                             int64_t t_end_ns, const double pose[16], uint32_t lidar_id, uint64_t world_step);
void sensim__ring_add_scanned(sensim_ring *ring, int64_t ns, uint64_t world_step);
/* Sensor pose stored in the open frame's header (NULL if none is open). */
const double *sensim__ring_open_pose(const sensim_ring *ring);
void sensim__ring_push(sensim_ring *ring, const sensim_point *pt);
/* Room for @p n more points of the open frame, as up to two spans (the
 * caller fills them, from any threads, before the next ring call). Returns
 * how many of the n fit: under FAIL all or (overflow) none; under
 * DROP_OLDEST old frames are dropped first and points beyond a full ring are
 * lost and counted, exactly as with n sensim__ring_push calls. */
uint64_t sensim__ring_reserve(sensim_ring *ring, uint64_t n, sensim_point **span0, uint64_t *n0,
                              sensim_point **span1);
void sensim__ring_close_frame(sensim_ring *ring);

/* What a ring's frames hold. */
#define SENSIM__RING_POINTS 0
#define SENSIM__RING_IMAGES 1 /* sensim_image_ring_init */
#define SENSIM__RING_NAV    2 /* sensim_nav_ring_init */
int32_t sensim__ring_kind(const sensim_ring *ring);
/* The frames the ring holds at most (sensim_ring_init's frame_capacity). */
uint32_t sensim__ring_frame_capacity(const sensim_ring *ring);
/* The open frame's payload (image or nav rings): NULL when a FAIL ring is
 * full (the transaction is refused). */
void *sensim__ring_payload_reserve(sensim_ring *ring);
void sensim__ring_image_format(const sensim_ring *ring, uint32_t *w, uint32_t *h, uint32_t *outputs);
/* Room for one image set in the open frame: the planes of @p im point into
 * the ring. False when a FAIL ring is full (the transaction is refused). */
bool sensim__ring_image_reserve(sensim_ring *ring, sensim_camera_images *im);

#endif
