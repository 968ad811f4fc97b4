package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// Host is a remote machine whose pty daemon Reprise reaches over ssh.
type Host struct {
	Name string `gorm:"column:name;primaryKey"`
	// SSH is the destination as ssh takes it: [user@]host[:port], or an
	// alias from ~/.ssh/config.
	SSH string `gorm:"column:ssh"`
	// RemoteHome is the Reprise home on the remote; empty means the
	// remote's default (~/.local/share/reprise).
	RemoteHome string `gorm:"column:remote_home"`
	// SSHConfig, when set, is the ssh config file used instead of
	// ~/.ssh/config (ssh -F).
	SSHConfig string `gorm:"column:ssh_config"`
	CreatedAt int64  `gorm:"column:created_at"` // unix ms
}

func (Host) TableName() string { return "hosts" }

var hostName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// ValidHostName says whether name can name a host: letters, digits, '.',
// '_' and '-', as it appears in ssh control paths and pane labels.
func ValidHostName(name string) bool { return hostName.MatchString(name) && name != "local" }

// InvalidHostName is the refusal of a name ValidHostName rejects, quoting
// at most 64 characters of it (a 5000-character name was echoed whole).
func InvalidHostName(name string) error {
	return fmt.Errorf("invalid name %.64q (1 to 63 letters, digits, '.', '_', '-', starting with a letter or digit; not 'local')", name)
}

// AddHost records a host; a duplicate name is ErrConflict.
func (s *Store) AddHost(ctx context.Context, h Host) (Host, error) {
	if !ValidHostName(h.Name) {
		return Host{}, fmt.Errorf("add host: %w", InvalidHostName(h.Name))
	}
	if h.SSH == "" {
		return Host{}, fmt.Errorf("add host %q: empty ssh destination", h.Name)
	}
	if h.CreatedAt == 0 {
		h.CreatedAt = time.Now().UnixMilli()
	}
	if err := s.db.WithContext(ctx).Create(&h).Error; err != nil {
		if err = dbErr(err); errors.Is(err, ErrConflict) {
			return Host{}, conflictf("host %q already exists (reprise hosts remove %s first)", h.Name, h.Name)
		}
		return Host{}, fmt.Errorf("add host %q: %w", h.Name, err)
	}
	return h, nil
}

// GetHost returns one host or ErrNotFound.
func (s *Store) GetHost(ctx context.Context, name string) (Host, error) {
	var h Host
	err := s.db.WithContext(ctx).Where("name = ?", name).Take(&h).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Host{}, fmt.Errorf("host %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Host{}, fmt.Errorf("get host %q: %w", name, err)
	}
	return h, nil
}

// ListHosts returns every host by name.
func (s *Store) ListHosts(ctx context.Context) ([]Host, error) {
	var hs []Host
	if err := s.db.WithContext(ctx).Order("name").Find(&hs).Error; err != nil {
		return nil, fmt.Errorf("list hosts: %w", err)
	}
	return hs, nil
}

// RemoveHost deletes a host. A host with running terminals is refused:
// forgetting it would orphan them on the remote.
func (s *Store) RemoveHost(ctx context.Context, name string) error {
	var running int64
	if err := s.db.WithContext(ctx).Model(&Terminal{}).Where("host = ? AND status = ?", name, "running").Count(&running).Error; err != nil {
		return fmt.Errorf("remove host %q: %w", name, err)
	}
	if running > 0 {
		return fmt.Errorf("remove host %q: %d terminals still run there; close them first", name, running)
	}
	res := s.db.WithContext(ctx).Where("name = ?", name).Delete(&Host{})
	if res.Error != nil {
		return fmt.Errorf("remove host %q: %w", name, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("host %q: %w", name, ErrNotFound)
	}
	return nil
}
