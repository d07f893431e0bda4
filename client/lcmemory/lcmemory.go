// Package lcmemory gives langchaingo chains and agents a long-term memory in
// Dormouse: Memory implements schema.Memory (each turn saved is stored; the
// variables loaded are the context Dormouse recalls for the current input,
// within a token budget), and SearchTool is a tools.Tool named
// "search_memory" an agent can call to look things up itself.
package lcmemory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/text"
	"github.com/tmc/langchaingo/schema"
)

// Memory is a langchaingo memory backed by one Dormouse agent. Its fields
// may be set before first use; the zero values take the defaults named.
type Memory struct {
	Client *client.Client
	Agent  string
	// Session is stored with every turn, so the turns of one conversation
	// can be listed (and cleared) together. Recall spans every session
	// unless SessionOnly is set.
	Session     string
	SessionOnly bool
	// MemoryKey is the variable the recalled context is loaded into
	// ("history", which langchaingo's conversational prompts use).
	MemoryKey string
	// InputKey and OutputKey name the user's input and the model's answer
	// among a chain's values. Empty: "input" and "output" when present,
	// else the only value there is.
	InputKey, OutputKey string
	// BudgetTokens and K bound the recalled context (0: the daemon's
	// defaults, usually 1000 tokens and 10 items).
	BudgetTokens, K int
	// Now stamps saved turns; nil leaves it to the daemon's clock.
	Now func() time.Time
}

var _ schema.Memory = (*Memory)(nil)

// New returns a Memory for agent.
func New(c *client.Client, agent string) *Memory {
	return &Memory{Client: c, Agent: agent}
}

// GetMemoryKey returns the variable the context is loaded into.
func (m *Memory) GetMemoryKey(context.Context) string {
	if m.MemoryKey == "" {
		return "history"
	}
	return m.MemoryKey
}

// MemoryVariables returns the one variable Memory loads.
func (m *Memory) MemoryVariables(ctx context.Context) []string {
	return []string{m.GetMemoryKey(ctx)}
}

// pick finds the value of key in values, or the preferred or only one.
func pick(values map[string]any, key, preferred string, skip ...string) (string, error) {
	if key == "" {
		if _, ok := values[preferred]; ok {
			key = preferred
		} else {
			var keys []string
			for k := range values {
				if !slices.Contains(skip, k) {
					keys = append(keys, k)
				}
			}
			if len(keys) != 1 {
				slices.Sort(keys)
				return "", fmt.Errorf("cannot tell which of the values %q to use: set InputKey or OutputKey", keys)
			}
			key = keys[0]
		}
	}
	v, ok := values[key]
	if !ok {
		return "", fmt.Errorf("no value %q among the chain's values", key)
	}
	switch v := v.(type) {
	case string:
		return v, nil
	case fmt.Stringer:
		return v.String(), nil
	case nil:
		return "", nil
	default:
		return "", fmt.Errorf("value %q is a %T, not text", key, v)
	}
}

// maxQueryBytes is the daemon's limit on a recall query.
const maxQueryBytes = 4096

// query shortens s to what the daemon accepts, at a rune boundary: the
// start of a long input says what it is about.
func query(s string) string {
	return text.Clip(s, maxQueryBytes)
}

// LoadMemoryVariables recalls the context for the current input: one line
// per memory, day summary or fact, each with its citation. With no input it
// recalls the recent and important.
func (m *Memory) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	in, err := pick(inputs, m.InputKey, "input", m.GetMemoryKey(ctx))
	if err != nil && len(inputs) > 0 {
		return nil, fmt.Errorf("dormouse memory: load: %w", err)
	}
	req := client.RecallRequest{Query: query(in), BudgetTokens: m.BudgetTokens, K: m.K}
	if m.SessionOnly {
		req.Session = m.Session
	}
	res, err := m.Client.Recall(ctx, m.Agent, req)
	if client.IsNotFound(err) {
		return map[string]any{m.GetMemoryKey(ctx): ""}, nil // a new agent remembers nothing yet
	}
	if err != nil {
		return nil, fmt.Errorf("dormouse memory: recall for agent %q: %w", m.Agent, err)
	}
	return map[string]any{m.GetMemoryKey(ctx): res.Context}, nil
}

// SaveContext stores the turn: the input as the user's memory and the
// output as the assistant's, in one request (both or neither).
func (m *Memory) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	in, err := pick(inputs, m.InputKey, "input", m.GetMemoryKey(ctx))
	if err != nil {
		return fmt.Errorf("dormouse memory: save the input: %w", err)
	}
	out, err := pick(outputs, m.OutputKey, "output")
	if err != nil {
		return fmt.Errorf("dormouse memory: save the output: %w", err)
	}
	var at time.Time
	if m.Now != nil {
		at = m.Now()
	}
	var batch []client.MemoryInput
	for _, t := range []struct{ role, text string }{{"user", in}, {"assistant", out}} {
		// Agents' answers often come with the prompt's spacing around them.
		if t.text = strings.TrimSpace(t.text); t.text == "" {
			continue
		}
		batch = append(batch, client.MemoryInput{Content: t.text, Role: t.role, SessionID: m.Session,
			InteractionType: "conversation", Source: "langchaingo", Timestamp: at})
	}
	if len(batch) == 0 {
		return nil
	}
	if _, err := m.Client.RememberBatch(ctx, m.Agent, batch); err != nil {
		return fmt.Errorf("dormouse memory: save a turn for agent %q: %w", m.Agent, err)
	}
	return nil
}

// ErrNoSession is Clear's answer when Memory has no Session: Dormouse keeps
// an agent's whole memory, and will not delete it wholesale this way.
var ErrNoSession = errors.New("dormouse memory: Clear deletes a session's turns, and this Memory has no Session")

// Clear deletes the turns stored under Session. Day summaries and facts
// already consolidated from them stay (forget those through the API).
func (m *Memory) Clear(ctx context.Context) error {
	if m.Session == "" {
		return ErrNoSession
	}
	for {
		page, err := m.Client.Memories(ctx, m.Agent, client.ListOptions{SessionID: m.Session, Limit: 1000})
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("dormouse memory: clear session %q: %w", m.Session, err)
		}
		for _, mem := range page.Memories {
			if err := m.Client.DeleteMemory(ctx, m.Agent, mem.ID); err != nil && !client.IsNotFound(err) {
				return fmt.Errorf("dormouse memory: clear session %q: %w", m.Session, err)
			}
		}
		if page.NextCursor == "" || len(page.Memories) == 0 {
			return nil
		}
	}
}

// SearchTool is the "search_memory" tool (a langchaingo tools.Tool): an agent gives it a question or
// keywords and gets back the matching memories, day summaries and facts,
// one line each with its citation.
type SearchTool struct {
	Client          *client.Client
	Agent           string
	BudgetTokens, K int // 0: the daemon's defaults
}

// Name is "search_memory".
func (SearchTool) Name() string { return "search_memory" }

// Description tells the model when and how to use the tool.
func (SearchTool) Description() string {
	return "Search long-term memory for what is known about a person, thing, preference or past event. " +
		"Input: a question or keywords, e.g. 'where does Ana live'. " +
		"Output: matching memories, one per line, each starting with a citation such as [memory:42] to quote."
}

// Call searches. Nothing found is an answer, not an error.
func (t SearchTool) Call(ctx context.Context, input string) (string, error) {
	input = strings.TrimSpace(input)
	if input == "" {
		return "Give search_memory a question or keywords to search for.", nil
	}
	res, err := t.Client.Recall(ctx, t.Agent, client.RecallRequest{Query: query(input), BudgetTokens: t.BudgetTokens, K: t.K})
	if client.IsNotFound(err) {
		return "Nothing is remembered yet.", nil
	}
	if err != nil {
		return "", fmt.Errorf("search_memory: %w", err)
	}
	if len(res.Items) == 0 {
		return "No memories match " + fmt.Sprintf("%q", input) + ".", nil
	}
	return res.Context, nil
}
