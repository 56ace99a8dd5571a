#!/usr/bin/env python3
"""Writes scan_patterns/*.preset for the mechanical models of
scan_patterns/sources/lidar_models_pcsim.md that have no vendor firing table
(vlp16, hdl32, hdl64, pandar64, pandar128, os1_64, os1_64_gen2 and os0_128 come
from scripts/gen_vendor_presets.py). Run once by hand when a table
changes; the generated files are committed and are the source of truth."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "scan_patterns")

RUBY128 = [-13.565, -1.09, -4.39, 1.91, -6.65, -0.29, -3.59, 2.71, -5.79, 0.51, -2.79, 3.51, -4.99,
           1.31, -1.99, 5.06, -4.19, 2.11, -19.582, -1.29, -3.39, 2.91, -7.15, -0.49, -2.59, 3.71,
           -5.99, 0.31, -1.79, 5.96, -5.19, 1.11, -0.99, -4.29, 2.01, -25, -0.19, -3.49, 2.81, -7.65,
           0.61, -2.69, 3.61, -6.09, 1.41, -1.89, 5.46, -5.29, 2.21, -16.042, -1.19, -4.49, 3.01,
           -6.85, -0.39, -3.69, 3.81, -5.89, 0.41, -2.89, 6.56, -5.09, 1.21, -2.09, -8.352, -0.69,
           -3.99, 2.31, -6.19, 0.11, -3.19, 3.11, -5.39, 0.91, -2.39, 3.96, -4.59, 1.71, -1.59, 7.41,
           -3.79, 2.51, -10.346, -0.89, -2.99, 3.31, -6.39, -0.09, -2.19, 4.41, -5.59, 0.71, -1.39,
           11.5, -4.79, 1.51, -0.59, -3.89, 2.41, -11.742, 0.21, -3.09, 3.21, -6.5, 1.01, -2.29, 4.16,
           -5.69, 1.81, -1.49, 9, -4.89, 2.61, -9.244, -0.79, -4.09, 3.41, -6.29, 0.01, -3.29, 4.71,
           -5.49, 0.81, -2.49, 15, -4.69, 1.61, -1.69]
PANDAR_QT = [52.133, 49.795, 47.587, 45.487, 43.475, 41.537, 39.662, 37.84, 36.064, 34.328, 32.627,
             30.957, 29.315, 27.697, 26.101, 24.524, 22.959, 21.415, 19.885, 18.368, 16.861, 15.365,
             13.877, 12.397, 10.923, 9.456, 7.993, 6.534, 5.079, 3.626, 2.175, 0.725, -0.725, -2.175,
             -3.626, -5.079, -6.535, -7.994, -9.457, -10.925, -12.399, -13.88, -15.368, -16.865,
             -18.372, -19.889, -21.42, -22.964, -24.517, -26.094, -27.69, -29.308, -30.95, -32.619,
             -34.32, -36.055, -37.831, -39.653, -41.528, -43.465, -45.477, -47.577, -49.785, -52.121]
PANDAR40 = [15, 11, 8, 5, 3, 2, 1.67, 1.33, 1, 0.67, 0.33, 0, -0.33, -0.67, -1, -1.33, -1.67, -2,
            -2.33, -2.67, -3, -3.33, -3.67, -4, -4.33, -4.67, -5, -5.33, -5.67, -6, -7, -8, -9, -10,
            -11, -12, -13, -14, -19, -25]


MODELS = [
    # vlp32: written by hand from Velodyne's calibration (scan_patterns/vlp32.preset), no longer PCSim's
    dict(name="ruby128", desc="RoboSense RS-Ruby 128", ch=128, el=RUBY128, rot=10, pps=2300000, rmax=200,
         rmin=0.4, notes=["Minimum range: RS-Ruby 128: 0.4 m blind zone (datasheet as commonly quoted; UNVERIFIED here).",
                "2.3 M pts/s at 10 Hz gives 1796.875 columns; rounded to 1797."]),
    # pandar_qt: its angles by hand from Hesai's table (scan_patterns/pandar_qt.preset), no longer written here
    dict(name="pandar_40m", desc="Hesai Pandar40M", ch=40, el=PANDAR40, rot=10, pps=1440000, rmax=120, rmin=0.3,
         notes=["Minimum range: Pandar40M: 0.3 m (datasheet as commonly quoted; UNVERIFIED here)."]),
    dict(name="pandar_40p", desc="Hesai Pandar40P", ch=40, el=PANDAR40, rot=10, pps=1440000, rmax=200, rmin=0.3,
         notes=["Minimum range: Pandar40P: 0.3 m (datasheet as commonly quoted; UNVERIFIED here)."]),
    dict(name="pandar_xt", desc="Hesai PandarXT-32", ch=32, el=[15 - i for i in range(32)], rot=10,
         pps=640000, rmax=120,
         rmin=0.05, notes=["Minimum range: PandarXT-32: 0.05 m (datasheet as commonly quoted; UNVERIFIED here).",
                "Fix: PCSim never sets Range (1000 m) nor PointsPerSecond (500,000 default);",
                "datasheet: 120 m, 2000 columns x 32 channels x 10 Hz = 640,000 pts/s."]),
    dict(name="bpearl", desc="RoboSense RS-Bpearl", ch=32, el=[90.0 / 32 * i for i in range(32)], rot=10,
         pps=576000, rmax=30,
         rmin=0.1, notes=["Minimum range: RS-Bpearl: 0.1 m blind zone (datasheet as commonly quoted; UNVERIFIED here).",
                "Fix: PCSim computes (90/32)*i in integer arithmetic (2*i, 0..62 deg);",
                "the intended 2.8125*i (0..87.19 deg) is used.",
                "Fix: PCSim's 4,608,000 pts/s (0.025 deg) is 8x the datasheet's 576,000 pts/s (0.2 deg)."]),
    dict(name="waymo_top", desc="Waymo top lidar (PCSim approximation)", ch=64,
         el=[-17.6 + (20.0 / 63) * i for i in range(64)], rot=10, pps=1696000, rmax=75, noise=0.025, rmin=0.5,
         notes=["Minimum range: Waymo top lidar: 0.5 m assumed (no public figure); UNVERIFIED."]),
]


# Livox Risley presets. Exact-model parameters: mid40 and mid70 are HELIOS++'s
# published scanner definitions (scan_patterns/sources/risley.md). The others
# are FITTED with the same exact model (scripts' fit noted per preset) to the
# datasheet FOV, shot rate and laser count; their prism rates are not public.
RISLEY = [
    dict(name="mid40", desc="Livox Mid-40", lasers=[(0, 0)], wedge=[18.7481, 17.9634], index=[1.51, 1.51],
         rot=[-121.5657, 77.7430], pps=100000, rmin=1.0, rmax=260,
         notes=["Prisms: HELIOS++ published parameters (exact Snell model: full FOV 38.32 deg; datasheet 38.4).",
                "PCSim replays a CSV from a hard-coded path with a cursor that skips and repeats rows."]),
    dict(name="mid70", desc="Livox Mid-70", lasers=[(0, 0)], wedge=[-29.7, 29.7], index=[1.5095, 1.5095],
         rot=[-77.7333, 121.5667], pps=100000, rmin=0.05, rmax=260,
         notes=["Prisms: HELIOS++ published parameters; negative wedge = flat entrance, tilted exit.",
                "Exact model: full FOV 70.38 deg (datasheet 70.4)."]),
    dict(name="avia", desc="Livox Avia (non-repetitive mode)", lasers=[(-2.2383 + 0.89532 * i, 0) for i in range(6)],
         wedge=[-29.7, 29.7], index=[1.5095, 1.5095], rot=[-77.7333, 121.5667], pps=240000, rmin=1.0, rmax=450,
         notes=["FITTED: Mid-70 prisms (rates not public); 6 lasers spread over +-2.2383 deg vertically,",
                "fitted so the exact model gives 70.6 x 77.2 deg (datasheet 70.4 x 77.2) over 3 s; 240 kHz, 6 lasers."]),
    dict(name="horizon", desc="Livox Horizon", lasers=[(-12.3726 + 4.94904 * i, 0) for i in range(6)],
         wedge=[34.9486, 34.9486], index=[1.51, 1.51], rot=[-50.0, 50.0], pps=240000, rmin=0.5, rmax=260,
         notes=["FITTED: two equal prisms counter-rotating at +-50 Hz sweep a horizontal line; wedge 34.9486 deg",
                "gives 81.7 deg across, 6 lasers spread +-12.3726 deg give 25.1 deg (datasheet 81.7 x 25.1, checked over 3 s).",
                "The real Horizon pattern is non-repetitive; this approximation repeats every 20 ms."]),
    dict(name="tele", desc="Livox Tele-15", lasers=[(-0.8483, 0), (0, 0), (0.8483, 0)], wedge=[7.2356, 6.9328],
         index=[1.51, 1.51], rot=[-121.5657, 77.7430], pps=240000, rmin=3.0, rmax=500,
         notes=["FITTED: Mid-40 prism rates, wedges scaled to a 14.5 deg circle; 3 lasers +-0.8483 deg",
                "give 14.5 x 16.2 deg (datasheet) over 3 s."]),
    dict(name="mid360", desc="Livox Mid-360", lasers=[(0, 0)], wedge=[27.9856, 26.8143], index=[1.51, 1.51],
         rot=[-121.5657, 77.7430], pps=200000, rmin=0.1, rmax=70, bore=22.5, head=10.0,
         notes=["FITTED: a Mid-40-like rosette scaled to a 59 deg circle, tilted up 22.5 deg and spun about z",
                "at 10 Hz: 360 x 59 deg (-7 .. +52, datasheet). The real optics differ; min range 0.1 m."]),
]

MEMS = [
    dict(name="mems_m1", notes=["PCSim's rs_m1 (its README calls it mems_m1) as a continuous parametric generator:",
                                "the ten sub-patterns fire together, carriers evaluated at each shot's time.",
                                "Fix: PCSim fires 1.5 M rays per tick whatever dt and drops 95 %; here the shot",
                                "count follows shots_per_s x time (787,500 pts/s, the RoboSense M1 datasheet as commonly",
                                "quoted; not in sources/, UNVERIFIED).",
                                "Fix: PCSim never sets Range (1000 m); 150 m at 10 % (datasheet as commonly quoted; UNVERIFIED).",
                                "Fix: sub-pattern 6's typo (cos t2 for cos t1) is harmless (cos is even); kept as sub 5."]),
]


def fmt(v):
    s = ("%.6f" % v).rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def main():
    os.makedirs(OUT, exist_ok=True)
    for m in MODELS:
        lines = ["# %s. Generated by scripts/gen_presets.py from" % m["desc"],
                 "# sources/lidar_models_pcsim.md (PCSim figures).",
                 "# Keys: scan_patterns/README.md."]
        for n in m.get("notes", []):
            lines.append("# " + n)
        lines += ["name = %s" % m["name"], "type = mechanical", "channels = %d" % m["ch"],
                  "rotation_hz = %g" % m["rot"], "shots_per_s = %d" % m["pps"],
                  "hfov_deg = 360", "start_azimuth_deg = 0", "spin = cw",
                  "min_range_m = %s" % fmt(m.get("rmin", 0.0)), "max_range_m = %g" % m["rmax"],
                  "range_noise_stddev_m = %g" % m.get("noise", 0.0),
                  "atmos_atten_per_m = 0.004",
                  "elevation_deg = " + ", ".join(fmt(v) for v in m["el"])]
        if "fire" in m:
            lines.append("firing_offset_ns = " + ", ".join(str(v) for v in m["fire"]))
        with open(os.path.join(OUT, m["name"] + ".preset"), "w") as f:
            f.write("\n".join(lines) + "\n")
    for m in RISLEY:
        lines = ["# %s. Generated by scripts/gen_presets.py; prism parameters, shot rates and the" % m["desc"],
                 "# datasheet FOVs quoted below: sources/risley.md.", "# Keys: scan_patterns/README.md."]
        lines += ["# " + n for n in m["notes"]]
        lines += ["name = %s" % m["name"], "type = risley", "channels = %d" % len(m["lasers"]),
                  "shots_per_s = %d" % m["pps"], "frame_rate_hz = 10",
                  "prism_wedge_deg = " + ", ".join(fmt(v) for v in m["wedge"]),
                  "prism_index = " + ", ".join(fmt(v) for v in m["index"]),
                  "prism_rotation_hz = " + ", ".join(fmt(v) for v in m["rot"]),
                  "prism_phase_deg = " + ", ".join("0" for _ in m["wedge"]),
                  "elevation_deg = " + ", ".join(fmt(e) for e, _ in m["lasers"]),
                  "azimuth_offset_deg = " + ", ".join(fmt(a) for _, a in m["lasers"]),
                  "boresight_elevation_deg = %s" % fmt(m.get("bore", 0.0)),
                  "head_spin_hz = %s" % fmt(m.get("head", 0.0)),
                  "min_range_m = %s" % fmt(m["rmin"]), "max_range_m = %s" % fmt(m["rmax"]),
                  "range_noise_stddev_m = 0", "atmos_atten_per_m = 0.004"]
        with open(os.path.join(OUT, m["name"] + ".preset"), "w") as f:
            f.write("\n".join(lines) + "\n")
    for name in ["mems_m1", "rs_m1"]:
        lines = ["# RoboSense M1 (MEMS). Generated by scripts/gen_presets.py from",
                 "# sources/lidar_models_pcsim.md (section 3, PCSim's rs_m1). Keys: scan_patterns/README.md."]
        lines += ["# " + n for n in MEMS[0]["notes"]]
        lines += ["name = %s" % name, "type = mems", "channels = 10", "shots_per_s = 787500", "frame_rate_hz = 10",
                  "mems_h_freq_hz = 7200", "mems_v_freq_hz = 100", "min_range_m = 0.5", "max_range_m = 150",
                  "range_noise_stddev_m = 0.02753913", "atmos_atten_per_m = 0.004"]
        with open(os.path.join(OUT, name + ".preset"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
