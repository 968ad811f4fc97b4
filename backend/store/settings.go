package store

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type settingRow struct {
	Key   string `gorm:"column:key;primaryKey"`
	Value string `gorm:"column:value"`
}

func (settingRow) TableName() string { return "settings" }

// GetSetting returns the value stored under key and whether there is one.
func (s *Store) GetSetting(ctx context.Context, key string) (string, bool, error) {
	var r settingRow
	err := s.db.WithContext(ctx).Where("key = ?", key).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("get setting %q: %w", key, dbErr(err))
	}
	return r.Value, true, nil
}

// SetSetting stores value under key, replacing any previous value.
func (s *Store) SetSetting(ctx context.Context, key, value string) error {
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "key"}},
		DoUpdates: clause.AssignmentColumns([]string{"value"}),
	}).Create(&settingRow{Key: key, Value: value}).Error
	if err != nil {
		return fmt.Errorf("set setting %q: %w", key, dbErr(err))
	}
	return nil
}
