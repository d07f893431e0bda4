package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dormouse-dev/dormouse/internal/durable"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// RestoreOptions say which agent gets which backup back.
type RestoreOptions struct {
	DataDir   string // the daemon's data_dir: the agent file is DataDir/agents/<agent>.db
	Agent     string
	From      string // a backup file; "": the newest of the agent's in BackupDir
	BackupDir string
	Now       func() time.Time
}

// Restored says what Restore did.
type Restored struct {
	Agent string   `json:"agent"`
	From  string   `json:"from"`
	To    string   `json:"to"`
	Aside []string `json:"aside,omitempty"` // the replaced file (and its WAL), renamed, never deleted
}

// Restore puts a backup back as the agent's file. It is safe by
// construction: the backup is verified first (integrity_check and schema);
// the agent file must not be open anywhere (store.ErrInUse otherwise: stop
// the daemon); the copy is verified again in place before it takes the
// agent's name; and the file it replaces is renamed aside to
// <agent>.db.replaced-<time>, with its WAL, not deleted.
func Restore(ctx context.Context, o RestoreOptions) (Restored, error) {
	if err := store.ValidateAgentName(o.Agent); err != nil {
		return Restored{}, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	from := o.From
	if from == "" {
		list, err := List(o.BackupDir, o.Agent)
		if err != nil {
			return Restored{}, err
		}
		if len(list) == 0 {
			return Restored{}, fmt.Errorf("restore agent %q: no backups in %s", o.Agent, filepath.Join(o.BackupDir, o.Agent))
		}
		from = list[len(list)-1].Path
	}
	if err := store.CheckFile(ctx, from); err != nil {
		return Restored{}, fmt.Errorf("restore agent %q: the backup is not usable, nothing changed: %w", o.Agent, err)
	}
	dir := filepath.Join(o.DataDir, "agents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Restored{}, fmt.Errorf("restore agent %q: %w", o.Agent, err)
	}
	to := filepath.Join(dir, o.Agent+".db")
	if err := store.Quiesce(ctx, to); err != nil {
		return Restored{}, fmt.Errorf("restore agent %q: %w", o.Agent, err)
	}
	tmp := filepath.Join(dir, "."+o.Agent+".db.restore.tmp")
	_ = os.Remove(tmp) // a killed restore's leftover: never an agent's file
	if err := copyFile(from, tmp); err != nil {
		_ = os.Remove(tmp)
		return Restored{}, fmt.Errorf("restore agent %q: %w", o.Agent, err)
	}
	if err := store.CheckFile(ctx, tmp); err != nil {
		_ = os.Remove(tmp)
		return Restored{}, fmt.Errorf("restore agent %q: the copy failed verification, nothing changed: %w", o.Agent, err)
	}
	res := Restored{Agent: o.Agent, From: from, To: to}
	aside := to + ".replaced-" + o.Now().UTC().Format(stampLayout)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Lstat(to + suffix); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.Rename(to+suffix, aside+suffix); err != nil {
			return res, fmt.Errorf("restore agent %q: move the current file aside: %w", o.Agent, err)
		}
		res.Aside = append(res.Aside, aside+suffix)
	}
	if err := os.Rename(tmp, to); err != nil {
		return res, fmt.Errorf("restore agent %q: %w (the previous file is %s)", o.Agent, err, aside)
	}
	if err := durable.SyncDir(dir); err != nil {
		return res, fmt.Errorf("restore agent %q: %w", o.Agent, err)
	}
	return res, nil
}

// copyFile copies src to a new file dst (0600) and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return fmt.Errorf("sync %s: %w", dst, err)
	}
	return out.Close()
}
