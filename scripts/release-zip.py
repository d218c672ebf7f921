"""scripts/dist.sh's zip of a Windows C release, reproducible: sorted names, one fixed time
(SOURCE_DATE_EPOCH or the last commit's), no owner.

    python3 scripts/release-zip.py EPOCH STAGE NAME OUT.zip   # zips STAGE/NAME as NAME/...
"""
import os
import sys
import time
import zipfile

epoch, stage, name, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip's times start in 1980
paths = []
for dirpath, _, files in os.walk(os.path.join(stage, name)):
    paths += [os.path.join(dirpath, f) for f in files]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for path in sorted(paths):
        info = zipfile.ZipInfo(os.path.relpath(path, stage).replace(os.sep, "/"), stamp)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
        with open(path, "rb") as f:
            z.writestr(info, f.read())
