package client

import (
	"context"
	"net/http"
	"time"
)

// ProfileLine is one statement of an agent's profile: a durable, current
// truth about the user or the people, pets and places around them, built by
// consolidation and citing the memories it came from.
type ProfileLine struct {
	ID           string     `json:"id"`       // the citation: profile:12
	Category     string     `json:"category"` // identity, contact, home, work, family, pets, health, diet, vehicle, preference, routine
	Subject      string     `json:"subject"`  // "user", or the person, pet or place the line is about
	Key          string     `json:"key"`      // the canonical claim key: employer, allergy, pet…
	Value        string     `json:"value"`
	Text         string     `json:"text"`    // the statement as offered
	Sources      []string   `json:"sources"` // citations of the memories it came from: memory:4
	ValidFrom    time.Time  `json:"valid_from"`
	ValidTo      *time.Time `json:"valid_to,omitempty"`      // set once retired
	SupersededBy string     `json:"superseded_by,omitempty"` // the line that replaced it: profile:13
	Edited       bool       `json:"edited"`                  // the text was set by a person
	Removed      bool       `json:"removed,omitempty"`       // removed by a person
}

// ProfileOptions select profile lines. The zero value is the profile as it
// is now.
type ProfileOptions struct {
	AsOf    time.Time // the profile as it was at this time
	History bool      // retired lines too
}

// ProfileEdit is a person's new wording of a profile line.
type ProfileEdit struct {
	Text string `json:"text"`
}

// Profile returns agent's profile lines, by category then subject.
func (c *Client) Profile(ctx context.Context, agent string, o ProfileOptions) ([]ProfileLine, error) {
	history := "" // left out unless asked for
	if o.History {
		history = "true"
	}
	var out struct {
		Profile []ProfileLine `json:"profile"`
	}
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/profile", query("as_of", rfc3339(o.AsOf), "history", history)), nil, &out)
	return out.Profile, err
}

// ProfileLine returns one of agent's profile lines, current or retired.
func (c *Client) ProfileLine(ctx context.Context, agent string, lineID int64) (ProfileLine, error) {
	var l ProfileLine
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/profile/", id(lineID)), nil, &l)
	return l, err
}

// EditProfileLine rewords a current profile line as a person would: the
// new line (returned) supersedes it, citing the same memories. A line that
// is retired or removed is refused (409 not_current), as is empty or
// oversized text (422 invalid_profile_text).
func (c *Client) EditProfileLine(ctx context.Context, agent string, lineID int64, text string) (ProfileLine, error) {
	var l ProfileLine
	err := c.Do(ctx, http.MethodPatch, agentPath(agent, "/profile/", id(lineID)), ProfileEdit{Text: text}, &l)
	return l, err
}

// RemoveProfileLine removes a profile line as its owner: it is never
// current again, and the builder does not bring the same claim back.
func (c *Client) RemoveProfileLine(ctx context.Context, agent string, lineID int64) error {
	return c.Do(ctx, http.MethodDelete, agentPath(agent, "/profile/", id(lineID)), nil, nil)
}
