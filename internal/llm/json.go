package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// fence finds Markdown code blocks, with or without a language.
var fence = regexp.MustCompile("(?s)```[a-zA-Z]*[ \t]*\n?(.*?)```")

// maxStarts bounds how many opening braces extractJSON tries, so that a
// long answer of prose costs little.
const maxStarts = 64

// extractJSON finds the JSON object in a model's answer: alone, in a code
// fence, or with prose before and after it.
func extractJSON(answer string) ([]byte, error) {
	for _, m := range fence.FindAllStringSubmatch(answer, -1) {
		if raw, ok := firstObject(m[1]); ok {
			return raw, nil
		}
	}
	if raw, ok := firstObject(answer); ok {
		return raw, nil
	}
	if strings.TrimSpace(answer) == "" {
		return nil, errors.New("the answer is empty")
	}
	return nil, errors.New("the answer holds no complete JSON object")
}

func firstObject(s string) ([]byte, bool) {
	for tries := 0; tries < maxStarts; tries++ {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return nil, false
		}
		var raw json.RawMessage
		if err := json.NewDecoder(strings.NewReader(s[i:])).Decode(&raw); err == nil {
			return raw, true
		}
		s = s[i+1:]
	}
	return nil, false
}

// JSON asks for a JSON answer and hands it to parse, which decodes and
// validates it. An answer that does not parse gets at most one repair
// request, which shows the model its answer and what is wrong with it.
func (c *Client) JSON(ctx context.Context, req Request, parse func([]byte) error) (Usage, error) {
	req.JSON = true
	answer, u, err := c.Generate(ctx, req)
	if err != nil {
		return u, err
	}
	problem := decode(answer, parse)
	if problem == nil {
		return u, nil
	}
	c.log.Warn("llm answer is not valid; asking once to repair it", "problem", problem)
	req.repair = &repair{answer: text.Clip(answer, 4*c.cfg.MaxTokens), problem: problem.Error()}
	answer, u2, err := c.Generate(ctx, req)
	u.Add(u2)
	if err != nil {
		return u, fmt.Errorf("repair request: %w", err)
	}
	if problem := decode(answer, parse); problem != nil {
		return u, fmt.Errorf("%w: %v (also after a repair request)", ErrInvalidJSON, problem)
	}
	return u, nil
}

func decode(answer string, parse func([]byte) error) error {
	raw, err := extractJSON(answer)
	if err != nil {
		return err
	}
	return parse(raw)
}

func repairPrompt(problem string) string {
	return "Your answer could not be used: " + problem + ".\n" +
		"Reply again with only the corrected JSON object, following the schema and rules given above, " +
		"with no text before or after it and no code fence."
}
