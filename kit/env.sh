# Paths and versions shared by the kit scripts.  Sourced, not run.
#
# Everything the kit makes lives in build/ (ignored) or in the cache
# directory outside the checkout, so that a fresh clone on the same machine
# reuses the unpacked base and the compiler cache.

TOP=$(cd "$(dirname "$0")/.." && pwd)
KIT=$TOP/kit
BUILD=$TOP/build
LINUX=$BUILD/linux

# The base: Debian's linux-source-6.12, pinned.
BASE_PKG=linux-source-6.12
BASE_VERSION=6.12.118-1~deb12u1

CACHE=${KIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/revoke-kit}

# Compiler cache shared by every clone: paths below the checkout are hashed
# relative to it, so a clone in another directory still hits.
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$TOP
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Depend mode: a miss runs only the compiler, not the preprocessor first,
# and takes its includes from the compiler's -MD output (kbuild passes
# -Wp,-MMD).  Measured on 2 cores, cold, fs/ and kernel/: 2m01s in
# ccache's default mode, 1m14s in depend mode, 1m21s without ccache.
export CCACHE_DEPEND=1

# Reproducible kernel builds: the same source gives the same objects.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=revoke
export KBUILD_BUILD_HOST=kit

JOBS=${JOBS:-$(nproc)}

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# Debian's tools first (its python3 has the modules checkpatch and kunit.py
# use), whatever else the caller's PATH prefers.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

# Selftest collections built for the guest: upstream suites that guard code
# the series changes, and the series' own (once the series adds it).  What
# of them runs is kit/init's.
SELFTESTS="proc revoke cgroup splice filesystems/read_variants"
