package web

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Adding a memory from the page: the same checks and the same store as
// POST /v1/agents/{agent}/memories (capture.Validate, then the batch's
// Store), by the API's rule for which agents a write may create. A refused
// memory comes back in the form with the reason, so nothing typed is lost.

// rememberForm is the add-a-memory box's fields.
type rememberForm struct {
	Agent, Content, Role, Session string
	Agents                        []string // the agents to choose from (a datalist)
	Fixed                         bool     // the box belongs to one agent's page
}

func (h *Handler) remember(w http.ResponseWriter, r *http.Request) {
	f := rememberForm{Agent: strings.TrimSpace(r.PostFormValue("agent")), Content: r.PostFormValue("content"),
		Role: strings.TrimSpace(r.PostFormValue("role")), Session: strings.TrimSpace(r.PostFormValue("session_id")),
		Fixed: r.PostFormValue("fixed") != ""}
	create, status, msg := h.mayRemember(r, f.Agent)
	if status != 0 {
		h.rememberPage(w, r, status, msg, f)
		return
	}
	batch, err := capture.Validate([]capture.Input{{Content: f.Content, Role: f.Role, SessionID: f.Session}},
		h.opts.Capture, h.opts.Now())
	var ie *capture.InputError
	if errors.As(err, &ie) {
		h.rememberPage(w, r, gate.Of(err).Status, "The memory was not stored: "+ie.Error()+".", f)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	a, err := h.opts.Store.Acquire(r.Context(), f.Agent, create)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer h.opts.Store.Release(a)
	res, err := batch.Store(r.Context(), a)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.remembered(w, r, f.Agent, res[0])
}

// mayRemember checks the agent a memory is for by the gate's rules, as the
// API checks POST /v1/agents/{agent}/memories: a valid name, one this server
// may write (its list), one the signed-in token may write. It returns
// whether the write may create the agent, and a status 0 when all is well.
func (h *Handler) mayRemember(r *http.Request, agent string) (create bool, status int, msg string) {
	g, _ := auth.FromContext(r.Context())
	if agent != "" && gate.Scope(g, agent, true) != nil { // the scope of "" is every agent's
		status, msg = h.refuseScope(r, g, agent, true)
		return false, status, msg
	}
	create, err := h.agents().Check(agent, true)
	if err == nil {
		return create, 0, ""
	}
	ref := gate.Of(err)
	switch msg = ref.Msg; {
	case agent == "":
		msg = "Name the agent the memory is for (for example main)."
	case ref.Code == "invalid_agent":
		msg = "The agent's name is not one Dormouse accepts: " + ref.Msg + "."
	}
	return false, ref.Status, msg
}

// remembered tells the write's listeners and shows the memory stored (or
// the one it repeats).
func (h *Handler) remembered(w http.ResponseWriter, r *http.Request, agent string, ins store.Inserted) {
	done := "remembered"
	if ins.Duplicate {
		done = "duplicate"
	} else {
		h.log.Info("web: memory added", "agent", agent, "id", ins.ID)
		if h.opts.OnWrite != nil {
			h.opts.OnWrite(agent)
		}
	}
	redirect(w, r, "/agents/"+agent+"/memories/"+strconv.FormatInt(ins.ID, 10), done)
}

// rememberPage shows the box again, filled in, with why it was refused.
func (h *Handler) rememberPage(w http.ResponseWriter, r *http.Request, status int, msg string, f rememberForm) {
	p := h.newPage(w, r, "Add a memory")
	p.Error = msg
	names, err := h.agentNames()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if f.Fixed && slices.Contains(names, f.Agent) {
		p.Agent, p.Nav = f.Agent, "overview"
	}
	f.Agents = h.visible(r, names)
	p.Data = f
	h.render(w, status, "remember", p)
}

// visible is the agents of names the request's token may read (all of them
// without tokens).
func (h *Handler) visible(r *http.Request, names []string) []string {
	g, signedIn := auth.FromContext(r.Context())
	if !signedIn {
		return names
	}
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !g.Allows(n, false) })
}

// newRemember is the overview's box: for the only agent there is, or
// main on an empty install (the name the README's examples use).
func (h *Handler) newRemember(names []string) rememberForm {
	f := rememberForm{Agents: names, Agent: "main"}
	if len(names) == 1 {
		f.Agent = names[0]
	}
	return f
}

// startLines are the other two ways to add a memory, written for this
// server: the CLI and the HTTP API.
type startLines struct {
	CLI, HTTP string
}

func (h *Handler) startLines(r *http.Request, agent string) startLines {
	bearer := ""
	if h.opts.Keyring.Enabled() {
		bearer = ` -H "Authorization: Bearer $DORMOUSE_TOKEN"`
	}
	scheme := "http"
	if h.overTLS(r) {
		scheme = "https"
	}
	return startLines{
		CLI: `dormouse ingest --agent ` + agent + ` "I am allergic to penicillin"`,
		HTTP: `curl -s` + bearer + ` ` + scheme + `://` + r.Host + `/v1/agents/` + agent +
			`/memories --json '{"content":"I am allergic to penicillin"}'`,
	}
}
