// Package client is the Go client of Dormouse, the memory appliance for AI
// agents: typed calls for every endpoint of its HTTP API.
//
// A Client talks to one daemon ("127.0.0.1:7733" by default). Every call
// takes a context, which bounds it retries included; requests the daemon
// answers 429 (too many requests) or 503 (starting, draining, busy disk) are
// retried with exponential backoff, honouring Retry-After. Errors the daemon
// answers come back as *APIError, with the API's error code and message.
//
//	c := client.New("127.0.0.1:7733")
//	_, err := c.Remember(ctx, "main", client.MemoryInput{Content: "Bob moved to Lisbon", Role: "user"})
//	res, err := c.Recall(ctx, "main", client.RecallRequest{Query: "where does Bob live?", BudgetTokens: 500})
//	fmt.Println(res.Context) // [memory:1] 2026-03-01 09:12 user: Bob moved to Lisbon
//
// The lcmemory package below this one adapts a Client to langchaingo.
package client
