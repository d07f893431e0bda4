package llm

import (
	"errors"
	"os"
	"testing"
)

// FuzzDecodeEmbeddings: whatever a provider answers, decode returns n
// vectors of one non-zero length, or ErrBadEmbedding; it never panics.
func FuzzDecodeEmbeddings(f *testing.F) {
	for _, p := range EmbeddingProviders {
		if b, err := os.ReadFile("testdata/" + p + "/embed_response.json"); err == nil {
			f.Add(p == "openai", b, uint8(2))
		}
	}
	f.Add(false, []byte(`{"embeddings":[[1],[1,2]]}`), uint8(2))
	f.Add(true, []byte(`{"data":[{"index":5,"embedding":[1]}]}`), uint8(1))
	f.Add(true, []byte(`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`), uint8(2))
	f.Fuzz(func(t *testing.T, openai bool, data []byte, n uint8) {
		e := &Embedder{cfg: Config{Provider: "ollama"}}
		if openai {
			e.cfg.Provider = "openai"
		}
		vecs, _, err := e.decode(data, int(n))
		if err != nil {
			if !errors.Is(err, ErrBadEmbedding) {
				t.Fatalf("error %v is not ErrBadEmbedding", err)
			}
			return
		}
		if len(vecs) != int(n) {
			t.Fatalf("%d vectors for %d texts", len(vecs), n)
		}
		for _, v := range vecs {
			if len(v) == 0 || len(v) != len(vecs[0]) {
				t.Fatalf("vectors of lengths %d and %d", len(v), len(vecs[0]))
			}
		}
	})
}
