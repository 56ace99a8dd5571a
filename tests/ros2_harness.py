"""For the live ROS 2 tests: the messages of an uncompressed MCAP bag, read
with the standard library alone (a reader independent of libsensim), and a
child process whose output lines a test waits for."""
import re
import sys
import struct
import subprocess
import threading


def bag_messages(path):
    """{topic: [message bytes]} of an uncompressed MCAP, in file order."""
    data = open(path, "rb").read()
    chans, out = {}, {}

    def records(buf, at, end):
        while at < end:
            op = buf[at]
            n = struct.unpack_from("<Q", buf, at + 1)[0]
            yield op, buf[at + 9:at + 9 + n]
            at += 9 + n

    def walk(buf, at, end):
        for op, c in records(buf, at, end):
            if op == 0x04:  # Channel: id, schema id, topic
                cid = struct.unpack_from("<H", c, 0)[0]
                tl = struct.unpack_from("<I", c, 4)[0]
                chans[cid] = c[8:8 + tl].decode()
            elif op == 0x05:  # Message: channel, sequence, log time, publish time, data
                cid = struct.unpack_from("<H", c, 0)[0]
                out.setdefault(chans[cid], []).append(bytes(c[22:]))
            elif op == 0x06:  # Chunk: start, end, size, crc, compression, records
                cl = struct.unpack_from("<I", c, 28)[0]
                assert c[32:32 + cl] == b"", "the test bag is uncompressed"
                rl = struct.unpack_from("<Q", c, 32 + cl)[0]
                walk(c, 40 + cl, 40 + cl + rl)
            elif op == 0x0F:  # Data End
                return

    walk(data, 8, len(data) - 8)
    return out


def unpad(wire):
    """The message a wire payload carries: RTPS pads a payload to whole words, and the encapsulation
    options' two low bits count the padding (XTypes 1.3, 7.6.3.1.2); the bag stores options 0."""
    pad = wire[3] & 3
    return wire[:2] + b"\0\0" + wire[4:len(wire) - pad]


class Checks:
    """check(cond, what): a truth the test asserts, counted; a failure printed, the test goes on."""

    def __init__(self):
        self.passed = self.failures = 0

    def __call__(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failures += 1
            print("FAIL:", what)

    def end(self):
        print("%d checks passed, %d failed" % (self.passed, self.failures))
        sys.exit(1 if self.failures else 0)


class Proc:
    """A child whose stdout/stderr lines are collected by threads, so a test waits for a line."""

    def __init__(self, args, env, stdin=False):
        self.p = subprocess.Popen(args, env=env, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines, self.cv = [], threading.Condition()
        self.threads = [threading.Thread(target=self._read, args=(s,), daemon=True) for s in (self.p.stdout,
                                                                                             self.p.stderr)]
        for t in self.threads:
            t.start()

    def _read(self, stream):
        for line in stream:
            with self.cv:
                self.lines.append(line.rstrip("\n"))
                self.cv.notify_all()
        with self.cv:
            self.cv.notify_all()

    def wait_line(self, pattern, timeout=120):
        with self.cv:
            ok = self.cv.wait_for(lambda: any(re.search(pattern, l) for l in self.lines) or self.p.poll() is not None,
                                  timeout)
            return ok and any(re.search(pattern, l) for l in self.lines)

    def finish(self, timeout=300):
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        for t in self.threads:
            t.join()
        return rc

    def text(self):
        return "\n".join(self.lines)
