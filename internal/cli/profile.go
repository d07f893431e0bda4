package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	pub "github.com/dormouse-dev/dormouse/client"
)

// profileBackend is the part of a backend that shows the profile and edits
// or removes its lines: through the API's handlers, over HTTP or
// in-process, like factBackend.
type profileBackend interface {
	Profile(ctx context.Context, agent string, o pub.ProfileOptions) ([]pub.ProfileLine, error)
	ProfileLine(ctx context.Context, agent string, id int64) (pub.ProfileLine, error)
	EditProfileLine(ctx context.Context, agent string, id int64, text string) (pub.ProfileLine, error)
	RemoveProfileLine(ctx context.Context, agent string, id int64) error
}

func (f factAPI) Profile(ctx context.Context, agent string, o pub.ProfileOptions) ([]pub.ProfileLine, error) {
	return f.api.Profile(ctx, agent, o)
}

func (f factAPI) ProfileLine(ctx context.Context, agent string, id int64) (pub.ProfileLine, error) {
	return f.api.ProfileLine(ctx, agent, id)
}

func (f factAPI) EditProfileLine(ctx context.Context, agent string, id int64, text string) (pub.ProfileLine, error) {
	return f.api.EditProfileLine(ctx, agent, id, text)
}

func (f factAPI) RemoveProfileLine(ctx context.Context, agent string, id int64) error {
	return f.api.RemoveProfileLine(ctx, agent, id)
}

// runProfile prints the profile, or with the verb edit or remove, changes
// one line.
func runProfile(ctx context.Context, env Env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "edit":
			return runProfileEdit(ctx, env, args[1:])
		case "remove":
			return runProfileRemove(ctx, env, args[1:])
		}
	}
	fs, c := agentCommand(env, "profile", "[flags]   (or: dormouse profile edit ID TEXT, dormouse profile remove ID)")
	var o pub.ProfileOptions
	fs.BoolVar(&o.History, "history", false, "retired lines too, with what replaced each")
	asOf := fs.String("as-of", "", "the profile as it was at this time, RFC 3339")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	var err error
	if o.AsOf, err = parseTimeFlag("as-of", *asOf); err != nil {
		return err
	}
	b, err := c.open(ctx, env, false)
	if err != nil {
		return err
	}
	defer b.Close()
	lines, err := b.Profile(ctx, c.agent, o)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, map[string]any{"profile": nonNil(lines)})
	}
	printProfile(env.Stdout, lines)
	return nil
}

// printProfile prints the lines under their categories, in the order
// served, each with its id, state when retired, and citations.
func printProfile(w io.Writer, lines []pub.ProfileLine) {
	if len(lines) == 0 {
		fmt.Fprintln(w, "no profile yet: consolidation builds it from the memories of days that ended")
		return
	}
	var order []string
	byCat := map[string][]pub.ProfileLine{}
	for _, l := range lines {
		if byCat[l.Category] == nil {
			order = append(order, l.Category)
		}
		byCat[l.Category] = append(byCat[l.Category], l)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, cat := range order {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s:\n", cat)
		for _, l := range byCat[cat] {
			fmt.Fprintf(tw, "  %s\t%s%s\t[%s]\n", l.ID, profileState(l), l.Text, strings.Join(l.Sources, " "))
		}
	}
	tw.Flush()
}

// profileState is "" for a current line, else why it no longer holds.
func profileState(l pub.ProfileLine) string {
	switch {
	case l.Removed:
		return "(removed) "
	case l.SupersededBy != "":
		return "(replaced by " + l.SupersededBy + ") "
	case l.ValidTo != nil:
		return "(ended " + l.ValidTo.Format("2006-01-02") + ") "
	}
	return ""
}

func runProfileEdit(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "profile edit", "[flags] ID TEXT...   (ID: 12 or profile:12)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("profile edit takes a line id and its new text: profile edit profile:12 \"The user works at Atkins.\"")
	}
	id, err := profileID(pos[0])
	if err != nil {
		return err
	}
	b, err := c.open(ctx, env, true)
	if err != nil {
		return err
	}
	defer b.Close()
	l, err := b.EditProfileLine(ctx, c.agent, id, strings.Join(pos[1:], " "))
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, l)
	}
	fmt.Fprintf(env.Stdout, "edited profile:%d: now %s: %s\n", id, l.ID, l.Text)
	return nil
}

func runProfileRemove(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "profile remove", "[flags] ID   (ID: 12 or profile:12)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("profile remove takes one line id: profile remove profile:12")
	}
	id, err := profileID(pos[0])
	if err != nil {
		return err
	}
	b, err := c.open(ctx, env, true)
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.RemoveProfileLine(ctx, c.agent, id); err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, map[string]any{"removed": "profile:" + strconv.FormatInt(id, 10)})
	}
	fmt.Fprintf(env.Stdout, "removed profile:%d: consolidation will not bring it back\n", id)
	return nil
}

// profileID reads a profile line's id: 12 or profile:12.
func profileID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "profile:"), 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("%q is not a profile line id (12 or profile:12)", s)
	}
	return id, nil
}

// showProfileLine prints one line with its state, sources and validity.
func showProfileLine(w io.Writer, l pub.ProfileLine) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "id:\t%s\n", l.ID)
	fmt.Fprintf(tw, "category:\t%s\n", l.Category)
	fmt.Fprintf(tw, "claim:\t%s / %s = %s\n", l.Subject, l.Key, l.Value)
	state := strings.TrimSpace(profileState(l))
	if state == "" {
		state = "current"
	}
	if l.Edited {
		state += ", edited by a person"
	}
	fmt.Fprintf(tw, "state:\t%s\n", state)
	fmt.Fprintf(tw, "valid from:\t%s\n", l.ValidFrom.Format(time.RFC3339))
	fmt.Fprintf(tw, "sources:\t%s\n", strings.Join(l.Sources, " "))
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", l.Text)
}
