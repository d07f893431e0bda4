package daemon

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
	"github.com/dormouse-dev/dormouse/internal/server"
)

// APIOptions maps the configuration onto the HTTP API's limits and agent
// rules (the consolidator, write trigger and health monitor are wired
// separately).
func APIOptions(cfg config.Config, log *slog.Logger) server.Options {
	return server.Options{
		MaxBodyBytes:    cfg.API.MaxBodyBytes,
		MaxBatch:        cfg.API.MaxBatch,
		MaxContentBytes: cfg.API.MaxContentBytes,
		MaxFutureSkew:   time.Duration(cfg.Capture.MaxFutureSkew),
		AutoCreate:      cfg.API.AutoCreate,
		Agents:          cfg.API.Agents,
		MaxUploadBytes:  cfg.API.MaxUploadBytes,
		Logger:          log,
	}
}

// InProcessClient is a Go client whose requests api serves in-process.
func InProcessClient(api http.Handler) *client.Client {
	return client.New("http://dormouse.in-process",
		client.WithHTTPClient(&http.Client{Transport: server.InProcess(api), Timeout: 10 * time.Minute}),
		client.WithUserAgent("dormouse-mcp"))
}

// MCPHandler is the MCP server over streamable HTTP, mounted at /mcp. Its
// tools call the API in-process: the same agent list, limits and triggers,
// and whatever guards the listener guards /mcp.
func MCPHandler(api http.Handler, log *slog.Logger) http.Handler {
	return mcpserver.Handler(InProcessClient(api), mcpserver.Options{Logger: log, Where: "the daemon"})
}
