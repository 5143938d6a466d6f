"""In-memory OSS buckets. Keys are kept in a sorted list (bisect) next to a dict so that a
bucket of 1,000,000 objects lists a 1000-key page in well under a millisecond per key.

Seeded objects carry no bytes: their content is a deterministic pattern of their size
(`pattern_bytes`), and ETag/CRC are computed once per distinct size.
"""
import base64
import bisect
import hashlib
import time

try:  # crcmod ships with oss2 (C extension); without it the CRC header is omitted.
    import crcmod
    _crc64 = crcmod.mkCrcFun(0x142F0E1EBA9EA3693, initCrc=0, xorOut=0xFFFFFFFFFFFFFFFF, rev=True)
except ImportError:  # pragma: no cover
    _crc64 = None

_PATTERN = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_"


class OssError(Exception):
    def __init__(self, status: int, code: str, message: str, ec: str = "", **extra):
        super().__init__(message)
        self.status, self.code, self.message, self.ec, self.extra = status, code, message, ec, extra


def pattern_bytes(size: int) -> bytes:
    reps = size // len(_PATTERN) + 1
    return (_PATTERN * reps)[:size]


_DIGESTS_BY_SIZE: dict[int, tuple[str, str, int | None]] = {}


def _digests_for_size(size: int) -> tuple[str, str, int | None]:
    cached = _DIGESTS_BY_SIZE.get(size)
    if cached is not None:
        return cached
    data = pattern_bytes(size)
    md5 = hashlib.md5(data)
    cached = (md5.hexdigest().upper(), base64.b64encode(md5.digest()).decode(),
              _crc64(data) if _crc64 else None)
    if len(_DIGESTS_BY_SIZE) < 1_000_000:  # bounded cache; sizes of seeded objects repeat
        _DIGESTS_BY_SIZE[size] = cached
    return cached


def crc64(data: bytes) -> int | None:
    return _crc64(data) if _crc64 else None


class Obj:
    __slots__ = ("key", "size", "etag", "content_md5", "crc64", "mtime", "data",
                 "content_type", "meta", "obj_type")

    def __init__(self, key, size, etag, content_md5, crc, mtime, data=None,
                 content_type="application/octet-stream", meta=None, obj_type="Normal"):
        self.key, self.size, self.etag, self.content_md5 = key, size, etag, content_md5
        self.crc64, self.mtime, self.data = crc, mtime, data
        self.content_type, self.meta, self.obj_type = content_type, meta or {}, obj_type

    @classmethod
    def from_bytes(cls, key: str, data: bytes, mtime: float, content_type: str, meta: dict,
                   obj_type: str = "Normal") -> "Obj":
        md5 = hashlib.md5(data)
        return cls(key, len(data), md5.hexdigest().upper(), base64.b64encode(md5.digest()).decode(),
                   crc64(data), mtime, data, content_type, meta, obj_type)

    @classmethod
    def seeded(cls, key: str, size: int, mtime: float) -> "Obj":
        etag, content_md5, crc = _digests_for_size(size)
        return cls(key, size, etag, content_md5, crc, mtime)

    def content(self) -> bytes:
        return self.data if self.data is not None else pattern_bytes(self.size)


class Bucket:
    def __init__(self, name: str, region: str):
        self.name = name
        self.region = region
        self.created = time.time()
        self.keys: list[str] = []
        self.objects: dict[str, Obj] = {}

    def put(self, obj: Obj) -> Obj | None:
        old = self.objects.get(obj.key)
        if old is None:
            bisect.insort(self.keys, obj.key)
        self.objects[obj.key] = obj
        return old

    def delete(self, key: str) -> Obj | None:
        old = self.objects.pop(key, None)
        if old is not None:
            i = bisect.bisect_left(self.keys, key)
            del self.keys[i]
        return old

    def bulk_load(self, objs: list[Obj]) -> None:
        """Adds many objects at once: one sort instead of N insorts."""
        had = bool(self.objects)
        for o in objs:
            self.objects[o.key] = o
        if had:
            self.keys = sorted(self.objects)
        else:
            self.keys = sorted(o.key for o in objs) if len(objs) == len(self.objects) else sorted(self.objects)

    def list(self, prefix: str, delimiter: str, after: str, max_keys: int):
        """Keys > `after` starting with `prefix`, rolling keys up to common prefixes at the
        first `delimiter` after the prefix. Returns (objects, prefixes, truncated, last_item)
        where last_item is the last key or common prefix returned (the resume point)."""
        keys = self.keys
        i = bisect.bisect_right(keys, after) if after >= prefix else bisect.bisect_left(keys, prefix)
        contents, prefixes = [], []
        last = None
        n = len(keys)
        plen = len(prefix)
        while i < n:
            key = keys[i]
            if not key.startswith(prefix):
                break
            if delimiter:
                d = key.find(delimiter, plen)
                if d >= 0:
                    cp = key[:d + len(delimiter)]
                    if cp <= after:  # resuming right after this common prefix
                        i = bisect.bisect_left(keys, _successor(cp), i)
                        continue
                    if len(contents) + len(prefixes) >= max_keys:
                        return contents, prefixes, True, last
                    prefixes.append(cp)
                    last = cp
                    i = bisect.bisect_left(keys, _successor(cp), i)
                    continue
            if len(contents) + len(prefixes) >= max_keys:
                return contents, prefixes, True, last
            contents.append(self.objects[key])
            last = key
            i += 1
        return contents, prefixes, False, last


def _successor(prefix: str) -> str:
    """Smallest string greater than every string starting with `prefix`."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


class OssStore:
    def __init__(self, region: str = "cn-hangzhou"):
        self.region = region
        self.buckets: dict[str, Bucket] = {}

    def reset(self) -> None:
        self.buckets.clear()

    def create_bucket(self, name: str) -> tuple[Bucket, bool]:
        b = self.buckets.get(name)
        if b is not None:
            return b, False
        b = self.buckets[name] = Bucket(name, self.region)
        return b, True

    def bucket(self, name: str) -> Bucket:
        b = self.buckets.get(name)
        if b is None:
            raise OssError(404, "NoSuchBucket", "The specified bucket does not exist.",
                           "0015-00000101", BucketName=name)
        return b

    def delete_bucket(self, name: str) -> None:
        b = self.bucket(name)
        if b.objects:
            raise OssError(409, "BucketNotEmpty", "The bucket you tried to delete is not empty.",
                           "0015-00000301", BucketName=name)
        del self.buckets[name]

    def get_object(self, bucket: str, key: str) -> Obj:
        obj = self.bucket(bucket).objects.get(key)
        if obj is None:
            raise OssError(404, "NoSuchKey", "The specified key does not exist.", "0026-00000001", Key=key)
        return obj

    def seed(self, bucket: str, spec: dict) -> int:
        """Bulk-create `count` objects: key = prefixes[i % len] + key_format.format(i=i);
        size deterministic in [size_min, size_max]; mtime = mtime_start + i * mtime_step."""
        b = self.bucket(bucket)
        count = int(spec["count"])
        if not 0 <= count <= 20_000_000:
            raise ValueError("count out of range")
        prefixes = spec.get("prefixes") or [spec.get("prefix", "")]
        fmt = spec.get("key_format", "obj-{i:08d}")
        size_min = int(spec.get("size_min", spec.get("size", 1024)))
        size_max = int(spec.get("size_max", size_min))
        span = max(1, size_max - size_min + 1)
        mtime_start = float(spec.get("mtime_start", time.time()))
        mtime_step = float(spec.get("mtime_step", 0))
        start_index = int(spec.get("start_index", 0))
        npre = len(prefixes)
        objs = []
        for n in range(count):
            i = start_index + n
            size = size_min + (i * 2654435761) % span if span > 1 else size_min
            objs.append(Obj.seeded(prefixes[i % npre] + fmt.format(i=i), size,
                                   mtime_start + n * mtime_step))
        b.bulk_load(objs)
        return count
