// Independent check of libsensim's MCAP files: a reader libsensim did not
// write (@mcap/core, @mcap/support's zstd/lz4/bz2 handlers) parses every
// record of every file twice (streaming, and indexed from the footer and
// summary, CRCs checked), and @foxglove/rosmsg2-serialization decodes every
// message from the ros2msg schema text stored in the file.
//
// Usage: node check_mcap.mjs FILE.mcap... > summary.json
// Exit 1 with a message on stderr for any violation. The JSON lists per
// topic: schema name, message count and per message its log time, header
// stamp, and for PointCloud2 the width, fields, and the sum of x, y, z (so a
// test can compare them with the PLY of the same frame).
import { readFileSync } from "node:fs";
import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";
import { parse } from "@foxglove/rosmsg";
import { MessageReader } from "@foxglove/rosmsg2-serialization";
import { crc32 } from "@foxglove/crc";

function fail(msg) {
  process.stderr.write(`check_mcap: ${msg}\n`);
  process.exit(1);
}

const MAGIC = [0x89, 0x4d, 0x43, 0x41, 0x50, 0x30, 0x0d, 0x0a];
const stampNs = (t) => BigInt(t.sec) * 1000000000n + BigInt(t.nanosec);

const decompressHandlers = await loadDecompressHandlers();
const out = { files: [], topics: {} };
const readers = new Map(); // schema name -> MessageReader

for (const path of process.argv.slice(2)) {
  const bytes = new Uint8Array(readFileSync(path));
  for (let i = 0; i < 8; i++)
    if (bytes[i] !== MAGIC[i] || bytes[bytes.length - 8 + i] !== MAGIC[i]) fail(`${path}: magic`);

  // 1. streaming: every record in file order
  const stream = new McapStreamReader({ decompressHandlers, validateCrcs: true });
  stream.append(bytes);
  const streamed = [];
  let header, dataEnd, sawSummary = false, dataEndOffset = -1;
  const schemas = new Map(), channels = new Map();
  for (let rec; (rec = stream.nextRecord()); ) {
    if (rec.type === "Header") header = rec;
    else if (rec.type === "Schema") schemas.set(rec.id, rec);
    else if (rec.type === "Channel") {
      if (!sawSummary && !schemas.has(rec.schemaId)) fail(`${path}: channel ${rec.topic} before its schema`);
      channels.set(rec.id, rec);
    } else if (rec.type === "Message") {
      if (!channels.has(rec.channelId)) fail(`${path}: message before its channel ${rec.channelId}`);
      streamed.push(rec);
    } else if (rec.type === "DataEnd") {
      dataEnd = rec;
      sawSummary = true;
    }
  }
  if (!stream.done()) fail(`${path}: stream reader did not reach the footer`);
  if (!header || header.profile !== "ros2") fail(`${path}: profile ${header && header.profile}`);
  if (!dataEnd) fail(`${path}: no Data End`);
  // Data End CRC: every byte before the Data End record (13 bytes: opcode, length, crc)
  if (dataEnd.dataSectionCrc !== 0) {
    // find the Data End record: it is right before the summary start (footer)
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const summaryStart = Number(dv.getBigUint64(bytes.length - 8 - 20, true));
    dataEndOffset = summaryStart - 13;
    if (bytes[dataEndOffset] !== 0x0f) fail(`${path}: no Data End right before the summary`);
    const c = crc32(bytes.subarray(0, dataEndOffset));
    if (c !== dataEnd.dataSectionCrc) fail(`${path}: data section CRC ${c} != ${dataEnd.dataSectionCrc}`);
  }

  // 2. indexed: footer -> summary -> chunk indexes -> message indexes
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  if (!reader.statistics) fail(`${path}: no Statistics`);
  if (reader.chunkIndexes.length === 0 && streamed.length) fail(`${path}: no chunk indexes`);
  const indexed = [];
  for await (const m of reader.readMessages()) indexed.push(m);
  if (indexed.length !== streamed.length || BigInt(indexed.length) !== reader.statistics.messageCount)
    fail(`${path}: ${indexed.length} indexed, ${streamed.length} streamed, statistics ${reader.statistics.messageCount}`);
  for (let i = 1; i < indexed.length; i++)
    if (indexed[i].logTime < indexed[i - 1].logTime) fail(`${path}: indexed read out of log-time order`);
  for (const [id, n] of reader.statistics.channelMessageCounts) {
    const k = streamed.filter((m) => m.channelId === id).length;
    if (BigInt(k) !== n) fail(`${path}: channel ${id}: statistics ${n}, found ${k}`);
  }

  out.files.push({ path, messages: indexed.length, chunks: reader.chunkIndexes.length,
                   compression: [...new Set(reader.chunkIndexes.map((c) => c.compression))] });

  // 3. decode every message with the schema text in the file
  for (const m of indexed) {
    const ch = reader.channelsById.get(m.channelId);
    const sc = reader.schemasById.get(ch.schemaId);
    if (ch.messageEncoding !== "cdr" || sc.encoding !== "ros2msg") fail(`${path}: ${ch.topic}: encodings`);
    if (!ch.metadata.get("offered_qos_profiles")) fail(`${path}: ${ch.topic}: no offered_qos_profiles`);
    if (!readers.has(sc.name)) {
      const text = new TextDecoder().decode(sc.data);
      readers.set(sc.name, new MessageReader(parse(text, { ros2: true })));
    }
    let msg;
    try {
      msg = readers.get(sc.name).readMessage(m.data);
    } catch (e) {
      fail(`${path}: ${ch.topic} message at ${m.logTime}: ${e.message}`);
    }
    const t = (out.topics[ch.topic] ??= { type: sc.name, count: 0, messages: [],
                                            type_hash: ch.metadata.get("topic_type_hash") ?? null });
    t.count++;
    const e = { log_ns: String(m.logTime) };
    if (msg.header) {
      e.stamp_ns = String(stampNs(msg.header.stamp));
      e.frame_id = msg.header.frame_id;
    }
    if (sc.name === "sensor_msgs/msg/PointCloud2") {
      e.width = msg.width;
      e.height = msg.height;
      e.point_step = msg.point_step;
      e.is_dense = msg.is_dense;
      e.fields = msg.fields.map((f) => `${f.name}:${f.offset}:${f.datatype}:${f.count}`);
      if (msg.data.length !== msg.width * msg.point_step || msg.row_step !== msg.data.length)
        fail(`${path}: ${ch.topic}: data ${msg.data.length} bytes for ${msg.width} x ${msg.point_step}`);
      const dv = new DataView(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength);
      const off = Object.fromEntries(msg.fields.map((f) => [f.name, f.offset]));
      if ("x" in off) {
        let sx = 0, sy = 0, sz = 0;
        for (let i = 0; i < msg.width; i++) {
          const b = i * msg.point_step;
          sx += dv.getFloat32(b + off.x, true);
          sy += dv.getFloat32(b + off.y, true);
          sz += dv.getFloat32(b + off.z, true);
        }
        e.sum_xyz = [sx, sy, sz];
      }
      if ("t" in off && msg.width) e.t_last = dv.getUint32((msg.width - 1) * msg.point_step + off.t, true);
    } else if (sc.name === "sensor_msgs/msg/Image") {
      Object.assign(e, { width: msg.width, height: msg.height, encoding: msg.encoding, step: msg.step,
                         bytes: msg.data.length });
    } else if (sc.name === "sensor_msgs/msg/CameraInfo") {
      Object.assign(e, { width: msg.width, height: msg.height, k: Array.from(msg.k), d: Array.from(msg.d),
                         distortion_model: msg.distortion_model });
    } else if (sc.name === "sensor_msgs/msg/Imu") {
      const a = msg.linear_acceleration, w = msg.angular_velocity, q = msg.orientation;
      Object.assign(e, { accel: [a.x, a.y, a.z], gyro: [w.x, w.y, w.z], q: [q.x, q.y, q.z, q.w],
                         cov_gyro: Array.from(msg.angular_velocity_covariance),
                         cov_accel: Array.from(msg.linear_acceleration_covariance) });
    } else if (sc.name === "sensor_msgs/msg/NavSatFix") {
      Object.assign(e, { lat: msg.latitude, lon: msg.longitude, alt: msg.altitude, status: msg.status.status,
                         service: msg.status.service, cov_type: msg.position_covariance_type,
                         cov: Array.from(msg.position_covariance) });
    } else if (sc.name === "nav_msgs/msg/Odometry") {
      const p = msg.pose.pose.position, q = msg.pose.pose.orientation, v = msg.twist.twist.linear;
      Object.assign(e, { child: msg.child_frame_id, p: [p.x, p.y, p.z], q: [q.x, q.y, q.z, q.w], v: [v.x, v.y, v.z] });
    } else if (sc.name === "tf2_msgs/msg/TFMessage") {
      e.transforms = msg.transforms.map((x) => ({
        parent: x.header.frame_id, child: x.child_frame_id, stamp_ns: String(stampNs(x.header.stamp)),
        t: [x.transform.translation.x, x.transform.translation.y, x.transform.translation.z],
        q: [x.transform.rotation.x, x.transform.rotation.y, x.transform.rotation.z, x.transform.rotation.w],
      }));
    } else if (sc.name.startsWith("carla_msgs/msg/")) {
      // every field as decoded (typed arrays as arrays; 64-bit integers as strings)
      e.msg = JSON.parse(JSON.stringify(msg, (k, v) =>
        typeof v === "bigint" ? String(v) : ArrayBuffer.isView(v) ? Array.from(v) : v));
    } else if (sc.name === "rosgraph_msgs/msg/Clock") {
      e.clock_ns = String(stampNs(msg.clock));
    }
    t.messages.push(e);
  }
}
process.stdout.write(JSON.stringify(out));
