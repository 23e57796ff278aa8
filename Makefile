# vswap for Linux 6.12: the one entry point.  `make help` lists the targets.
# Every kernel test runs inside QEMU; nothing is loaded into this machine's kernel.
SHELL := /bin/bash
.DEFAULT_GOAL := help
.PHONY: help deps tree apply build demo check test-commits test test-guest \
	export cover send pull-request bench status clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

deps: ## install the Debian packages the workflow needs (checks/packages.txt)
	@bash checks/deps.sh

tree: deps ## unpack linux-source-6.12 as the reproducible baseline and apply branch-export/
	@bash checks/tree.sh apply

apply: tree ## same as tree: (re)apply branch-export/ onto the vswap branch

build: tree ## build the guest kernel of the vswap branch into build/out/tip
	@bash checks/build.sh tip

demo: build ## apply, build, boot with vswap=on in QEMU and show vswap
	@bash qemu-test/demo.sh build/out/tip/arch/x86/boot/bzImage

check: tree ## per-commit gates: checkpatch --strict, build, sparse (no new warnings)
	@rm -f build/results/results.txt
	@bash checks/percommit.sh; bash checks/summary.sh

test-commits: tree ## per-commit gates plus a vswap=on and vswap=off boot of every commit
	@rm -f build/results/results.txt
	@BOOT=1 bash checks/percommit.sh; bash checks/summary.sh

test: tree ## everything: gates, per-commit boots, guest suites, debug kernel, b4/export tests
	@bash checks/test.sh

export: ## write the vswap branch back into branch-export/ and remake the cover mail
	@bash checks/tree.sh export && bash checks/cover.sh

cover: tree ## make the cover letter of the current version with b4 into cover-letters/
	@bash checks/cover.sh

send: tree ## write the series as mails into build/mails/ (SEND=really to send for real)
	@bash checks/send.sh

pull-request: tree ## git request-pull text and a bundle of baseline..vswap in build/pull/
	@bash checks/pull-request.sh

bench: deps ## baseline vs vswap=off vs vswap=on (and no swap device) in QEMU: table, CSV, JSON, PNG in build/bench/
	@bash checks/bench.sh

status: ## what the kernel tree holds
	@bash checks/tree.sh status

clean: ## remove build outputs (keeps the kernel tree and its branches)
	rm -rf build/out build/results build/guest build/mails build/pull build/bench
