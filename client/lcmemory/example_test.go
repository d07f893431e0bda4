package lcmemory_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/client/lcmemory"
)

// An agent turn with Dormouse as the memory: what was said in an earlier
// conversation reaches the prompt, the agent searches memory for more, and
// the new turn is stored in its turn. The model is langchaingo's fake one,
// which answers from a script; the daemon is real (the tests run one on
// loopback and set DORMOUSE_ADDR).
func Example() {
	ctx := context.Background()
	c := client.New(os.Getenv("DORMOUSE_ADDR"))

	mem := lcmemory.New(c, "assistant")
	mem.Session = "chat-2"
	// Stamp turns with a fixed time, so the output below is stable.
	mem.Now = func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) }

	// A turn of an earlier conversation, saved as a chain saves one.
	earlier := *mem
	earlier.Session = "chat-1"
	if err := earlier.SaveContext(ctx,
		map[string]any{"input": "My sister Ana moved to Porto last spring."},
		map[string]any{"output": "Noted!"}); err != nil {
		log.Fatal(err)
	}

	model := &watched{LLM: fake.NewFakeLLM([]string{
		"Thought: Do I need to use a tool? Yes\nAction: search_memory\nAction Input: Ana sister city",
		"Thought: Do I need to use a tool? No\nAI: Fly to Porto: Ana lives there [memory:1].",
	})}
	search := lcmemory.SearchTool{Client: c, Agent: "assistant"}
	agent := agents.NewConversationalAgent(model, []tools.Tool{search})
	executor := agents.NewExecutor(agent, agents.WithMemory(mem), agents.WithReturnIntermediateSteps())

	out, err := chains.Call(ctx, executor, map[string]any{"input": "Which city should I fly to, to visit my sister?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("The model saw this history:")
	fmt.Println(model.history)
	for _, step := range out["intermediateSteps"].([]schema.AgentStep) {
		fmt.Printf("%s(%q) answered:\n%s\n", step.Action.Tool, step.Action.ToolInput, step.Observation)
	}
	fmt.Println("Answer:", strings.TrimSpace(out["output"].(string)))

	// The turn itself is now a memory too.
	page, err := c.Memories(ctx, "assistant", client.ListOptions{Session: "chat-2"})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range page.Memories {
		fmt.Printf("stored [memory:%d] %s: %s\n", m.ID, m.Role, m.Content)
	}
	// Output:
	// The model saw this history:
	// [memory:1] 2026-03-01 09:00 user: My sister Ana moved to Porto last spring.
	// [memory:2] 2026-03-01 09:00 assistant: Noted!
	// search_memory("Ana sister city") answered:
	// [memory:1] 2026-03-01 09:00 user: My sister Ana moved to Porto last spring.
	// [memory:2] 2026-03-01 09:00 assistant: Noted!
	// Answer: Fly to Porto: Ana lives there [memory:1].
	// stored [memory:4] assistant: Fly to Porto: Ana lives there [memory:1].
	// stored [memory:3] user: Which city should I fly to, to visit my sister?
}

// watched is the fake model, noting the history in the first prompt it is
// given.
type watched struct {
	*fake.LLM
	history string
}

func (w *watched) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok && w.history == "" {
				_, after, _ := strings.Cut(t.Text, "Previous conversation history:\n")
				w.history, _, _ = strings.Cut(after, "\n\nNew input:")
			}
		}
	}
	return w.LLM.GenerateContent(ctx, msgs, opts...)
}
