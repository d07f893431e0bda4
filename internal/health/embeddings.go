package health

import "github.com/dormouse-dev/dormouse/client"

// Embeddings is the state of the background embedder (the optional semantic
// arm of recall): how many memories still wait for a vector, and the last
// failure of the provider, if it is failing ("" once a pass succeeds).
type Embeddings = client.HealthEmbeddings
