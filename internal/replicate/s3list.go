package replicate

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
)

// s3Names lists the "directories" directly under the target's prefix (one
// per replicated agent file, NAME.db): Litestream has no command for it,
// and the AWS SDK stays inside internal/llm, so this is one
// ListObjectsV2 request signed with Signature V4, by hand.
func s3Names(ctx context.Context, t Target, environ []string) ([]string, error) {
	cred, err := s3Credentials(environ)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(t.URL)
	bucket, prefix := u.Host, strings.Trim(u.Path, "/")
	if prefix != "" {
		prefix += "/"
	}
	region := cmp.Or(t.Region, "us-east-1")
	var names []string
	token := ""
	for {
		q := url.Values{"list-type": {"2"}, "delimiter": {"/"}, "prefix": {prefix}}
		if token != "" {
			q.Set("continuation-token", token)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, bucketURL(t, bucket, region)+"?"+canonicalQuery(q), nil)
		if err != nil {
			return nil, err
		}
		signV4(req, cred, region, time.Now())
		page, err := listPage(req)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Prefixes {
			names = append(names, path.Base(strings.TrimSuffix(p.Prefix, "/")))
		}
		if !page.Truncated || page.NextToken == "" {
			return names, nil
		}
		token = page.NextToken
	}
}

type listResult struct {
	Prefixes []struct {
		Prefix string `xml:"Prefix"`
	} `xml:"CommonPrefixes"`
	Truncated bool   `xml:"IsTruncated"`
	NextToken string `xml:"NextContinuationToken"`
}

func listPage(req *http.Request) (listResult, error) {
	var page listResult
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return page, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return page, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Code, Message string }
		_ = xml.Unmarshal(body, &e)
		return page, fmt.Errorf("the store answered %s: %s %s", resp.Status, e.Code, e.Message)
	}
	return page, xml.Unmarshal(body, &page)
}

// bucketURL is the bucket's URL: on the endpoint in the path style
// (Litestream's default for a custom endpoint), on AWS by host name.
func bucketURL(t Target, bucket, region string) string {
	if t.Endpoint != "" {
		return strings.TrimSuffix(t.Endpoint, "/") + "/" + bucket
	}
	if t.PathStyle {
		return "https://s3." + region + ".amazonaws.com/" + bucket
	}
	return "https://" + bucket + ".s3." + region + ".amazonaws.com"
}

type s3Cred struct{ id, secret, token string }

// s3Credentials reads the keys Litestream reads, from the same variables.
func s3Credentials(environ []string) (s3Cred, error) {
	get := func(names ...string) string {
		for _, n := range names {
			for _, kv := range environ {
				if v, ok := strings.CutPrefix(kv, n+"="); ok && v != "" {
					return v
				}
			}
		}
		return ""
	}
	c := s3Cred{id: get("AWS_ACCESS_KEY_ID", "LITESTREAM_ACCESS_KEY_ID"),
		secret: get("AWS_SECRET_ACCESS_KEY", "LITESTREAM_SECRET_ACCESS_KEY"), token: get("AWS_SESSION_TOKEN")}
	if c.id == "" || c.secret == "" {
		return c, errors.New("no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (in /etc/default/dormouse for the service)")
	}
	return c, nil
}

// signV4 signs req (no body) with AWS Signature Version 4 for S3.
func signV4(req *http.Request, c s3Cred, region string, now time.Time) {
	now = now.UTC()
	stamp, day := now.Format("20060102T150405Z"), now.Format("20060102")
	emptyHash := hashHex("")
	req.Header.Set("x-amz-date", stamp)
	req.Header.Set("x-amz-content-sha256", emptyHash)
	if c.token != "" {
		req.Header.Set("x-amz-security-token", c.token)
	}
	headers := map[string]string{"host": req.URL.Host}
	for k := range req.Header {
		headers[strings.ToLower(k)] = strings.TrimSpace(req.Header.Get(k))
	}
	keys := make([]string, 0, len(headers))
	for k := range headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var canonHeaders strings.Builder
	for _, k := range keys {
		canonHeaders.WriteString(k + ":" + headers[k] + "\n")
	}
	signed := strings.Join(keys, ";")
	canonical := strings.Join([]string{req.Method, cmp.Or(req.URL.EscapedPath(), "/"), req.URL.RawQuery,
		canonHeaders.String(), signed, emptyHash}, "\n")
	scope := day + "/" + region + "/s3/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + hashHex(canonical)
	key := []byte("AWS4" + c.secret)
	for _, part := range []string{day, region, "s3", "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	req.Header.Set("Authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s",
		c.id, scope, signed, hex.EncodeToString(hmacSHA256(key, toSign))))
}

// canonicalQuery is q sorted and escaped as Signature V4 wants it (RFC 3986:
// a space is %20, never +).
func canonicalQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		for _, v := range q[k] {
			parts = append(parts, awsEscape(k)+"="+awsEscape(v))
		}
	}
	return strings.Join(parts, "&")
}

func awsEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

func hashHex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}
