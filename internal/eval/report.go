package eval

import (
	"fmt"
	"io"
	"strings"
)

// maxShown bounds how much of a failed arm's context the text report shows.
const maxShown = 600

// WriteText prints the report for people: one line per scenario, the
// failed probes with which arm failed and what its context held, and the
// totals.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, s := range r.Scenarios {
		c := s.Counts
		status := "ok  "
		if !s.Passed() {
			status = "FAIL"
		}
		fmt.Fprintf(&b, "%s %-28s on %d/%d  off %d/%d  oracle %d/%d  contribution %+d  gap %d  leaking %d  tokens %.0f/probe\n",
			status, s.Name, c.On, c.Probes, c.Off, c.Probes, c.Oracle, c.Probes, c.Contribution, c.Gap, c.Leaking, c.MeanContextTokens)
		if s.Error != "" {
			fmt.Fprintf(&b, "     error: %s\n", s.Error)
			continue
		}
		for _, p := range s.Probes {
			for _, arm := range []struct {
				name string
				a    Arm
				bad  bool
			}{
				{"on", p.On, !p.On.Pass},
				{"off (leaks: answerable without memory)", p.Off, p.Leaking},
				{"oracle", p.Oracle, !p.Oracle.Pass},
			} {
				if !arm.bad {
					continue
				}
				fmt.Fprintf(&b, "     %s failed: %q (agent %s, as of %s)\n", arm.name, p.Ask, p.Agent, p.AsOf)
				if arm.a.Why != "" {
					fmt.Fprintf(&b, "       %s\n", arm.a.Why)
				}
				fmt.Fprintf(&b, "       context (%d items, %d tokens): %s\n", arm.a.Items, arm.a.Tokens, shown(arm.a.Context))
				if arm.a.Answer != "" {
					fmt.Fprintf(&b, "       answer: %s\n", shown(arm.a.Answer))
				}
			}
		}
	}
	t := r.Total
	fmt.Fprintf(&b, "\ntotal: %d scenarios, %d probes: on %d, off %d, oracle %d; memory contribution %+d, retrieval gap %d, leaking %d; context %.0f tokens per probe (provider %s)\n",
		len(r.Scenarios), t.Probes, t.On, t.Off, t.Oracle, t.Contribution, t.Gap, t.Leaking, t.MeanContextTokens, r.Provider)
	if len(r.Failed) > 0 {
		fmt.Fprintf(&b, "failed: %s\n", strings.Join(r.Failed, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func shown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	s = strings.ReplaceAll(s, "\n", " | ")
	if r := []rune(s); len(r) > maxShown {
		return string(r[:maxShown]) + " …"
	}
	return s
}
