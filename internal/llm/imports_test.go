package llm

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyThisPackageTalksToModels: the LLM boundary is the one package
// that imports provider clients. (That it depends on nothing of Dormouse's
// but leaf packages is internal/deps's table.)
func TestOnlyThisPackageTalksToModels(t *testing.T) {
	// langchaingo's provider packages; its shared types (llms) may serve an
	// adapter for agents elsewhere.
	providerClients := []string{"github.com/tmc/langchaingo/llms/", "github.com/aws/aws-sdk-go-v2", "google.golang.org/api",
		"github.com/google/generative-ai-go"}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		inLLM := filepath.Dir(path) == filepath.Join("..", "..", "internal", "llm")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, c := range providerClients {
				if strings.HasPrefix(p, c) && !inLLM {
					t.Errorf("%s imports %s: only internal/llm talks to providers", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
