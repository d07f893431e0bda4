package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// uploadForm is the page's upload form as a browser sends it.
func uploadForm(t testing.TB, fields url.Values, name string, data []byte) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, vs := range fields {
		for _, v := range vs {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), &b
}

func (f *fixture) upload(agent string, fields url.Values, name string, data []byte, header ...string) response {
	f.t.Helper()
	ct, body := uploadForm(f.t, fields, name, data)
	req, err := http.NewRequestWithContext(f.t.Context(), http.MethodPost, f.url+"/agents/"+agent+"/upload", body)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return f.do(req)
}

const note = "# Trip\n\nThe train to Porto leaves at nine.\n\n## Hotel\n\nThe hotel is on Rua Augusta.\n"

func TestUpload(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/upload")
	if r := f.get("/agents/main/upload"); !strings.Contains(r.body, `enctype="multipart/form-data"`) || !strings.Contains(r.body, "At most 20.0 MiB") {
		t.Errorf("the upload page:\n%s", r.body)
	}
	memories := func() (n int, porto *store.Memory) {
		f.agent("main", func(a *store.Agent) {
			ms, _, err := a.List(t.Context(), store.ListOptions{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			n = len(ms)
			for i, m := range ms {
				if strings.Contains(m.Content, "Porto") {
					porto = &ms[i]
				}
			}
		})
		return n, porto
	}

	r := f.upload("main", url.Values{"csrf": {tok}, "date": {"2026-02-07"}}, "trip.md", []byte(note))
	if r.status != http.StatusOK {
		t.Fatalf("upload: %d\n%s", r.status, r.body)
	}
	for _, want := range []string{`id="upload-result"`, "trip.md", ">ok<", "2 parts read, 2 new memories stored", "upload:/trip.md"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the upload's result lacks %q:\n%s", want, r.body)
		}
	}
	n, porto := memories()
	if n != 6 || porto == nil || porto.InteractionType != "file" || porto.Source != "trip.md" ||
		!porto.Timestamp.Equal(time.Date(2026, 2, 7, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("after the upload: %d memories, the Porto one %+v", n, porto)
	}
	// The same file again stores nothing new; the page says so.
	r = f.upload("main", url.Values{"csrf": {tok}}, "trip.md", []byte(note))
	if r.status != http.StatusOK || !strings.Contains(r.body, "0 new memories stored") || !strings.Contains(r.body, "reused") {
		t.Errorf("the same upload again: %d\n%s", r.status, r.body)
	}
	if n, _ := memories(); n != 6 {
		t.Errorf("the same upload again made %d memories, want 6", n)
	}

	// What the pipeline cannot take is shown as skipped, with the reason.
	for _, tc := range []struct{ name, data, want string }{
		{"empty.txt", "", "empty"},
		{"virus.exe", "MZ", "unsupported format"},
		{"blob.txt", "\x00\x01\x02binary", "binary"},
	} {
		r := f.upload("main", url.Values{"csrf": {tok}}, tc.name, []byte(tc.data))
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "skipped") || !strings.Contains(r.body, tc.want) {
			t.Errorf("upload %s: %d, want 422 skipped with %q:\n%s", tc.name, r.status, tc.want, r.body)
		}
	}
	for _, tc := range []struct {
		name   string
		fields url.Values
		file   string
		status int
		want   string
	}{
		{"no file", url.Values{"csrf": {tok}}, "", http.StatusBadRequest, "Choose one file"},
		{"bad date", url.Values{"csrf": {tok}, "date": {"tomorrow"}}, "a.md", http.StatusBadRequest, "not a date"},
	} {
		r := f.upload("main", tc.fields, tc.file, []byte("# A\n\nsome text here\n"))
		if r.status != tc.status || !strings.Contains(r.body, tc.want) {
			t.Errorf("%s: %d, want %d with %q:\n%s", tc.name, r.status, tc.status, tc.want, r.body)
		}
	}
	if n, _ := memories(); n != 6 {
		t.Errorf("refused uploads stored memories: %d, want 6", n)
	}
	// Not multipart at all.
	if r := f.post("/agents/main/upload", url.Values{"csrf": {tok}}); r.status != http.StatusBadRequest {
		t.Errorf("a urlencoded upload: %d, want 400", r.status)
	}
	// A page upload is the API's upload: the file is tracked as one, and
	// the API says where the memory came from.
	resp, err := http.Get(f.url + "/v1/agents/main/memories/" + strconv.FormatInt(porto.ID, 10) + "/origin")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var origin client.MemoryOrigin
	if err := json.NewDecoder(resp.Body).Decode(&origin); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("origin: %d %v", resp.StatusCode, err)
	}
	if origin.FileHash == "" || len(origin.Paths) != 1 || origin.Paths[0] != "upload:/trip.md" {
		t.Errorf("origin of an uploaded memory = %+v, want the upload's path", origin)
	}
}

func TestUploadCSRF(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/upload")
	other := newFixture(t, fixtureOptions{})
	other.seed("main", seedDay)
	otherTok := other.token("/agents/main/upload")
	for _, tc := range []struct {
		name   string
		fields url.Values
		header []string
	}{
		{"no token", url.Values{}, nil},
		{"wrong token", url.Values{"csrf": {tok[:len(tok)-2] + "xx"}}, nil},
		{"another server's token", url.Values{"csrf": {otherTok}}, nil},
		{"cross-site", url.Values{"csrf": {tok}}, []string{"Sec-Fetch-Site", "cross-site"}},
		{"another origin", url.Values{"csrf": {tok}}, []string{"Sec-Fetch-Site", "", "Origin", "https://evil.example"}},
	} {
		r := f.upload("main", tc.fields, "trip.md", []byte(note), tc.header...)
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "reload the page") {
			t.Errorf("%s: %d, want 403:\n%s", tc.name, r.status, r.body)
		}
	}
	f.agent("main", func(a *store.Agent) {
		ms, _, err := a.List(t.Context(), store.ListOptions{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 4 {
			t.Errorf("%d memories after refused uploads, want the 4 seeded", len(ms))
		}
	})
}

func TestUploadTooLarge(t *testing.T) {
	f := newFixture(t, fixtureOptions{maxUpload: 1000})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/upload")
	if r := f.get("/agents/main/upload"); !strings.Contains(r.body, "At most 1000 B") {
		t.Errorf("the page does not give the limit:\n%s", r.body)
	}
	// Just over the limit: the form's framing fits in the slack, the file does not.
	r := f.upload("main", url.Values{"csrf": {tok}}, "big.txt", bytes.Repeat([]byte("word "), 201))
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, "too large") {
		t.Errorf("a file over the limit: %d\n%s", r.status, r.body)
	}
	// Far over: the body itself is cut off.
	r = f.upload("main", url.Values{"csrf": {tok}}, "huge.txt", bytes.Repeat([]byte("word "), 100_000))
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, "too large") {
		t.Errorf("a body over the limit: %d\n%s", r.status, r.body)
	}
	// At the limit it goes through.
	r = f.upload("main", url.Values{"csrf": {tok}}, "ok.txt", bytes.Repeat([]byte("word "), 200))
	if r.status != http.StatusOK {
		t.Errorf("a file at the limit: %d\n%s", r.status, r.body)
	}
}

func TestUploadDisabled(t *testing.T) {
	f := newFixture(t, fixtureOptions{noFiles: true})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/memories/1")
	if r := f.get("/agents/main/upload"); strings.Contains(r.body, `type="file"`) || !strings.Contains(r.body, "does not take files") {
		t.Errorf("the upload page without a pipeline:\n%s", r.body)
	}
	if r := f.upload("main", url.Values{"csrf": {tok}}, "trip.md", []byte(note)); r.status != http.StatusNotImplemented {
		t.Errorf("an upload without a pipeline: %d", r.status)
	}
}

// TestUploadOverOneMiB: the page takes what it says (api.max_upload_bytes,
// 20 MiB by default), not the API's 1 MiB bound on JSON bodies.
func TestUploadOverOneMiB(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.seed("main", seedDay)
	tok := f.token("/agents/main/upload")
	var doc strings.Builder
	for i := 0; doc.Len() < 3<<19; i++ { // 1.5 MiB in sections of a few KiB
		fmt.Fprintf(&doc, "# Part %d\n\n%s\n\n", i, strings.Repeat(fmt.Sprintf("Paragraph %d of the long notes. ", i), 100))
	}
	r := f.upload("main", url.Values{"csrf": {tok}}, "long.md", []byte(doc.String()))
	if r.status != http.StatusOK || !strings.Contains(r.body, "long.md") || !strings.Contains(r.body, "new memories stored") {
		t.Errorf("a %d-byte upload: %d\n%.2000s", doc.Len(), r.status, r.body)
	}
}
