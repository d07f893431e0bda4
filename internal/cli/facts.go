package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	pub "github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

// factBackend is the part of a backend that shows facts and day records and
// corrects facts. Both kinds of backend serve it with the public client: over
// HTTP to the daemon, or in-process to the same API handlers over the files,
// so a correction obeys one set of rules whichever way it arrives.
type factBackend interface {
	Facts(ctx context.Context, agent string, o pub.FactsOptions) ([]pub.Fact, error)
	Fact(ctx context.Context, agent string, id int64) (pub.Fact, error)
	CorrectFact(ctx context.Context, agent string, id int64, corr pub.FactCorrection) (pub.Fact, error)
	Consolidation(ctx context.Context, agent string, id int64) (pub.Consolidation, error)
}

// factAPI serves factBackend (and shareBackend, share.go) with an API client.
type factAPI struct{ api *pub.Client }

func (f factAPI) Facts(ctx context.Context, agent string, o pub.FactsOptions) ([]pub.Fact, error) {
	return f.api.Facts(ctx, agent, o)
}

func (f factAPI) Fact(ctx context.Context, agent string, id int64) (pub.Fact, error) {
	return f.api.Fact(ctx, agent, id)
}

func (f factAPI) CorrectFact(ctx context.Context, agent string, id int64, corr pub.FactCorrection) (pub.Fact, error) {
	return f.api.CorrectFact(ctx, agent, id, corr)
}

func (f factAPI) Consolidation(ctx context.Context, agent string, id int64) (pub.Consolidation, error) {
	return f.api.Consolidation(ctx, agent, id)
}

// runFacts lists facts, or with the verb correct, corrects one.
func runFacts(ctx context.Context, env Env, args []string) error {
	if len(args) > 0 && args[0] == "correct" {
		return runFactsCorrect(ctx, env, args[1:])
	}
	fs, c := agentCommand(env, "facts", "[flags]   (or: dormouse facts correct fact:ID STATEMENT)")
	var o pub.FactsOptions
	fs.StringVar(&o.Entity, "entity", "", "only facts about this entity")
	fs.BoolVar(&o.History, "history", false, "superseded and rejected facts too, with what superseded them")
	asOf := fs.String("as-of", "", "the facts that held at this time, RFC 3339")
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
	facts, err := b.Facts(ctx, c.agent, o)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, map[string]any{"facts": nonNil(facts)})
	}
	printFacts(env.Stdout, facts, o)
	return nil
}

func printFacts(w io.Writer, facts []pub.Fact, o pub.FactsOptions) {
	if len(facts) == 0 {
		if o.Entity != "" {
			fmt.Fprintf(w, "no facts about %s\n", o.Entity)
		} else {
			fmt.Fprintln(w, "no facts yet: consolidation draws them from the memories of days that ended")
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range facts {
		fmt.Fprintf(tw, "fact:%d\t%s\t", f.ID, f.Entity)
		if o.History {
			fmt.Fprintf(tw, "%s\t", factState(f))
		}
		fmt.Fprintf(tw, "%s\n", f.Content)
	}
	tw.Flush()
}

// factState says whether f holds now and, when not, why.
func factState(f pub.Fact) string {
	switch {
	case f.Rejected:
		return "rejected"
	case f.SupersededBy != nil:
		return fmt.Sprintf("superseded by fact:%d", *f.SupersededBy)
	case f.ValidTo != nil:
		return "ended " + f.ValidTo.Format("2006-01-02 15:04")
	}
	return "current"
}

func runFactsCorrect(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "facts correct", "[flags] fact:ID STATEMENT...")
	value := fs.String("value", "", "the attribute's new value (default: the fact's current value)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("facts correct takes a fact id and the corrected statement: facts correct fact:12 \"Alice's role is manager.\"")
	}
	kind, id, err := parseRef(pos[0])
	if err != nil || kind != "fact" {
		return usagef("%q is not a fact id (fact:ID)", pos[0])
	}
	b, err := c.open(ctx, env, true)
	if err != nil {
		return err
	}
	defer b.Close()
	corr := pub.FactCorrection{Content: strings.Join(pos[1:], " "), Value: *value}
	if !flagSet(fs, "value") { // keep the value, as the page's form does unless edited
		old, err := b.Fact(ctx, c.agent, id)
		if err != nil {
			return err
		}
		corr.Value = old.Value
	}
	f, err := b.CorrectFact(ctx, c.agent, id, corr)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, f)
	}
	fmt.Fprintf(env.Stdout, "corrected fact:%d: now fact:%d: %s\n", id, f.ID, f.Content)
	return nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseRef reads what show and facts correct name: memory:12 or a bare 12
// (a memory), fact:12, consolidation:12, profile:12.
func parseRef(s string) (kind string, id int64, err error) {
	ref := s
	if !strings.Contains(ref, ":") {
		ref = "memory:" + ref
	}
	kind, id, ok := recall.ParseID(ref)
	switch kind {
	case "memory", "fact", "consolidation", "profile":
	default:
		return "", 0, usagef("%q is not an id (12, memory:12, fact:12, consolidation:12 or profile:12)", s)
	}
	if !ok {
		return "", 0, usagef("%q is not a %s id (a positive integer, or %s:ID)", s, kind, kind)
	}
	return kind, id, nil
}

// showFact prints one fact with its state and where it came from.
func showFact(w io.Writer, f pub.Fact) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "id:\tfact:%d\n", f.ID)
	fmt.Fprintf(tw, "entity:\t%s (%s)\n", f.Entity, f.EntityType)
	if f.Attribute != "" {
		fmt.Fprintf(tw, "%s:\t%s\n", f.Attribute, f.Value)
	}
	fmt.Fprintf(tw, "state:\t%s\n", factState(f))
	fmt.Fprintf(tw, "valid from:\t%s\n", f.ValidFrom.Format(time.RFC3339))
	fmt.Fprintf(tw, "confidence:\t%.2f\n", f.Confidence)
	fmt.Fprintf(tw, "sources:\t%s\n", sources(f))
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", f.Content)
}

// sources lists the memories and day records a fact was drawn from.
func sources(f pub.Fact) string {
	var refs []string
	for _, id := range f.SourceMemoryIDs {
		refs = append(refs, fmt.Sprintf("memory:%d", id))
	}
	for _, id := range f.SourceConsolidationIDs {
		refs = append(refs, fmt.Sprintf("consolidation:%d", id))
	}
	if len(refs) == 0 {
		return "none: a person entered or corrected it"
	}
	return strings.Join(refs, ", ")
}

// showConsolidation prints one day record and the memories it summarises.
func showConsolidation(w io.Writer, d pub.Consolidation) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "id:\tconsolidation:%d\n", d.ID)
	fmt.Fprintf(tw, "day:\t%s\n", d.Date)
	fmt.Fprintf(tw, "model:\t%s\n", d.Model)
	refs := make([]string, len(d.SourceIDs))
	for i, id := range d.SourceIDs {
		refs[i] = fmt.Sprintf("memory:%d", id)
	}
	fmt.Fprintf(tw, "memories:\t%s\n", strings.Join(refs, ", "))
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", d.Summary)
}
