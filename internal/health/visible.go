package health

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// agentInReason finds the agents a reason names: reasons write them as
// agent "name".
var agentInReason = regexp.MustCompile(`agent ("(?:[^"\\]|\\.)*")`)

// For is the report as someone who may see only the agents sees allows
// sees it: those agents, the reasons that name no other agent, and a note of
// how many were left out. Readings that failed (Errors) name agents and
// paths, so they are left out too. The API's /health and /metrics and the
// page's overview show a token this, not the whole report.
func (r Report) For(sees func(agent string) bool) Report {
	out := r
	out.Agents = slices.DeleteFunc(slices.Clone(r.Agents), func(a Agent) bool { return !sees(a.Name) })
	out.Errors = nil
	out.Replication = replicationFor(r.Replication, sees)
	out.Reasons = []string{}
	hidden := 0
	for _, reason := range r.Reasons {
		if reasonVisible(reason, r.Agents, sees) {
			out.Reasons = append(out.Reasons, reason)
		} else {
			hidden++
		}
	}
	if hidden > 0 {
		out.Reasons = append(out.Reasons, fmt.Sprintf("%d more about agents this request may not see: send a token that covers them", hidden))
	}
	return out
}

func reasonVisible(reason string, agents []Agent, sees func(string) bool) bool {
	for _, m := range agentInReason.FindAllStringSubmatch(reason, -1) {
		if name, err := strconv.Unquote(m[1]); err != nil || !sees(name) {
			return false
		}
	}
	for _, a := range agents {
		if !sees(a.Name) && strings.Contains(reason, strconv.Quote(a.Name)) {
			return false
		}
	}
	return true
}
