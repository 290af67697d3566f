#!/usr/bin/env python3
"""tree_compare.py A B: exit 0 if directory trees A and B hold the same
entries with the same type, mode, owner, mtime, size, device numbers, link
targets, xattrs, contents and hard-link groups; else print the first
differences and exit 1. Access times are left out: every copy reads the
source, which moves them."""
import hashlib
import os
import stat
import sys


def scan(top):
    meta, links = {}, {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames + ([""] if dirpath == top else []):
            path = os.path.join(dirpath, name) if name else top
            rel = os.path.relpath(path, top)
            st = os.lstat(path)
            try:
                xattrs = {k: os.getxattr(path, k, follow_symlinks=False)
                          for k in os.listxattr(path, follow_symlinks=False)}
            except OSError:
                xattrs = {}
            meta[rel] = dict(
                type=stat.S_IFMT(st.st_mode), mode=stat.S_IMODE(st.st_mode),
                uid=st.st_uid, gid=st.st_gid,
                size=st.st_size if not stat.S_ISDIR(st.st_mode) else None,
                mtime=st.st_mtime_ns if not stat.S_ISLNK(st.st_mode) else None,
                rdev=st.st_rdev, xattrs=xattrs,
                target=os.readlink(path) if stat.S_ISLNK(st.st_mode) else None,
                sparse=stat.S_ISREG(st.st_mode) and st.st_blocks * 512 < st.st_size)
            if not stat.S_ISDIR(st.st_mode) and st.st_nlink > 1:
                links.setdefault(st.st_ino, []).append(rel)
    for rel, m in meta.items():
        if m["type"] == stat.S_IFREG:
            with open(os.path.join(top, rel), "rb") as f:
                m["sha"] = hashlib.sha256(f.read()).hexdigest()
    groups = sorted(sorted(g) for g in links.values())
    return meta, groups


def main():
    a, b = sys.argv[1], sys.argv[2]
    ma, ga = scan(a)
    mb, gb = scan(b)
    bad = []
    for rel in sorted(set(ma) | set(mb)):
        if rel not in mb:
            bad.append(f"{rel}: missing from {b}")
        elif rel not in ma:
            bad.append(f"{rel}: only in {b}")
        else:
            for k in ma[rel]:
                if ma[rel][k] != mb[rel][k]:
                    bad.append(f"{rel}: {k} {ma[rel][k]!r} != {mb[rel][k]!r}")
    if ga != gb:
        bad.append(f"hard links {ga} != {gb}")
    for line in bad[:20]:
        print(line)
    sys.exit(1 if bad else 0)


main()
