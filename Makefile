# Entry points; the work is done by the scripts in hack/, one folder per subsystem
# (patches/, cluster/, e2e-node/, bench/, kind/, images/; docs/development.md).
# K8S_VERSION picks the upstream release the patch series is applied to:
# unset, the default: the pinned release of the newest minor pinned to a
# release (a series pinned to a pre-release, X.Y.Z-pre, is never the default);
# X.Y (e.g. 1.36), the pinned release of that minor; X.Y.Z or X.Y.Z-pre, that
# release. Each minor's pinned release is recorded in one place,
# patches/vX.Y/UPSTREAM_VERSION (read by hack/lib.sh).
export K8S_VERSION

.DEFAULT_GOAL := help

# make e2e-node-smoke: a handful of upstream's native-sidecar specs (see
# docs/prototyping.md), picked to run in a couple of minutes: the ends of
# their names, which hack/e2e-node/run.sh puts after its default focus.
E2E_NODE_SMOKE_SPECS ?= should terminate sidecars in reverse order after all main containers have exited|should call sidecar container PreStop hook simultaneously|should launch init container serially before a regular container|should not launch second container before PostStart of the first container completed
.PHONY: help kubelet fetch-upstream import-patches export-patches \
	test test-unit test-policy test-patch-roundtrip test-upstream clean images e2e test-e2e test-e2e-tools up down kubelet-restart cluster-bins \
	node-image test-tools test-docs kind-engine kind-engine-down kind-bin kind-probe kind-up kind-down kind-node-image kind-kubelet test-kind test-kind-registry rebase soak bench bench-reference test-bench kubelet-upstream e2e-node e2e-node-smoke e2e-node-down verify-versions docs-prototyping docs-results docs-bench format-patches coverage

help: ## list the targets
	@echo "sidecar-kubelet (K8S_VERSION=$(K8S_VERSION) -> v$$(hack/patches/k8s-version.sh)). Targets:"
	@sed -n 's/^\([a-z0-9-]*\):.*## \(.*\)/\1\t\2/p' $(MAKEFILE_LIST) | \
	  awk -F'\t' '{ printf "  %-22s %s\n", $$1, $$2 }'
	@echo "Environment (the targets that read it):"
	@printf '  %-48s %s\n' \
	  "K8S_VERSION=X.Y | X.Y.Z[-pre]" "the upstream release (all); default the newest minor pinned to a release" \
	  "FORCE=1" "discard unexported work (import-patches, clean)" \
	  "SIDECAR_ORDERING_DEFAULT=false" "link the kubelet with the gate off by default (kubelet)" \
	  "PKGS=k8s.io/kubernetes/pkg/... GATE=on|off|both" "which packages, which gate settings (test-upstream)" \
	  "KUBELET_FEATURE_GATES=Gate=bool,..." "the kubelet's feature gates beyond upstream's defaults and the fork's own (up, kubelet-restart, bench; kind-up: EventedPLEG only)" \
	  "KUBELET_BIN=path" "run another kubelet (up, kubelet-restart)" \
	  "KUBELET_VERBOSITY=N" "the kubelet's --v (up, kubelet-restart)" \
	  "CLUSTER_INSTANCE=N" "a second local cluster (up, down, kubelet-restart, e2e, bench)" \
	  "KUBECONFIG=path" "the cluster to test (e2e)" \
	  "FOCUS= SKIP= LABEL_FILTER= PROCS=" "which specs, how many at once (e2e, e2e-node)" \
	  "BENCH_REPEAT= BENCH_PARALLEL= BENCH_WAYS=" "samples, lanes, ways (bench; see hack/bench/run.sh)" \
	  "BENCH_GO=0 BENCH_OUT=dir" "no Go benchmark; the report elsewhere (bench)" \
	  "BENCH_GATES=EventedPLEG=true" "the ways again with these gates, a column beside the defaults (bench)" \
	  "BENCH_SCRATCH=1 BENCH_OUT=dir" "measure on a busy machine, never into docs/bench (bench)" \
	  "BENCH_FORK_KUBELET=path" "the fork's kubelet to measure (bench)" \
	  "BASE_TAR= BASE_REF= NODE_IMAGE=" "the node image's base and name (node-image)" \
	  "NODES=1|3 NODE_IMAGE_FROM=sources|registry" "kind nodes; the node image's origin (kind-up, test-kind)" \
	  "KIND_NODE_BASE=ref" "the registry path's base, e.g. a mirror's kindest/node@sha256:... (kind-up, test-kind)" \
	  "TO=X.Y.Z[-pre] NO_TEST=1" "the release to rebase onto (rebase)" \
	  "VERSIONS=\"X.Y X.Y.Z ...\"" "only these minors (their pins) or releases (verify-versions)"

kubelet: ## build the patched kubelet into _output/vX.Y.Z/bin/kubelet
	hack/patches/build-kubelet.sh

fetch-upstream: ## fetch upstream Kubernetes into the work tree _output/vX.Y.Z/kubernetes
	hack/patches/fetch-upstream.sh

import-patches: ## apply patches/vX.Y/series to the work tree as commits, each with the files it adds (kubernetes/)
	hack/patches/import-patches.sh

export-patches: ## write the work tree's commits back: changes to upstream's files to patches/vX.Y, the files they add to kubernetes/
	hack/patches/export-patches.sh

format-patches: ## the whole series of a minor as git format-patch writes it, files included (OUT=dir)
	OUT="$(OUT)" hack/patches/format-patches.sh

test: kubelet test-unit test-policy test-tools test-docs test-e2e-tools test-bench test-patch-roundtrip test-upstream test-e2e ## build the kubelet, then run all tests (the e2e on the local cluster last)

test-unit: ## go test our own packages (./kubelet/..., ./hack/images/...); the fork's files in kubernetes/ gofmt'ed
	go test -count=1 ./kubelet/... ./hack/images/...
	@unformatted="$$(gofmt -l kubernetes)"; [ -z "$$unformatted" ] || { echo "gofmt would change: $$unformatted" >&2; exit 1; }

coverage: ## unit-test coverage per package (the fork's ./kubelet/..., the patched upstream packages, the fork's files in upstream's tree) into docs/results/coverage-vX.Y.Z.md
	hack/patches/coverage.sh

test-policy: ## the admission policy of rule 16 (deploy/) against the kubelet's annotation parser, in the API server's own policy code
	cd deploy && go vet ./... && go test -count=1 ./...

test-patch-roundtrip: ## every series (or K8S_VERSION's): import into a throwaway clone, export again, byte for byte; no patch rewrites an earlier one's lines
	@if [ -n "$(K8S_VERSION)" ]; then hack/patches/check-patch-roundtrip.sh; else \
	  for v in $$(hack/patches/k8s-version.sh --all | cut -d' ' -f1); do K8S_VERSION=$$v hack/patches/check-patch-roundtrip.sh || exit 1; done; fi

test-upstream: ## upstream's unit tests of the packages the series touches, gate on and off
	hack/patches/import-patches.sh
	hack/patches/test-upstream.sh

up: kubelet images ## build the kubelet and test images, start (or check) the local cluster; kubeconfig: _output/cluster/kubeconfig
	hack/cluster/build-bins.sh
	hack/cluster/up.sh

down: ## stop the local cluster, remove its pods, mounts, bridge and state
	hack/cluster/down.sh

kubelet-upstream: ## build the unpatched kubelet into _output/vX.Y.Z/bin/kubelet-upstream
	hack/patches/build-kubelet-upstream.sh

bench: kubelet ## benchmarks on the local cluster (make up first): fork vs native, postStart, upstream; probe rates with 50 sidecars waiting; density (BENCH_DENSITY=10,30); report in docs/bench. BENCH_REPEAT=
	hack/bench/run.sh

# The settings of the committed reference run (docs/bench, issue 36): the
# full node's density points, the EventedPLEG column beside the defaults,
# the host's page cache dropped before each turn. Written once here, so
# that a reference is taken again as it was and the next one cannot drop a
# setting by mistake.
BENCH_REFERENCE_SETTINGS = BENCH_REPEAT=2 BENCH_PARALLEL=4 BENCH_DENSITY=10,30,100,110 BENCH_GATES=EventedPLEG=true BENCH_RECLAIM=1
bench-reference: kubelet ## the committed reference run: make bench with the Makefile's BENCH_REFERENCE_SETTINGS (the full node's density points, the EventedPLEG column, the page cache dropped; about 2 hours on 2 cores, on a quiet machine, after make up)
	env $(BENCH_REFERENCE_SETTINGS) hack/bench/run.sh

test-bench: ## unit tests of the benchmark program (bench/)
	go test -count=1 ./bench/...

kubelet-restart: kubelet ## rebuild the kubelet if needed, restart only it on the local cluster, wait for the node Ready; KUBELET_BIN= runs another
	hack/kubelet-restart.sh

cluster-bins: ## build apiserver, controller-manager, scheduler, kubectl, containerd, pause image
	hack/cluster/build-bins.sh

images: ## build the e2e images into _output/images/*.tar (testserver)
	hack/images/build.sh

e2e: ## run the e2e suite against KUBECONFIG (default: the local cluster); FOCUS=, SKIP=, LABEL_FILTER=, PROCS=
	FOCUS="$(FOCUS)" SKIP="$(SKIP)" LABEL_FILTER="$(LABEL_FILTER)" e2e/run.sh

soak: ## restart the kubelet at random moments of pods' starts and terminations (RESTARTS=30, SEED=), checking every promise; make up first
	SIDECAR_E2E_SOAK_RESTARTS="$(RESTARTS)" SIDECAR_E2E_SOAK_SEED="$(SEED)" LABEL_FILTER=soak e2e/run.sh

test-e2e: kubelet ## the e2e suite on the local cluster: images, make up, the whole suite, make down (a cluster already up stays)
	hack/cluster/test-e2e.sh

e2e-node: ## upstream's node e2e suite against the kubelet, own containerd; KUBELET=upstream, FOCUS=, SKIP=, PROCS=
	KUBELET="$(KUBELET)" FOCUS="$(FOCUS)" SKIP="$(SKIP)" PROCS="$(PROCS)" LABEL_FILTER="$(LABEL_FILTER)" hack/e2e-node/run.sh

e2e-node-smoke: ## a few node e2e specs (about 2 min), for CI; KUBELET=upstream
	KUBELET="$(KUBELET)" SMOKE_SPECS="$(E2E_NODE_SMOKE_SPECS)" SKIP="$(SKIP)" PROCS="$(or $(PROCS),4)" hack/e2e-node/run.sh

e2e-node-down: ## tear down what a killed make e2e-node left (containerd, kubelet, mounts, bridge)
	hack/e2e-node/run.sh down

test-e2e-tools: ## unit tests of the e2e testserver and of e2e/podorder (which fail if it imports component-base or Prometheus again); compile the suite
	go test -count=1 ./e2e/...
	go vet -tags e2e ./e2e/...

node-image: ## kind node image with the patched kubelet: _output/kind/node-vX.Y.Z.tar; BASE_TAR=, BASE_REF=
	BASE_TAR="$(BASE_TAR)" BASE_REF="$(BASE_REF)" BASE_TAG="$(BASE_TAG)" NODE_IMAGE="$(NODE_IMAGE)" \
	KUBELET_BIN="$(KUBELET_BIN)" hack/kind/node-image.sh from-base

test-docs: ## the documents: the README's results table and the notes under docs' generated blocks (which build each run was of) up to date (make docs-results), relative links resolve, no machine's absolute paths (Markdown, docs/), README.md within 200 lines (hack/tools/mdlinks); each pinned release written only in its UPSTREAM_VERSION (hack/tools/pinned); the KEP's kep.yaml and PRR file (hack/tools/kepcheck); no measured figure typed by hand in README.md, docs/benchmarks.md and the KEP draft, only in blocks a command writes (hack/tools/measured)
	cd hack/tools && go run ./mdlinks ../..
	cd hack/tools && go run ./pinned ../..
	cd hack/tools && go run ./kepcheck ../..
	cd hack/tools && go run ./measured ../..
	hack/docs/results-table.sh check

docs-bench: ## write docs/benchmarks.md's and the KEP draft's figure blocks again from the committed run in docs/bench (make bench writes them from each quiet run)
	hack/bench/docs-figures.sh

docs-results: ## write the README's results table again from docs/results (each run's command also does), and under every generated block of docs/ that names a build of the fork's kubelet a note (hack/tools/buildnotes): which runs are of the series as they are now
	hack/docs/results-table.sh

test-tools: ## unit tests of hack/tools (the node image builder, the kind configs, the node configs) and of hack/kind's docker stand-in
	cd hack/tools && go test -count=1 ./...
	hack/kind/standin/test.sh

kind-engine: ## start a Docker engine for kind here (hack/kind/engine.sh up: installs Debian's docker.io if missing)
	hack/kind/engine.sh up

kind-engine-down: ## stop it and leave no container, mount, bridge or iptables chain behind
	hack/kind/engine.sh down

kind-bin: ## build kind (v0.33.0) into _output/bin/kind
	hack/kind/build-kind.sh

kind-up: ## a kind cluster running the patched kubelet (NODES=1, or 3): engine, kind, node image, cluster, test image
	hack/kind/cluster.sh up

kind-down: ## delete the kind clusters, kind's network, and the engine if this project started it
	hack/kind/cluster.sh down

kind-node-image: ## kind node image built from sources, no registry needed: _output/kind/node-vX.Y.Z.tar, loaded into the engine
	hack/kind/node-image.sh build

kind-kubelet: ## prototyping on kind: rebuild the static kubelet, put it into every node of the cluster (NODES=), restart it
	hack/kind/node-image.sh parts --kubelet-only
	KIND_CLUSTER=$$( [ "$${NODES:-1}" = 3 ] && echo sidecar-kubelet-multi || echo sidecar-kubelet ) \
	  KUBELET_BIN=_output/kind/v$$(hack/patches/k8s-version.sh)/bin/kubelet hack/kubelet-restart.sh

test-kind: ## the e2e suite on a one-node kind cluster (NODES=3: three nodes): kind-up, e2e, kind-down
	hack/kind/test-kind.sh

test-kind-registry: ## kind-up's registry path end to end where no registry answers: a loopback registry serves the node image from sources as kindest/node (a stand-in: docs/kind.md), then test-kind
	hack/kind/test-registry-path.sh

kind-probe: ## can a kind node run on this machine? a systemd container started as kind starts a node, through the stand-in (docs/kind.md)
	hack/kind/systemd-probe.sh

rebase: ## rebase the series onto a new upstream release: TO=X.Y.Z (three-way; NO_TEST=1 skips the tests)
	@[ -n "$(TO)" ] || { echo "usage: make rebase TO=X.Y.Z (an upstream patch release)" >&2; exit 2; }
	hack/patches/rebase.sh $(TO)

verify-versions: ## for every series under patches/: build its kubelet, run test-upstream (slow: not in make test)
	hack/patches/verify-versions.sh

docs-prototyping: ## run the prototyping loop in a throwaway clone (import, build, change, build, export) and write its transcript into docs/prototyping.md
	hack/docs/prototyping-example.sh

clean: ## remove _output (refuses if the work tree holds unexported work; FORCE=1 to discard)
	hack/patches/clean.sh
