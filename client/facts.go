package client

import (
	"context"
	"net/http"
)

// FactCorrection is a person's new wording of a current fact, and the new
// value of its attribute ("" for none), as the web page's correction form
// sends it.
type FactCorrection struct {
	Content string `json:"content"`
	Value   string `json:"value,omitempty"`
}

// Fact returns one of agent's facts, whatever its state: current,
// superseded or rejected.
func (c *Client) Fact(ctx context.Context, agent string, factID int64) (Fact, error) {
	var f Fact
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/facts/", id(factID)), nil, &f)
	return f, err
}

// CorrectFact replaces a current fact with a person's correction, which
// becomes the current fact (returned); the old one stays in the history,
// superseded by it. A correction to a claim rejected before is refused
// (409 rejected_claim), as is one of a fact that is no longer current (409
// not_current) or one that changes nothing (422 unchanged).
func (c *Client) CorrectFact(ctx context.Context, agent string, factID int64, corr FactCorrection) (Fact, error) {
	var f Fact
	err := c.Do(ctx, http.MethodPost, agentPath(agent, "/facts/", id(factID), "/correct"), corr, &f)
	return f, err
}

// Consolidation returns one of agent's day records.
func (c *Client) Consolidation(ctx context.Context, agent string, consolidationID int64) (Consolidation, error) {
	var d Consolidation
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/consolidations/", id(consolidationID)), nil, &d)
	return d, err
}
