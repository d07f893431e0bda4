package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sumA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
const sumB = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"

func TestAuthTokens(t *testing.T) {
	data := `
auth:
  tokens:
    - name: assistant
      sha256: ` + sumA + `
      agents: [assistant, notes]
      access: write
    - name: dashboard
      sha256: ` + sumB + `
      agents: ["*"]
`
	got, err := load([]byte(data), "a.yaml", []string{"DORMOUSE_AUTH_ALLOW_OPEN=true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Auth{AllowOpen: true, Tokens: []Token{
		{Name: "assistant", SHA256: sumA, Agents: []string{"assistant", "notes"}, Access: "write"},
		{Name: "dashboard", SHA256: sumB, Agents: []string{"*"}, Access: "read"}, // read is the default
	}}
	if diff := cmp.Diff(got.Auth, want); diff != "" {
		t.Errorf("auth mismatch (-got +want):\n%s", diff)
	}
}

func TestAuthTokensErrors(t *testing.T) {
	entry := func(s string) string { return "auth:\n  tokens:\n    - " + s }
	tests := []struct{ name, data, want string }{
		{"not a list", "auth:\n  tokens: abc", `config: auth.tokens: want a list of tokens`},
		{"unknown key", entry("{name: a, sha256: " + sumA + ", agents: [a], token: x}"), `config: auth.tokens[0].token: not a setting of a token; they are name, sha256, agents, access`},
		{"missing name", entry("{sha256: " + sumA + ", agents: [a]}"), `config: auth.tokens[0].name: want a name for the token`},
		{"a token, not its hash", entry("{name: a, sha256: dmt_abc, agents: [a]}"), `config: auth.tokens[0].sha256: want the token's SHA-256 as 64 lowercase hex digits, as dormouse token new prints it (never the token itself); got 7 characters`},
		{"no agents", entry("{name: a, sha256: " + sumA + "}"), `config: auth.tokens[0].agents: want the agents the token may use`},
		{"bad agent", entry("{name: a, sha256: " + sumA + ", agents: [../etc]}"), `config: auth.tokens[0].agents: want agent names`},
		{"bad access", entry("{name: a, sha256: " + sumA + ", agents: [a], access: admin}"), `config: auth.tokens[0].access: want one of read, write; got "admin"`},
		{"same name", entry("{name: a, sha256: " + sumA + ", agents: [a]}\n    - {name: a, sha256: " + sumB + ", agents: [a]}"), `config: auth.tokens[1].name: want each token named once; "a" is also auth.tokens[0]`},
		{"same hash", entry("{name: a, sha256: " + sumA + ", agents: [a]}\n    - {name: b, sha256: " + sumA + ", agents: [a]}"), `config: auth.tokens[1].sha256: want each token once; this is also auth.tokens[0]'s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load([]byte(tt.data), "a.yaml", nil, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("load error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
