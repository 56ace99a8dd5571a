/* The one driver loop (issue 67): every command that steps the world (batch, ros2, collect) runs its
 * rig through drive(). The loop pushes the trajectory's keys into the rig as far as each step needs
 * (two keys at one time: a jump; a streamed trajectory read as it grows, its history bounded), steps
 * the rig and calls the command's hooks around each step. Commands differ only in the rig's sensors,
 * its consumers (the sinks that write or publish) and these hooks (actors, a bag's clock, pacing, a
 * step's files). */
#ifndef SENSIM_DRIVE_H
#define SENSIM_DRIVE_H

#include "cli.h"

typedef struct drive_hooks {
    void *user;
    /* Before world step [t, t + dt): moving actors, a bag's /clock and /tf, pacing. 0, or an exit status
     * after a message. NULL: nothing. */
    int (*before)(void *user, int64_t t, int64_t dt);
    /* After it: a step's files. 0, or an exit status after a message. NULL: nothing. */
    int (*after)(void *user, sensim_rig *rig, int64_t t, int64_t dt);
    /* A streamed trajectory ended at @p t_last: the run's new end (what the same rows read from a file
     * give) and the cameras' rolling-shutter span. NULL: the trajectory is never streamed. */
    int64_t (*stream_ended)(void *user, int64_t t_last, int64_t *span);
    /* The consumers' exit status (set inside sensim_rig_step, their message printed), or NULL. */
    const int *consumer_rc;
} drive_hooks;

typedef struct drive_run {
    sensim_rig *rig;
    const sensim_scene *scene;
    traj *tr;               /* grows while streamed (live_more_keys) */
    int64_t t_begin, t_end; /* the steps [t_begin, t_end): the last one shorter when the span is not whole */
    int64_t step_ns;
    int64_t span;           /* keys pushed this far past a step's end (the cameras' rolling shutters) */
    int32_t motion;         /* SENSIM_INTERP_CAUSAL: keys pushed into the rig; LINEAR: each step's keys */
    double scan_s;          /* seconds in sensim_rig_step (consumers included) */
} drive_run;

/* Steps @p d->rig from t_begin to t_end (Ctrl-C: after the current step). 0, -1 (Ctrl-C) or an exit
 * status after a message. */
int drive(drive_run *d, const drive_hooks *h);

#endif
