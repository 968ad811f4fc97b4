package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	"gorm.io/gorm"
)

// AgentConfig is one agent's launch and resume settings: a builtin preset
// (seeded from the catalog, editable) or a user's own agent.
type AgentConfig struct {
	ID              string            `gorm:"column:id;primaryKey"`
	Label           string            `gorm:"column:label"`
	Command         string            `gorm:"column:command"`
	Args            []string          `gorm:"column:args;serializer:json"`
	PromptArgs      []string          `gorm:"column:prompt_args;serializer:json"`
	PromptTransport string            `gorm:"column:prompt_transport"`
	ResumeArgs      []string          `gorm:"column:resume_args;serializer:json"`
	Env             map[string]string `gorm:"column:env;serializer:json"`
	SessionIDArgs   []string          `gorm:"column:session_id_args;serializer:json"`
	SessionIDKind   string            `gorm:"column:session_id_kind"`
	Tracking        string            `gorm:"column:tracking"`
	Builtin         bool              `gorm:"column:builtin"`
	Position        int               `gorm:"column:position"`
	// Defaults is the catalog entry this builtin row was last synced with
	// (JSON of AgentDefaults); empty for custom agents.
	Defaults  string    `gorm:"column:defaults"`
	CreatedAt time.Time `gorm:"column:created_at"`
	UpdatedAt time.Time `gorm:"column:updated_at"`
}

func (AgentConfig) TableName() string { return "agent_configs" }

// BeforeSave stores absent lists and maps as empty JSON, not NULL.
func (c *AgentConfig) BeforeSave(*gorm.DB) error {
	for _, p := range []*[]string{&c.Args, &c.PromptArgs, &c.ResumeArgs, &c.SessionIDArgs} {
		if *p == nil {
			*p = []string{}
		}
	}
	if c.Env == nil {
		c.Env = map[string]string{}
	}
	return nil
}

// AgentDefaults are the catalog-owned fields of a builtin agent.
type AgentDefaults struct {
	Label           string            `json:"label"`
	Command         string            `json:"command"`
	Args            []string          `json:"args"`
	PromptArgs      []string          `json:"promptArgs"`
	PromptTransport string            `json:"promptTransport"`
	ResumeArgs      []string          `json:"resumeArgs"`
	Env             map[string]string `json:"env"`
	SessionIDArgs   []string          `json:"sessionIdArgs"`
	SessionIDKind   string            `json:"sessionIdKind"`
	Tracking        string            `json:"tracking"`
}

func (c *AgentConfig) defaults() AgentDefaults {
	return AgentDefaults{c.Label, c.Command, c.Args, c.PromptArgs, c.PromptTransport, c.ResumeArgs, c.Env, c.SessionIDArgs, c.SessionIDKind, c.Tracking}
}

func (c *AgentConfig) setDefaults(d AgentDefaults) {
	c.Label, c.Command, c.Args, c.PromptArgs, c.PromptTransport = d.Label, d.Command, d.Args, d.PromptArgs, d.PromptTransport
	c.ResumeArgs, c.Env, c.SessionIDArgs, c.SessionIDKind, c.Tracking = d.ResumeArgs, d.Env, d.SessionIDArgs, d.SessionIDKind, d.Tracking
}

// Edited reports whether the user changed a builtin row away from the
// catalog defaults it follows.
func (c *AgentConfig) Edited() bool {
	if !c.Builtin || c.Defaults == "" {
		return false
	}
	var d AgentDefaults
	if json.Unmarshal([]byte(c.Defaults), &d) != nil {
		return true
	}
	return !sameDefaults(c.defaults(), d)
}

func sameDefaults(a, b AgentDefaults) bool {
	norm := func(d AgentDefaults) AgentDefaults {
		for _, p := range []*[]string{&d.Args, &d.PromptArgs, &d.ResumeArgs, &d.SessionIDArgs} {
			if len(*p) == 0 {
				*p = nil
			}
		}
		if len(d.Env) == 0 {
			d.Env = nil
		}
		return d
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// ListAgentConfigs returns every agent in display order.
func (s *Store) ListAgentConfigs(ctx context.Context) ([]AgentConfig, error) {
	var cs []AgentConfig
	if err := s.db.WithContext(ctx).Order("position, id").Find(&cs).Error; err != nil {
		return nil, fmt.Errorf("list agents: %w", dbErr(err))
	}
	return cs, nil
}

// GetAgentConfig returns one agent.
func (s *Store) GetAgentConfig(ctx context.Context, id string) (AgentConfig, error) {
	var c AgentConfig
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&c).Error; err != nil {
		return AgentConfig{}, fmt.Errorf("agent %q: %w", id, dbErr(err))
	}
	return c, nil
}

// SyncBuiltins seeds builtin agents missing from the table and applies the
// backfill rule to the others: each catalog-owned field still equal to the
// default the row last followed takes the new default; a field the user
// edited is never overwritten. Runs in one transaction.
func (s *Store) SyncBuiltins(ctx context.Context, catalog []AgentConfig) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var maxPos int
		if err := tx.Model(&AgentConfig{}).Select("COALESCE(MAX(position), -1)").Scan(&maxPos).Error; err != nil {
			return dbErr(err)
		}
		now := time.Now().UTC()
		for _, d := range catalog {
			snap, err := json.Marshal(d.defaults())
			if err != nil {
				return err
			}
			var row AgentConfig
			err = tx.Where("id = ?", d.ID).Take(&row).Error
			if dbErr(err) == ErrNotFound {
				maxPos++
				row = d
				row.Builtin, row.Position, row.Defaults, row.CreatedAt, row.UpdatedAt = true, maxPos, string(snap), now, now
				if err := tx.Create(&row).Error; err != nil {
					return fmt.Errorf("seed agent %q: %w", d.ID, dbErr(err))
				}
				continue
			}
			if err != nil {
				return dbErr(err)
			}
			if !row.Builtin {
				continue // a custom agent that happens to share the id: the user's
			}
			var old AgentDefaults
			_ = json.Unmarshal([]byte(row.Defaults), &old)
			cur, nw := row.defaults(), d.defaults()
			follow(&cur.Label, old.Label, nw.Label)
			follow(&cur.Command, old.Command, nw.Command)
			follow(&cur.PromptTransport, old.PromptTransport, nw.PromptTransport)
			follow(&cur.SessionIDKind, old.SessionIDKind, nw.SessionIDKind)
			follow(&cur.Tracking, old.Tracking, nw.Tracking)
			followSlice(&cur.Args, old.Args, nw.Args)
			followSlice(&cur.PromptArgs, old.PromptArgs, nw.PromptArgs)
			followSlice(&cur.ResumeArgs, old.ResumeArgs, nw.ResumeArgs)
			followSlice(&cur.SessionIDArgs, old.SessionIDArgs, nw.SessionIDArgs)
			if reflect.DeepEqual(emptyNil(cur.Env), emptyNil(old.Env)) {
				cur.Env = nw.Env
			}
			if string(snap) == row.Defaults && sameDefaults(cur, row.defaults()) {
				continue
			}
			row.setDefaults(cur)
			row.Defaults, row.UpdatedAt = string(snap), now
			if err := tx.Save(&row).Error; err != nil {
				return fmt.Errorf("backfill agent %q: %w", d.ID, dbErr(err))
			}
		}
		return nil
	})
}

func follow(cur *string, old, nw string) {
	if *cur == old {
		*cur = nw
	}
}

func followSlice(cur *[]string, old, nw []string) {
	if slices.Equal(*cur, old) {
		*cur = slices.Clone(nw)
	}
}

func emptyNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// SaveAgentConfig creates a custom agent or updates any agent's editable
// fields. Builtin-ness, position and defaults are kept from the stored row.
func (s *Store) SaveAgentConfig(ctx context.Context, c AgentConfig) (AgentConfig, error) {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var row AgentConfig
		err := tx.Where("id = ?", c.ID).Take(&row).Error
		now := time.Now().UTC()
		switch dbErr(err) {
		case ErrNotFound:
			var maxPos int
			if err := tx.Model(&AgentConfig{}).Select("COALESCE(MAX(position), -1)").Scan(&maxPos).Error; err != nil {
				return dbErr(err)
			}
			c.Builtin, c.Defaults, c.Position, c.CreatedAt, c.UpdatedAt = false, "", maxPos+1, now, now
			return dbErr(tx.Create(&c).Error)
		case nil:
			c.Builtin, c.Defaults, c.Position, c.CreatedAt, c.UpdatedAt = row.Builtin, row.Defaults, row.Position, row.CreatedAt, now
			return dbErr(tx.Save(&c).Error)
		default:
			return dbErr(err)
		}
	})
	if err != nil {
		return AgentConfig{}, fmt.Errorf("save agent %q: %w", c.ID, err)
	}
	return s.GetAgentConfig(ctx, c.ID)
}

// ResetAgentConfig puts a builtin agent back to its catalog defaults.
func (s *Store) ResetAgentConfig(ctx context.Context, id string) (AgentConfig, error) {
	c, err := s.GetAgentConfig(ctx, id)
	if err != nil {
		return AgentConfig{}, err
	}
	if !c.Builtin {
		return AgentConfig{}, conflictf("reset agent %q: only builtin agents have defaults", id)
	}
	var d AgentDefaults
	if err := json.Unmarshal([]byte(c.Defaults), &d); err != nil {
		return AgentConfig{}, fmt.Errorf("reset agent %q: stored defaults unreadable: %w", id, err)
	}
	c.setDefaults(d)
	c.UpdatedAt = time.Now().UTC()
	if err := s.db.WithContext(ctx).Save(&c).Error; err != nil {
		return AgentConfig{}, fmt.Errorf("reset agent %q: %w", id, dbErr(err))
	}
	return c, nil
}

// DeleteAgentConfig deletes a custom agent; builtins can only be reset.
func (s *Store) DeleteAgentConfig(ctx context.Context, id string) error {
	c, err := s.GetAgentConfig(ctx, id)
	if err != nil {
		return err
	}
	if c.Builtin {
		return conflictf("delete agent %q: builtin agents can be reset, not deleted", id)
	}
	return dbErr(s.db.WithContext(ctx).Delete(&AgentConfig{}, "id = ?", id).Error)
}

// ReorderAgentConfigs sets the display order; ids not listed keep their
// relative order after the listed ones.
func (s *Store) ReorderAgentConfigs(ctx context.Context, ids []string) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var all []AgentConfig
		if err := tx.Order("position, id").Find(&all).Error; err != nil {
			return dbErr(err)
		}
		pos := map[string]int{}
		for i, id := range ids {
			pos[id] = i
		}
		next := len(ids)
		for _, c := range all {
			p, ok := pos[c.ID]
			if !ok {
				p = next
				next++
			}
			if err := tx.Model(&AgentConfig{}).Where("id = ?", c.ID).Update("position", p).Error; err != nil {
				return dbErr(err)
			}
		}
		return nil
	})
}
