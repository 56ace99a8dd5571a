"""Readers the CLI and LAS tests share: binary PLY (from the PLY format description) and PNG (zlib only)."""
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


def read_png(path):
    """Decode an 8-bit RGB or gray non-interlaced PNG (the kinds sensim writes) with zlib only."""
    import zlib
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (0, 2)
            ch = 3 if ctype == 2 else 1
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * ch, [], bytearray(w * ch)
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b, c = prev[i], prev[i - ch] if i >= ch else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows
