package daemon_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// TestWebPageUploadsThroughTheDaemonsIngester: the daemon gives its page
// the file ingester and upload limit of the API.
func TestWebPageUploadsThroughTheDaemonsIngester(t *testing.T) {
	d := daemontest.Start(t, func(cfg *config.Config) { cfg.API.MaxUploadBytes = 4000 })
	ctx := t.Context()
	c := client.New(d.Addr)
	if _, err := c.Remember(ctx, "main", client.MemoryInput{Content: "The agent exists."}); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	get := func(path string) string {
		resp, err := hc.Get(d.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	page := get("/agents/main/upload")
	if !strings.Contains(page, `type="file"`) || !strings.Contains(page, "At most 3.9 KiB") {
		t.Fatalf("the upload page does not offer the form with the configured limit:\n%s", page)
	}
	tok := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if tok == nil {
		t.Fatal("no CSRF token")
	}
	upload := func(data string) (int, string) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		mw.WriteField("csrf", tok[1])
		fw, _ := mw.CreateFormFile("file", "plants.md")
		fw.Write([]byte(data))
		mw.Close()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, d.URL()+"/agents/main/upload", &b)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := upload(strings.Repeat("x", 5000)); status != http.StatusRequestEntityTooLarge {
		t.Errorf("an upload over api.max_upload_bytes: %d\n%s", status, body)
	}
	status, body := upload("# Plants\n\nWater the fern on Sundays.\n")
	if status != http.StatusOK || !strings.Contains(body, "1 new memory stored") {
		t.Fatalf("upload: %d\n%s", status, body)
	}
	// Tracked as the API's uploads are.
	res, err := c.Recall(ctx, "main", client.RecallRequest{Query: "fern"})
	if err != nil || len(res.Items) == 0 {
		t.Fatalf("recall of the uploaded note: %+v, %v", res, err)
	}
	var id int64
	if _, err := fmt.Sscanf(res.Items[0].ID, "memory:%d", &id); err != nil {
		t.Fatalf("first item %q: %v", res.Items[0].ID, err)
	}
	o, err := c.MemoryOrigin(ctx, "main", id)
	if err != nil || len(o.Paths) != 1 || o.Paths[0] != "upload:/plants.md" {
		t.Errorf("origin of the page's upload = %+v, %v", o, err)
	}
}
