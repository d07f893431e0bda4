package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/dormouse-dev/dormouse/client"
)

// Store what an agent heard, then recall it for a question, with citations,
// within a token budget. (The tests run a daemon on loopback and set
// DORMOUSE_ADDR to its address.)
func Example() {
	ctx := context.Background()
	c := client.New(os.Getenv("DORMOUSE_ADDR"))

	at := time.Date(2026, 3, 1, 9, 12, 0, 0, time.UTC)
	for _, m := range []client.MemoryInput{
		{Content: "Bob moved to Lisbon in February.", Role: "user", Timestamp: at},
		{Content: "The garden needs watering on Tuesdays.", Role: "user", Timestamp: at.Add(time.Hour)},
	} {
		if _, err := c.Remember(ctx, "example", m); err != nil {
			log.Fatal(err)
		}
	}

	res, err := c.Recall(ctx, "example", client.RecallRequest{Query: "Where does Bob live?", BudgetTokens: 100, K: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Context)
	// Output:
	// [memory:1] 2026-03-01 09:12 user: Bob moved to Lisbon in February.
}

// Errors the daemon answers carry its code and message.
func ExampleAPIError() {
	c := client.New(os.Getenv("DORMOUSE_ADDR"))
	_, err := c.Stats(context.Background(), "no-such-agent")
	var ae *client.APIError
	if errors.As(err, &ae) {
		fmt.Println(ae.Status, ae.Code)
	}
	// Output:
	// 404 unknown_agent
}

// Consolidate a day now rather than at night, then read its facts.
func ExampleClient_Consolidate() {
	ctx := context.Background()
	c := client.New(os.Getenv("DORMOUSE_ADDR"))
	for i, role := range []string{"engineer", "CTO"} {
		at := time.Date(2026, 3, 1+i, 9, 0, 0, 0, time.UTC)
		if _, err := c.Remember(ctx, "example-facts", client.MemoryInput{Content: "Alice's role is " + role + ".", Timestamp: at}); err != nil {
			log.Fatal(err)
		}
	}
	res, err := c.Consolidate(ctx, "example-facts", client.ConsolidateRequest{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Runs {
		fmt.Println(r.Day, r.Status, r.Memories, "memory")
	}
	facts, err := c.Facts(ctx, "example-facts", client.FactsOptions{Entity: "Alice", History: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range facts {
		state := "current"
		if f.SupersededBy != nil {
			state = "superseded"
		}
		fmt.Println(f.Entity, f.Attribute, f.Value, state)
	}
	// Output:
	// 2026-03-01 ok 1 memory
	// 2026-03-02 ok 1 memory
	// Alice job_title CTO current
	// Alice job_title engineer superseded
}

// Ask a question: the answer cites the memories it came from.
func ExampleClient_Ask() {
	ctx := context.Background()
	c := client.New(os.Getenv("DORMOUSE_ADDR"))
	at := time.Date(2026, 3, 3, 18, 0, 0, 0, time.UTC)
	if _, err := c.Remember(ctx, "example-ask", client.MemoryInput{Content: "The dentist appointment is on Thursday at 10.", Role: "user", Timestamp: at}); err != nil {
		log.Fatal(err)
	}
	a, err := c.Ask(ctx, "example-ask", client.RecallRequest{Query: "When is the dentist appointment?"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Answer)
	fmt.Println(a.Citations, a.Provider)
	// Output:
	// The dentist appointment is on Thursday at 10. [memory:1]
	// [memory:1] offline
}

// Upload a note: the file pipeline splits it into memories, one per section.
func ExampleClient_UploadFile() {
	ctx := context.Background()
	c := client.New(os.Getenv("DORMOUSE_ADDR"))
	note := []byte("# Garden\n\nWater the tomatoes every evening.\n\n## Shed\n\nThe key is under the blue pot.\n")
	out, err := c.UploadFile(ctx, "example-files", "garden.md", note, client.UploadOptions{MTime: time.Date(2026, 3, 4, 8, 0, 0, 0, time.UTC)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Status, out.Parts, "parts,", out.Inserted, "memories")
	// Output:
	// ok 2 parts, 2 memories
}
