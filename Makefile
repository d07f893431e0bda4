# Dormouse: build, run, test. `make run` starts the daemon on the embedded
# defaults; `make test` is what CI runs.
GO        ?= go
BIN       ?= bin
PKG       := ./cmd/dormouse
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/dormouse-dev/dormouse/internal/cli.Version=$(VERSION)
FUZZTIME  ?= 20000x
# FuzzPDF reads each input through the real PDF reader, ~100x slower an input
# than the other targets (224 s of make test's fuzzing at 20,000): a tenth of
# the default count, or whatever FUZZTIME a long run asks for.
FUZZTIME_PDF ?= $(if $(filter 20000x,$(FUZZTIME)),2000x,$(FUZZTIME))
# Go minimises every input that finds new code, for up to 60 s each by default and outside the
# count, so a target's seeds should be small: FuzzLoadYAML's 20,000 took 107 s, 100 of them
# minimising inputs grown from the whole 21 KB shipped config, and take 4 s from its sections. A
# corpus CI throws away needs no minimising; a failure's input is written either way.
FUZZMINIMIZE ?= 5s
export CGO_ENABLED ?= 0

.PHONY: all build litestream run check test locomo-floor vet fmt-check fuzz bench chaos cross clean

all: build

build: litestream
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/dormouse $(PKG)

# Litestream, which `dormouse serve` runs beside itself to replicate the agents (replication.url),
# at the version internal/replicate/tools/litestream/go.mod pins: a module of its own, so that none of its
# dependencies reach the daemon's build. GOOS/GOARCH pick the platform, LITESTREAM_OUT the file.
LITESTREAM_OUT ?= $(BIN)/litestream
litestream:
	$(GO) build -C internal/replicate/tools/litestream -trimpath -ldflags '-s -w' -o $(abspath $(LITESTREAM_OUT)) github.com/benbjohnson/litestream/cmd/litestream

run: build
	$(BIN)/dormouse serve

vet:
	$(call step,go vet,$(GO) vet ./...)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# $(call step,TITLE,COMMAND): COMMAND under a header, with a line a minute
# while it runs (a race pass is minutes of silence otherwise) and its time.
step = @echo "==> $(1)"; s=$$(date +%s); \
	( while sleep 10; do n=$$(( $$(date +%s) - s )); [ $$(( n % 60 )) -lt 10 ] && echo "    ... $(1): $${n}s so far"; done ) & t=$$!; \
	$(2); rc=$$?; kill $$t 2>/dev/null; echo "==> $(1): $$(( $$(date +%s) - s ))s"; exit $$rc

# For iteration, a few minutes: vet, gofmt and `go test -short`, so without
# the race detector, the fuzzing and what -short skips (the .deb builds, the
# LoCoMo floor, the browser tests, the 5,000-note vault).
check: vet fmt-check
	$(call step,tests (-short; make test runs them all),$(GO) test -short -count=1 ./...)

# Everything, as CI runs it. The race detector needs cgo; the binary itself never does.
# -timeout 30m: the store package alone ran past the default 10 minutes under
# the race detector on a machine loaded by other builds.
test: vet fmt-check
	$(call step,tests under the race detector,CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m ./...)
	$(call step,the 5000-note vault scan without the race detector,$(GO) test -count=1 -run '^TestVaultInitialScan$$' ./internal/watch/)
	$(call step,LoCoMo floor,$(MAKE) --no-print-directory locomo-floor)
	$(call step,fuzz targets ($(FUZZTIME) inputs each),$(MAKE) --no-print-directory fuzz)

# The LoCoMo development floor, without the race detector (too slow under it).
# It needs locomo10.json ($$DORMOUSE_LOCOMO, ../shared/data/locomo beside the
# checkout, or the copy `dormouse bench locomo` downloads into the user cache),
# and skips without: loudly, since a quiet skip hides a recall regression.
locomo-floor:
	@out=$$($(GO) test -count=1 -v -run '^TestLocomoDevFloor$$' ./internal/locomo/ 2>&1); rc=$$?; \
	if [ $$rc -ne 0 ]; then echo "$$out"; exit $$rc; fi; \
	echo "$$out" | grep -E '^(--- |ok )'; \
	if echo "$$out" | grep -q -- '--- SKIP: TestLocomoDevFloor'; then \
		echo "!!! LoCoMo floor SKIPPED: $$(echo "$$out" | grep -B1 -- '--- SKIP' | head -n 1 | sed 's/^ *[a-z_]*\.go:[0-9]*: //')"; \
		echo "!!! recall's quality was NOT checked: run bin/dormouse bench locomo once (it downloads the data) or set DORMOUSE_LOCOMO"; \
	fi

# Each fuzz target for 20,000 inputs (a count, not a duration: a -fuzztime
# deadline that lands while Go minimises an input fails the run spuriously).
fuzz:
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeMemories$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/server/
	$(GO) test -run='^$$' -fuzz='^FuzzValidateAgentName$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/store/
	$(GO) test -run='^$$' -fuzz='^FuzzParseImport$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/store/
	$(GO) test -run='^$$' -fuzz='^FuzzVarints$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/store/
	$(GO) test -run='^$$' -fuzz='^FuzzExtract$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/capture/
	$(GO) test -run='^$$' -fuzz='^FuzzWords$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/text/
	$(GO) test -run='^$$' -fuzz='^FuzzLoadYAML$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/config/
	$(GO) test -run='^$$' -fuzz='^FuzzKeyFacts$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/extract/
	$(GO) test -run='^$$' -fuzz='^FuzzProfileAnswer$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/consolidate/
	$(GO) test -run='^$$' -fuzz='^FuzzProfileLines$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/extract/
	$(GO) test -run='^$$' -fuzz='^FuzzShapeNeeds$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/extract/
	$(GO) test -run='^$$' -fuzz='^FuzzMarkdown$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/files/
	$(GO) test -run='^$$' -fuzz='^FuzzImage$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/files/
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/files/
	$(GO) test -run='^$$' -fuzz='^FuzzPDF$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME_PDF) ./internal/files/
	$(GO) test -run='^$$' -fuzz='^FuzzRead$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/exif/
	$(GO) test -run='^$$' -fuzz='^FuzzPrepareImage$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/llm/
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeEmbeddings$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/llm/
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/eval/
	$(GO) test -run='^$$' -fuzz='^FuzzValidate$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/answer/
	$(GO) test -run='^$$' -fuzz='^FuzzContextCitations$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/answer/
	$(GO) test -run='^$$' -fuzz='^FuzzToolCall$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/mcpserver/
	$(GO) test -run='^$$' -fuzz='^FuzzParseShow$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/web/
	$(GO) test -run='^$$' -fuzz='^FuzzNext$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/web/
	$(GO) test -run='^$$' -fuzz='^FuzzPutEscapes$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/web/
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/when/
	$(GO) test -run='^$$' -fuzz='^FuzzDefine$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/recall/
	$(GO) test -run='^$$' -fuzz='^FuzzRecallQuery$$' -fuzzminimizetime=$(FUZZMINIMIZE) -fuzztime=$(FUZZTIME) ./internal/recall/

# The chaos test for CHAOS_ROUNDS rounds (`make test` runs one): kill -9
# during ingest, consolidation, backup and restore, a deleted WAL, a full
# disk (a tmpfs: needs root, else skipped), a corrupt agent file.
CHAOS_ROUNDS ?= 20
chaos:
	DORMOUSE_CHAOS_ROUNDS=$(CHAOS_ROUNDS) $(GO) test -count=1 -timeout=60m -run='^TestChaos' -v ./cmd/dormouse/

# Every benchmark once; BENCH= picks some by name (a -bench pattern) and
# BENCH_PKGS= the packages, e.g. `make bench BENCH=Beside BENCH_PKGS=./internal/server/`
# (ingest and recall at 1k, 10k and 100k on dense and LoCoMo text, each
# beside a raw SQLite+FTS5 file) or BENCH=DenseVsPeer (the Python peer).
BENCH      ?= .
BENCH_PKGS ?= ./...
bench:
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchmem -count=1 -timeout=60m $(BENCH_PKGS)

cross:
	GOOS=linux GOARCH=arm64 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/dormouse-linux-arm64 $(PKG)
	GOOS=linux GOARCH=amd64 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/dormouse-linux-amd64 $(PKG)

clean:
	rm -rf $(BIN)

# Rewrites the checked-in list of modules linked into the linux/arm64 binary
# (internal/deps/testdata), which `make test` compares: run it after adding or
# removing a dependency on purpose, and commit the diff with the reason.
.PHONY: deps-update
deps-update:
	$(GO) test -count=1 -run '^TestLinkedModules$$' ./internal/deps/ -update

# Debian packages: dist/dormouse_<version>_<arch>.deb for each of DEB_ARCHES,
# from CGO_ENABLED=0 -trimpath builds stamped with the package's version.
# nfpm runs through `go run` at a pinned version (go.mod is left alone).
DEB_VERSION ?= $(shell packaging/deb-version.sh)
DEB_ARCHES  ?= amd64 arm64
NFPM        ?= $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
ARCH        ?= amd64

.PHONY: deb e2e-vm e2e-power man

# The man page and the bash completion script, printed by the CLI from its own
# help (so they cannot drift from it); `make deb` packages both.
MAN_DIR ?= dist/man
export DORMOUSE_MAN_PAGE   ?= $(MAN_DIR)/dormouse.1.gz
export DORMOUSE_COMPLETION ?= $(MAN_DIR)/dormouse.bash
man:
	@mkdir -p $(MAN_DIR)
	$(GO) run -ldflags '-X github.com/dormouse-dev/dormouse/internal/cli.Version=$(DEB_VERSION)' $(PKG) help --man > $(MAN_DIR)/dormouse.1
	gzip -9nf -c $(MAN_DIR)/dormouse.1 > $(DORMOUSE_MAN_PAGE)
	$(GO) run $(PKG) completion bash > $(DORMOUSE_COMPLETION)

deb: man
	@set -e; for a in $(DEB_ARCHES); do \
		rm -f dist/dormouse_*_$$a.deb; \
		echo "building dist/dormouse_$(DEB_VERSION)_$$a.deb"; \
		GOOS=linux GOARCH=$$a $(GO) build -trimpath \
			-ldflags '-s -w -X github.com/dormouse-dev/dormouse/internal/cli.Version=$(DEB_VERSION)' \
			-o dist/build/$$a/dormouse $(PKG); \
		$(MAKE) --no-print-directory litestream GOOS=linux GOARCH=$$a LITESTREAM_OUT=dist/build/$$a/litestream; \
		packaging/prepare.sh dist/build '$(DEB_VERSION)'; \
		DEB_ARCH=$$a VERSION='$(DEB_VERSION)' DORMOUSE_BINARY=dist/build/$$a/dormouse \
			LITESTREAM_BINARY=dist/build/$$a/litestream DORMOUSE_BUILD=dist/build \
			$(NFPM) package --config packaging/nfpm.yaml --packager deb \
			--target dist/dormouse_$(DEB_VERSION)_$$a.deb; \
	done; ls -l dist/*.deb

# Boots Debian 12 under QEMU, installs the .deb, runs packaging/e2e/guest-test.sh
# inside (needs root; docs/development.md#the-booted-vm-test). ARCH=arm64 for
# the Pi's. VM_E2E: the harness, packaging/e2e/vm-e2e.sh unless told.
VM_E2E ?= packaging/e2e/vm-e2e.sh
# The harness's defaults (300 s amd64, 1200 s arm64) assume an idle machine;
# a loaded one (8 builds on 2 cores) took 4 min to boot and 20 min in all (amd64).
export VM_TIMEOUT ?= $(if $(filter arm64,$(ARCH)),3600,1800)
# Under heavy load the emulated guest's kernel can fail its IO-APIC timer
# check and panic at boot ("IO-APIC + timer doesn't work"): skip the check.
export VM_APPEND ?= no_timer_check
# The package depends on procps (/bin/kill for ExecReload=); dpkg -i does not
# fetch dependencies, so the image has it, as every real system does.
export VM_EXTRA_PKGS ?= procps
e2e-vm:
	@test -x "$(VM_E2E)" || { echo "$(VM_E2E) is not an executable harness: set VM_E2E=/path/to/vm-e2e.sh"; exit 2; }
	$(MAKE) deb DEB_ARCHES=$(ARCH)
	$(VM_E2E) dist/dormouse_*_$(ARCH).deb $(ARCH) packaging/e2e/guest-test.sh

# Power cuts (docs/development.md#power-cuts): the .deb in the VM, writers on the host, qemu
# killed at a random moment POWER_CUTS times, the same disk booted again each time and every
# acknowledged memory looked for. POWER_SYNC=NORMAL|FULL overrides storage.synchronous.
POWER_CUTS ?= 10
POWER_SYNC ?=
e2e-power:
	$(MAKE) deb DEB_ARCHES=$(ARCH)
	VM_ROOT_CACHE=writeback VM_MAX_BOOTS=$$(( $(POWER_CUTS) + 1 )) VM_HOST_CHECK=packaging/e2e/host-power.sh \
		VM_GUEST_ENV="E2E_CUTS=$(POWER_CUTS) $(if $(POWER_SYNC),E2E_SYNC=$(POWER_SYNC))" \
		VM_TIMEOUT=$$(( 600 + 300 * $(POWER_CUTS) )) VM_KEEP=1 \
		$(VM_E2E) dist/dormouse_*_$(ARCH).deb $(ARCH) packaging/e2e/guest-power.sh
