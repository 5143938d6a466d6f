#!/usr/bin/env python3
"""Writes N debezium-json messages (~300 bytes each) to stdout, one per line."""
import sys

n = int(sys.argv[1])
out = sys.stdout
pad = "x" * 96
for i in range(n):
    op = i % 10
    if op < 7:
        msg = ('{"before":null,"after":{"id":%d,"name":"customer-%d","email":"user%d@example.com","amount":%d.%02d,'
               '"created":"2024-01-%02d 12:34:56.789","note":"%s"},"op":"c","source":{"db":"shop","table":"orders%d"}}'
               % (i, i, i, i % 10000, i % 100, 1 + i % 28, pad, i % 4))
    else:
        msg = ('{"before":{"id":%d,"name":"customer-%d","email":"user%d@example.com","amount":1.00,'
               '"created":"2024-01-01 00:00:00","note":"%s"},"after":{"id":%d,"name":"customer-%d","email":"u@e.com",'
               '"amount":2.50,"created":"2024-01-02 00:00:00","note":"n"},"op":"u","source":{"db":"shop","table":"orders%d"}}'
               % (i, i, i, pad[:20], i, i, i % 4))
    out.write(msg)
    out.write("\n")
