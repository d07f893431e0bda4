package client

import (
	"context"
	"net/http"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

// Ask asks a question: an answer citing the recalled context it comes with.
func (c *Client) Ask(ctx context.Context, agent string, req recall.Request) (answer.Result, error) {
	var out answer.Result
	err := c.do(ctx, http.MethodPost, agentPath(agent, "/ask"), req, &out)
	return out, err
}
