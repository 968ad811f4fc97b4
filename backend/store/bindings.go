package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/reprise-dev/reprise/backend/bindings"
)

// bindingRow is the stored form of a bindings.Binding.
type bindingRow struct {
	TerminalID  string     `gorm:"column:terminal_id;primaryKey"`
	AgentID     string     `gorm:"column:agent_id"`
	SessionID   string     `gorm:"column:session_id"`
	Cwd         string     `gorm:"column:cwd"`
	StartedAt   time.Time  `gorm:"column:started_at"`
	LastEventAt time.Time  `gorm:"column:last_event_at"`
	LastEvent   string     `gorm:"column:last_event"`
	Prompted    bool       `gorm:"column:prompted"`
	EndedAt     *time.Time `gorm:"column:ended_at"`
	EndReason   string     `gorm:"column:end_reason"`
	ExitStatus  *int       `gorm:"column:exit_status"`
	Unconfirmed bool       `gorm:"column:session_unconfirmed"`
	Version     int64      `gorm:"column:version"`
}

func (bindingRow) TableName() string { return "bindings" }

func toRow(b bindings.Binding) bindingRow {
	return bindingRow{b.TerminalID, b.AgentID, b.SessionID, b.Cwd, utc(b.StartedAt), utc(b.LastEventAt), b.LastEvent, b.Prompted, utcPtr(b.EndedAt), b.EndReason, b.ExitStatus, b.Unconfirmed, b.Version}
}

func (r bindingRow) binding() bindings.Binding {
	return bindings.Binding{TerminalID: r.TerminalID, AgentID: r.AgentID, SessionID: r.SessionID, Cwd: r.Cwd, StartedAt: r.StartedAt,
		LastEventAt: r.LastEventAt, LastEvent: r.LastEvent, Prompted: r.Prompted, EndedAt: r.EndedAt, EndReason: r.EndReason,
		ExitStatus: r.ExitStatus, Unconfirmed: r.Unconfirmed, Version: r.Version}
}

// GetBinding returns a terminal's binding.
func (s *Store) GetBinding(ctx context.Context, terminalID string) (bindings.Binding, error) {
	var r bindingRow
	if err := s.db.WithContext(ctx).Where("terminal_id = ?", terminalID).Take(&r).Error; err != nil {
		return bindings.Binding{}, fmt.Errorf("binding of %q: %w", terminalID, dbErr(err))
	}
	return r.binding(), nil
}

// ApplyBinding runs decide on a terminal's binding (nil when it has none)
// and stores the result with a compare-and-set on the version, retrying on
// a lost race, so concurrent writers (the app, hooks, sweeps) can never
// produce a state decide did not choose. It returns the stored binding and
// whether anything changed. The agent session history row follows in the
// same transaction.
func (s *Store) ApplyBinding(ctx context.Context, terminalID string, decide func(cur *bindings.Binding) (bindings.Binding, bool)) (bindings.Binding, bool, error) {
	return s.ApplyBindingMarked(ctx, terminalID, nil, decide)
}

// ApplyBindingMarked is ApplyBinding for a relayed hook record: when the
// binding changes, mark (the record's host and name) is recorded in the
// same transaction, so the change and "this record was applied" are
// durable together (RelayApplied). An unchanged binding records nothing;
// the caller marks the record with MarkRelayed once its other effects are
// stored.
func (s *Store) ApplyBindingMarked(ctx context.Context, terminalID string, mark *RelayMark, decide func(cur *bindings.Binding) (bindings.Binding, bool)) (bindings.Binding, bool, error) {
	for attempt := 0; attempt < 20; attempt++ {
		var cur *bindings.Binding
		var r bindingRow
		err := s.db.WithContext(ctx).Where("terminal_id = ?", terminalID).Take(&r).Error
		switch dbErr(err) {
		case nil:
			b := r.binding()
			cur = &b
		case ErrNotFound:
		default:
			return bindings.Binding{}, false, fmt.Errorf("read binding of %q: %w", terminalID, dbErr(err))
		}
		next, changed := decide(cur)
		if !changed {
			if cur == nil {
				return bindings.Binding{}, false, nil
			}
			return *cur, false, nil
		}
		next.TerminalID = terminalID
		err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if cur == nil {
				next.Version = 1
				row := toRow(next)
				if err := tx.Create(&row).Error; err != nil {
					return dbErr(err)
				}
			} else {
				next.Version = cur.Version + 1
				row := toRow(next)
				res := tx.Model(&bindingRow{}).Where("terminal_id = ? AND version = ?", terminalID, cur.Version).
					Select("*").Updates(&row)
				if res.Error != nil {
					return dbErr(res.Error)
				}
				if res.RowsAffected == 0 {
					return ErrConflict
				}
			}
			if err := endLeftSession(tx, cur, next); err != nil {
				return err
			}
			if err := recordSession(tx, next); err != nil {
				return err
			}
			if mark != nil {
				return markRelayed(tx, *mark)
			}
			return nil
		})
		if errors.Is(err, ErrConflict) {
			var fk bool
			if cur == nil {
				// Either a racing insert (retry) or the terminal does not exist.
				var n int64
				s.db.WithContext(ctx).Model(&Terminal{}).Where("id = ?", terminalID).Count(&n)
				fk = n == 0
			}
			if fk {
				return bindings.Binding{}, false, fmt.Errorf("binding of %q: no such terminal: %w", terminalID, ErrNotFound)
			}
			continue
		}
		if err != nil {
			return bindings.Binding{}, false, fmt.Errorf("write binding of %q: %w", terminalID, err)
		}
		return next, true, nil
	}
	return bindings.Binding{}, false, fmt.Errorf("write binding of %q: too much contention: %w", terminalID, ErrConflict)
}

// endLeftSession ends the history row of the session a live binding
// leaves for another (the agent re-captured a new id on /clear, /resume or
// a fork, or another agent's session started in the pane): nothing runs it
// in this terminal any more, yet its row stayed live for ever. It is ended
// `detached` (the pane moved on by itself; no banner), when the new id
// arrived; a row another terminal has taken since is left alone.
func endLeftSession(tx *gorm.DB, cur *bindings.Binding, next bindings.Binding) error {
	if cur == nil || cur.Ended() || cur.SessionID == "" || (cur.SessionID == next.SessionID && cur.AgentID == next.AgentID) {
		return nil
	}
	at := next.LastEventAt
	if at.IsZero() {
		at = time.Now()
	}
	return dbErr(tx.Model(&AgentSession{}).
		Where("agent_id = ? AND session_id = ? AND terminal_id = ? AND end_reason = ''", cur.AgentID, cur.SessionID, cur.TerminalID).
		Updates(map[string]any{"ended_at": utc(at), "end_reason": bindings.Detached}).Error)
}

// recordSession keeps the history row of the binding's agent session. A
// resumed id Reprise never saw becomes history only once the agent
// confirms it (b.Unconfirmed is false again).
func recordSession(tx *gorm.DB, b bindings.Binding) error {
	if b.SessionID == "" || b.AgentID == "" || b.Unconfirmed {
		return nil
	}
	now := b.LastEventAt
	if now.IsZero() {
		now = time.Now()
	}
	row := AgentSession{AgentID: b.AgentID, SessionID: b.SessionID, Cwd: b.Cwd, TerminalID: b.TerminalID,
		FirstSeenAt: utc(now), LastActivityAt: utc(now), EndedAt: utcPtr(b.EndedAt), EndReason: b.EndReason}
	if b.Prompted {
		row.FirstPromptAt = utcPtr(&now)
	}
	return dbErr(tx.Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "agent_id"}, {Name: "session_id"}},
		DoUpdates: clause.Set{
			{Column: clause.Column{Name: "cwd"}, Value: gorm.Expr("CASE WHEN excluded.cwd <> '' THEN excluded.cwd ELSE agent_sessions.cwd END")},
			{Column: clause.Column{Name: "terminal_id"}, Value: gorm.Expr("excluded.terminal_id")},
			{Column: clause.Column{Name: "first_prompt_at"}, Value: gorm.Expr("COALESCE(agent_sessions.first_prompt_at, excluded.first_prompt_at)")},
			{Column: clause.Column{Name: "last_activity_at"}, Value: gorm.Expr("MAX(agent_sessions.last_activity_at, excluded.last_activity_at)")},
			{Column: clause.Column{Name: "ended_at"}, Value: gorm.Expr("excluded.ended_at")},
			{Column: clause.Column{Name: "end_reason"}, Value: gorm.Expr("excluded.end_reason")},
		},
	}).Create(&row).Error)
}

// ListBindings returns bindings, optionally only those with one of the
// given end reasons ("" = live).
func (s *Store) ListBindings(ctx context.Context, reasons ...string) ([]bindings.Binding, error) {
	q := s.db.WithContext(ctx).Order("started_at")
	if len(reasons) > 0 {
		q = q.Where("end_reason IN ?", reasons)
	}
	var rows []bindingRow
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list bindings: %w", dbErr(err))
	}
	out := make([]bindings.Binding, len(rows))
	for i, r := range rows {
		out[i] = r.binding()
	}
	return out, nil
}

// AgentSession is the history of one agent session: every session ever
// seen stays listed, so any past conversation can be resumed on demand.
type AgentSession struct {
	AgentID        string     `gorm:"column:agent_id;primaryKey" json:"agentId"`
	SessionID      string     `gorm:"column:session_id;primaryKey" json:"sessionId"`
	Cwd            string     `gorm:"column:cwd" json:"cwd"`
	TerminalID     string     `gorm:"column:terminal_id" json:"terminalId"`
	FirstSeenAt    time.Time  `gorm:"column:first_seen_at" json:"firstSeenAt"`
	FirstPromptAt  *time.Time `gorm:"column:first_prompt_at" json:"firstPromptAt,omitempty"`
	LastActivityAt time.Time  `gorm:"column:last_activity_at" json:"lastActivityAt"`
	EndedAt        *time.Time `gorm:"column:ended_at" json:"endedAt,omitempty"`
	EndReason      string     `gorm:"column:end_reason" json:"endReason"`
	LastOutcome    string     `gorm:"column:last_outcome" json:"lastOutcome,omitempty"`
	// LastOutcomeDetail says why, e.g. the launch's error or the agent's words.
	LastOutcomeDetail string `gorm:"column:last_outcome_detail" json:"lastOutcomeDetail,omitempty"`
	// FirstPrompt is the text of the session's first prompt, as a hook reported it.
	FirstPrompt string `gorm:"column:first_prompt" json:"firstPrompt,omitempty"`
}

func (AgentSession) TableName() string { return "agent_sessions" }

// ListAgentSessions returns sessions newest first; query filters on agent,
// session id, cwd or first prompt (substring, case-insensitive); limit ≤ 0
// means all.
func (s *Store) ListAgentSessions(ctx context.Context, query string, limit int) ([]AgentSession, error) {
	q := s.db.WithContext(ctx).Order("last_activity_at DESC")
	if query = strings.TrimSpace(query); query != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(query)) + "%"
		q = q.Where(`lower(agent_id) LIKE ? ESCAPE '\' OR lower(session_id) LIKE ? ESCAPE '\' OR lower(cwd) LIKE ? ESCAPE '\' OR lower(first_prompt) LIKE ? ESCAPE '\'`, like, like, like, like)
	}
	if limit > 0 {
		q = q.Limit(limit)
	}
	var out []AgentSession
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list agent sessions: %w", dbErr(err))
	}
	return out, nil
}

// GetAgentSession returns one session's history row.
func (s *Store) GetAgentSession(ctx context.Context, agentID, sessionID string) (AgentSession, error) {
	var r AgentSession
	if err := s.db.WithContext(ctx).Where("agent_id = ? AND session_id = ?", agentID, sessionID).Take(&r).Error; err != nil {
		return AgentSession{}, fmt.Errorf("session %s/%s: %w", agentID, sessionID, dbErr(err))
	}
	return r, nil
}

// SetFirstPrompt records the text of a session's first prompt; a session
// that already has one keeps it (later prompts do not replace it).
func (s *Store) SetFirstPrompt(ctx context.Context, agentID, sessionID, text string) error {
	if text == "" {
		return nil
	}
	return dbErr(s.db.WithContext(ctx).Model(&AgentSession{}).
		Where("agent_id = ? AND session_id = ? AND first_prompt = ''", agentID, sessionID).
		Update("first_prompt", text).Error)
}

// SetSessionOutcome records what the last resume of a session led to, and
// why (detail may be empty).
func (s *Store) SetSessionOutcome(ctx context.Context, agentID, sessionID, outcome, detail string) error {
	return dbErr(s.db.WithContext(ctx).Model(&AgentSession{}).Where("agent_id = ? AND session_id = ?", agentID, sessionID).
		Updates(map[string]any{"last_outcome": outcome, "last_outcome_detail": detail}).Error)
}

// Outcome is what a resume led to, kept on the relaunched terminal's binding.
type Outcome struct {
	ResumeOf string     `json:"resumeOf"` // the session id the resume asked for
	Outcome  string     `json:"outcome"`  // resuming, resumed, fresh, failed, unconfirmed
	Detail   string     `json:"detail,omitempty"`
	At       *time.Time `json:"at,omitempty"`
}

type outcomeRow struct {
	TerminalID    string     `gorm:"column:terminal_id;primaryKey"`
	ResumeOf      string     `gorm:"column:resume_of"`
	Outcome       string     `gorm:"column:outcome"`
	OutcomeDetail string     `gorm:"column:outcome_detail"`
	OutcomeAt     *time.Time `gorm:"column:outcome_at"`
}

func (outcomeRow) TableName() string { return "bindings" }

// SetOutcome records a resume outcome on a terminal's binding. With from
// set, it only replaces an outcome currently equal to from (so a late
// "resuming" never overwrites a confirmation), and reports whether it did.
func (s *Store) SetOutcome(ctx context.Context, terminalID string, o Outcome, from ...string) (bool, error) {
	q := s.db.WithContext(ctx).Model(&outcomeRow{}).Where("terminal_id = ?", terminalID)
	if len(from) > 0 {
		q = q.Where("outcome IN ?", from)
	}
	at := time.Now().UTC()
	if o.At != nil {
		at = utc(*o.At)
	}
	upd := map[string]any{"outcome": o.Outcome, "outcome_detail": o.Detail, "outcome_at": at}
	if o.ResumeOf != "" {
		upd["resume_of"] = o.ResumeOf
	}
	res := q.Updates(upd)
	if res.Error != nil {
		return false, fmt.Errorf("set outcome of %q: %w", terminalID, dbErr(res.Error))
	}
	return res.RowsAffected > 0, nil
}

// GetOutcome returns a terminal's resume outcome (empty when none).
func (s *Store) GetOutcome(ctx context.Context, terminalID string) (Outcome, error) {
	var r outcomeRow
	if err := s.db.WithContext(ctx).Where("terminal_id = ?", terminalID).Take(&r).Error; err != nil {
		return Outcome{}, fmt.Errorf("outcome of %q: %w", terminalID, dbErr(err))
	}
	return Outcome{ResumeOf: r.ResumeOf, Outcome: r.Outcome, Detail: r.OutcomeDetail, At: r.OutcomeAt}, nil
}

// ForgetSession deletes a session's history row; the caller removes logs.
func (s *Store) ForgetSession(ctx context.Context, agentID, sessionID string) error {
	res := s.db.WithContext(ctx).Where("agent_id = ? AND session_id = ?", agentID, sessionID).Delete(&AgentSession{})
	if res.Error != nil {
		return fmt.Errorf("forget session: %w", dbErr(res.Error))
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("forget session %s/%s: %w", agentID, sessionID, ErrNotFound)
	}
	return nil
}

// PruneSessions deletes history rows whose last activity is before cutoff
// and which are not live.
func (s *Store) PruneSessions(ctx context.Context, cutoff time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("last_activity_at < ? AND end_reason <> ''", utc(cutoff)).Delete(&AgentSession{})
	return res.RowsAffected, dbErr(res.Error)
}

// TerminalRestoredFrom returns the terminal that was cold-respawned from id
// (the one now showing its old output), if any.
func (s *Store) TerminalRestoredFrom(ctx context.Context, id string) (Terminal, error) {
	var t Terminal
	err := terminalsWithPane(s.db.WithContext(ctx)).Where("terminals.restored_from = ?", id).Order("terminals.created_at DESC").Take(&t).Error
	if err != nil {
		return Terminal{}, fmt.Errorf("terminal restored from %q: %w", id, dbErr(err))
	}
	return t, nil
}

// SetTranscript records where the agent keeps a binding's conversation.
func (s *Store) SetTranscript(ctx context.Context, terminalID, path string) error {
	return dbErr(s.db.WithContext(ctx).Table("bindings").Where("terminal_id = ? AND transcript <> ?", terminalID, path).
		Update("transcript", path).Error)
}

// Transcript returns where the agent said it keeps a binding's conversation.
func (s *Store) Transcript(ctx context.Context, terminalID string) (string, error) {
	var p string
	err := s.db.WithContext(ctx).Table("bindings").Select("transcript").Where("terminal_id = ?", terminalID).Scan(&p).Error
	return p, dbErr(err)
}

// Activity is the last thing a binding's hooks said about the agent's turn.
type Activity struct {
	Activity string
	At       time.Time
}

// SetActivity records a binding's latest activity. Hook events are applied
// in arrival order (the inbox drains in file-name order, one at a time), so
// the last write is the latest activity.
func (s *Store) SetActivity(ctx context.Context, terminalID, activity string, at time.Time) error {
	return dbErr(s.db.WithContext(ctx).Table("bindings").Where("terminal_id = ?", terminalID).
		Updates(map[string]any{"activity": activity, "activity_at": utc(at)}).Error)
}

// Activities returns every binding's latest activity, by terminal id.
func (s *Store) Activities(ctx context.Context) (map[string]Activity, error) {
	var rows []struct {
		TerminalID string
		Activity   string
		ActivityAt *time.Time
	}
	if err := s.db.WithContext(ctx).Table("bindings").Select("terminal_id, activity, activity_at").
		Where("activity_at IS NOT NULL").Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list binding activities: %w", dbErr(err))
	}
	out := make(map[string]Activity, len(rows))
	for _, r := range rows {
		out[r.TerminalID] = Activity{Activity: r.Activity, At: *r.ActivityAt}
	}
	return out, nil
}

// ActivityOf returns one binding's latest activity (zero when none).
func (s *Store) ActivityOf(ctx context.Context, terminalID string) (Activity, error) {
	var row struct {
		Activity   string
		ActivityAt *time.Time
	}
	if err := s.db.WithContext(ctx).Table("bindings").Select("activity, activity_at").
		Where("terminal_id = ?", terminalID).Scan(&row).Error; err != nil {
		return Activity{}, fmt.Errorf("activity of %q: %w", terminalID, dbErr(err))
	}
	if row.ActivityAt == nil {
		return Activity{}, nil
	}
	return Activity{Activity: row.Activity, At: *row.ActivityAt}, nil
}
