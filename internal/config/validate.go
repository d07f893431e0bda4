package config

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// providers are the llm.provider values.
var providers = []string{"offline", "ollama", "openai", "anthropic", "googleai", "bedrock"}

// agentName is the rule from the spec: an agent's name is also its file name, so it is never a path.
var agentName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Validate reports every setting that is out of bounds, each as an *Error, joined. It expects the
// spelling Load produces: synchronous in upper case, log_level and llm.provider in lower case.
func (c Config) Validate() error {
	return c.validate().join()
}

// The bounds are wide: they are there to catch a wrong unit or a stray digit, not to tune for a Pi.
func (c Config) validate() problems {
	var p problems
	p.listen("listen", c.Listen)
	if c.DataDir == "" {
		p.add("data_dir", "want a directory path, got an empty value")
	}
	p.oneOf("log_level", c.LogLevel, "debug", "info", "warn", "error")
	p.timezone("timezone", c.Timezone)
	p.llm(c.LLM)

	s := c.Storage
	p.oneOf("storage.synchronous", s.Synchronous, "NORMAL", "FULL")
	p.duration("storage.busy_timeout", s.BusyTimeout, time.Millisecond, 10*time.Minute)
	p.number("storage.cache_size_kib", int64(s.CacheSizeKiB), 64, 1<<20)
	p.number("storage.read_conns", int64(s.ReadConns), 1, 16)
	p.duration("storage.idle_close", s.IdleClose, time.Second, 7*24*time.Hour)
	p.duration("storage.conn_idle_close", s.ConnIdleClose, time.Second, 7*24*time.Hour)
	p.duration("storage.spare_conn_idle_close", s.SpareConnIdleClose, time.Second, 7*24*time.Hour)
	p.number("storage.max_open_agents", int64(s.MaxOpenAgents), 1, 1024)
	p.number("storage.group_commit_max", int64(s.GroupCommitMax), 1, 10000)
	p.duration("storage.group_commit_window", s.GroupCommitWindow, 0, 100*time.Millisecond)

	a := c.API
	p.number("api.max_body_bytes", a.MaxBodyBytes, 1<<10, 64<<20)
	p.number("api.max_batch", int64(a.MaxBatch), 1, 100000)
	if p.number("api.max_content_bytes", int64(a.MaxContentBytes), 1, 16<<20) &&
		int64(a.MaxContentBytes) > a.MaxBodyBytes {
		p.add("api.max_content_bytes", "want at most api.max_body_bytes (%d), since one memory must fit "+
			"in a request; got %d", a.MaxBodyBytes, a.MaxContentBytes)
	}
	p.number("api.max_upload_bytes", a.MaxUploadBytes, 1<<10, 1<<30)
	p.duration("api.read_timeout", a.ReadTimeout, time.Second, time.Hour)
	p.duration("api.write_timeout", a.WriteTimeout, time.Second, time.Hour)
	p.agents("api.agents", a.Agents)
	p.hosts("api.allowed_hosts", a.AllowedHosts)
	p.proxies("api.trusted_proxies", a.TrustedProxies)
	p.duration("api.session_idle", a.SessionIdle, time.Minute, 30*24*time.Hour)
	if !a.AutoCreate && len(a.Agents) == 0 {
		p.add("api.agents", "want at least one agent name when api.auto_create_agents is false, "+
			"or no agent could ever be used; got none")
	}

	p.oneOf("agents.create", c.Agents.Create, "on-write", CreateExplicit)
	p.grants(c.Agents.Reads, c.API)

	p.duration("capture.dedup_window", c.Capture.DedupWindow, time.Second, 365*24*time.Hour)
	p.duration("capture.max_future_skew", c.Capture.MaxFutureSkew, time.Minute, 100*365*24*time.Hour)

	r := c.Recall
	budgetOK := p.number("recall.budget_tokens", int64(r.BudgetTokens), 1, 1000000)
	p.number("recall.k", int64(r.K), 1, 1000)
	if p.number("recall.max_candidates", int64(r.MaxCandidates), 1, 100000) && r.MaxCandidates < r.K {
		p.add("recall.max_candidates", "want at least recall.k (%d), or recall could not fill k items; got %d",
			r.K, r.MaxCandidates)
	}
	p.duration("recall.recency_half_life", r.RecencyHalfLife, time.Hour, 10*365*24*time.Hour)
	if r.MinCoverage < 0 || r.MinCoverage > 1 {
		p.add("recall.min_coverage", "want 0 to 1, got %g", r.MinCoverage)
	}
	if p.number("recall.profile_tokens", int64(r.ProfileTokens), 0, 1000000) && budgetOK && r.ProfileTokens > r.BudgetTokens {
		p.add("recall.profile_tokens", "want at most recall.budget_tokens (%d), since the profile is offered within the budget; got %d",
			r.BudgetTokens, r.ProfileTokens)
	}
	p.embeddings(r.Embeddings, c.LLM.Provider)

	cs := c.Consolidate
	p.number("consolidate.backlog_threshold", int64(cs.BacklogThreshold), 0, 1000000)
	p.duration("consolidate.backlog_debounce", cs.BacklogDebounce, time.Second, 24*time.Hour)
	p.number("consolidate.chunk_tokens", int64(cs.ChunkTokens), 256, 1000000)
	p.duration("consolidate.lease_ttl", cs.LeaseTTL, 10*time.Second, 24*time.Hour)
	p.number("retention.raw_days", int64(c.Retention.RawDays), 0, 36500)

	h := c.Health
	if h.DiskPercent < 1 || h.DiskPercent > 100 {
		p.add("health.disk_percent", "want 1 to 100, got %g", h.DiskPercent)
	}
	p.number("health.backlog", int64(h.Backlog), 1, 100_000_000)
	p.duration("health.consolidation_overdue", h.ConsolidationOverdue, time.Hour, 365*24*time.Hour)
	if h.TemperatureC < 30 || h.TemperatureC > 150 {
		p.add("health.temperature_c", "want 30 to 150 (degrees Celsius), got %g", h.TemperatureC)
	}
	p.duration("health.replica_lag_warn", h.ReplicaLagWarn, time.Second, 24*time.Hour)
	p.number("backup.keep", int64(c.Backup.Keep), 1, 1000)
	p.replication(c.Replication)
	p.duration("files.parse_timeout", c.Files.ParseTimeout, time.Second, time.Hour)
	p.number("files.max_extracted_bytes", int64(c.Files.MaxExtractedBytes), 1<<10, 1<<30)
	p.number("files.max_parts", int64(c.Files.MaxParts), 1, 1_000_000)
	p.watch(c.Watch, c.API)
	p.tokens(c.Auth.Tokens)
	return p
}

func (p *problems) llm(l LLM) {
	p.oneOf("llm.provider", l.Provider, providers...)
	if l.BaseURL != "" {
		u, err := url.Parse(l.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.add("llm.base_url", "want an http:// or https:// URL such as http://127.0.0.1:11434, or nothing "+
				"for the provider's own endpoint; got %q", l.BaseURL)
		}
		if u != nil && u.User != nil {
			p.add("llm.base_url", "want no user or password in the URL: give API keys through the environment "+
				"or $CREDENTIALS_DIRECTORY")
		}
	}
	p.duration("llm.timeout", l.Timeout, time.Second, time.Hour)
	p.number("llm.max_retries", int64(l.MaxRetries), 0, 10)
	if l.Temperature < 0 || l.Temperature > 2 {
		p.add("llm.temperature", "want 0 to 2, got %g", l.Temperature)
	}
	if p.number("llm.context_window", int64(l.ContextWindow), 2048, 10_000_000) &&
		p.number("llm.max_tokens", int64(l.MaxTokens), 64, 1_000_000) && l.MaxTokens > l.ContextWindow/2 {
		p.add("llm.max_tokens", "want at most half of llm.context_window (%d), so that the day's memories "+
			"fit beside the answer; got %d", l.ContextWindow/2, l.MaxTokens)
	}
	p.number("llm.budget.max_calls", int64(l.Budget.MaxCalls), 0, 1_000_000_000)
	p.number("llm.budget.max_tokens", int64(l.Budget.MaxTokens), 0, 1<<62)
	if l.Vision {
		if err := visionSupport(l.Provider, cmp.Or(l.VisionModel, l.Model)); err != "" {
			p.add("llm.vision", "%s; or set vision: false and images are stored with their metadata only", err)
		}
	}
}

// visionSupport says why images cannot be described with provider's model ("" when they can): what
// llm.VisionSupport says of langchaingo's clients (a test checks they agree), kept here so that
// the configuration does not depend on the model clients.
func visionSupport(provider, model string) string {
	switch provider {
	case "ollama", "openai", "anthropic", "googleai":
		return ""
	case "bedrock":
		nova := strings.Contains(model, ".nova-") || strings.HasPrefix(model, "amazon.nova-")
		claude := strings.Contains(model, "anthropic") && !strings.Contains(model, "ai21") && !strings.Contains(model, "amazon")
		if model == "" || nova || claude {
			return ""
		}
		return fmt.Sprintf("on bedrock only Anthropic's Claude (anthropic.claude-…) and Amazon Nova (amazon.nova-…) models "+
			"are sent images; %q is neither: set llm.vision_model to one", model)
	case "offline":
		return "the offline provider describes no images: choose a provider whose model can see " +
			"(ollama, openai, anthropic, googleai, or bedrock with a Claude or Nova model)"
	}
	return "" // an unknown provider is llm.provider's problem
}

// problems collects every bad setting so that a person fixes the file once, not once per error.
type problems []*Error

func (p problems) join() error {
	errs := make([]error, len(p))
	for i, e := range p {
		errs[i] = e
	}
	return errors.Join(errs...)
}

func (p *problems) add(key, format string, args ...any) {
	*p = append(*p, &Error{Key: key, Msg: fmt.Sprintf(format, args...)})
}

// number checks lo <= got <= hi and reports whether it is.
func (p *problems) number(key string, got, lo, hi int64) bool {
	if got < lo || got > hi {
		p.add(key, "want %d to %d, got %d", lo, hi, got)
		return false
	}
	return true
}

func (p *problems) duration(key string, got Duration, lo, hi time.Duration) {
	if time.Duration(got) < lo || time.Duration(got) > hi {
		p.add(key, "want a duration from %s to %s, got %s", Duration(lo), Duration(hi), got)
	}
}

func (p *problems) oneOf(key, got string, allowed ...string) {
	if !slices.Contains(allowed, got) {
		p.add(key, "want one of %s; got %q", strings.Join(allowed, ", "), got)
	}
}

func (p *problems) listen(key, got string) {
	_, port, err := net.SplitHostPort(got)
	if err != nil {
		p.add(key, "want host:port such as 127.0.0.1:7733, [::1]:7733 or :7733 (every interface); got %q", got)
		return
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		p.add(key, "want a port number from 0 to 65535 after the last colon; got %q", got)
	}
}

func (p *problems) timezone(key, got string) {
	const allowed = "want Local (the system's zone) or an IANA zone name such as Europe/Berlin or UTC"
	if got == "" {
		p.add(key, "%s; got an empty value", allowed)
		return
	}
	if _, err := time.LoadLocation(got); err != nil {
		p.add(key, "%s; got %q, which is not in the zone database", allowed, got)
	}
}

func (p *problems) agents(key string, names []string) {
	seen := map[string]bool{}
	for _, name := range names {
		switch {
		case !agentName.MatchString(name):
			p.add(key, "want names of 1 to 64 lowercase letters, digits, _ and -, starting with a letter "+
				"or digit; got %q", name)
		case seen[name]:
			p.add(key, "want each agent once; got %q twice", name)
		}
		seen[name] = true
	}
}

var hostName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// hosts checks names a Host header may carry: a DNS name or an IP address, without a port.
func (p *problems) hosts(key string, names []string) {
	for _, h := range names {
		if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err != nil && (len(h) > 253 || !hostName.MatchString(h)) {
			p.add(key, "want host names in lower case or IP addresses, without scheme or port, such as "+
				"pi.local or 192.168.1.20; got %q", h)
		}
	}
}

// proxies checks the addresses of trusted proxies: IPs or CIDR prefixes.
func (p *problems) proxies(key string, addrs []string) {
	for _, a := range addrs {
		if _, err := netip.ParsePrefix(a); err == nil {
			continue
		}
		if _, err := netip.ParseAddr(a); err != nil {
			p.add(key, "want IP addresses or CIDR prefixes, such as 127.0.0.1 or 10.0.0.0/8; got %q", a)
		}
	}
}

// embeddings checks recall.embeddings: only providers with an embedding endpoint can turn it on.
func (p *problems) embeddings(e Embeddings, provider string) {
	if e.Weight <= 0 || e.Weight > 2 {
		p.add("recall.embeddings.weight", "want more than 0 and at most 2, got %g", e.Weight)
	}
	p.number("recall.embeddings.batch", int64(e.Batch), 1, 1024)
	if e.Enabled && provider != "ollama" && provider != "openai" {
		p.add("recall.embeddings.enabled", "want llm.provider ollama or openai (an OpenAI-compatible base_url), "+
			"which offer embeddings; llm.provider is %q: set enabled: false or change the provider", provider)
	}
}

// replication checks replication.*: a file:// or s3:// URL without credentials, an endpoint only
// for s3, and an absolute path for the binary.
func (p *problems) replication(r Replication) {
	p.duration("replication.sync_interval", r.SyncInterval, 100*time.Millisecond, time.Hour)
	if r.Litestream != "" && !filepath.IsAbs(r.Litestream) {
		p.add("replication.litestream", "want an absolute path to the litestream binary, or nothing; got %q", r.Litestream)
	}
	if r.URL == "" {
		if r.Endpoint != "" {
			p.add("replication.endpoint", "want replication.url set (s3://bucket/prefix) too, or nothing")
		}
		return
	}
	u, err := url.Parse(r.URL)
	switch {
	case err != nil || (u.Scheme != "file" && u.Scheme != "s3"):
		p.add("replication.url", "want file:///path (a mounted disk) or s3://bucket/prefix, or nothing to "+
			"replicate nowhere; got %q", r.URL)
		return
	case u.User != nil:
		p.add("replication.url", "want no user or password in the URL: give credentials through the "+
			"environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY in /etc/default/dormouse)")
		return
	case u.RawQuery != "" || u.Fragment != "":
		p.add("replication.url", "want no query or fragment: set replication.endpoint, region and path_style instead")
	case u.Scheme == "file" && (u.Host != "" || !path.IsAbs(u.Path) || path.Clean(u.Path) == "/"):
		p.add("replication.url", "want file:// and an absolute directory such as file:///mnt/nas/dormouse; got %q", r.URL)
	case u.Scheme == "s3" && u.Host == "":
		p.add("replication.url", "want s3://bucket or s3://bucket/prefix; got %q", r.URL)
	}
	if r.Endpoint == "" {
		return
	}
	e, err := url.Parse(r.Endpoint)
	switch {
	case u.Scheme != "s3":
		p.add("replication.endpoint", "want it only with an s3:// replication.url; got %q", r.Endpoint)
	case err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "":
		p.add("replication.endpoint", "want an http:// or https:// URL such as https://s3.example.com:9000; got %q", r.Endpoint)
	case e.User != nil || e.RawQuery != "":
		p.add("replication.endpoint", "want no user, password or query in the URL: give credentials through the environment")
	}
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// tokens checks auth.tokens: each named once, a SHA-256 in hex (lower case) used once, agents that are
// valid names or "*", and read or write access.
func (p *problems) tokens(list []Token) {
	names, sums := map[string]int{}, map[string]int{}
	for i, tk := range list {
		key := fmt.Sprintf("auth.tokens[%d]", i)
		if tk.Name == "" {
			p.add(key+".name", "want a name for the token, used in logs (such as assistant); got nothing")
		} else if j, dup := names[tk.Name]; dup {
			p.add(key+".name", "want each token named once; %q is also auth.tokens[%d]", tk.Name, j)
		} else {
			names[tk.Name] = i
		}
		switch j, dup := sums[tk.SHA256]; {
		case !sha256Hex.MatchString(tk.SHA256):
			p.add(key+".sha256", "want the token's SHA-256 as 64 lowercase hex digits, as dormouse token new "+
				"prints it (never the token itself); got %d characters", len(tk.SHA256))
		case dup:
			p.add(key+".sha256", "want each token once; this is also auth.tokens[%d]'s", j)
		default:
			sums[tk.SHA256] = i
		}
		if len(tk.Agents) == 0 {
			p.add(key+".agents", "want the agents the token may use, such as [assistant] or [\"*\"] for every agent; got none")
		}
		for _, a := range tk.Agents {
			if a != "*" && !agentName.MatchString(a) {
				p.add(key+".agents", "want agent names (1 to 64 lowercase letters, digits, _ and -) or \"*\"; got %q", a)
			}
		}
		p.oneOf(key+".access", tk.Access, "read", "write")
	}
}
