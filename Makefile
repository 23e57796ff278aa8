# vswap for Linux 6.12: the one entry point.  `make help` lists the targets.
# Every kernel test runs inside QEMU; nothing is loaded into this machine's kernel.
# What boots where is data: qemu-test/plan (make plan shows it).
SHELL := /bin/bash
.DEFAULT_GOAL := help
.PHONY: help deps tree apply build demo plan lint check test-commits check-configs test-variants \
	test export cover send pull-request bench bench-prev profile status clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

deps: ## install the Debian packages the workflow needs (checks/packages.txt)
	@bash checks/deps.sh

tree: deps ## unpack linux-source-6.12 as the reproducible baseline and apply branch-export/
	@bash checks/tree.sh apply

apply: tree ## same as tree: (re)apply branch-export/ onto the vswap branch

build: tree ## build the guest kernel (variant base) of the kernel tree's checkout
	@bash checks/build.sh base

demo: tree ## apply, build, boot with vswap=on in QEMU and show vswap
	@img=$$(bash checks/build.sh base) && bash qemu-test/demo.sh "$$img"

plan: ## the test matrix: variants, kernels, scenarios and their tests (qemu-test/plan)
	@bash qemu-test/plan.sh check && bash qemu-test/plan.sh table

lint: deps ## shellcheck -x on every shell script
	@bash checks/summary.sh --clear
	@bash checks/lint.sh; bash checks/summary.sh

check: tree ## per-commit gates: checkpatch --strict, build, sparse and W=1 warnings (none new)
	@bash checks/summary.sh --clear
	@bash checks/percommit.sh; bash checks/summary.sh

test-commits: tree ## per-commit gates plus the plan's boots of every commit (they must swap)
	@bash checks/summary.sh --clear
	@bash checks/percommit.sh --boot; bash checks/summary.sh

check-configs: tree ## build the tip under the robot's configs (checks/configs) at W=1, and show it refuses; make send needs it
	@bash checks/summary.sh --clear
	@bash checks/check-configs.sh; bash checks/summary.sh

test-variants: tree ## build and boot the tip kernels make test cannot afford (plan "presend": debug, nomemcg, hibernate); make send needs it
	@bash checks/test-variants.sh

test: ## CI: per-commit gates, the plan's boots, the gates' refusals, b4/export tests; ends "N passed, N failed"
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

bench-prev: deps ## the tip against the series at PREV=<rev> (vswap=on, with and without a swap device), in build/bench-prev/
	@[ -n "$(PREV)" ] || { echo "make bench-prev: say which revision, e.g. PREV=v2-e0-landed" >&2; exit 2; }
	@BENCH_VARIANTS="$$(printf '%s\n' 'prev rev:$(PREV) vswap=on swapfile' 'tip tip vswap=on swapfile' 'prev-nodev rev:$(PREV) vswap=on none' 'tip-nodev tip vswap=on none')" \
		bash checks/bench.sh --out build/bench-prev

profile: deps ## ftrace function profile of the tip (or REV=<rev>; SWAP=zram; RANDOM=1 for the random workload), vswap=on vs off (BASELINE=1: vswap=off vs the baseline), in QEMU: build/profile/
	@bash checks/profile.sh $(if $(REV),--rev $(REV)) $(if $(SWAP),--swap $(SWAP)) $(if $(RANDOM),--random) $(if $(BASELINE),--baseline)

status: ## what the kernel tree holds
	@bash checks/tree.sh status

clean: ## remove build outputs (keeps the kernel tree and its branches)
	rm -rf build/out build/results build/runs build/guest build/mails build/pull build/bench build/bench-prev build/profile build/bench-tiny build/configs build/gates-neg build/gates-neg-configs build/demo.out
