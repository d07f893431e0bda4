package server

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/auth"
)

// The boundary: what every request must pass before any route sees it, so
// that a web page the user visits can neither write (a CORS "simple"
// request needs no preflight) nor, by rebinding its own name to this
// address, read.
//
//   - the Host must be one of this server's names: localhost, a loopback
//     address, the address the request came in on, or api.allowed_hosts;
//   - an API write (/v1, /mcp) a browser marks as coming from another origin
//     (Sec-Fetch-Site, else Origin) is refused, as http.CrossOriginProtection
//     decides (the page runs the same check on its forms, and answers with
//     a page);
//   - a JSON body must say so (application/json), which no simple request can.
//
// Requests the daemon makes of itself (auth.Trusted) carry no Host of the
// network's; programs send neither Sec-Fetch-Site nor Origin.
type boundary struct {
	hosts []string // lower case
	cross *http.CrossOriginProtection
}

func newBoundary(hosts []string) *boundary {
	b := &boundary{cross: http.NewCrossOriginProtection()}
	for _, h := range hosts {
		b.hosts = append(b.hosts, strings.ToLower(strings.Trim(h, "[]")))
	}
	return b
}

// admit reports whether r may go on; when not, it has answered.
func (b *boundary) admit(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case !b.knownHost(r):
		writeError(w, http.StatusMisdirectedRequest, "unknown_host", "Host "+strconv.Quote(r.Host)+
			" is not a name of this server: use localhost, 127.0.0.1 or [::1] (or the address it listens on), "+
			"or add the name to api.allowed_hosts")
	case isAPI(r) && b.cross.Check(r) != nil:
		writeError(w, http.StatusForbidden, "cross_origin",
			"a request from another site's page is refused: the API serves programs and this server's own page")
	case needsJSON(r) && !isJSON(r.Header.Get("Content-Type")):
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"send the JSON body with Content-Type: application/json")
	default:
		return true
	}
	return false
}

// knownHost checks r.Host. A request that did not come through a listener
// (no local address: in-process) has no Host to check.
func (b *boundary) knownHost(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || auth.IsTrusted(r.Context()) {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "localhost" || slices.Contains(b.hosts, host) {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	in, err := netip.ParseAddrPort(local.String())
	return ip.IsLoopback() || err == nil && in.Addr().WithZone("").Unmap() == ip.WithZone("").Unmap()
}

func isAPI(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/v1/") || r.URL.Path == "/mcp" || strings.HasPrefix(r.URL.Path, "/mcp/")
}

// needsJSON: an API request with a body, except a file upload (multipart)
// and an import (JSON lines).
func needsJSON(r *http.Request) bool {
	if r.ContentLength == 0 || !strings.HasPrefix(r.URL.Path, "/v1/") || isUpload(r) || isImport(r) {
		return false
	}
	return r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}
