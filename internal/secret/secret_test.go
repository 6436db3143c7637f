package secret_test

import (
	"strings"
	"testing"

	"github.com/duet-cli/duet/internal/secret"
)

func TestName(t *testing.T) {
	for name, want := range map[string]bool{
		"token": true, "API_TOKEN": true, "client_secret": true, "Password": true, "passwd": true,
		"credentials": true, "Authorization": true, "apikey": true, "api-key": true, "KEY": true, "ssh.key": true,
		"monkey": false, "keys": false, "user": false, "name": false, "": false,
	} {
		if got := secret.Name(name); got != want {
			t.Errorf("Name(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestWordsCover: every name Name calls secret holds one of Words, so a
// text without any of them holds no secret name.
func TestWordsCover(t *testing.T) {
	for _, name := range []string{"token", "x_secret", "PASSWORD", "passwd", "credential", "oauth", "apikey", "api-key", "key"} {
		if !secret.Name(name) {
			t.Fatalf("Name(%q) = false", name)
		}
		lower := strings.ToLower(name)
		found := false
		for w := range secret.Words {
			found = found || strings.Contains(lower, w)
		}
		if !found {
			t.Errorf("%q is secret, but holds none of Words", name)
		}
	}
}
