package web

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Timer is what systemd knows of one timer unit. Known is false when systemd
// could not be asked (no systemd, no systemctl, no bus): then nothing else
// is meaningful and the page says "unknown".
type Timer struct {
	Unit      string
	Known     bool
	Installed bool      // the unit file exists (LoadState is not not-found)
	Active    string    // ActiveState: active, inactive, …
	Last      time.Time // zero: never triggered
	Next      time.Time // zero: not scheduled
}

// SystemdTimers returns a function that asks systemctl about units, once per
// call, with a short timeout; any failure reports every unit as unknown.
func SystemdTimers(units ...string) func(ctx context.Context) []Timer {
	return func(ctx context.Context) []Timer {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		args := append([]string{"show", "--timestamp=unix",
			"--property=Id,LoadState,ActiveState,LastTriggerUSec,NextElapseUSecRealtime", "--"}, units...)
		cmd := exec.CommandContext(ctx, "systemctl", args...)
		// systemd before 254 ignores --timestamp here and prints local time
		// in the locale's words: make that "Tue 2026-12-01 00:01:28 UTC".
		cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
		out, err := cmd.Output()
		if err != nil {
			return unknownTimers(units)
		}
		return parseShow(out, units)
	}
}

func unknownTimers(units []string) []Timer {
	out := make([]Timer, len(units))
	for i, u := range units {
		out[i] = Timer{Unit: u}
	}
	return out
}

// parseShow reads `systemctl show --timestamp=unix` output: one block of
// KEY=VALUE lines per unit, blocks separated by an empty line, timestamps as
// "@<seconds since the epoch>" (systemd 254 and later) or "Tue 2026-12-01
// 00:01:28 UTC" (older ones, under TZ=UTC), "" or "n/a" when there is none.
// A unit whose block is missing is unknown.
func parseShow(out []byte, units []string) []Timer {
	byID := map[string]Timer{}
	var cur Timer
	flush := func() {
		if cur.Unit != "" {
			cur.Known = true
			byID[cur.Unit] = cur
		}
		cur = Timer{}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			flush()
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch k {
		case "Id":
			cur.Unit = v
		case "LoadState":
			cur.Installed = v != "not-found" && v != ""
		case "ActiveState":
			cur.Active = v
		case "LastTriggerUSec":
			cur.Last = unixStamp(v)
		case "NextElapseUSecRealtime":
			cur.Next = unixStamp(v)
		}
	}
	flush()
	res := make([]Timer, len(units))
	for i, u := range units {
		if t, ok := byID[u]; ok {
			res[i] = t
		} else {
			res[i] = Timer{Unit: u}
		}
	}
	return res
}

// showLayout is systemd's default timestamp ("%a %Y-%m-%d %H:%M:%S %Z").
const showLayout = "Mon 2006-01-02 15:04:05 MST"

func unixStamp(v string) time.Time {
	s, ok := strings.CutPrefix(v, "@")
	if !ok {
		// Only UTC is trusted: another zone's abbreviation has no reliable offset.
		if t, err := time.Parse(showLayout, v); err == nil && strings.HasSuffix(v, " UTC") {
			return t.UTC()
		}
		return time.Time{}
	}
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	ns := int64(0)
	if frac != "" {
		f, err := strconv.ParseFloat("0."+frac, 64)
		if err == nil {
			ns = int64(f * 1e9)
		}
	}
	return time.Unix(n, ns).UTC()
}
