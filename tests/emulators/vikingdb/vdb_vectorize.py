"""Deterministic stand-in for VikingDB's server-side embedding models.

Hashed bag-of-words: each token goes to bucket blake2b(token) % dim with a
hash-derived sign, counts accumulate, the vector is L2-normalised. Same text ->
same vector on every run and platform, and texts sharing words score closer
under cosine/ip, which is enough to test vectorize pipelines end to end.
CJK characters count as one token each (no spaces to split on).
"""
from __future__ import annotations

import hashlib
import math
import re

_TOKEN_RE = re.compile(r"[0-9A-Za-z\u00C0-\u024F]+|[^\s\W]", re.UNICODE)


def tokens(text: str) -> list[str]:
    return _TOKEN_RE.findall(text.lower())


def _bucket(token: str, dim: int) -> tuple[int, float]:
    h = hashlib.blake2b(token.encode(), digest_size=8).digest()
    n = int.from_bytes(h, "little")
    return n % dim, (1.0 if (n >> 63) & 1 == 0 else -1.0)


def dense_embedding(text: str, dim: int) -> list[float]:
    vec = [0.0] * dim
    for tok in tokens(text):
        i, sign = _bucket(tok, dim)
        vec[i] += sign
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0:
        # Empty text still needs a valid vector: a fixed unit vector.
        vec[0] = 1.0
        return vec
    return [x / norm for x in vec]


def sparse_embedding(text: str) -> dict[str, float]:
    counts: dict[str, float] = {}
    for tok in tokens(text):
        counts[tok] = counts.get(tok, 0.0) + 1.0
    total = sum(counts.values()) or 1.0
    return {t: c / total for t, c in counts.items()}


def token_usage(model: str, version: str, n_tokens: int) -> dict:
    """Upsert result shape when vectorize ran (§5.3)."""
    return {f"{model}__{version}": {"prompt_tokens": n_tokens, "completion_tokens": 0,
                                    "image_tokens": 0, "total_tokens": n_tokens}}
