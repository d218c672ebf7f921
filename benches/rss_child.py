"""B4's measured process: one document download, then its wall time and peak RSS.

    python benches/rss_child.py MODE SETTINGS_JSON DOCUMENT_ID [URL]

MODE: `bytes` (client.documents.download), `writer` (client.documents.download_to into
a writer that discards, when the installed abws has it), `requests` (the hand-written
peer: requests.get(URL) + gzip.decompress + zipfile, all in memory). Prints one JSON line:
bytes, seconds, base_kb (peak RSS, VmHWM, before the download), peak_kb (after).
"""

import json
import sys
import time


def peak_kb() -> int:
    """The peak RSS of this process image (VmHWM, kB). Not ru_maxrss: after fork + exec
    it keeps the parent's peak, so a big parent would hide the download."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


class Discard:
    def __init__(self) -> None:
        self.n = 0

    def write(self, b: bytes) -> int:
        self.n += len(b)
        return len(b)


def main() -> None:
    mode, settings, doc_id = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
    if mode == "requests":
        import gzip
        import io
        import zipfile

        import requests

        url = sys.argv[4]
        base = peak_kb()
        t0 = time.perf_counter()
        r = requests.get(url, timeout=300)
        r.raise_for_status()
        z = zipfile.ZipFile(io.BytesIO(gzip.decompress(r.content)))
        data = z.read(z.namelist()[0])
        n = len(data)
    else:
        import abws

        region = settings.pop("region")
        client = abws.Client(region, **settings)
        base = peak_kb()
        t0 = time.perf_counter()
        if mode == "bytes":
            n = len(client.documents.download(doc_id))
        elif mode == "writer":
            sink = Discard()
            client.documents.download_to(doc_id, sink)  # type: ignore[attr-defined]
            n = sink.n
        else:
            raise SystemExit(f"unknown mode {mode}")
    seconds = time.perf_counter() - t0
    print(json.dumps({"bytes": n, "seconds": seconds, "base_kb": base, "peak_kb": peak_kb()}))


if __name__ == "__main__":
    main()
