/* Images a person reads: the bird's-eye view (metric placement of points,
 * highest wins, grid, scale bar, nothing where nothing is), the range preview
 * (the colour of a known range, rows repeated, black where no return) and the
 * pattern heat map's legend. PNGs are read back through libpng. */
#include "helpers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#include <png.h>

static char dir[64];

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/sensim_images_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const uint8_t *px(const uint8_t *img, uint32_t w, uint32_t x, uint32_t y)
{
    return img + 3 * ((size_t)y * w + x);
}

static sensim_point pt(float x, float y, float z, uint8_t tag)
{
    sensim_point p;
    memset(&p, 0, sizeof p);
    p.x = x, p.y = y, p.z = z, p.tag = tag;
    p.range_m = sqrtf(x * x + y * y + z * z);
    return p;
}

static void test_bev(void **state)
{
    char path[128];
    snprintf(path, sizeof path, "%s/bev.png", dir);
    sensim_point p[6] = {
        pt(10.05f, 0.05f, 0, 3),     /* building 10 m ahead: row (50 - 10.05) / 0.1 -> 399, col 499 */
        pt(10.05f, 0.05f, -1, 14),   /* lower at the same pixel: hidden */
        pt(0.05f, -20.05f, 0.5f, 14),/* car 20 m to the right: row 499, col 700 */
        pt(70, 0, 0, 14),            /* outside the 50 m square */
        pt(NAN, 1, 1, 14),           /* NaN: left out */
        pt(-5.05f, 5.05f, 3, 0),     /* unlabeled: grey; row 550, col 449 */
    };
    uint32_t S = 0;
    assert_int_equal(sensim_write_bev_png(path, p, 6, NULL, &S), SENSIM_OK);
    assert_int_equal(S, 1000);
    uint32_t w, h;
    uint8_t *img;
    assert_int_equal(sensim__png_read_rgb(path, &w, &h, &img), SENSIM_OK);
    assert_int_equal(w, 1000);
    assert_int_equal(h, 1000);
    uint8_t building[3], car[3];
    sensim_tag_color(3, building);
    sensim_tag_color(14, car);
    assert_memory_equal(px(img, w, 499, 399), building, 3);
    assert_memory_equal(px(img, w, 700, 499), car, 3);
    static const uint8_t grey[3] = {160, 160, 160}, black[3] = {0, 0, 0}, grid[3] = {45, 45, 45},
                         axis[3] = {90, 90, 90}, white[3] = {255, 255, 255};
    assert_memory_equal(px(img, w, 449, 550), grey, 3);
    /* nothing there: black between grid lines; grid every 10 m (100 px), the axes x = 0 and y = 0 brighter */
    assert_memory_equal(px(img, w, 150, 150), black, 3);
    assert_memory_equal(px(img, w, 150, 200), grid, 3); /* row 200: x = 30 m */
    assert_memory_equal(px(img, w, 300, 150), grid, 3); /* col 300: y = 20 m */
    assert_memory_equal(px(img, w, 150, 500), axis, 3); /* row 500: x = 0 */
    /* the scale bar: 10 m = 100 px, bottom left */
    for (uint32_t x = 10; x < 110; x++)
        assert_memory_equal(px(img, w, x, 987), white, 3);
    assert_memory_not_equal(px(img, w, 112, 987), white, 3);
    /* only the five points, the grid, the bar and its label are lit */
    size_t lit = 0;
    for (uint32_t y = 0; y < 960; y++)
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *c = px(img, w, x, y);
            lit += c[0] > 100 || c[1] > 100 || c[2] > 100;
        }
    assert_int_equal(lit, 2); /* the grey point and the car; the building (70, 70, 70) is below 100 */
    free(img);
    /* options refused */
    sensim_bev_options o;
    sensim_bev_options_init(&o);
    o.resolution_m = 0.001;
    assert_int_equal(sensim_write_bev_png(path, p, 6, &o, NULL), SENSIM_ERR_OUT_OF_RANGE);
    sensim_bev_options_init(&o);
    o.half_extent_m = NAN;
    assert_int_equal(sensim_write_bev_png(path, p, 6, &o, NULL), SENSIM_ERR_NOT_FINITE);
    sensim_bev_options_init(&o);
    o.half_extent_m = 1000, o.resolution_m = 0.1; /* 20000 px */
    assert_int_equal(sensim_write_bev_png(path, p, 6, &o, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_write_bev_png(path, NULL, 6, NULL, NULL), SENSIM_ERR_INVALID_ARGUMENT);
}

/* A VLP-16 with a wall 10 m ahead (x = 10) and nothing behind: the front
 * half of the preview has returns, the back half is black, and the
 * horizontal channel facing the wall head on reads exactly 10 m, the ramp's
 * colour at 10 / 40. */
static void test_range_preview(void **state)
{
    sensim_context *ctx = test_ctx(2);
    sensim_scene *s;
    assert_int_equal(sensim_scene_create(ctx, &s), SENSIM_OK);
    float v[12] = {10, -100, -100, 10, 100, -100, 10, 100, 100, 10, -100, 100};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v, md.vertex_count = 4, md.indices = idx, md.triangle_count = 2, md.tag = 3;
    uint32_t mesh;
    assert_int_equal(sensim_scene_add_mesh(s, &md, &mesh), SENSIM_OK);
    assert_int_equal(sensim_scene_commit(s), SENSIM_OK);
    const char *sets[] = {"beam=ideal", "range_noise_stddev_m=0", "firing=column"};
    sensim_lidar *l;
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "vlp16", sets, 3, &l), SENSIM_OK);
    sensim_lidar_info li;
    sensim_lidar_get_info(l, &li);
    size_t size;
    assert_int_equal(sensim_ring_required_size(li.shots_per_frame * 2, 2, &size), SENSIM_OK);
    void *mem = malloc(size);
    sensim_ring *ring;
    assert_int_equal(sensim_ring_init(mem, size, li.shots_per_frame * 2, 2, SENSIM_OVERFLOW_FAIL, &ring), SENSIM_OK);
    double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    assert_int_equal(sensim_lidar_scan(l, s, 0, li.frame_period_ns, pose, ring, NULL), SENSIM_OK);
    sensim_point *pts = malloc(li.shots_per_frame * 2 * sizeof *pts);
    sensim_frame_header hd;
    uint64_t n;
    assert_int_equal(sensim_ring_pop(ring, &hd, pts, li.shots_per_frame * 2, &n), SENSIM_OK);
    assert_true(n > 1000);
    char path[128];
    snprintf(path, sizeof path, "%s/preview.png", dir);
    uint32_t cw, ch;
    assert_int_equal(sensim_write_range_preview(l, pts, n, 0, 40.0, path, &cw, &ch), SENSIM_OK);
    assert_int_equal(ch, 16);
    uint32_t w, h;
    uint8_t *img;
    assert_int_equal(sensim__png_read_rgb(path, &w, &h, &img), SENSIM_OK);
    assert_int_equal(w, cw);
    assert_int_equal(h, 16 * 16 + 30); /* 16 rows repeated 16 times, a 30-row legend */
    /* every cell: black where no return, else the same colour on all 16 repeated rows; a cell
     * of a return at range r has a colour whose green channel grows with r (viridis) */
    size_t returns = 0, empty = 0;
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *c = px(img, w, x, 16 * y);
            for (uint32_t r = 1; r < 16; r++)
                assert_memory_equal(px(img, w, x, 16 * y + r), c, 3);
            if (c[0] == 0 && c[1] == 0 && c[2] == 0)
                empty++;
            else
                returns++;
        }
    /* the wall fills the front half: about half the cells have a return, the back half none */
    assert_true(returns > w * 16 * 4 / 10 && returns < w * 16 * 6 / 10);
    assert_true(empty > w * 16 * 4 / 10);
    /* viridis at 10 / 40 = 0.25 is exactly its second stop */
    static const uint8_t c10[3] = {59, 82, 139};
    int seen = 0;
    for (uint32_t y = 0; y < 16 && !seen; y++)
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *c = px(img, w, x, 16 * y);
            seen |= abs(c[0] - c10[0]) <= 1 && abs(c[1] - c10[1]) <= 1 && abs(c[2] - c10[2]) <= 1;
        }
    assert_true(seen); /* the 0-degree channel meets the wall at 10.000 m head on */
    /* the legend: the ramp's ends */
    uint8_t first[3] = {68, 1, 84}, last[3] = {253, 231, 37};
    assert_memory_equal(px(img, w, 2, 16 * 16 + 3), first, 3);
    uint32_t lw = w < 400 ? w : 400;
    assert_memory_equal(px(img, w, lw - 3, 16 * 16 + 3), last, 3);
    free(img);
    assert_int_equal(sensim_write_range_preview(l, pts, n, 0, -1, path, NULL, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_write_range_preview(l, pts, n, 0, 0, NULL, NULL, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    free(pts);
    free(mem);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
    sensim_context_destroy(ctx);
}

static int grey(const uint8_t *p)
{
    return p[0] == p[1] && p[1] == p[2]; /* black, a grid line, a label: never a viridis colour */
}

static void test_pattern_legend(void **state)
{
    sensim_context *ctx = test_ctx(1);
    sensim_lidar *l;
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "mid40", NULL, 0, &l), SENSIM_OK);
    char path[128];
    snprintf(path, sizeof path, "%s/pattern.png", dir);
    uint32_t hw, hh, mx;
    assert_int_equal(sensim_write_pattern_png(l, 0.5, 0.5 * SENSIM_PI / 180, path, &hw, &hh, &mx), SENSIM_OK);
    /* Mid-40: a 38.4 deg circle in 0.5 deg bins */
    assert_true(hw >= 76 && hw <= 79 && hh >= 76 && hh <= 79);
    assert_true(mx > 0);
    sensim_pattern_figure f;
    assert_int_equal(sensim_write_pattern_figure(l, 0.5, 0.5 * SENSIM_PI / 180, path, &f), SENSIM_OK);
    assert_int_equal(f.bins_az, hw);
    assert_int_equal(f.max_shots, mx);
    /* sized for a screen: 800 px across at least, square bins of ceil(800 / 78) = 11 px */
    assert_int_equal(f.bin_px_x, (800 + hw - 1) / hw);
    assert_int_equal(f.bin_px_y, f.bin_px_x);
    assert_true(f.width_px >= 800 && f.width_px >= f.plot_x + hw * f.bin_px_x);
    /* the circle is centred on the boresight: the plot's edges are about ±19.2 deg */
    assert_true(fabs(f.az_left_deg - 19.2) < 1.0 && fabs(f.el_top_deg - 19.2) < 1.0);
    uint32_t w, h;
    uint8_t *img;
    assert_int_equal(sensim__png_read_rgb(path, &w, &h, &img), SENSIM_OK);
    assert_int_equal(w, f.width_px);
    assert_int_equal(h, f.height_px);
    uint8_t first[3] = {68, 1, 84}, last[3] = {253, 231, 37};
    /* the ramp below the plot: its first colour at the plot's left, its last 400 px or more further */
    const uint32_t pw = hw * f.bin_px_x, ph = hh * f.bin_px_y, lx1 = f.plot_x + (pw < 400 ? 400 : pw);
    int ramp = 0;
    for (uint32_t y = f.plot_y + ph; y < h; y++)
        ramp |= !memcmp(px(img, w, f.plot_x, y), first, 3) && !memcmp(px(img, w, lx1 - 1, y), last, 3);
    assert_true(ramp);
    /* the densest bin is the ramp's last colour; the corners of the circle's box saw no shot */
    int densest = 0;
    for (uint32_t y = f.plot_y; y < f.plot_y + ph; y++)
        for (uint32_t x = f.plot_x; x < f.plot_x + pw; x++)
            densest |= !memcmp(px(img, w, x, y), last, 3);
    assert_true(densest);
    assert_true(grey(px(img, w, f.plot_x + 2, f.plot_y + 2)));
    /* labels: text in the left margin beside the plot's middle (the 0 deg tick) and under it */
    int left_text = 0, under_text = 0;
    for (uint32_t y = f.plot_y + ph / 2 - 8; y < f.plot_y + ph / 2 + 8; y++)
        for (uint32_t x = 0; x < f.plot_x - 8; x++)
            left_text |= px(img, w, x, y)[0] > 200;
    for (uint32_t y = f.plot_y + ph + 8; y < f.plot_y + ph + 24; y++)
        for (uint32_t x = f.plot_x + pw / 2 - 8; x < f.plot_x + pw / 2 + 8; x++)
            under_text |= px(img, w, x, y)[0] > 200;
    assert_true(left_text && under_text);
    free(img);
    assert_int_equal(sensim_write_pattern_png(l, 0, 0.01, path, NULL, NULL, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_write_pattern_png(l, 1, 5.0, path, NULL, NULL, NULL), SENSIM_ERR_OUT_OF_RANGE);
    sensim_lidar_destroy(l);
    sensim_context_destroy(ctx);
}

/* A VLP-16 turn in 0.4 deg bins: its 16 beams at -15, -13, .., 15 deg (the
 * manual's table) are lit rows across the whole width, and the rows 0.8 deg
 * above each beam (between beams) are dark, at the pixels the figure's
 * documented mapping gives for those angles. */
static void test_pattern_figure_beams(void **state)
{
    (void)state;
    sensim_context *ctx = test_ctx(1);
    sensim_lidar *l;
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l), SENSIM_OK);
    char path[128];
    snprintf(path, sizeof path, "%s/vlp16.png", dir);
    sensim_pattern_figure f;
    const double bd = 0.4;
    assert_int_equal(sensim_write_pattern_figure(l, 0.1, bd * SENSIM_PI / 180, path, &f), SENSIM_OK);
    assert_int_equal(f.bins_az, 900); /* 360 deg */
    assert_true(f.width_px >= 800 && f.plot_y + f.bins_el * f.bin_px_y >= 300);
    assert_true(fabs(f.az_left_deg - 180) < 1e-9 && fabs(f.el_top_deg - 15.2) < 1e-9);
    uint32_t w, h;
    uint8_t *img;
    assert_int_equal(sensim__png_read_rgb(path, &w, &h, &img), SENSIM_OK);
    for (int e = -15; e <= 15; e += 2) {
        uint32_t y_beam = f.plot_y + (uint32_t)floor((f.el_top_deg - e) / bd * f.bin_px_y);
        uint32_t y_gap = f.plot_y + (uint32_t)floor((f.el_top_deg - (e + 0.8)) / bd * f.bin_px_y);
        for (double az = -179.8; az < 180; az += 7.6) {
            uint32_t x = f.plot_x + (uint32_t)floor((f.az_left_deg - az) / bd * f.bin_px_x);
            assert_false(grey(px(img, w, x, y_beam)));
            if (e < 15)
                assert_true(grey(px(img, w, x, y_gap)));
        }
    }
    free(img);
    /* bins past sensim_pattern_measure's 2^26 cells are refused before anything is allocated */
    assert_int_equal(sensim_write_pattern_figure(l, 0.1, 1e-4, path, &f), SENSIM_ERR_OUT_OF_RANGE);
    sensim_lidar_destroy(l);
    sensim_context_destroy(ctx);
}

/* Decode @p path with libpng's own reader (an independent decoder of what sensim__png_encode writes):
 * the samples in host order, rows packed; NULL if libpng refuses the file. */
static uint8_t *png_read_raw(const char *path, uint32_t *w, uint32_t *h, int *channels, int *depth)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile out = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        fclose(f);
        free(out);
        return NULL;
    }
    png_init_io(png, f);
    png_read_info(png, info);
    *w = png_get_image_width(png, info), *h = png_get_image_height(png, info);
    *depth = png_get_bit_depth(png, info);
    *channels = png_get_channels(png, info);
    const uint16_t one = 1;
    if (*depth == 16 && *(const uint8_t *)&one == 1)
        png_set_swap(png);
    size_t row = png_get_rowbytes(png, info);
    out = malloc(row * *h);
    for (uint32_t y = 0; y < *h; y++)
        png_read_row(png, out + row * y, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
    return out;
}

/* sensim_write_png (libdeflate, filter "up") and the encoder with filter "none": 1 and 3 channels, 8 and 16
 * bits, odd widths, padded strides, and an image past the in-memory limit (libpng streaming) decode to
 * exactly the samples given. */
static void test_png_round_trip(void **state)
{
    (void)state;
    static const uint32_t sizes[][2] = {{1, 1}, {7, 5}, {333, 17}, {3400, 3300}};
    uint32_t seed = 12345;
    for (int k = 0; k < 4; k++)
        for (uint32_t ch = 1; ch <= 3; ch += 2)
            for (uint32_t bits = 8; bits <= 16; bits += 8) {
                const uint32_t w = sizes[k][0], h = sizes[k][1];
                if (k == 3 && !(ch == 3 && bits == 16))
                    continue; /* the big one once: 3400 x 3300 x 6 bytes is past SENSIM__PNG_MEM_MAX */
                const size_t row = (size_t)w * ch * (bits / 8), stride = row + 5;
                if (k == 3)
                    assert_true((uint64_t)h * (row + 1) > SENSIM__PNG_MEM_MAX);
                uint8_t *img = malloc(stride * h + 8);
                assert_non_null(img);
                for (uint32_t y = 0; y < h; y++) /* smooth rows with noise, so every filter byte differs */
                    for (size_t i = 0; i < stride; i++) {
                        seed = seed * 1103515245u + 12345u;
                        img[(size_t)y * stride + i] = (uint8_t)(i / 3 + y + ((seed >> 16) & 7));
                    }
                char path[128];
                snprintf(path, sizeof path, "%s/rt_%d_%u_%u.png", dir, k, ch, bits);
                assert_int_equal(sensim_write_png(path, w, h, ch, bits, img, stride), SENSIM_OK);
                uint32_t rw, rh;
                int rch, rbits;
                uint8_t *back = png_read_raw(path, &rw, &rh, &rch, &rbits);
                assert_non_null(back);
                assert_int_equal(rw, w);
                assert_int_equal(rh, h);
                assert_int_equal(rch, (int)ch);
                assert_int_equal(rbits, (int)bits);
                for (uint32_t y = 0; y < h; y++)
                    assert_memory_equal(back + row * y, img + stride * y, row);
                free(back);
                if (k < 3) { /* the other filter (none: label images, depth codes) */
                    sensim__png_encoder e = {0};
                    const unsigned char *png;
                    size_t n;
                    assert_int_equal(sensim__png_encode(&e, path, w, h, ch, bits, img, stride, SENSIM__PNG_FILTER_NONE,
                                                        &png, &n), SENSIM_OK);
                    assert_int_equal(sensim__write_bytes(path, png, n), SENSIM_OK);
                    sensim__png_encoder_free(&e);
                    back = png_read_raw(path, &rw, &rh, &rch, &rbits);
                    assert_non_null(back);
                    assert_true(rw == w && rh == h && rch == (int)ch && rbits == (int)bits);
                    for (uint32_t y = 0; y < h; y++)
                        assert_memory_equal(back + row * y, img + stride * y, row);
                    free(back);
                }
                free(img);
                unlink(path);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bev),
        cmocka_unit_test(test_png_round_trip),
        cmocka_unit_test(test_range_preview),
        cmocka_unit_test(test_pattern_legend),
        cmocka_unit_test(test_pattern_figure_beams),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
