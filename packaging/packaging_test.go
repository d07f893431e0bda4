// Package packaging holds the .deb recipe (nfpm.yaml, maintainer scripts,
// sysusers.d entry) and, in this test, the checks `make test` runs on it and on
// the systemd units: `systemd-analyze verify` with zero output, the sandbox's
// exposure score, and the contents of both .debs.
package packaging

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/config"
)

const (
	nfpm          = "github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2"
	maxExposure   = 2.0
	serviceName   = "dormouse.service"
	versionPkg    = "github.com/dormouse-dev/dormouse/internal/cli.Version"
	testVersion   = "0.0.0~test1"
	mainBinaryDst = "usr/bin/dormouse"
	litestreamDst = "usr/lib/dormouse/litestream" // where internal/replicate looks after beside dormouse
	manPageDst    = "usr/share/man/man1/dormouse.1.gz"
	completionDst = "usr/share/bash-completion/completions/dormouse"
)

// root is the repository root (the test runs in packaging/).
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// units lists the unit files in systemd/.
func units(t *testing.T) []string {
	t.Helper()
	var names []string
	entries, err := os.ReadDir(filepath.Join(root(t), "systemd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".service", ".timer", ".socket", ".path", ".target", ".mount":
			names = append(names, e.Name())
		}
	}
	for _, u := range []string{serviceName, "dormouse-consolidate.timer", "dormouse-backup.timer", "dormouse-backup.service",
		"dormouse-drill.timer", "dormouse-drill.service"} {
		if !slices.Contains(names, u) {
			t.Fatalf("systemd/ has no %s (found %v)", u, names)
		}
	}
	return names
}

func need(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("%s not installed: %v", tool, err)
	}
	return p
}

// unitRoot lays out a root for `systemd-analyze verify --root`: the host's
// units (so sysinit.target and friends resolve), ours beside them and an
// executable at /usr/bin/dormouse, which verify requires for ExecStart=.
// extra replaces the content of some of our units.
func unitRoot(t *testing.T, extra map[string]string) (dir string, paths []string) {
	t.Helper()
	dir = t.TempDir()
	sys := filepath.Join(dir, "usr/lib/systemd/system")
	if err := os.MkdirAll(filepath.Dir(sys), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/usr/lib/systemd/system"); err == nil {
		if out, err := exec.Command("cp", "-a", "/usr/lib/systemd/system", sys).CombinedOutput(); err != nil {
			t.Fatalf("copy the host's units: %v\n%s", err, out)
		}
	} else if err := os.MkdirAll(sys, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range units(t) {
		b, err := os.ReadFile(filepath.Join(root(t), "systemd", name))
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := extra[name]; ok {
			b = []byte(s)
		}
		if err := os.WriteFile(filepath.Join(sys, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, "/usr/lib/systemd/system/"+name)
	}
	for _, p := range []string{mainBinaryDst, "/bin/kill"} { // kill: ExecReload=
		bin := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, paths
}

func verify(t *testing.T, analyze, dir string, paths []string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), analyze, append([]string{"verify", "--man=no", "--root=" + dir}, paths...)...)
	cmd.Env = append(os.Environ(), "SYSTEMD_LOG_COLOR=0")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestUnitsVerify: systemd-analyze verify exits 0 on typos such as
// Type=notfy, so any output at all is a failure.
func TestUnitsVerify(t *testing.T) {
	analyze := need(t, "systemd-analyze")
	dir, paths := unitRoot(t, nil)
	out, err := verify(t, analyze, dir, paths)
	if err != nil || out != "" {
		t.Errorf("systemd-analyze verify %v: err %v, output:\n%s", paths, err, out)
	}

	// The check itself must catch a typo that verify only warns about.
	b, err := os.ReadFile(filepath.Join(root(t), "systemd", serviceName))
	if err != nil {
		t.Fatal(err)
	}
	typo := strings.Replace(string(b), "Type=notify", "Type=notfy", 1)
	dir, paths = unitRoot(t, map[string]string{serviceName: typo})
	if out, _ := verify(t, analyze, dir, paths); out == "" {
		t.Error("verify printed nothing for Type=notfy: this check would miss typos")
	}
}

// TestServiceSettings pins what the appliance relies on in dormouse.service.
func TestServiceSettings(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "systemd", serviceName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Type=notify",
		"ExecStart=/usr/bin/dormouse serve --config /etc/dormouse/dormouse.yaml",
		"ExecReload=/bin/kill -HUP $MAINPID", // SIGHUP reloads (RELOADING=1 ... READY=1); it never kills
		"EnvironmentFile=-/etc/default/dormouse",
		"Restart=on-failure", "StartLimitBurst=", "StartLimitIntervalSec=",
		"WatchdogSec=",
		"User=dormouse", "Group=dormouse",
		"StateDirectory=dormouse", "StateDirectoryMode=0750", "ConfigurationDirectory=dormouse",
		"UMask=0077", "Environment=GOMEMLIMIT=", "ReadWritePaths=-/var/backups/dormouse",
		"ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes", "NoNewPrivileges=yes",
		"RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
		"SystemCallFilter=@system-service",
		"CapabilityBoundingSet=\n",
		"WantedBy=multi-user.target",
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want)).Match(b) {
			t.Errorf("%s lacks %q", serviceName, want)
		}
	}
	// gopsutil reads /proc/stat, /proc/meminfo...: a pid-only /proc breaks it.
	if regexp.MustCompile(`(?m)^ProcSubset=pid`).Match(b) {
		t.Errorf("%s sets ProcSubset=pid", serviceName)
	}
	if regexp.MustCompile(`(?m)^DynamicUser=(yes|true|1)`).Match(b) {
		t.Errorf("%s uses DynamicUser: the daemon, the jobs and the CLI must share a static user", serviceName)
	}
	// verify runs with --man=no here (no man on build hosts), but on a real
	// system it fails on a man: page that is not installed; none is shipped.
	for _, u := range units(t) {
		b, err := os.ReadFile(filepath.Join(root(t), "systemd", u))
		if err != nil {
			t.Fatal(err)
		}
		if regexp.MustCompile(`(?m)^Documentation=.*\bman:`).Match(b) {
			t.Errorf("%s points to a man page, and the package ships none", u)
		}
	}
}

// TestServiceSecurity: the sandbox's exposure score stays at or below 2.0.
func TestServiceSecurity(t *testing.T) {
	analyze := need(t, "systemd-analyze")
	dir, _ := unitRoot(t, nil)
	cmd := exec.CommandContext(t.Context(), analyze, "security", "--offline=yes", "--no-pager",
		"--root="+dir, serviceName)
	cmd.Env = append(os.Environ(), "SYSTEMD_LOG_COLOR=0")
	out, err := cmd.CombinedOutput()
	m := regexp.MustCompile(`Overall exposure level for ` + regexp.QuoteMeta(serviceName) + `: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security: err %v, no score in:\n%s", err, out)
	}
	score, perr := strconv.ParseFloat(string(m[1]), 64)
	if perr != nil {
		t.Fatal(perr)
	}
	t.Logf("%s exposure %.1f (limit %.1f)", serviceName, score, maxExposure)
	if score > maxExposure {
		var bad []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "✗") {
				bad = append(bad, l)
			}
		}
		t.Errorf("exposure %.1f > %.1f; what it counts against:\n%s", score, maxExposure, strings.Join(bad, "\n"))
	}
}

// TestMaintainerScripts: valid POSIX sh, and every systemctl call in the
// postinst's start path sits behind the /run/systemd/system guard.
func TestMaintainerScripts(t *testing.T) {
	for _, name := range []string{"postinst", "prerm", "postrm"} {
		p := filepath.Join(root(t), "packaging/scripts", name)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable", name)
		}
		if out, err := exec.Command("sh", "-n", p).CombinedOutput(); err != nil {
			t.Errorf("sh -n %s: %v\n%s", name, err, out)
		}
	}
}

// TestDebs builds both packages and checks what dpkg sees in them.
func TestDebs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries and two .debs; skipped with -short")
	}
	dpkgDeb := need(t, "dpkg-deb")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = need(t, "go")
	}
	repo := root(t)
	out := t.TempDir()
	// nfpm's own build must be native, and flags meant for this test (-race
	// through GOFLAGS) must not leak into the builds.
	env := func(kv ...string) []string {
		var e []string
		for _, v := range os.Environ() {
			k, _, _ := strings.Cut(v, "=")
			switch k {
			case "GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED", "VERSION", "DEB_ARCH", "DORMOUSE_BINARY", "DORMOUSE_MAN_PAGE", "DORMOUSE_COMPLETION", "DORMOUSE_BUILD",
				"LITESTREAM_BINARY":
				continue
			}
			e = append(e, v)
		}
		return append(e, kv...)
	}
	run := func(dir string, env []string, name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir, cmd.Env = dir, env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
		}
	}
	// Build nfpm once instead of `go run` per package.
	nfpmBin := filepath.Join(out, "nfpm")
	run(repo, env("GOBIN="+out), goTool, "install", nfpm)
	build := filepath.Join(out, "build")
	run(repo, env(), "packaging/prepare.sh", build, testVersion)

	docs := helpDocs(t, goTool, env(), out)

	wantMachine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			bin := filepath.Join(out, arch, "dormouse")
			run(repo, env("GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0"), goTool, "build", "-trimpath",
				"-ldflags", "-s -w -X "+versionPkg+"="+testVersion, "-o", bin, "./cmd/dormouse")
			// Litestream, which serve runs to replicate (make litestream does the same).
			ls := filepath.Join(out, arch, "litestream")
			run(filepath.Join(repo, "internal", "replicate", "tools", "litestream"), env("GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0"), goTool, "build",
				"-trimpath", "-ldflags", "-s -w", "-o", ls, "github.com/benbjohnson/litestream/cmd/litestream")
			deb := filepath.Join(out, fmt.Sprintf("dormouse_%s_%s.deb", testVersion, arch))
			run(repo, env("DEB_ARCH="+arch, "VERSION="+testVersion, "DORMOUSE_BINARY="+bin, "LITESTREAM_BINARY="+ls, "DORMOUSE_BUILD="+build,
				"DORMOUSE_MAN_PAGE="+docs.manGz, "DORMOUSE_COMPLETION="+docs.completionPath), nfpmBin,
				"package", "--config", "packaging/nfpm.yaml", "--packager", "deb", "--target", deb)
			if fi, err := os.Stat(deb); err == nil {
				t.Logf("%s: %d bytes (binary %d bytes)", filepath.Base(deb), fi.Size(), fileSize(bin))
			}
			checkDeb(t, dpkgDeb, deb, arch, wantMachine[arch])
			checkHelpDocs(t, deb, docs)
		})
	}
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return fi.Size()
}

func dpkgOut(t *testing.T, dpkgDeb string, args ...string) string {
	t.Helper()
	b, err := exec.CommandContext(t.Context(), dpkgDeb, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("dpkg-deb %s: %v\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		t.Fatalf("dpkg-deb %s: %v", strings.Join(args, " "), err)
	}
	return string(b)
}

func checkDeb(t *testing.T, dpkgDeb, deb, arch string, machine elf.Machine) {
	repo := root(t)
	// Control fields.
	for field, want := range map[string]string{
		"Package": "dormouse", "Version": testVersion, "Architecture": arch, "Depends": "procps",
	} {
		if got := strings.TrimSpace(dpkgOut(t, dpkgDeb, "-f", deb, field)); got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	if m := strings.TrimSpace(dpkgOut(t, dpkgDeb, "-f", deb, "Maintainer")); m == "" {
		t.Error("no Maintainer")
	}

	// Conffiles: exactly the two files in /etc, never a unit.
	conffiles := strings.Fields(dpkgOut(t, dpkgDeb, "--info", deb, "conffiles"))
	slices.Sort(conffiles)
	if want := []string{"/etc/default/dormouse", "/etc/dormouse/dormouse.yaml"}; !slices.Equal(conffiles, want) {
		t.Errorf("conffiles = %v, want %v", conffiles, want)
	}
	info := dpkgOut(t, dpkgDeb, "--info", deb)
	for _, s := range []string{"postinst", "prerm", "postrm"} {
		if !regexp.MustCompile(`(?m)^\s+\d+ bytes,\s+\d+ lines\s+\*\s+` + s + `\s+#!/bin/sh`).MatchString(info) {
			t.Errorf("maintainer script %s missing or not executable:\n%s", s, info)
		}
	}

	// Every regular file, with its mode and owner, from --contents.
	type entry struct{ mode, owner string }
	got := map[string]entry{}
	for _, l := range strings.Split(strings.TrimSpace(dpkgOut(t, dpkgDeb, "--contents", deb)), "\n") {
		f := strings.Fields(l)
		if len(f) < 6 {
			t.Fatalf("unexpected --contents line %q", l)
		}
		path := strings.TrimPrefix(f[5], "./")
		if f[1] != "root/root" {
			t.Errorf("%s owned by %s, want root/root", path, f[1])
		}
		if strings.HasPrefix(f[0], "d") {
			if f[0] != "drwxr-xr-x" {
				t.Errorf("directory %s has mode %s", path, f[0])
			}
			continue
		}
		got[path] = entry{f[0], f[1]}
	}
	want := map[string]string{
		"usr/bin/dormouse":                           "-rwxr-xr-x",
		litestreamDst:                                "-rwxr-xr-x",
		"usr/lib/sysusers.d/dormouse.conf":           "-rw-r--r--",
		"etc/dormouse/dormouse.yaml":                 "-rw-r--r--",
		"etc/default/dormouse":                       "-rw-------",
		"usr/share/doc/dormouse/copyright":           "-rw-r--r--",
		"usr/share/doc/dormouse/README.md":           "-rw-r--r--",
		"usr/share/doc/dormouse/changelog.Debian.gz": "-rw-r--r--",
		manPageDst:    "-rw-r--r--",
		completionDst: "-rw-r--r--",
	}
	for _, u := range units(t) {
		want["usr/lib/systemd/system/"+u] = "-rw-r--r--"
	}
	for p, mode := range want {
		e, ok := got[p]
		switch {
		case !ok:
			t.Errorf("missing /%s", p)
		case e.mode != mode:
			t.Errorf("/%s has mode %s, want %s", p, e.mode, mode)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("unexpected file /%s", p)
		}
	}

	// The files themselves: units, configs and scripts as in the tree, and a
	// static binary for the right machine.
	same := map[string]string{
		"etc/default/dormouse":             "packaging/default",
		"usr/lib/sysusers.d/dormouse.conf": "packaging/sysusers.d/dormouse.conf",
	}
	for _, u := range units(t) {
		same["usr/lib/systemd/system/"+u] = "systemd/" + u
	}
	files := debFiles(t, deb)
	for dst, src := range same {
		b, err := os.ReadFile(filepath.Join(repo, src))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(files[dst], b) {
			t.Errorf("/%s differs from %s", dst, src)
		}
	}
	checkConffile(t, files["etc/dormouse/dormouse.yaml"])
	checkChangelog(t, files["usr/share/doc/dormouse/changelog.Debian.gz"])
	checkDescription(t, dpkgOut(t, dpkgDeb, "-f", deb, "Description"))
	ef, err := elf.NewFile(bytes.NewReader(files[mainBinaryDst]))
	if err != nil {
		t.Fatalf("/%s is not ELF: %v", mainBinaryDst, err)
	}
	if ef.Machine != machine {
		t.Errorf("/%s is for %v, want %v", mainBinaryDst, ef.Machine, machine)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("/%s is dynamically linked (CGO_ENABLED=0 expected)", mainBinaryDst)
		}
	}
	if !bytes.Contains(files[mainBinaryDst], []byte(testVersion)) {
		t.Errorf("/%s does not carry the version %s", mainBinaryDst, testVersion)
	}
	if ef.Section(".symtab") != nil {
		t.Errorf("/%s is not stripped", mainBinaryDst)
	}
	checkCopyright(t, files[mainBinaryDst], files["usr/share/doc/dormouse/copyright"])
	checkLitestream(t, files[litestreamDst], files["usr/share/doc/dormouse/copyright"], machine)
	if arch == runtime.GOARCH && runtime.GOOS == "linux" {
		tmp := filepath.Join(t.TempDir(), "dormouse")
		if err := os.WriteFile(tmp, files[mainBinaryDst], 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := exec.CommandContext(t.Context(), tmp, "version").CombinedOutput()
		if got := strings.TrimSpace(string(b)); err != nil || got != "dormouse "+testVersion {
			t.Errorf("dormouse version = %q (err %v), want %q", got, err, "dormouse "+testVersion)
		}
	}
}

// debFiles reads the regular files of a .deb's data archive.
func debFiles(t *testing.T, deb string) map[string][]byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "dpkg-deb", "--fsys-tarfile", deb)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(pipe)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(h.Name, "./")] = b
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("dpkg-deb --fsys-tarfile: %v\n%s", err, stderr.String())
	}
	return files
}

// checkCopyright: every Go module compiled into the binary falls under a
// Files: stanza of the copyright file, so a new dependency cannot ship with
// its license unrecorded. "a/b/*" covers a/b and every module below it.
func checkCopyright(t *testing.T, binary, copyright []byte) {
	t.Helper()
	bi, err := buildinfo.Read(bytes.NewReader(binary))
	if err != nil {
		t.Fatalf("build info of /%s: %v", mainBinaryDst, err)
	}
	var patterns []string
	inFiles := false
	for _, l := range strings.Split(string(copyright), "\n") {
		switch {
		case strings.HasPrefix(l, "Files:"):
			inFiles = true
			patterns = append(patterns, strings.Fields(strings.TrimPrefix(l, "Files:"))...)
		case inFiles && strings.HasPrefix(l, " "):
			patterns = append(patterns, strings.Fields(l)...)
		default:
			inFiles = false
		}
	}
	for _, dep := range bi.Deps {
		covered := false
		for _, p := range patterns {
			if p == "*" {
				continue // the project's own files
			}
			base := strings.TrimSuffix(p, "/*")
			if dep.Path == p || dep.Path == base || (base != p && strings.HasPrefix(dep.Path, base+"/")) {
				covered = true
				break
			}
		}
		if !covered {
			t.Errorf("module %s %s is compiled in but packaging/copyright has no Files: stanza for it", dep.Path, dep.Version)
		}
	}
}

// checkLitestream: the package's Litestream is a static binary for the
// package's machine, at the version internal/replicate/tools/litestream/go.mod pins, and the
// copyright file has a stanza for it that names its licence.
func checkLitestream(t *testing.T, binary, copyright []byte, machine elf.Machine) {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		t.Fatalf("/%s is not ELF: %v", litestreamDst, err)
	}
	if ef.Machine != machine {
		t.Errorf("/%s is for %v, want %v", litestreamDst, ef.Machine, machine)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("/%s is dynamically linked", litestreamDst)
		}
	}
	bi, err := buildinfo.Read(bytes.NewReader(binary))
	if err != nil {
		t.Fatalf("build info of /%s: %v", litestreamDst, err)
	}
	mod, err := os.ReadFile(filepath.Join(root(t), "internal", "replicate", "tools", "litestream", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`github\.com/benbjohnson/litestream (v\S+)`).FindSubmatch(mod)
	if pinned == nil || bi.Main.Path != "github.com/benbjohnson/litestream" || bi.Main.Version != string(pinned[1]) {
		t.Errorf("/%s is %s %s, want github.com/benbjohnson/litestream at the version internal/replicate/tools/litestream/go.mod pins (%s)",
			litestreamDst, bi.Main.Path, bi.Main.Version, pinned)
	}
	stanza := regexp.MustCompile(`(?m)^Files: ` + regexp.QuoteMeta(litestreamDst) + `\n(?: .*\n|[A-Z].*\n)*?License: Apache-2\.0\n`)
	if !stanza.Match(copyright) {
		t.Errorf("packaging/copyright has no Files: %s stanza with License: Apache-2.0", litestreamDst)
	}
}

// helpFiles are the man page and the completion script, as the CLI prints
// them, and the files nfpm packages (the page gzipped, as make man does).
type helpFiles struct {
	man, completion       []byte
	manGz, completionPath string // where they are written for nfpm
}

// helpDocs builds the CLI for this machine and has it print the man page
// and the bash completion script, as make man does.
func helpDocs(t *testing.T, goTool string, env []string, out string) helpFiles {
	t.Helper()
	bin := filepath.Join(out, "native", "dormouse")
	build := exec.CommandContext(t.Context(), goTool, "build", "-o", bin, "./cmd/dormouse")
	build.Dir, build.Env = root(t), append(env, "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the native CLI: %v\n%s", err, b)
	}
	print := func(args ...string) []byte {
		b, err := exec.CommandContext(t.Context(), bin, args...).Output()
		if err != nil {
			t.Fatalf("dormouse %s: %v", strings.Join(args, " "), err)
		}
		return b
	}
	h := helpFiles{man: print("help", "--man"), completion: print("completion", "bash"),
		manGz: filepath.Join(out, "dormouse.1.gz"), completionPath: filepath.Join(out, "dormouse.bash")}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(h.man)
	zw.Close()
	for path, b := range map[string][]byte{h.manGz: gz.Bytes(), h.completionPath: h.completion} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// checkHelpDocs: the package's man page and completion script are the ones
// the CLI prints.
func checkHelpDocs(t *testing.T, deb string, h helpFiles) {
	t.Helper()
	files := debFiles(t, deb)
	zr, err := gzip.NewReader(bytes.NewReader(files[manPageDst]))
	if err != nil {
		t.Fatalf("/%s is not gzip: %v", manPageDst, err)
	}
	man, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(man, h.man) {
		t.Errorf("/%s is not what dormouse help --man prints (%v)", manPageDst, err)
	}
	if !bytes.Equal(files[completionDst], h.completion) {
		t.Errorf("/%s is not what dormouse completion bash prints", completionDst)
	}
}

// checkConffile: the shipped dormouse.yaml is configs/dormouse.yaml but for
// backup.dir, which puts backups outside what `apt purge` deletes.
func checkConffile(t *testing.T, shipped []byte) {
	t.Helper()
	tree, err := os.ReadFile(filepath.Join(root(t), "configs/dormouse.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(tree), "\n  dir: \"\"\n", "\n  dir: /var/backups/dormouse\n", 1)
	if string(shipped) != want || want == string(tree) {
		t.Errorf("/etc/dormouse/dormouse.yaml is not configs/dormouse.yaml with backup.dir: /var/backups/dormouse")
	}
	p := filepath.Join(t.TempDir(), "dormouse.yaml")
	if err := os.WriteFile(p, shipped, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{Path: p})
	if err != nil || cfg.BackupDir() != "/var/backups/dormouse" {
		t.Errorf("the shipped config's backup dir = %q (%v), want /var/backups/dormouse", cfg.BackupDir(), err)
	}
}

// checkChangelog: changelog.Debian.gz is gzip without a name or time stamp
// (reproducible, as policy asks), and its top entry is the package's version.
func checkChangelog(t *testing.T, gz []byte) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("changelog.Debian.gz: %v", err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("changelog.Debian.gz carries a name %q or time %v (gzip -n)", zr.Name, zr.ModTime)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(text), "\n"); !strings.HasPrefix(first, "dormouse ("+testVersion+") ") {
		t.Errorf("changelog's first line = %q, want the entry of %s", first, testVersion)
	}
	parse, err := exec.LookPath("dpkg-parsechangelog")
	if err != nil {
		return
	}
	p := filepath.Join(t.TempDir(), "changelog")
	if err := os.WriteFile(p, text, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), parse, "-l", p, "--all").CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("warning")) {
		t.Errorf("dpkg-parsechangelog: %v\n%s", err, out)
	}
}

// checkDescription: dpkg -I shows a one-line summary and a long description
// that says what it is, where it listens and where the data and backups are.
func checkDescription(t *testing.T, d string) {
	t.Helper()
	summary, long, _ := strings.Cut(strings.TrimSpace(d), "\n")
	if len(summary) > 80 || !strings.Contains(summary, "AI agents") {
		t.Errorf("short description %q: want one line under 80 characters saying what it is", summary)
	}
	for _, want := range []string{"127.0.0.1:7733", "/var/lib/dormouse", "/etc/dormouse/dormouse.yaml", "/var/backups/dormouse", "\n .\n"} {
		if !strings.Contains(long, want) {
			t.Errorf("long description lacks %q:\n%s", want, long)
		}
	}
}
