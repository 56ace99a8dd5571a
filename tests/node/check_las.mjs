// Independent check of libsensim's LAS 1.2 files: @loaders.gl/las (the
// reader of web point-cloud stacks, which stops at LAS 1.3) parses each file
// and this prints what it read, for a test to compare with the PLY of the
// same frame.
//
// Usage: node check_las.mjs FILE.las... > read.json
// Exit 1 with a message on stderr when a file does not parse. The JSON has
// per file: the point count, the bounding box, and per point x y z (float64
// as loaders.gl gives them), intensity, the raw classification byte and the
// 8-bit RGB loaders.gl derives from the 16-bit colour.
import { readFileSync } from "node:fs";
import { parse } from "@loaders.gl/core";
import { LASLoader } from "@loaders.gl/las";

const out = [];
for (const path of process.argv.slice(2)) {
  const b = readFileSync(path);
  let d;
  try {
    d = await parse(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), LASLoader, { worker: false });
  } catch (e) {
    process.stderr.write(`check_las: ${path}: ${e.message}\n`);
    process.exit(1);
  }
  const a = d.attributes;
  const n = d.header.vertexCount;
  if (!a.POSITION || !a.intensity || !a.classification || !a.COLOR_0) {
    process.stderr.write(`check_las: ${path}: attributes ${Object.keys(a)}\n`);
    process.exit(1);
  }
  const c = a.COLOR_0.value, s = a.COLOR_0.size;
  out.push({
    path, n, bbox: d.header.boundingBox, format: d.loaderData.pointsFormatId,
    xyz: Array.from(a.POSITION.value),
    intensity: Array.from(a.intensity.value),
    classification: Array.from(a.classification.value),
    rgb: Array.from({ length: n }, (_, i) => [c[s * i], c[s * i + 1], c[s * i + 2]]),
  });
}
process.stdout.write(JSON.stringify(out));
