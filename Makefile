# The revokable-files patch series: see README.md.  Each target is one
# script in kit/; `make help` lists them.

all: demo

demo:		## build the patched kernel, boot it in QEMU, show a revoke
	@kit/deps
	@kit/boot demo

check:		## run every check and test (what CI runs)
	kit/check

deps:		## install the packages the kit needs (apt-get)
	kit/deps

tree:		## make build/linux: the base plus one commit per series entry
	kit/tree

import:		## write build/linux's commits back to patches/, series, files
	kit/import

export:		## write build/series/ and check it (git am, checkpatch)
	kit/export

kunit:		## run the KUnit suites on UML
	kit/kunit

selftest:	## run the kselftests in QEMU
	kit/boot selftest

debug:		## the kselftests on the KASAN + lockdep + KFENCE guest kernel
	kit/deps
	kit/boot selftest debug

bloat:		## base vs patched vmlinux: the hot VFS paths must not change
	kit/bloat

bench:		## instructions per operation, base vs patched, QEMU -icount
	kit/deps
	kit/bench

bisect:		## build the guest kernel at every commit of the series
	kit/bisect

lint:		## sparse (C=1) and W=1 on the files the series touches
	kit/lint

clean:		## remove build/ (the base and ccache stay cached)
	rm -rf build

help:		## list the targets, one line each
	@sed -n 's/^\([a-z]*\):.*## \(.*\)/make \1\t\2/p' Makefile

.PHONY: all demo check deps tree import export kunit selftest debug bloat bench bisect lint clean help
