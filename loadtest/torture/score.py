#!/usr/bin/env python3
"""Scores a running node against the RFC 4475 and RFC 5118 torture messages.

Each message goes to the node once over UDP (one datagram) and once over TCP
(a connection of its own), with its top Via branch made unique so that no
message is taken for a retransmission of another (the RFC's messages share
branches), and RFC 5118's bare line feeds turned into CRLF with the
Content-Length recomputed (servlet/src/test/resources/sip-torture/README.md).
What the node answers is checked against what that README expects of a
registrar/proxy; a node that stops answering OPTIONS fails the rest.

    loadtest/torture/score.py HOST:PORT [CORPUS_DIR]

Prints one line per message and transport and the totals; exits 0.
"""
import os
import re
import socket
import sys
import time
import uuid

CORPUS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                              "../../servlet/src/test/resources/sip-torture")
HOST, PORT = sys.argv[1].rsplit(":", 1)
PORT = int(PORT)

ANY = "any final answer"
# What a registrar/proxy should do with each message (the expectations of RFC 4475 §3 and RFC 5118 §4): a set of acceptable
# final statuses, "drop" (no answer), or ANY. REGISTERs that are valid may be
# answered 200 or, where authentication is required, 401 (RFC 4475 §3.3.9:
# "with auth: 401 challenge").
VALID_REGISTER = {200, 401}
EXPECT = {
    "wsinv": "valid", "intmeth": "valid", "esc01": "valid", "escnull": VALID_REGISTER, "esc02": "valid",
    "lwsdisp": "valid", "longreq": "valid", "dblreq": VALID_REGISTER, "semiuri": "valid", "transports": "valid",
    "mpart01": "valid", "unreason": "drop", "noreason": "drop", "badinv01": {400}, "clerr": {400, "drop"},
    "ncl": {400, "drop"}, "scalar02": {400}, "scalarlg": "drop", "bigcode": "drop", "quotbal": {400},
    "ltgtruri": {400}, "lwsruri": {400}, "badaspec": {400}, "baddn": {400}, "lwsstart": ANY, "trws": ANY,
    "escruri": ANY, "baddate": "valid", "regbadct": {400}, "badvers": {505}, "mismatch01": {400},
    "mismatch02": {400}, "badbranch": ANY, "insuf": {400}, "unkscm": {416}, "novelsc": {416, 404},
    "unksm2": {400}, "bext01": {420}, "invut": "valid", "regaut01": VALID_REGISTER, "multi01": {400},
    "mcl01": {400, "drop"}, "bcast": "drop", "zeromf": {483}, "cparam01": VALID_REGISTER,
    "cparam02": VALID_REGISTER, "regescrt": VALID_REGISTER, "sdp01": {406, 400, 404, 407, 403},
    "inv2543": ANY,
    "ipv6-good": "valid", "port-ambiguous": "valid", "port-unambiguous": "valid",
    "via-received-param-no-delim": "valid", "via-received-param-with-delim": "valid", "ipv6-in-sdp": "valid",
    "mult-ip-in-header": "valid", "mult-ip-in-sdp": "valid", "ipv4-mapped-ipv6": "valid",
    "ipv6-correct-abnf-2-colons": "valid", "ipv6-bad": {400}, "ipv6-bug-abnf-3-colons": ANY,
}


def load(path, lf_only):
    data = open(path, "rb").read()
    if lf_only:
        head, sep, body = data.partition(b"\n\n")
        head = head.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        body = body.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n") if sep else b""
        head = re.sub(rb"(?im)^(Content-Length|l)\s*:\s*\d+", lambda m: m.group(1) + b": " + str(len(body)).encode(), head)
        data = head + b"\r\n\r\n" + body
    fresh = ("z9hG4bK" + uuid.uuid4().hex[:16]).encode()
    return re.sub(rb"branch=z9hG4bK[^;\s,\r\n]*", b"branch=" + fresh, data, count=1)


def finals(texts):
    out = []
    for t in texts:
        m = re.match(rb"SIP/2\.0 (\d{3})", t)
        if m and int(m.group(1)) >= 200:
            out.append(int(m.group(1)))
    return out


def provisional(texts):
    return any(re.match(rb"SIP/2\.0 1\d\d", t) for t in texts)


def over_udp(data, wait):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.sendto(data, (HOST, PORT))
    got = []
    end = time.time() + wait
    while time.time() < end:
        s.settimeout(max(0.01, end - time.time()))
        try:
            got.append(s.recv(65535))
            if finals(got):
                break
        except socket.timeout:
            break
    s.close()
    return got, False


def over_tcp(data, wait):
    s = socket.create_connection((HOST, PORT), timeout=2)
    s.sendall(data)
    buf = b""
    closed = False
    end = time.time() + wait
    while time.time() < end:
        s.settimeout(max(0.01, end - time.time()))
        try:
            d = s.recv(65535)
        except socket.timeout:
            break
        except ConnectionResetError:
            closed = True
            break
        if not d:
            closed = True
            break
        buf += d
        if finals([buf[m.start():] for m in re.finditer(rb"SIP/2\.0 \d{3}", buf)]):
            break
    s.close()
    return [buf[m.start():] for m in re.finditer(rb"SIP/2\.0 \d{3}", buf)], closed


def alive():
    call = uuid.uuid4().hex
    probe = ("OPTIONS sip:%s:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bK%s;rport\r\n"
             "Max-Forwards: 70\r\nFrom: <sip:probe@127.0.0.1>;tag=1\r\nTo: <sip:%s:%d>\r\nCall-ID: %s\r\n"
             "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n" % (HOST, PORT, call[:12], HOST, PORT, call)).encode()
    got, _ = over_udp(probe, 5)
    return 200 in finals(got)


def verdict(name, got, closed):
    want = EXPECT[name]
    statuses = finals(got)
    status = statuses[0] if statuses else None
    if want == "drop":
        return status is None
    if want == ANY:
        return status is not None or provisional(got) or closed
    if want == "valid":
        # Processed: any answer but 400, or a 100 Trying while it is being forwarded.
        return (status is not None and status != 400) or (status is None and provisional(got))
    if status is None:
        return "drop" in want or (closed and name in ("ncl", "mcl01", "clerr"))
    return status in want


def main():
    files = []
    for sub, lf in (("rfc4475", False), ("rfc5118", True)):
        d = os.path.join(CORPUS, sub)
        for f in sorted(os.listdir(d)):
            name = f[:-4] if f.endswith(".dat") else f
            if name in EXPECT:
                files.append((name, os.path.join(d, f), lf))
    totals = {}
    for transport, send in (("UDP", over_udp), ("TCP", over_tcp)):
        passed = 0
        for name, path, lf in files:
            got, closed = send(load(path, lf), 2.5)
            ok = verdict(name, got, closed)
            first = finals(got)
            print("%s %-28s %-4s %s" % (transport, name, "ok" if ok else "FAIL",
                                         first[0] if first else ("closed" if closed else ("100" if provisional(got) else "-"))))
            passed += ok
            if not alive():
                print("node stopped answering OPTIONS after %s over %s" % (name, transport))
                break
        totals[transport] = passed
    for t, p in totals.items():
        print("%s %d/%d" % (t, p, len(files)))


if __name__ == "__main__":
    main()
