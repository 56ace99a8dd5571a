"""The binary PLY reader the CLI and LAS tests share (written from the PLY format description)."""
import struct


def read_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().splitlines()
    assert header[0] == "ply" and header[1] == "format binary_little_endian 1.0", header[:2]
    props, count, comments = [], 0, {}
    for line in header:
        w = line.split()
        if w[0] == "element" and w[1] == "vertex":
            count = int(w[2])
        elif w[0] == "property":
            props.append((w[1], w[2]))
        elif w[0] == "comment" and len(w) >= 3:
            comments[w[1]] = w[2:]
    codes = {"float": "f", "uint": "I", "ushort": "H", "uchar": "B", "int": "i"}
    fmt = "<" + "".join(codes[t] for t, _ in props)
    size = struct.calcsize(fmt)
    body = data[end:]
    assert len(body) == size * count, (len(body), size, count)
    names = [n for _, n in props]
    pts = [dict(zip(names, struct.unpack_from(fmt, body, i * size))) for i in range(count)]
    return names, pts, comments
