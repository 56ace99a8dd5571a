/* The sensim command's help texts (docs/cli.md shows the synopses, kept equal by a test), usage errors. */
#include <sensim/sensim.h>

#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Each command's synopsis (what docs/cli.md shows, kept equal by a test) and
 * its notes (shown by `sensim CMD --help`). */
static const struct command_help {
    const char *name;
    const char *synopsis;
    const char *notes;
} HELP[] = {
    {"scan",
     "sensim scan --scene FILE|street --lidar PRESET|FILE --out DIR\n"
     "            [--pose x,y,z,roll,pitch,yaw] [--count N] [--threads N]\n"
     "            [--seed N] [--set KEY=VALUE]... [--shot-rate HZ]\n"
     "            [--velocity vx,vy,vz[,wroll,wpitch,wyaw]] [--frame native|iso8855|carla|ue]\n"
     "            [--points sensor|deskewed|world] [--images [LIST]] [--tags FILE] [--flatten-actors N]\n",
     "  --scene     OBJ, PLY, or (with Assimp) glTF/GLB/FBX/COLLADA; `street` is the built-in street\n"
     "  --lidar     a preset (sensim presets), a preset file, or a Livox pattern CSV with --shot-rate\n"
     "  --pose      platform pose, metres and degrees; --velocity m/s and deg/s moves it\n"
     "  --count     how many frames (revolutions) to scan (batch's --frames A:B is a range of indices)\n"
     "  --frame     the frame of scene, pose, velocity and points\n"
     "  --images    range,intensity,label,preview,bev (bare: the first four): destaggered 16-bit range,\n"
     "              intensity, label, an 8-bit range preview, a bird's-eye view\n"
     "  --tags      OBJ/glTF name -> tag rules, 'name = Tag' lines, tried before the built-in names\n"
     "  --flatten-actors  trace up to N triangles of parked actors (the street's cars, a file's instances)\n"
     "              as static geometry (default 4000000; 0: off): faster; ranges to them move by float rounding\n"
     "              (<= 2e-5 m; sensim_scene_set_flatten); every command that loads a scene does the same\n"},
    {"batch",
     "sensim batch --scene FILE|street (--lidar PRESET|FILE | --rig RIG) --trajectory FILE --out DIR\n"
     "             [--frames A:B] [--shard K/N] [--threads N] [--format ply|ply-ascii|pcd|pcd-ascii|kitti|carla|las|mcap]\n"
     "             [--images [LIST]] [--resume | --overwrite] [--set KEY=VALUE]... [--seed N] [--frame native|carla|ue]\n"
     "             [--motion causal|linear] [--trajectory-times FILE] [--tags FILE] [--actors FILE] [--step-ns N]\n"
     "             [--las-version 1.2|1.4] [--quiet] [--flatten-actors N]\n"
     "             [--mcap-compression none|zstd|lz4] [--mcap-split-mb N] [--mcap-split-s S] [--no-tf] [--no-odom]\n"
     "             [--topic-prefix /NS] [--odom-frame odom] [--base-frame base_link]\n",
     "  --trajectory  CSV t,x,y,z,roll,pitch,yaw (s, m, deg) or t,x,y,z,qw,qx,qy,qz with that header;\n"
     "              TUM rows t x y z qx qy qz qw; or KITTI 3x4 camera poses with --trajectory-times\n"
     "  --rig       [sensor NAME] sections: preset = and preset keys; type = camera (camera keys, rate_hz,\n"
     "              outputs, mount_xyz_m, mount_rpy_deg), radar, imu, gnss, odometry (their keys)\n"
     "  --frames    world steps A (inclusive) to B (exclusive) (--lidar: its frames); --shard K/N renders\n"
     "              the K-th of N contiguous blocks of them (streams: shard 0)\n"
     "  --motion    one motion model for every sensor: causal (default; the rig's: C2 positions, each key's\n"
     "              derivatives from it and the 4 keys before) or linear (straight between keys, as before 0.2)\n"
     "  --frame     the frame of everything typed (poses, rig mounts, actors) and written\n"
     "  --actors    [actor NAME] sections: id, tag, mesh = box L W H | FILE, trajectory = CSV\n"
     "  --step-ns   world step of OUT/steps/NNNNNN.json with --rig (default: the shortest sensor period)\n"
     "  --las-version  with --format las: 1.4 (default; point format 6) or 1.2 (point format 3, RGB from tags,\n"
     "              for readers that stop at 1.3)\n"
     "  --format mcap  one rosbag2 bag OUT/sensim_0.mcap; the --mcap-*, --no-tf, --no-odom, --topic-prefix,\n"
     "              --odom-frame and --base-frame options go with it\n"},
    {"ros2",
     "sensim ros2 --scene FILE|street (--lidar PRESET|FILE | --rig RIG) (--trajectory FILE|- | --pose-in KIND:TOPIC)\n"
     "            [--control-in TOPIC]\n"
     "            [--rate realtime|max|R] [--domain N] [--qos ros|reliable] [--wait-subscribers[=T1,T2]]\n"
     "            [--start-on-stdin] [--linger S|forever] [--node [/NS/]NAME] [--stamp sim|wall|EPOCH_S] [--dry-run]\n"
     "            [--ros-distro humble|jazzy|...]\n"
     "            [--frames A:B] [--threads N] [--set KEY=VALUE]... [--seed N] [--motion causal|linear]\n"
     "            [--tags FILE] [--actors FILE] [--step-ns N] [--no-tf] [--no-odom] [--topic-prefix /NS]\n"
     "            [--odom-frame odom] [--base-frame base_link] [--quiet]\n",
     "  publishes live over DDS (Cyclone DDS, as ROS 2's rmw_cyclonedds) what batch --format mcap would\n"
     "  record: the same topics, types, frame ids and stamps; ros2 topic list/echo see them on either RMW\n"
     "  --trajectory -  rows (CSV with its header first) arrive on stdin from a host: each world step is\n"
     "              taken once the rows reach past it; the end of the input ends the run\n"
     "  --pose-in   the ego's poses from a ROS 2 topic, as rows of --trajectory - (time: header stamps):\n"
     "              odom:TOPIC (nav_msgs/Odometry), pose:TOPIC (geometry_msgs/PoseStamped) or\n"
     "              tf:TOPIC[:CHILD] (tf2_msgs/TFMessage, the transform to CHILD, default base_link);\n"
     "              unpaced unless --rate is given; the run ends when the publisher leaves\n"     "  --control-in  the ego driven by carla_msgs/msg/CarlaEgoVehicleControl messages on TOPIC (CARLA's\n"
     "              vehicle_control_cmd) through the kinematic model of sensim/vehicle.h, from rest at the\n"
     "              first row of --trajectory FILE; the newest message before each world step is in force;\n"
     "              the run ends when the publisher leaves\n"
     "  --rate      world seconds per wall second: realtime (default, 1), max (unpaced), or a factor\n"
     "  --domain    DDS domain 0..232 (default ROS_DOMAIN_ID, else 0); CYCLONEDDS_URI configures the network\n"
     "  --qos       ros (default): clouds, images, camera_info best effort (SensorDataQoS), imu/fix/odom\n"
     "              reliable depth 10, /tf reliable depth 100, /tf_static transient local, /clock depth 1;\n"
     "              reliable: every topic reliable, keep all (a recorder that must lose nothing)\n"
     "  --wait-subscribers  start once every topic (=T1,T2: those) has a subscriber, saying every 3 s\n"
     "              which still lack one and which readers DDS refused for QoS; --start-on-stdin: then\n"
     "              once a line arrives on stdin (a harness whose subscribers have matched too)\n"
     "  --node      the ROS node of the topics (ros2 node list; default /sensim)\n"
     "  --ros-distro  humble: the node graph in Humble's form (24-byte GIDs); default: Iron and later\n"
     "  --stamp     header stamps and /clock: sim (world time, default, for use_sim_time), wall (wall\n"
     "              clock at the first step + world time) or world time + EPOCH_S seconds\n"
     "  --linger    after the run keep the participant (and /tf_static for late subscribers) S seconds\n"
     "  --dry-run   step the rig and discard every frame (nothing built or sent): the rig's own cost\n"},
    {"render",
     "sensim render --scene FILE|street --out DIR [--camera PRESET|FILE] [--pose x,y,z,roll,pitch,yaw]\n"
     "              [--outputs depth,semantic,instance,normal,rgb] [--set KEY=VALUE]... [--threads N] [--tags FILE]\n"
     "              [--flatten-actors N]\n",
     "  --camera    carla_default, pinhole_720p, pinhole_1080p, fisheye_190, or a camera file\n"},
    {"view",
     "sensim view RUN_DIR|FILE.ply|FILE.mcap --out FILE.html [--max-points N] [--max-total-points N]\n",
     "  one self-contained page that plays the frames: points by tag/intensity/height/range, camera\n"
     "  images, sensor poses and the trajectory; --max-points draws every k-th point of larger frames;\n"
     "  a page holds at most --max-total-points (10^7) points and 1.3e8 image pixels: frames past them\n"
     "  are left out with a warning\n"},
    {"bag",
     "sensim bag info FILE.mcap | sensim bag echo FILE.mcap TOPIC [-n N]\n",
     "  info: topics, types, counts, time range and chunk compression, as ros2 bag info; echo: a topic's\n"
     "  messages as YAML, as ros2 topic echo (arrays over 16 elements as --no-arr), decoded from the\n"
     "  ros2msg definitions in the bag\n"},
    {"topic",
     "sensim topic list [-v] [--wait S] | sensim topic echo TOPIC [-n N] [--type T] | sensim topic hz TOPIC\n"
     "             [--domain N] [--timeout S] [--window N] [--ros-distro humble|jazzy|...]\n",
     "  live ROS 2 topics on a domain without ROS, as ros2 topic list -v / echo / hz: list waits --wait\n"
     "  (2 s) for discovery and shows each topic's type and publishers' QoS; echo decodes the types\n"
     "  sensim writes (others: their size); hz prints the rate over the last --window messages each\n"
     "  second; --timeout ends echo/hz after that long without a message; Ctrl-C ends them\n"},
    {"collect",
     "sensim collect --scene FILE|street --rig RIG --trajectory FILE --out DIR [--rate HZ] [--threads N]\n"
     "               [--frame native|carla|ue] [--shard K/N] [--resume | --overwrite] [--flatten-actors N]\n",
     "  CARLA's synchronous-collection layout: each step of 1/HZ (default 10 Hz) of the rig's first lidar\n"
     "  and first camera (its outputs): rgb/, depth/ (CARLA's encoding), semseg/ (CityScapes), semseg_raw/,\n"
     "  lidar/ (the step's shots, CARLA's frame) and meta/NNNNNN.json (time, poses, K); inputs read in\n"
     "  --frame (native by default); OUT/meta.json identifies the run: another run's folder is refused,\n"
     "  --resume continues from the first step without its meta/ JSON, --overwrite replaces the run;\n"
     "  --shard K/N writes the K-th of N contiguous blocks of the steps (shards share the folder)\n"},
    {"bench",
     "sensim bench [--scene FILE|street] [--lidar PRESET|FILE]... [--camera PRESET]... [--set KEY=VALUE]...\n"
     "             [--detail N] [--reps N] [--threads N] [--json] [--flatten-actors N]\n",
     "  the pipeline against bare Embree loops over the same rays, per lidar (--preset: the older name of --lidar),\n"
     "  each measure of a frame right after the pipeline's; a ratio is the median of bare / pipeline within a rep;\n"
     "  ratio_vs_embree_same_rays adds the secondary rays the pipeline traced (mirror, transmitted) one at a time;\n"
     "  moving_over_static: a frame while the platform drives (10 m/s, 10 deg/s, the rig's motion model) over one standing;\n"
     "  a camera's depth + semantic render against the bare tiled loop over its rays (JSON keys camera_*);\n"
     "  --flatten-actors N: the scene's parked actors traced as static geometry, the bare loops too\n"
     "              (default 4000000, as every command; 0: off)\n"},
    {"demo", "sensim demo [--out DIR] [--threads N]\n",
     "  the built-in street, a Pandar64 on a car roof, one frame with all images\n"},
    {"presets", "sensim presets\n", "  the presets and where they were found\n"},
    {"pattern",
     "sensim pattern export PRESET|FILE --duration S --out FILE.csv [--set KEY=VALUE]...\n"
     "sensim pattern stats PRESET|FILE [--times 0.1,0.2,0.5,1,2] [--bin-deg B] [--footprint-deg D] [--png FILE]\n"
     "                     [--set KEY=VALUE]...\n",
     "  export: a Livox CSV that replays to the same shots; stats: extents, FOV coverage against time (cells\n"
     "  hit, and Livox's share of the FOV lit by beam footprints of D degrees, default the beam divergence),\n"
     "  --png a density heat map with its legend\n"},
    {"placement",
     "sensim placement --scene FILE|street (--lidar PRESET|FILE | --rig RIG)\n"
     "                 (--candidates FILE | --grid X,Y,Z,YAW | --surfaces TAG,... [--surface-step M]\n"
     "                  [--surface-margin M] [--mount-height M])\n"
     "                 --roi xmin,ymin,xmax,ymax --out DIR [--roi-z zmin,zmax] [--cell M] [--min-points K]\n"
     "                 [--duration S] [--objects FILE] [--occupancy FILE] [--weights D,U,C,V[,I]] [--select M]\n"
     "                 [--shard K/N] [--no-maps] [--set KEY=VALUE]... [--threads N] [--seed N] [--tags FILE] [--json]\n"
     "                 [--flatten-actors N]\n"
     "sensim placement --merge DIR,DIR,... --out DIR\n",
     "  ranks candidate lidar poses by the points they put in a region of interest (ROI):\n"
     "  --candidates  rows x,y,z,roll,pitch,yaw (m, deg); --grid: each of X,Y,Z,YAW is A or A:B:STEP\n"
     "  --surfaces    candidates on level tops of those tags (Poles, Buildings, ...) found by rays dropped on\n"
     "                a --surface-step grid (2 m) over the ROI and --surface-margin (30 m), --mount-height above\n"
     "  --rig         a rig file: a candidate is the platform pose, its lidars' points fill one grid\n"
     "  --roi         the ROI on the ground (world m), gridded in --cell cells (1 m); --roi-z heights counted\n"
     "  --duration    integration time, rounded up to whole frames (0.1 s)\n"
     "  --objects     boxes xmin,ymin,zmin,xmax,ymax,zmax added to the scene; visible with >= K points,\n"
     "                occluded when the beams reach them but fewer points come back, else out of view\n"
     "  --occupancy   rows x,y,p: the prior that an object stands in that cell (others 0; without: 0.5)\n"
     "  --weights     score = D log10(1 + density) + U / (1 + cv) + C coverage + V visible share\n"
     "                + I information gain share (S-MIG's, per cell: entropy of observed cells) (1,1,1,1,1)\n"
     "  --select M    also picks M lidars greedily (each maximises the score of the union): selection.csv\n"
     "  --shard K/N   candidates with index % N == K; --merge joins the shards' rankings into one\n"
     "  --threads N   candidates scored in parallel, one a thread (the same output for any N)\n"
     "  --json        the summary as one JSON line: candidates_per_s, workers, placement_candidate_over_scan\n"
     "                (wall time x workers / time inside the scans), best, score\n"
     "  writes DIR/ranking.csv (best first), ranking.json, candidate_NNNNNN.png heat maps\n"},
    {"run", "sensim run [--dry-run] SURVEY.json [OPTION VALUE]...\n",
     "  one JSON object holds a whole run: \"command\" (scan, batch (default), render, bench, demo) and\n"
     "  that command's options as keys without \"--\": \"text\", numbers, true (a switch), [1, 2, 3] (one\n"
     "  comma-separated value), [\"a\", \"b\"] (the option repeated), \"set\": {\"KEY\": value};\n"
     "  keys starting with _ are comments; relative paths are relative to the survey's folder;\n"
     "  options after the file are appended (and win); --dry-run prints the command instead\n"},
    {"version", "sensim --version\n", ""},
};

static const char *g_command; /* the command being run, for usage() */

void cli_set_command(const char *cmd)
{
    g_command = cmd;
}

static const struct command_help *help_of(const char *cmd)
{
    for (size_t i = 0; cmd && i < sizeof HELP / sizeof *HELP; i++)
        if (!strcmp(HELP[i].name, cmd))
            return &HELP[i];
    return NULL;
}

static void print_synopsis(FILE *f, const char *text)
{
    while (*text) { /* indented two spaces */
        const char *e = strchr(text, '\n');
        fprintf(f, "  %.*s\n", (int)(e - text), text);
        text = e + 1;
    }
}

/* `sensim --help` (all synopses) or `sensim CMD --help` (that command's); 0. */
int cli_help(FILE *f, const char *cmd)
{
    const struct command_help *h = help_of(cmd);
    fprintf(f, "usage:\n");
    for (size_t i = 0; i < sizeof HELP / sizeof *HELP; i++)
        if (!h || h == &HELP[i])
            print_synopsis(f, HELP[i].synopsis);
    if (h && h->notes[0])
        fprintf(f, "%s", h->notes);
    fprintf(f, "exit status: 0 ok, 2 usage, 10 + libsensim status on failure\n");
    return 0;
}

static const char *g_survey; /* sensim run: the survey the options came from */

void cli_set_survey(const char *path)
{
    g_survey = path;
}

int usage(const char *msg)
{
    if (msg && g_survey)
        fprintf(stderr, "sensim: %s: %s: %s (survey keys are the options without \"--\")\n", g_survey,
                g_command ? g_command : "run", msg);
    else if (msg)
        fprintf(stderr, "sensim: %s%s%s\n", g_command && help_of(g_command) ? g_command : "",
                g_command && help_of(g_command) ? ": " : "", msg);
    cli_help(stderr, g_command);
    return EXIT_USAGE;
}

int usage_option(const char *opt, int needs_value)
{
    char m[256];
    snprintf(m, sizeof m, needs_value ? "option '%.200s' needs a value (or is unknown)" : "unknown option '%.200s'",
             opt);
    return usage(m);
}

int cli_is_command(const char *cmd)
{
    return help_of(cmd) != NULL;
}
