package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// FileStamp is what an agent's files look like on disk: the size, the
// modification time and the mode of the database and of its WAL. A commit,
// a checkpoint or a chmod, by this process or another, changes it, so a
// reading of the agent taken under one stamp holds while the stamp does,
// and can be checked without opening the agent.
type FileStamp struct {
	DB, WAL fileStamp
}

type fileStamp struct {
	size, modNanos int64
	mode           fs.FileMode
}

// FileStamp returns the agent's stamp now. A WAL that is missing or empty
// has a zero part: SQLite deletes it when an agent's last connection closes
// and creates it empty when one opens, neither of which changes the data.
func (s *Store) FileStamp(name string) (FileStamp, error) {
	if err := ValidateAgentName(name); err != nil {
		return FileStamp{}, err
	}
	var st FileStamp
	var err error
	path := s.agentPath(name)
	if st.DB, err = stampOf(path); err != nil {
		return FileStamp{}, fmt.Errorf("stamp agent %s: %w", name, err)
	}
	st.WAL, err = stampOf(path + "-wal")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return FileStamp{}, fmt.Errorf("stamp agent %s: %w", name, err)
	}
	if st.WAL.size == 0 {
		st.WAL = fileStamp{}
	}
	return st, nil
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{size: fi.Size(), modNanos: fi.ModTime().UnixNano(), mode: fi.Mode()}, nil
}

// StorageFull reports whether the agent is open and refuses writes for
// want of space or permission; a closed agent is not asked (nor opened).
func (s *Store) StorageFull(name string) bool {
	s.mu.Lock()
	a := s.agents[name]
	s.mu.Unlock()
	return a != nil && a.StorageFull()
}
