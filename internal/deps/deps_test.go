// Package deps holds the tree's dependency rules as tests, as tailscale's
// deptest does: which Dormouse package may import which, and which modules
// the Pi's binary links.
package deps

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/linked-modules-linux-arm64.txt from the current build (make deps-update)")

const self = "github.com/dormouse-dev/dormouse/"

// mayImport is, for each package of the module (its path without the
// module's), the Dormouse packages it may import outside its tests. The
// arrows follow the data flow (capture → store → consolidate → recall →
// serve, with config, health and the LLM boundary beside them) and never
// point back up: the store knows nothing of recall or HTTP. A package not
// listed here fails the test: add it with what it needs, and no more.
var mayImport = map[string][]string{
	// Leaves: nothing of Dormouse's.
	"client":                  {"internal/backoff"}, // the API's types: services may return them as their own
	"internal/auth":           nil,
	"internal/backoff":        nil,
	"internal/config":         nil,
	"internal/deps":           nil, // these tests
	"internal/durable":        nil, // files a power cut leaves whole
	"internal/exif":           nil,
	"internal/exif/exiftest":  nil,
	"internal/files/pdftest":  nil,
	"internal/fulldisk":       nil,
	"internal/proctest":       nil, // the real binary, run by tests
	"internal/locomo/dataset": nil, // where the LoCoMo file is, and its download
	"internal/logging":        nil,
	"internal/recall/lexgen":  {"internal/wordnet"},
	"internal/text":           nil,
	"internal/claim":          {"internal/text"}, // the claim: its vocabulary and the ledger's decision
	"internal/when":           nil,
	"internal/wordnet":        nil, // the WordNet word lists
	"packaging":               nil, // its tests

	"internal/kinds":     {"internal/text", "internal/wordnet"},
	"internal/benchdata": {"internal/locomo/dataset"},
	"internal/files":     {"internal/exif", "internal/text"},
	// The LLM boundary depends on leaves only (its own test forbids
	// provider clients anywhere else).
	"internal/llm": {"internal/backoff", "internal/claim", "internal/exif", "internal/text"},
	// Kinds are recall's concept: the store gets the kinds SQL function
	// through its options (store.Options.Kinds).
	"internal/store": {"internal/backoff", "internal/claim", "internal/durable", "internal/text"},
	// Capture compares a correction and a claim by their words' one name (kinds.Variant).
	"internal/capture":     {"internal/claim", "internal/config", "internal/kinds", "internal/store", "internal/text", "internal/when"},
	"internal/backup":      {"internal/durable", "internal/store"},
	"internal/replicate":   {"internal/durable", "internal/store"}, // Litestream, run beside the daemon
	"internal/health":      {"client", "internal/store"},
	"internal/embed":       {"internal/backoff", "internal/health", "internal/llm", "internal/store", "internal/text"},
	"internal/watch":       {"client", "internal/capture", "internal/files", "internal/store", "internal/text"},
	"internal/extract":     {"internal/capture", "internal/claim", "internal/kinds", "internal/llm", "internal/store", "internal/text", "internal/when"},
	"internal/consolidate": {"client", "internal/capture", "internal/claim", "internal/extract", "internal/llm", "internal/store", "internal/text", "internal/when"},
	// Recall splits a day record into sentences and finds the names in
	// each as capture and the consolidation do (capture.Sentences, Names).
	"internal/recall": {"client", "internal/capture", "internal/claim", "internal/kinds", "internal/store", "internal/text", "internal/when",
		"internal/wordnet"},
	"internal/answer": {"client", "internal/capture", "internal/llm", "internal/recall", "internal/text"},
	"internal/doctor": {"internal/backup", "internal/config", "internal/store", "internal/when"},
	"internal/locomo": {"internal/capture", "internal/consolidate", "internal/recall", "internal/store"},

	// Serving: the API's wire types come from the public client package.
	// The gate is what the API and the page check and answer alike.
	"internal/gate": {"internal/auth", "internal/backup", "internal/capture", "internal/consolidate", "internal/llm",
		"internal/recall", "internal/store", "internal/watch", "internal/when"},
	"internal/mcpserver": {"client", "internal/recall"},
	// wire converts the services' values into the client's types, once.
	"internal/wire": {"client", "internal/answer", "internal/consolidate", "internal/health", "internal/recall",
		"internal/store", "internal/watch"},
	"internal/server": {"client", "internal/answer", "internal/auth", "internal/backup", "internal/capture",
		"internal/consolidate", "internal/gate", "internal/health", "internal/llm", "internal/logging", "internal/recall",
		"internal/store", "internal/watch", "internal/wire"},
	// The page lists the timers doctor checks (doctor.Timers).
	"internal/web": {"client", "internal/answer", "internal/auth", "internal/backup", "internal/capture",
		"internal/consolidate", "internal/doctor", "internal/gate", "internal/health", "internal/llm", "internal/recall", "internal/store",
		"internal/text", "internal/watch"},

	// The composition root and what stands on it wire everything together.
	"internal/daemon":     {"*"},
	"internal/daemontest": {"*"},
	"internal/eval":       {"*"},
	"internal/cli":        {"*"},
	"cmd/dormouse":        {"*"},
	"client/lcmemory":     {"client", "internal/text"},
}

// TestLayering checks every package's imports of the tree against mayImport.
func TestLayering(t *testing.T) {
	out := goList(t, nil, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	for line := range strings.Lines(out) {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], self)
		allowed, known := mayImport[pkg]
		if !known {
			t.Errorf("%s is not in mayImport (internal/deps/deps_test.go): add it with the Dormouse packages it may import", pkg)
			continue
		}
		if slices.Contains(allowed, "*") {
			continue
		}
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, self)
			if ours && !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s, which it may not (allowed: %v): the arrows point the other way", pkg, dep, allowed)
			}
		}
	}
}

const modulesFile = "testdata/linked-modules-linux-arm64.txt"

// TestLinkedModules: the modules linked into the Pi's binary are the list
// checked in, so a new dependency (a cost in every process's start-up and
// RSS on the Pi) shows as a diff. After a deliberate change: make deps-update.
func TestLinkedModules(t *testing.T) {
	got := strings.Join(linkedModules(t), "\n") + "\n"
	if *update {
		if err := os.WriteFile(modulesFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(modulesFile)
	if err != nil {
		t.Fatalf("read the checked-in module list: %v (make deps-update writes it)", err)
	}
	if added, removed := diffLines(got, string(want)); len(added)+len(removed) > 0 {
		t.Errorf("the linux/arm64 binary's modules changed: linked now but not in %s: %q; listed but no longer linked: %q.\n"+
			"If that is deliberate (say why in the commit), run make deps-update", modulesFile, added, removed)
	}
}

// forbidden are the modules the Pi's binary must never link, whatever the
// checked-in list says (make deps-update would accept them): Google's
// SDKs, gRPC and OpenTelemetry, which langchaingo's googleai package
// brought in for one provider (~12 MB of the arm64 binary, 4 MB of
// protobuf descriptors in every process's heap). Gemini is reached through
// its OpenAI-compatible endpoint instead (internal/llm).
var forbidden = []string{
	"cloud.google.com/go", "google.golang.org/api", "google.golang.org/grpc", "google.golang.org/genproto",
	"github.com/google/generative-ai-go", "go.opentelemetry.io/",
}

// TestNoHeavyModules: none of forbidden is linked into the linux/arm64
// binary.
func TestNoHeavyModules(t *testing.T) {
	for _, m := range linkedModules(t) {
		for _, f := range forbidden {
			if strings.HasPrefix(m, f) {
				t.Errorf("the linux/arm64 binary links %s: Google's SDK, gRPC and OpenTelemetry stay out of the Pi's build "+
					"(go mod why -m %s says who brings it)", m, m)
			}
		}
	}
}

// Start-up budgets: what package initialisation may allocate in a command
// that needs nothing (dormouse version). Every command pays it, and on the
// Pi it is RSS and start-up time; a big table or regular expression used
// by one command is built on its first use instead (sync.OnceValue, as
// extract's sentence shapes and the lexicons are).
const (
	ownInitBudget   = 256 << 10 // bytes, any one Dormouse package
	totalInitBudget = 2 << 20   // bytes, every linked package together
)

// TestInitAllocations runs the binary's version command with
// GODEBUG=inittrace=1 and holds each package's initialisation to the
// budgets above.
func TestInitAllocations(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "dormouse")
	goList(t, []string{"CGO_ENABLED=0"}, "build", "-trimpath", "-o", bin, "./cmd/dormouse")
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dormouse version: %v\n%s", err, out)
	}
	inits := initBytes(string(out))
	if len(inits) == 0 {
		t.Fatalf("no init trace in the output of dormouse version:\n%s", out)
	}
	total := 0
	for pkg, n := range inits {
		total += n
		if strings.HasPrefix(pkg, self) && n > ownInitBudget {
			t.Errorf("%s allocates %d KiB when the binary starts, more than %d KiB: build its tables and regular "+
				"expressions on first use", pkg, n>>10, ownInitBudget>>10)
		}
	}
	if total > totalInitBudget {
		t.Errorf("package initialisation allocates %d KiB when the binary starts, more than %d KiB", total>>10, totalInitBudget>>10)
	}
}

// initBytes reads GODEBUG=inittrace=1 lines ("init <pkg> @0.5 ms, 0.1 ms
// clock, 2048 bytes, 12 allocs") into bytes allocated by package.
func initBytes(trace string) map[string]int {
	out := map[string]int{}
	for line := range strings.Lines(trace) {
		var pkg string
		var at, clock float64
		var bytes, allocs int
		if _, err := fmt.Sscanf(line, "init %s @%f ms, %f ms clock, %d bytes, %d allocs", &pkg, &at, &clock, &bytes, &allocs); err == nil {
			out[pkg] += bytes
		}
	}
	return out
}

// linkedModules lists, sorted, the modules linked into the linux/arm64
// binary (CGO off, as make cross and make deb build it).
func linkedModules(t *testing.T) []string {
	t.Helper()
	env := []string{"GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0"}
	out := goList(t, env, "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}", "./cmd/dormouse")
	var mods []string
	for line := range strings.Lines(out) {
		if m := strings.TrimSpace(line); m != "" {
			mods = append(mods, m)
		}
	}
	slices.Sort(mods)
	return slices.Compact(mods)
}

// goList runs the go command at the module's root.
func goList(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return string(out)
}

// diffLines returns the lines only in got and those only in want.
func diffLines(got, want string) (added, removed []string) {
	g, w := strings.Fields(got), strings.Fields(want)
	for _, l := range g {
		if !slices.Contains(w, l) {
			added = append(added, l)
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			removed = append(removed, l)
		}
	}
	return added, removed
}
