package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// FlagMemories flags memories as a forgotten claim said again: kept and
// listed, never recalled, consolidated by nothing. CommitConsolidation does
// the same inside its transaction (Commit.Flag); this is for a day whose
// memories are all flagged, which has no record to commit.
func (a *Agent) FlagMemories(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := a.write(ctx, func(ctx context.Context, c *conn) error { return flagMemories(ctx, c, ids) })
	if err != nil {
		return fmt.Errorf("flag %d memories: %w", len(ids), err)
	}
	return nil
}

func flagMemories(ctx context.Context, c *conn, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	err = c.execArgs(ctx, `UPDATE daily_memories SET flagged = 1, consolidated = 1, consolidation_id = NULL
		WHERE id IN (SELECT value FROM json_each(?))`, string(b))
	if err != nil {
		return fmt.Errorf("flag memories: %w", err)
	}
	return nil
}

// claimHash is the hash under which a claim is remembered as forgotten: of
// its entity (lowercased), attribute and normalised value, so the claim is
// recognised in any wording and its text is never kept (as for forgotten
// content). A normalised text has no NUL, so a claim's hash never equals a
// content's. False for a claim without attribute or value.
func claimHash(c claim.Claim) (string, bool) {
	v := claim.Normal(c.Value)
	if c.Key == "" || v == "" || c.Subject == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte("claim\x00" + strings.ToLower(claim.Normal(c.Subject)) + "\x00" + c.Key + "\x00" + v))
	return hex.EncodeToString(sum[:]), true
}

// rememberClaim records the claim of fact id as forgotten: the fact was
// rejected, or dropped with the memory it came from.
func rememberClaim(ctx context.Context, c *conn, id int64, now time.Time) error {
	cl, err := rowClaim(ctx, c, factsTable, id)
	if err != nil {
		return err
	}
	h, ok := claimHash(cl)
	if !ok {
		return nil
	}
	return rememberHash(ctx, c, h, ForgottenFact, id, now)
}

// rowClaim is the claim row id of t states.
func rowClaim(ctx context.Context, c *conn, t table, id int64) (claim.Claim, error) {
	var cl claim.Claim
	err := c.query(ctx, `SELECT `+t.subject+`, `+t.key+`, value FROM `+t.name+` WHERE id = ?`, []any{id},
		func(s *sqlite3.Stmt) error {
			cl = claim.Claim{Subject: s.ColumnText(0), Key: s.ColumnText(1), Value: s.ColumnText(2)}
			return nil
		})
	if err != nil {
		return cl, fmt.Errorf("read the claim of %s row %d: %w", t.name, id, err)
	}
	return cl, nil
}

// isForgottenClaim reports whether claim cl was rejected or forgotten.
func isForgottenClaim(ctx context.Context, c *conn, cl claim.Claim) (bool, error) {
	h, ok := claimHash(cl)
	if !ok {
		return false, nil
	}
	return forgottenHash(ctx, c, h)
}

// AnyForgotten reports whether anything was ever forgotten or rejected in
// this agent: until then no claim needs checking.
func (a *Agent) AnyForgotten(ctx context.Context) (bool, error) {
	var some bool
	err := a.read(ctx, func(c *conn) error {
		var err error
		some, err = anyForgotten(ctx, c)
		return err
	})
	return some, err
}

// ForgottenClaims reports, for each claim, whether the user rejected it or
// forgot the memory it came from: a memory stating it again, in any words,
// is flagged by the consolidation, and no fact is made of it.
func (a *Agent) ForgottenClaims(ctx context.Context, claims []claim.Claim) ([]bool, error) {
	out := make([]bool, len(claims))
	err := a.read(ctx, func(c *conn) error {
		some, err := anyForgotten(ctx, c)
		if err != nil || !some {
			return err
		}
		for i, cl := range claims {
			if out[i], err = isForgottenClaim(ctx, c, cl); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check claims against forgotten ones: %w", err)
	}
	return out, nil
}
