package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/dormouse-dev/dormouse/internal/health"
)

// Health returns the daemon's health report. A failing daemon answers 503
// with the report as its body: that is a report, not an error.
func (c *Client) Health(ctx context.Context) (health.Report, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/health", nil)
	if err != nil {
		return health.Report{}, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return health.Report{}, fmt.Errorf("GET /health: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return health.Report{}, fmt.Errorf("GET /health: read response: %w", err)
	}
	var r health.Report
	if (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusServiceUnavailable) &&
		json.Unmarshal(data, &r) == nil && r.State != "" {
		return r, nil
	}
	return health.Report{}, fmt.Errorf("GET /health: %s", resp.Status)
}
