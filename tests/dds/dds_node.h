/* What the test nodes built on Cyclone DDS alone share (ros2_pose_pub.c, ros2_control_pub.c): a fatal
 * DDS error, and the participant on ROS_DOMAIN_ID (0 when unset) as a ROS 2 node makes it. */
#ifndef SENSIM_TEST_DDS_NODE_H
#define SENSIM_TEST_DDS_NODE_H

#include <dds/dds.h>

#include <stdio.h>
#include <stdlib.h>

static void node_die(const char *prog, const char *what, dds_return_t rc)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, rc < 0 ? dds_strretcode(rc) : "failed");
    exit(2);
}

static dds_entity_t node_participant(const char *prog)
{
    const char *dom = getenv("ROS_DOMAIN_ID");
    dds_entity_t pp = dds_create_participant(dom && *dom ? (dds_domainid_t)atoi(dom) : 0, NULL, NULL);
    if (pp < 0)
        node_die(prog, "dds_create_participant", pp);
    return pp;
}

/* Wait until a reader matched writer @p w (polling discovery state, not timing anything), saying "ready"
 * before and "matched" after on stdout. */
static void node_wait_matched(dds_entity_t w)
{
    printf("ready\n");
    fflush(stdout);
    dds_publication_matched_status_t ms = {0};
    while (dds_get_publication_matched_status(w, &ms) >= 0 && ms.current_count == 0)
        dds_sleepfor(DDS_MSECS(10));
    printf("matched\n");
    fflush(stdout);
}

#endif
