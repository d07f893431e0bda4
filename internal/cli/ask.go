package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/gate"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

func runAsk(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "ask", "[flags] QUESTION")
	var req recall.Request
	recallWindowFlags(fs, &req)
	fs.IntVar(&req.K, "k", 0, "maximum number of context items (default: configured, 10)")
	fs.StringVar(&req.AsOf, "as-of", "", "ask as of this time, RFC 3339: nothing newer is used")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	req.Query = strings.Join(pos, " ")
	if strings.TrimSpace(req.Query) == "" {
		return usagef("give a question")
	}
	res, err := putQuery(ctx, env, c, req, backend.Ask)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, res)
	}
	fmt.Fprintln(env.Stdout, res.Answer)
	if len(res.Citations) > 0 {
		fmt.Fprintln(env.Stdout, "\nSources:")
		byID := map[string]recall.Item{}
		for _, it := range res.Items { // what recall.Line reads of an item
			byID[it.ID] = recall.Item{ID: it.ID, Kind: it.Kind, Text: it.Text, Timestamp: it.Timestamp, Role: it.Role}
		}
		for _, id := range res.Citations {
			fmt.Fprintln(env.Stdout, "  "+recall.Line(byID[id]))
		}
	}
	return nil
}

// Ask answers from the agent files, with the configured model: a model
// that cannot be set up fails the question rather than answering
// extractively unasked.
func (l *local) Ask(ctx context.Context, agent string, req recall.Request) (client.Answer, error) {
	q, err := req.Parse()
	if err != nil {
		return client.Answer{}, err
	}
	if l.s.AnswerErr != nil {
		return client.Answer{}, l.s.AnswerErr
	}
	var res answer.Result
	err = l.granted(ctx, agent, func(g *gate.Granted) error {
		res, err = l.s.Answer.AskFrom(ctx, g.Sources, q)
		res.Note = g.Note
		return err
	})
	return res, err
}
