#!/usr/bin/python3
"""Issue 49, item 9: the Assimp helper dies with its host. A host (here a
forked child) runs sensim-assimp on a glTF whose answer (1 MB) fills the
pipe; once the helper has started writing, the host is SIGKILLed. The pipe's
read end stays open in this test, so without a parent-death signal the
helper blocked on its write forever (before the fix it outlived the host
for as long as the test waited). States are waited for, each with a
deadline; nothing sleeps for a fixed time.
Usage: test_helper_death.py SENSIM_ASSIMP"""
import base64
import json
import os
import select
import signal
import struct
import sys
import tempfile
import time

HELPER = sys.argv[1]


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


with tempfile.TemporaryDirectory() as tmp:
    n = 20000  # triangles, three vertices each: 720 KB of positions in the answer
    pos = b"".join(struct.pack("<9f", i, 0, 0, i + 1, 0, 0, i, 1, 0) for i in range(n))
    idx = struct.pack("<%dI" % (3 * n), *range(3 * n))
    data = pos + idx
    gltf = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
            "buffers": [{"byteLength": len(data),
                         "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}],
            "bufferViews": [{"buffer": 0, "byteLength": len(pos)},
                            {"buffer": 0, "byteOffset": len(pos), "byteLength": len(idx)}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3 * n, "type": "VEC3",
                           "min": [0, 0, 0], "max": [n, 1, 0]},
                          {"bufferView": 1, "componentType": 5125, "count": 3 * n, "type": "SCALAR"}]}
    path = os.path.join(tmp, "big.gltf")
    with open(path, "w") as f:
        json.dump(gltf, f)
    answer_r, answer_w = os.pipe()
    report_r, report_w = os.pipe()
    host = os.fork()
    if host == 0:  # the host: starts the helper as libsensim does, then waits to be killed
        os.close(answer_r)
        os.close(report_r)
        pid = os.posix_spawn(HELPER, [HELPER, path, str(1 << 30), str(4 << 30), "60"], os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, answer_w, 1)])
        os.write(report_w, b"%d\n" % pid)
        while True:
            signal.pause()
    os.close(answer_w)
    os.close(report_w)
    helper = int(os.read(report_r, 64))
    # the helper has passed its start-up (and the parent-death set-up) once its answer arrives
    ready, _, _ = select.select([answer_r], [], [], 120)
    first = os.read(answer_r, 8) if ready else b""
    os.kill(host, signal.SIGKILL)
    os.waitpid(host, 0)
    deadline = time.monotonic() + 120  # a state awaited, generously on a loaded machine
    while alive(helper) and time.monotonic() < deadline:
        time.sleep(0.01)
    gone = not alive(helper)
    if not gone:
        os.kill(helper, signal.SIGKILL)
    os.close(answer_r)
    ok = first == b"SNSIMAI1"  # the wire format's magic: the helper runs and answers
    print("helper answered %r; after its host's SIGKILL it is %s" % (first, "gone" if gone else "still running"))
    sys.exit(0 if ok and gone else 1)
