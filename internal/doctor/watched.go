package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// hiddenPrefixes are what ProtectHome=yes hides from the daemon.
var hiddenPrefixes = []string{"/home", "/root", "/run/user"}

func hidden(p string) bool {
	for _, h := range hiddenPrefixes {
		if p == h || strings.HasPrefix(p, h+"/") {
			return true
		}
	}
	return false
}

// DropIn is the drop-in that lets the sandboxed daemon read folders under
// /home: the home directories become an empty tmpfs with just these folders
// bound into it, read-only.
func DropIn(folders []string) string {
	var b strings.Builder
	b.WriteString("[Service]\nProtectHome=tmpfs\n")
	for _, f := range folders {
		fmt.Fprintf(&b, "BindReadOnlyPaths=%s\n", f)
	}
	return b.String()
}

// checkWatched says, for watched folders the sandbox hides, whether the
// service has the drop-in that shows them, and how to add it.
func checkWatched(ctx context.Context, o Options) []Check {
	var need []string
	for _, f := range o.WatchedFolders {
		if f = filepath.Clean(f); hidden(f) {
			need = append(need, f)
		}
	}
	if len(need) == 0 {
		if len(o.WatchedFolders) == 0 {
			return nil
		}
		return []Check{{Name: "watched folders", Status: OK, Detail: "none under /home, /root or /run/user: the sandbox shows them (user dormouse must be able to read them)"}}
	}
	fix := "create a drop-in with `sudo systemctl edit dormouse` holding:\n" + DropIn(need) +
		"then `sudo systemctl restart dormouse`, and let user dormouse read them: sudo setfacl -R -m u:dormouse:rX " + strings.Join(need, " ")
	if !o.Systemd() {
		return []Check{{Name: "watched folders", Status: Warn, Detail: "folders under /home: " + strings.Join(need, ", ") +
			"; systemd is not running here, so the sandbox cannot be checked", Fix: fix}}
	}
	b, err := o.Run(ctx, "systemctl", "show", "dormouse.service", "-p", "ProtectHome", "-p", "BindReadOnlyPaths", "-p", "BindPaths")
	if err != nil {
		return []Check{{Name: "watched folders", Status: Warn, Detail: "systemctl show dormouse.service: " + err.Error(), Fix: fix}}
	}
	protect, bound := parseShow(b)
	var missing []string
	for _, f := range need {
		var ok bool
		switch protect {
		case "no", "false", "read-only":
			ok = true // the homes are visible (read-only at worst)
		case "tmpfs":
			for _, src := range bound { // an empty tmpfs but for what is bound into it
				if f == src || strings.HasPrefix(f, src+"/") {
					ok = true
				}
			}
		}
		if !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return []Check{{Name: "watched folders", Status: OK, Detail: "the service's sandbox shows " + strings.Join(need, ", ")}}
	}
	return []Check{{Name: "watched folders", Status: Fail,
		Detail: "hidden from the daemon by ProtectHome=" + protect + ": " + strings.Join(missing, ", "),
		Fix: "create a drop-in with `sudo systemctl edit dormouse` holding:\n" + DropIn(missing) +
			"then `sudo systemctl restart dormouse`, and let user dormouse read them: sudo setfacl -R -m u:dormouse:rX " + strings.Join(missing, " ")}}
}

// parseShow reads `systemctl show -p ProtectHome -p BindReadOnlyPaths -p
// BindPaths`: the ProtectHome value and the sources of the bind mounts
// ("SRC[:DST[:OPTIONS]]", space separated, "-" prefixed when optional).
func parseShow(b []byte) (protect string, sources []string) {
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		switch k {
		case "ProtectHome":
			protect = v
		case "BindReadOnlyPaths", "BindPaths":
			for _, m := range strings.Fields(v) {
				src, _, _ := strings.Cut(strings.TrimPrefix(m, "-"), ":")
				if src != "" {
					sources = append(sources, filepath.Clean(src))
				}
			}
		}
	}
	return protect, sources
}
