package watch

import (
	"path"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/files"
)

// DefaultExcludes leave out version control, Obsidian's own state, trash, and the swap, backup and
// temporary files editors and downloaders write next to the real one.
var DefaultExcludes = []string{
	".git/", ".obsidian/", ".trash/", ".Trash-*/", ".stversions/", "node_modules/",
	"*.swp", "*.swo", "*.swx", "*~", ".#*", "#*#", "*.tmp", "*.temp", ".~lock.*", "*.part",
	"*.crdownload", ".DS_Store", "4913", ".*.kate-swp", "*.sb-*",
}

// filter says which paths of a folder are candidates.
type filter struct {
	include   []string
	exclude   []string
	recursive bool
}

func newFilter(f Folder) filter {
	ex := append(append([]string{}, DefaultExcludes...), f.Exclude...)
	if f.Move {
		ex = append(ex, "/"+processedDir+"/", "/"+failedDir+"/")
	}
	return filter{include: f.Include, exclude: ex, recursive: f.Recursive}
}

// dir reports whether to descend into the folder at rel (slash-separated, relative to the root).
func (f filter) dir(rel string) bool {
	if rel == "." || rel == "" {
		return true
	}
	if !f.recursive {
		return false
	}
	for _, p := range f.exclude {
		if strings.HasSuffix(p, "/") && matchDir(strings.TrimSuffix(p, "/"), rel) {
			return false
		}
	}
	return true
}

// file reports whether the file at rel is one to ingest: in a folder scanned, of a supported format
// (or explicitly included), not excluded.
func (f filter) file(rel string) bool {
	if d := path.Dir(rel); d != "." {
		if !f.recursive {
			return false
		}
		for dir := d; dir != "."; dir = path.Dir(dir) {
			if !f.dir(dir) {
				return false
			}
		}
	}
	for _, p := range f.exclude {
		if !strings.HasSuffix(p, "/") && match(p, rel) {
			return false
		}
	}
	if len(f.include) == 0 {
		return files.Supported(rel)
	}
	for _, p := range f.include {
		if match(p, rel) {
			return true
		}
	}
	return false
}

// match matches a glob against rel: a pattern without a slash against the base name (*.md), one with
// a slash against the whole path from the root, where ** spans any number of folders (notes/**).
func match(pattern, rel string) bool {
	if !strings.Contains(pattern, "/") {
		ok, _ := path.Match(pattern, path.Base(rel))
		return ok
	}
	return matchSegments(strings.Split(strings.TrimPrefix(pattern, "/"), "/"), strings.Split(rel, "/"))
}

// matchDir matches a folder pattern (from "drafts/" or "/processed/") against the folder at rel: a
// pattern without a slash inside names a folder at any depth, one with a leading slash only at the root.
func matchDir(pattern, rel string) bool {
	if strings.HasPrefix(pattern, "/") || strings.Contains(pattern, "/") {
		return matchSegments(strings.Split(strings.TrimPrefix(pattern, "/"), "/"), strings.Split(rel, "/"))
	}
	ok, _ := path.Match(pattern, path.Base(rel))
	return ok
}

func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
