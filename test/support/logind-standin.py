#!/usr/bin/env python3
"""A stand-in for systemd-logind (and the piece of systemd's manager the kubelet calls) on a
private D-Bus, for tests. It speaks the login1 interface the kubelet and systemd-inhibit use:

- Properties.Get(org.freedesktop.login1.Manager, InhibitDelayMaxUSec) -> v(t); Set is refused (read-only)
- Manager.Inhibit(what, who, why, mode) -> h: a real file descriptor (the write end of a pipe,
  sent with SCM_RIGHTS); the inhibitor lasts until every copy of it is closed, as logind's fifo.
- Manager.ListInhibitors() -> a(ssssuu)
- Manager.PowerOff(b): PrepareForShutdown(true) is signalled, then "poweroff" happens once every
  delay inhibitor of "shutdown" is released or InhibitDelayMaxUSec has passed, as logind does
  ("poweroff.delayed" names the inhibitors it waits for).
- systemd1 Manager.KillUnit("systemd-logind.service", "all", SIGHUP): rereads InhibitDelayMaxSec
  from the *.conf files of the drop-in directory given with --conf-dir (logind's reload).

It writes one JSON line per event to stdout ({"t": ms since start, "wallMs": epoch ms, "event": ...}), the
timeline tests read. Python's standard library only: Node cannot send file descriptors.
"""
import argparse
import array
import glob
import json
import os
import re
import select
import socket
import struct
import sys
import time

START = time.monotonic()


def log(event, **fields):
    fields.update({"t": round((time.monotonic() - START) * 1000), "wallMs": round(time.time() * 1000), "event": event})
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


# --- the wire format (little-endian), for the types this stand-in needs ---

ALIGN = {"y": 1, "b": 4, "i": 4, "u": 4, "h": 4, "t": 8, "x": 8, "s": 4, "o": 4, "g": 1, "v": 1, "a": 4, "(": 8, "{": 8}


def split_sig(sig):
    out, i = [], 0
    while i < len(sig):
        j = type_end(sig, i)
        out.append(sig[i:j])
        i = j
    return out


def type_end(sig, i):
    c = sig[i]
    if c == "a":
        return type_end(sig, i + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        i += 1
        while sig[i] != close:
            i = type_end(sig, i)
        return i + 1
    return i + 1


class Writer:
    def __init__(self):
        self.b = bytearray()

    def align(self, n):
        self.b += b"\0" * ((n - len(self.b) % n) % n)

    def write(self, sig, values):
        for t, v in zip(split_sig(sig), values):
            self.one(t, v)

    def one(self, t, v):
        c = t[0]
        self.align(ALIGN[c])
        if c == "y":
            self.b += struct.pack("<B", v)
        elif c in "bu" or c == "h":
            self.b += struct.pack("<I", int(v))
        elif c == "i":
            self.b += struct.pack("<i", v)
        elif c == "t":
            self.b += struct.pack("<Q", v)
        elif c == "x":
            self.b += struct.pack("<q", v)
        elif c in "so":
            e = v.encode()
            self.b += struct.pack("<I", len(e)) + e + b"\0"
        elif c == "g":
            e = v.encode()
            self.b += struct.pack("<B", len(e)) + e + b"\0"
        elif c == "v":
            self.one("g", v[0])
            self.one(v[0], v[1])
        elif c == "a":
            at = len(self.b)
            self.b += b"\0\0\0\0"
            self.align(ALIGN[t[1]])
            start = len(self.b)
            for item in v:
                self.one(t[1:], item)
            struct.pack_into("<I", self.b, at, len(self.b) - start)
        elif c in "({":
            for f, x in zip(split_sig(t[1:-1]), v):
                self.one(f, x)


class Reader:
    def __init__(self, b, off=0):
        self.b, self.o = b, off

    def align(self, n):
        self.o += (n - self.o % n) % n

    def read(self, sig):
        return [self.one(t) for t in split_sig(sig)]

    def one(self, t):
        c = t[0]
        self.align(ALIGN[c])
        if c == "y":
            v = self.b[self.o]; self.o += 1; return v
        if c in "buh":
            v = struct.unpack_from("<I", self.b, self.o)[0]; self.o += 4
            return bool(v) if c == "b" else v
        if c == "i":
            v = struct.unpack_from("<i", self.b, self.o)[0]; self.o += 4; return v
        if c in "tx":
            v = struct.unpack_from("<Q" if c == "t" else "<q", self.b, self.o)[0]; self.o += 8; return v
        if c in "so":
            n = struct.unpack_from("<I", self.b, self.o)[0]; self.o += 4
            v = self.b[self.o:self.o + n].decode(); self.o += n + 1; return v
        if c == "g":
            n = self.b[self.o]; self.o += 1
            v = self.b[self.o:self.o + n].decode(); self.o += n + 1; return v
        if c == "v":
            s = self.one("g"); return (s, self.one(s))
        if c == "a":
            n = struct.unpack_from("<I", self.b, self.o)[0]; self.o += 4
            self.align(ALIGN[t[1]])
            end, items = self.o + n, []
            while self.o < end:
                items.append(self.one(t[1:]))
            return items
        if c in "({":
            return [self.one(f) for f in split_sig(t[1:-1])]
        raise ValueError("unsupported type " + c)


FIELD_TYPES = {1: "o", 2: "s", 3: "s", 4: "s", 5: "u", 6: "s", 7: "s", 8: "g", 9: "u"}
FIELD_NAMES = {1: "path", 2: "interface", 3: "member", 4: "error", 5: "reply_serial", 6: "destination", 7: "sender", 8: "signature", 9: "unix_fds"}


def encode(kind, serial, fields, sig="", body=()):
    bw = Writer()
    if sig:
        bw.write(sig, body)
        fields = {**fields, 8: sig}
    hw = Writer()
    hw.write("yyyyuua(yv)", [ord("l"), kind, 0, 1, len(bw.b), serial, [[k, (FIELD_TYPES[k], v)] for k, v in fields.items()]])
    hw.align(8)
    return bytes(hw.b + bw.b)


def decode(b):
    r = Reader(b)
    _, kind, _, _, blen, serial, fields = r.read("yyyyuua(yv)")
    m = {"kind": kind, "serial": serial}
    for code, (_, v) in fields:
        m[FIELD_NAMES.get(code, str(code))] = v
    r.align(8)
    m["body"] = Reader(b[r.o:r.o + blen]).read(m.get("signature", "")) if m.get("signature") else []
    return m


def msg_length(b):
    if len(b) < 16:
        return None
    blen, flen = struct.unpack_from("<I", b, 4)[0], struct.unpack_from("<I", b, 12)[0]
    return 16 + flen + (8 - flen % 8) % 8 + blen


# --- the stand-in ---

class Bus:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.serial = 0
        self.inbox = b""
        uid = str(os.getuid()).encode().hex()
        self.sock.sendall(b"\0AUTH EXTERNAL " + uid.encode() + b"\r\n")
        assert self.readline().startswith(b"OK ")
        self.sock.sendall(b"NEGOTIATE_UNIX_FD\r\n")
        assert self.readline().startswith(b"AGREE_UNIX_FD")
        self.sock.sendall(b"BEGIN\r\n")
        self.unique = self.call_bus("Hello")[0]
        for name in ("org.freedesktop.login1", "org.freedesktop.systemd1"):
            assert self.call_bus("RequestName", "su", [name, 4])[0] == 1, name

    def readline(self):
        line = b""
        while not line.endswith(b"\r\n"):
            line += self.sock.recv(1)
        return line

    def send(self, data, fds=()):
        if fds:
            self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        else:
            self.sock.sendall(data)

    def next_serial(self):
        self.serial += 1
        return self.serial

    def call_bus(self, member, sig="", body=()):
        serial = self.next_serial()
        self.send(encode(1, serial, {1: "/org/freedesktop/DBus", 2: "org.freedesktop.DBus", 3: member, 6: "org.freedesktop.DBus"}, sig, body))
        while True:
            for m in self.receive():
                if m.get("reply_serial") == serial:
                    if m["kind"] == 3:
                        raise RuntimeError(m)
                    return m["body"]

    def receive(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        self.inbox += chunk
        out = []
        while True:
            n = msg_length(self.inbox)
            if n is None or len(self.inbox) < n:
                return out
            out.append(decode(self.inbox[:n]))
            self.inbox = self.inbox[n:]

    def reply(self, m, sig="", body=(), fds=()):
        fields = {5: m["serial"], 6: m["sender"]}
        if fds:
            fields[9] = len(fds)
        self.send(encode(2, self.next_serial(), fields, sig, body), fds)

    def error(self, m, name, text):
        self.send(encode(3, self.next_serial(), {4: name, 5: m["serial"], 6: m["sender"]}, "s", [text]))

    def signal(self, path, iface, member, sig, body):
        self.send(encode(4, self.next_serial(), {1: path, 2: iface, 3: member}, sig, body))


class Logind:
    def __init__(self, bus, delay_usec, conf_dir):
        self.bus, self.delay_usec, self.conf_dir = bus, delay_usec, conf_dir
        self.inhibitors = {}  # read fd -> (what, who, why, mode)
        self.shutdown_deadline = None

    def reload(self):
        for f in sorted(glob.glob(os.path.join(self.conf_dir, "*.conf"))):
            for line in open(f):
                mo = re.match(r"\s*InhibitDelayMaxSec\s*=\s*(\d+)", line)
                if mo:
                    self.delay_usec = int(mo.group(1)) * 1_000_000
        log("logind.reloaded", inhibitDelayMaxUSec=self.delay_usec)

    def handle(self, m):
        if m["kind"] != 1:
            return
        iface, member, body = m.get("interface"), m.get("member"), m["body"]
        if iface == "org.freedesktop.DBus.Properties" and member == "Get":
            if body[1] == "InhibitDelayMaxUSec":
                log("property.get", name=body[1])
                return self.bus.reply(m, "v", [("t", self.delay_usec)])
            return self.bus.error(m, "org.freedesktop.DBus.Error.UnknownProperty", "Unknown property " + body[1])
        if iface == "org.freedesktop.DBus.Properties" and member == "Set":
            # logind's properties are read-only: its delay changes through logind.conf and a reload.
            return self.bus.error(m, "org.freedesktop.DBus.Error.PropertyReadOnly", "Property '%s' is not writable." % body[1])
        if iface == "org.freedesktop.DBus.Peer" and member == "Ping":
            return self.bus.reply(m)
        if iface == "org.freedesktop.login1.Manager" and member == "Inhibit":
            what, who, why, mode = body
            r, w = os.pipe()
            self.inhibitors[r] = (what, who, why, mode)
            log("inhibitor.taken", what=what, who=who, why=why, mode=mode)
            self.bus.reply(m, "h", [0], fds=[w])
            os.close(w)
            return
        if iface == "org.freedesktop.login1.Manager" and member == "ListInhibitors":
            return self.bus.reply(m, "a(ssssuu)", [[[*i, 0, 0] for i in self.inhibitors.values()]])
        if iface == "org.freedesktop.login1.Manager" and member == "PowerOff":
            self.bus.reply(m)
            log("shutdown.prepare", active=True)
            self.bus.signal("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForShutdown", "b", [True])
            self.shutdown_deadline = time.monotonic() + self.delay_usec / 1e6
            held = self.delay_locks()
            if held:
                log("poweroff.delayed", by=[{"who": i[1], "why": i[2]} for i in held])
            self.maybe_power_off()
            return
        if iface == "org.freedesktop.systemd1.Manager" and member == "KillUnit":
            unit, who, sig = body
            self.bus.reply(m)
            if unit == "systemd-logind.service" and sig == 1:
                self.reload()
            return
        self.bus.error(m, "org.freedesktop.DBus.Error.UnknownMethod", "Unknown method %s.%s" % (iface, member))

    def delay_locks(self):
        return [i for i in self.inhibitors.values() if i[3] == "delay" and "shutdown" in i[0].split(":")]

    def released(self, fd):
        what, who, why, mode = self.inhibitors.pop(fd)
        os.close(fd)
        log("inhibitor.released", what=what, who=who, mode=mode)
        self.maybe_power_off()

    def maybe_power_off(self):
        if self.shutdown_deadline is None:
            return
        if self.delay_locks() and time.monotonic() < self.shutdown_deadline:
            return
        log("poweroff", timedOut=bool(self.delay_locks()))
        self.shutdown_deadline = None

    def timeout(self):
        if self.shutdown_deadline is None:
            return None
        return max(0, self.shutdown_deadline - time.monotonic())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--address", required=True, help="unix:path=... of the bus")
    p.add_argument("--inhibit-delay-max-sec", type=int, default=5)
    p.add_argument("--conf-dir", required=True)
    a = p.parse_args()
    path = re.search(r"unix:path=([^,;]+)", a.address).group(1)
    bus = Bus(path)
    logind = Logind(bus, a.inhibit_delay_max_sec * 1_000_000, a.conf_dir)
    log("ready", uniqueName=bus.unique)
    while True:
        readable, _, _ = select.select([bus.sock, *logind.inhibitors], [], [], logind.timeout())
        for fd in readable:
            if fd is bus.sock:
                try:
                    for m in bus.receive():
                        logind.handle(m)
                except EOFError:
                    return
            elif not os.read(fd, 1):
                logind.released(fd)
        logind.maybe_power_off()


if __name__ == "__main__":
    main()
