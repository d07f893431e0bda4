package daemon

import (
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
	"github.com/dormouse-dev/dormouse/internal/server"
)

// APIOptions maps the configuration onto the HTTP API's limits and agent
// rules (Services.ServerOptions adds the services' parts, serve the
// tokens, page and write triggers).
func APIOptions(cfg config.Config, log *slog.Logger) server.Options {
	return server.Options{
		MaxBodyBytes:    cfg.API.MaxBodyBytes,
		MaxBatch:        cfg.API.MaxBatch,
		MaxContentBytes: cfg.API.MaxContentBytes,
		MaxFutureSkew:   time.Duration(cfg.Capture.MaxFutureSkew),
		AutoCreate:      cfg.API.AutoCreate,
		Agents:          cfg.API.Agents,
		MaxUploadBytes:  cfg.API.MaxUploadBytes,
		UploadTimeout:   cfg.UploadTimeout(),
		AllowedHosts:    allowedHosts(cfg),
		PublicDetail:    cfg.Health.PublicDetail,
		Backups:         backupOptions(cfg, log),
		Reads:           gate.NewReads(cfg.Agents.Reads),
		Logger:          log,
	}
}

// backupOptions say where deleting an agent (the API's and the page's)
// puts the backup it takes first: where `dormouse backup` puts them.
func backupOptions(cfg config.Config, log *slog.Logger) *backup.Options {
	return &backup.Options{Dir: cfg.BackupDir(), Keep: cfg.Backup.Keep, Logger: log}
}

// allowedHosts is api.allowed_hosts and the listen address's host, when it
// names one (not ":7733" or "0.0.0.0:7733").
func allowedHosts(cfg config.Config) []string {
	hosts := slices.Clone(cfg.API.AllowedHosts)
	if h, _, err := net.SplitHostPort(cfg.Listen); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	return hosts
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
