package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// TestInsertChunks streams a batch in chunks while other writers queue up:
// the stream commits whole and alone, the others after it.
func TestInsertChunks(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ctx := t.Context()
	chunks := make(chan []Memory)
	var got []Inserted
	var streamErr error
	done := make(chan struct{})
	go func() {
		got, streamErr = a.InsertChunks(ctx, chunks)
		close(done)
	}()
	var wg sync.WaitGroup
	for i := range 3 {
		chunk := []Memory{mem(fmt.Sprint("streamed a", i), ""), mem(fmt.Sprint("streamed b", i), "")}
		chunks <- chunk
		if i == 0 { // others arrive while the stream's transaction is open
			for j := range 4 {
				wg.Go(func() {
					if _, err := a.Insert(ctx, []Memory{mem(fmt.Sprint("queued ", j), "")}); err != nil {
						t.Errorf("queued insert: %v", err)
					}
				})
			}
		}
	}
	close(chunks)
	<-done
	wg.Wait()
	if streamErr != nil || len(got) != 6 {
		t.Fatalf("InsertChunks = %v, %v; want 6 ids", got, streamErr)
	}
	st, err := a.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 10 {
		t.Errorf("%d memories stored, want 10", st.Memories)
	}

	// A stream abandoned half-way stores nothing of itself.
	cctx, cancel := context.WithCancel(ctx)
	chunks = make(chan []Memory)
	done = make(chan struct{})
	go func() {
		_, streamErr = a.InsertChunks(cctx, chunks)
		close(done)
	}()
	chunks <- []Memory{mem("half a stream", "")}
	cancel()
	<-done
	if !errors.Is(streamErr, context.Canceled) {
		t.Errorf("cancelled stream: err = %v, want context.Canceled", streamErr)
	}
	if st2, _ := a.Stats(ctx); st2.Memories != 10 {
		t.Errorf("after a cancelled stream: %d memories, want 10", st2.Memories)
	}
}
