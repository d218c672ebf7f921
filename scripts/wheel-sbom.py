"""scripts/dist.sh, after maturin: the wheel's CycloneDX SBOM without the builder's paths.

maturin writes `<dist-info>/sboms/*.cyclonedx.json` with cargo's package ids, and a
workspace member's id is its absolute path (`path+file:///home/me/abws/core#abws@0.1.0`):
the wheel then depends on where it was built (S7, R1 and R2). Each path given is
replaced by `/abws` (as the release builds' --remap-path-prefix names the checkout `abws`),
and the wheel is written again member for member (same order, times, modes and
compression), the SBOM's line of RECORD with its new hash and size.

    python3 scripts/wheel-sbom.py WHEEL PATH...
"""
import base64
import hashlib
import shutil
import sys
import tempfile
import zipfile

wheel = sys.argv[1]
paths = sorted((p for p in sys.argv[2:] if p.strip("/")), key=len, reverse=True)


def neutral(text: str) -> str:
    for path in paths:
        text = text.replace("file://" + path.rstrip("/"), "file:///abws")
    return text


with zipfile.ZipFile(wheel) as z:
    members = [(info, z.read(info)) for info in z.infolist()]
changed = {}
for info, data in members:
    if "/sboms/" in info.filename and info.filename.endswith(".json"):
        new = neutral(data.decode("utf-8")).encode("utf-8")
        if new != data:
            changed[info.filename] = new
if not changed:
    sys.exit(0)
with tempfile.NamedTemporaryFile(dir=".", delete=False, suffix=".whl") as tmp:
    with zipfile.ZipFile(tmp, "w") as out:
        for info, data in members:
            if info.filename in changed:
                data = changed[info.filename]
            elif info.filename.endswith(".dist-info/RECORD"):
                lines = []
                for line in data.decode("utf-8").splitlines():
                    name = line.rsplit(",", 2)[0]
                    if name in changed:
                        digest = base64.urlsafe_b64encode(hashlib.sha256(changed[name]).digest())
                        line = f"{name},sha256={digest.rstrip(b'=').decode()},{len(changed[name])}"
                    lines.append(line)
                data = ("\n".join(lines) + "\n").encode("utf-8")
            out.writestr(info, data, compress_type=info.compress_type)
shutil.copymode(wheel, tmp.name)
shutil.move(tmp.name, wheel)
print(f"wheel-sbom: {', '.join(sorted(changed))}: builder paths replaced by /abws")
