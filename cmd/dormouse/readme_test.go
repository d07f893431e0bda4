package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestReadmeTryIt runs the shell blocks of the README's "Try it" in order
// against a real daemon on loopback: curl at its address, bin/dormouse as
// the built binary (talking to it through DORMOUSE_ADDR). The README is
// what runs, so a change to it that breaks the sequence fails here, and so
// does a command whose output lacks what its "# → " comment shows. Beyond
// those: recall finds the penicillin memory and ask answers from it; the
// consolidation makes day records, a superseded fact and a profile line
// that answers; after the forget, ask abstains, from the CLI and over HTTP.
func TestReadmeTryIt(t *testing.T) {
	cmds := tryItCommands(t, "../../README.md")
	d := startDaemon(t, t.TempDir())
	outs := make([]string, len(cmds))
	for i, c := range cmds {
		outs[i] = runReadme(t, d.addr, c)
		if strings.Contains(outs[i], `"error":`) {
			t.Errorf("%s\nanswered an error: %s", c, outs[i])
		}
		if shown, ok := shownOutput(c); ok && !strings.Contains(squeeze(outs[i]), squeeze(shown)) {
			t.Errorf("%s\nprinted\n%s\nwithout what the README shows: %q", c, outs[i], shown)
		}
	}
	consolidate := readmeStep(t, cmds, 0, "bin/dormouse consolidate")
	if days := strings.Count(outs[consolidate], " ok "); days < 2 {
		t.Errorf("the consolidation built %d days, want the two dated ones at least:\n%s", days, outs[consolidate])
	}
	if facts := outs[readmeStep(t, cmds, consolidate, "bin/dormouse facts")]; !strings.Contains(facts, "Atkins") || !strings.Contains(facts, "superseded by fact:") {
		t.Errorf("facts after the consolidation lack the superseding Atkins fact:\n%s", facts)
	}
	if profile := outs[readmeStep(t, cmds, consolidate, "bin/dormouse profile")]; !strings.Contains(profile, "The user works at Atkins.") {
		t.Errorf("the profile after the consolidation lacks the current employer:\n%s", profile)
	}
	forget := readmeStep(t, cmds, 0, "bin/dormouse forget 1")
	recalled := outs[readmeStep(t, cmds, 0, `/recall --json '{"query":"what am I allergic to?"`)]
	if !strings.Contains(recalled, `"found":true`) || !strings.Contains(recalled, `"text":"I am allergic to penicillin"`) {
		t.Errorf("recall before the forget does not find the penicillin memory: %s", recalled)
	}
	if before := outs[readmeStep(t, cmds, 0, `bin/dormouse ask "what am I allergic to?"`)]; !strings.HasPrefix(before, "I am allergic to penicillin. [memory:1]") {
		t.Errorf("ask before the forget answered %q", before)
	}
	if after := outs[readmeStep(t, cmds, forget, `bin/dormouse ask "what am I allergic to?"`)]; after != "Nothing stored answers this.\n" {
		t.Errorf("the CLI's ask after the forget answered %q, want the abstention alone", after)
	}
	var ans struct {
		Answer    string   `json:"answer"`
		Abstained bool     `json:"abstained"`
		Citations []string `json:"citations"`
	}
	if err := json.Unmarshal([]byte(outs[readmeStep(t, cmds, forget, `/ask --json '{"query":"what am I allergic to?"}'`)]), &ans); err != nil ||
		!ans.Abstained || ans.Answer != "Nothing stored answers this." || len(ans.Citations) != 0 {
		t.Errorf("POST /ask after the forget: %+v (%v), want an abstention citing nothing", ans, err)
	}
}

// shownOutput is what a README command's "# → " comment shows of its
// output.
func shownOutput(cmd string) (string, bool) {
	_, shown, ok := strings.Cut(cmd, "# → ")
	return strings.TrimSpace(shown), ok
}

// squeeze collapses runs of white space, so the README's one-line showing
// of a table's row matches the aligned row.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// readmeStep is the index of the first command at or after from holding
// part.
func readmeStep(t *testing.T, cmds []string, from int, part string) int {
	t.Helper()
	for i := from; i < len(cmds); i++ {
		if strings.Contains(cmds[i], part) {
			return i
		}
	}
	t.Fatalf("the README's Try it has no command holding %q after its command %d", part, from)
	return 0
}

// tryItCommands reads the commands of the README's "Try it" section's sh
// blocks: one per line, or more where a quote spans lines; comment lines
// and blank ones left out.
func tryItCommands(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Try it\n")
	if !ok {
		t.Fatalf("%s has no \"## Try it\" section", path)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var cmds []string
	for i, block := range strings.Split(sec, "```") {
		body, isSh := strings.CutPrefix(block, "sh\n")
		if i%2 == 0 || !isSh {
			continue
		}
		cmd := ""
		for line := range strings.SplitSeq(body, "\n") {
			if cmd == "" && (strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#")) {
				continue
			}
			cmd += line
			if _, open := shellWords(cmd); open {
				cmd += "\n"
				continue
			}
			cmds = append(cmds, cmd)
			cmd = ""
		}
	}
	if len(cmds) == 0 {
		t.Fatalf("%s's Try it has no sh block", path)
	}
	return cmds
}

// shellWords splits a command as sh would for the quoting the README uses
// ('…', "…" with \ escapes), up to a comment; open reports an unclosed
// quote.
func shellWords(s string) (words []string, open bool) {
	var w strings.Builder
	inWord := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			w.WriteRune(r)
			esc = false
		case quote != 0 && r == quote:
			quote = 0
		case quote == '"' && r == '\\':
			esc = true
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '#' && !inWord:
			return words, false
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, quote != 0
}

// runReadme runs one README command against the daemon at addr and
// returns its output: through sh, with bin/dormouse the built binary and
// localhost:7733 the daemon's address. Without curl on the machine, a curl
// command's request is sent by the test itself.
func runReadme(t *testing.T, addr, cmd string) string {
	t.Helper()
	cmd = strings.ReplaceAll(cmd, "localhost:7733", addr)
	if words, _ := shellWords(cmd); len(words) > 0 && words[0] == "curl" {
		if _, err := exec.LookPath("curl"); err != nil {
			return curlInGo(t, words)
		}
	}
	sh := exec.Command("sh", "-c", strings.ReplaceAll(cmd, "bin/dormouse", binary))
	sh.Env = hermeticEnv("DORMOUSE_ADDR=" + addr)
	sh.Dir = t.TempDir()
	var out, stderr bytes.Buffer
	sh.Stdout, sh.Stderr = &out, &stderr
	if err := sh.Run(); err != nil {
		t.Fatalf("%s\nfailed: %v\n%s%s", cmd, err, out.String(), stderr.String())
	}
	return out.String()
}

// curlInGo sends the request of a curl command of the README's forms
// (-s, -X METHOD, --json BODY, one URL) and returns the response body.
func curlInGo(t *testing.T, words []string) string {
	t.Helper()
	method, url, body, err := curlRequest(words)
	if err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if send(t.Context(), method, url, body, &raw) == 0 {
		t.Fatalf("%s %s: no answer from the daemon", method, url)
	}
	return string(raw)
}

// curlRequest is the request a curl command of the README's forms makes;
// any other flag is an error, so the README cannot drift from what this
// test sends.
func curlRequest(words []string) (method, url, body string, err error) {
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-s":
		case w == "-X" && i+1 < len(words):
			i++
			method = words[i]
		case w == "--json" && i+1 < len(words):
			i++
			body = words[i]
		case !strings.HasPrefix(w, "-") && url == "":
			url = "http://" + strings.TrimPrefix(w, "http://")
		default:
			return "", "", "", fmt.Errorf("curl %q: this test does not send %q: teach curlRequest", strings.Join(words[1:], " "), w)
		}
	}
	switch {
	case method != "":
	case body != "": // --json posts
		method = http.MethodPost
	default:
		method = http.MethodGet
	}
	return method, url, body, nil
}

func TestCurlRequest(t *testing.T) {
	for _, tc := range []struct {
		cmd, method, url, body string
	}{
		{`curl -s 127.0.0.1:1/v1/agents/main/recall --json '{"query":"x"}'`, "POST", "http://127.0.0.1:1/v1/agents/main/recall", `{"query":"x"}`},
		{`curl -s 'localhost:1/v1/agents/main/memories?limit=10'`, "GET", "http://localhost:1/v1/agents/main/memories?limit=10", ""},
		{`curl -s -X DELETE localhost:1/v1/agents/main/memories/1  # forget`, "DELETE", "http://localhost:1/v1/agents/main/memories/1", ""},
	} {
		words, _ := shellWords(tc.cmd)
		method, url, body, err := curlRequest(words)
		if err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		if method != tc.method || url != tc.url || body != tc.body {
			t.Errorf("%s = %s %s %q, want %s %s %q", tc.cmd, method, url, body, tc.method, tc.url, tc.body)
		}
	}
	words, _ := shellWords(`curl -s -H 'Authorization: Bearer x' localhost:1/health`)
	if _, _, _, err := curlRequest(words); err == nil {
		t.Error("a curl flag the test does not send was accepted")
	}
	if _, open := shellWords(`curl --json '{"a":` + "\n"); !open {
		t.Error("an unclosed quote is not open")
	}
	if w, open := shellWords(`echo "a \"b\" # c" | x  # note`); open || !slices.Equal(w, []string{"echo", `a "b" # c`, "|", "x"}) {
		t.Errorf("shellWords = %q, open %v", w, open)
	}
}
