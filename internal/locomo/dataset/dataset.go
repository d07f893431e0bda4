// Package dataset finds the LoCoMo data file (snap-research/LoCoMo,
// CC BY-NC 4.0: non-commercial testing and benchmarking only) and downloads
// it from its public home into the user's cache, checked against the
// checksum of the copy Dormouse's figures were measured on. The file is
// never copied into this repository or shipped in a package.
//
// Only `dormouse bench locomo` downloads; tests and benchmarks use Find,
// which never does, and skip, saying so, without the file.
package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// URL is the data set's public home: data/locomo10.json of
// github.com/snap-research/locomo, branch main.
const URL = "https://raw.githubusercontent.com/snap-research/locomo/main/data/locomo10.json"

// SHA256 is the checksum of locomo10.json at snap-research/locomo commit
// 3eb6f2c (2024-08-12), the file every figure in docs/measurements.md is
// measured on.
const SHA256 = "79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4"

// Env names a data file to use instead of searching.
const Env = "DORMOUSE_LOCOMO"

// maxSize bounds a download: the file is 2.8 MB, so a body this large is
// not it.
const maxSize = 64 << 20

// ErrMissing means Find found no data file.
var ErrMissing = errors.New("LoCoMo data not found: set " + Env + " to locomo10.json, " +
	"or run `dormouse bench locomo` once to download it into the user cache")

// CachePath is where a download is kept: dormouse/locomo10.json in the
// user's cache directory ($XDG_CACHE_HOME, else ~/.cache).
func CachePath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache directory for the LoCoMo data: %w", err)
	}
	return filepath.Join(dir, "dormouse", "locomo10.json"), nil
}

// Find returns the data file without downloading it: $DORMOUSE_LOCOMO (an
// error wrapping ErrMissing when that file is absent), else
// the first of candidates that exists (a checkout of the shared data beside
// the repository, say), else the cached download if its checksum holds.
// It returns ErrMissing when there is none.
func Find(candidates ...string) (string, error) {
	if p := os.Getenv(Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w (%s names %s: %w)", ErrMissing, Env, p, err)
		}
		return p, nil
	}
	for _, p := range candidates {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := CachePath()
	if err != nil {
		return "", err
	}
	if Check(p) != nil {
		return "", ErrMissing
	}
	return p, nil
}

// Cached returns the cached download, first downloading it from url when
// it is absent or does not match SHA256.
func Cached(ctx context.Context, c *http.Client, url string) (string, error) {
	p, err := CachePath()
	if err != nil {
		return "", err
	}
	if Check(p) == nil {
		return p, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("create the LoCoMo cache directory: %w", err)
	}
	if err := Download(ctx, c, url, SHA256, p); err != nil {
		return "", err
	}
	return p, nil
}

// Download fetches url into path (0600) when its sha256 is sum. The body
// goes to a temporary file beside path, renamed over it only once the
// checksum holds, so a failed or wrong download leaves path as it was.
func Download(ctx context.Context, c *http.Client, url, sum, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".locomo-*.part")
	if err != nil {
		return fmt.Errorf("download LoCoMo data: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	got, err := fetch(ctx, c, url, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if err != nil {
		return fmt.Errorf("download LoCoMo data from %s: %w", url, err)
	}
	if got != sum {
		return fmt.Errorf("download LoCoMo data from %s: its sha256 is %s, want %s: not the file Dormouse is measured on", url, got, sum)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("download LoCoMo data: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("download LoCoMo data: %w", err)
	}
	return nil
}

// fetch writes url's body to w and returns its sha256 in hex.
func fetch(ctx context.Context, c *http.Client, url string, w io.Writer) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("the server answered %s", resp.Status)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(resp.Body, maxSize+1))
	if err != nil {
		return "", err
	}
	if n > maxSize {
		return "", fmt.Errorf("the body is over %d MiB: not the LoCoMo file", maxSize>>20)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Check reports whether the file at path is the one Dormouse is measured
// on (its sha256 is SHA256).
func Check(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != SHA256 {
		return fmt.Errorf("%s: sha256 %s, want %s", path, got, SHA256)
	}
	return nil
}
