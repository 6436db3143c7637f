package profile_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/duet-cli/duet/internal/profile"
)

// A change is made under the file's lock and written whole; a reader sees
// the file before it or after it.
func ExampleStore() {
	dir, err := os.MkdirTemp("", "profiles")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	store := &profile.Store{Path: filepath.Join(dir, profile.FileName)}
	err = store.Update(context.Background(), func(f *profile.File) error {
		f.Profiles["work"] = profile.Profile{Flags: map[string]string{"region": "us-east-1"}}
		f.Default = "work"
		return nil
	})
	if err != nil {
		panic(err)
	}
	f, err := store.Load()
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Names(), f.Default, f.Profiles["work"].Flags["region"])
	// Output: [work] work us-east-1
}
